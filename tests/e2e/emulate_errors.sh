#!/bin/bash
# hwprof record --emulate when things go wrong: no qemu, a program that is
# not an x86-64 ELF, an unwritable output, kernel-only filters; a program that
# crashes, aborts or is killed (SIGTERM to hwprof, SIGKILL to qemu): one clear
# line each, and whatever was recorded is still a file perf reads.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where emulated recording cannot run
ready=$(emu_ready emulate_errors) || { echo "PLAN 1"; echo "$ready"; exit 0; }
echo "PLAN 20"
have_perf=1
command -v perf >/dev/null || have_perf=0

# one_line NAME PATTERN: the command failed, with one "hwprof: " line matching PATTERN
one_line() {
	local name=$1 pat=$2 rc=$3 err=$4 n
	n=$(grep -c '^hwprof: ' "$err")
	if [ "$rc" -ne 0 ] && [ "$n" -eq 1 ] && grep -q "^hwprof: .*$pat" "$err"; then
		pass "$name ($(grep '^hwprof: ' "$err"))"
	else
		fail "$name: rc $rc, want one line matching '$pat', got: $(tr '\n' '|' <"$err")"
	fi
}
# readable NAME DATA FUNC: perf reads DATA and its samples show FUNC
readable() {
	local name=$1 data=$2 func=$3 n
	[ $have_perf = 1 ] || { skip "$name: perf not installed"; return; }
	n=$(perf script -i "$data" -F ip,sym 2>"$tmp/readable.err" | grep -c " $func\$")
	if [ "${PIPESTATUS[0]}" = 0 ] && [ "$n" -gt 0 ]; then
		pass "$name (perf reads it: $n samples in $func)"
	else
		fail "$name: perf script: $n samples in $func; $(head -1 "$tmp/readable.err")"
	fi
}

HWPROF_QEMU=/nonexistent/qemu-x86_64 "$HWPROF" record --emulate -o "$tmp/nq.data" -- /bin/true \
	>/dev/null 2>"$tmp/nq.err"
one_line emulate_no_qemu "install qemu-user" $? "$tmp/nq.err"
[ ! -e "$tmp/nq.data" ] && pass "emulate_no_qemu_no_file" || fail "emulate_no_qemu_no_file: output created"

# a script runs under its interpreter (emulate_exec.sh); one whose
# interpreter does not exist cannot
printf '#!/nonexistent/hwprof-interp -x\ntrue\n' >"$tmp/script.sh"
chmod +x "$tmp/script.sh"
"$HWPROF" record --emulate -o "$tmp/x.data" -- "$tmp/script.sh" >/dev/null 2>"$tmp/sc.err"
one_line emulate_script "interpreter /nonexistent/hwprof-interp: No such file" $? "$tmp/sc.err"
echo "hello" >"$tmp/text"
chmod +x "$tmp/text"
"$HWPROF" record --emulate -o "$tmp/x.data" -- "$tmp/text" >/dev/null 2>"$tmp/tx.err"
one_line emulate_not_elf "not an ELF executable" $? "$tmp/tx.err"
# an AArch64 ELF header
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\002\000\267\000' >"$tmp/arm"
head -c 46 /dev/zero >>"$tmp/arm"
chmod +x "$tmp/arm"
"$HWPROF" record --emulate -o "$tmp/x.data" -- "$tmp/arm" >/dev/null 2>"$tmp/arm.err"
one_line emulate_other_arch "AArch64, not x86-64" $? "$tmp/arm.err"
"$HWPROF" record --emulate -o "$tmp/x.data" -- no-such-program-hwprof >/dev/null 2>"$tmp/nf.err"
one_line emulate_not_found "command not found" $? "$tmp/nf.err"
"$HWPROF" record --emulate -o "$tmp/no/such/dir/perf.data" -- /usr/bin/touch "$tmp/ran" \
	>/dev/null 2>"$tmp/uw.err"
one_line emulate_unwritable "cannot" $? "$tmp/uw.err"
[ ! -e "$tmp/ran" ] && pass "emulate_unwritable_not_run" ||
	fail "emulate_unwritable_not_run: the program ran although the output cannot be written"
"$HWPROF" record --emulate -j any,k -o "$tmp/k.data" -- /bin/true >/dev/null 2>"$tmp/k.err"
one_line emulate_kernel_only "user-space branches only" $? "$tmp/k.err"

emu_build crash || exit 0
for how in segv:11 abort:6; do
	mode=${how%:*} sig=${how#*:}
	emu_record $mode -c 997 -- "$tmp/crash" $mode
	one_line emulate_crash_$mode "killed by signal $sig" $? "$tmp/$mode.err"
	readable emulate_crash_${mode}_file "$tmp/$mode.data" work
done

# SIGTERM to hwprof: forwarded to the program, the recording is written
"$HWPROF" record --emulate -c 997 -o "$tmp/term.data" -- "$tmp/crash" spin >/dev/null 2>"$tmp/term.err" &
hw=$!
sleep 2
kill -TERM $hw
wait $hw
one_line emulate_sigterm "killed by signal 15" $? "$tmp/term.err"
readable emulate_sigterm_file "$tmp/term.data" work

# SIGKILL to qemu itself: nothing runs at exit, what was written survives
"$HWPROF" record --emulate -c 997 -o "$tmp/kill.data" -- "$tmp/crash" spin >/dev/null 2>"$tmp/kill.err" &
hw=$!
sleep 2
q=$(pgrep -P $hw | head -1)
[ -n "$q" ] && kill -KILL "$q"
wait $hw
one_line emulate_sigkill "killed by signal 9" $? "$tmp/kill.err"
readable emulate_sigkill_file "$tmp/kill.data" work

# a non-zero exit: a warning, and hwprof exits with PROG's status
"$HWPROF" record --emulate -o "$tmp/false.data" -- /bin/false >/dev/null 2>"$tmp/false.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "exited with status 1" "$tmp/false.err" && [ -s "$tmp/false.data" ]; then
	pass "emulate_exit_status (warned, exit status 1, file written)"
else
	fail "emulate_exit_status: rc $rc: $(tr '\n' '|' <"$tmp/false.err")"
fi
# a shell's commands are followed: nothing said (emulate_exec.sh checks
# what they record)
"$HWPROF" record --emulate -o "$tmp/exec.data" -- /bin/sh -c '/bin/true; exit 0' >/dev/null 2>"$tmp/exec.err"
rc=$?
if [ $rc -eq 0 ] && ! grep -q "^hwprof: " "$tmp/exec.err"; then
	pass "emulate_exec_quiet"
else
	fail "emulate_exec_quiet: rc $rc: $(tr '\n' '|' <"$tmp/exec.err")"
fi
# -o - to a pipe: refused before running, in one line, nothing written
"$HWPROF" record --emulate -o - -- /bin/true 2>"$tmp/pipe.err" | cat >"$tmp/pipe.out"
one_line emulate_stdout_pipe "not seekable" "${PIPESTATUS[0]}" "$tmp/pipe.err"
