#!/bin/bash
# hwprof record --emulate follows exec as perf record follows a process tree:
# programs started by a shell, a script (#!), a chain of execs, execvp's PATH
# search, a Python driver and make are recorded, dynamic and static ones;
# exact counts equal the fixtures' analytic counts, every image's samples
# carry its own pid and name (perf reads them); an exec that fails still
# fails in the program, and one that is not followed (a memfd, a
# set-user-ID program) is said.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where emulated recording cannot run
ready=$(emu_ready emulate_exec) || { echo "PLAN 1"; echo "$ready"; exit 0; }
echo "PLAN 19"
have_perf=1
command -v perf >/dev/null || have_perf=0

gcc $EMU_CFLAGS -o "$tmp/exec_dyn" "$root/tests/fixtures/emu_exec.c" 2>"$tmp/gcc.err" &&
	gcc $EMU_CFLAGS -static -o "$tmp/exec_static" "$root/tests/fixtures/emu_exec.c" \
		2>>"$tmp/gcc.err" || {
	for i in $(seq 19); do echo "FAIL emulate_exec_build_$i: $(head -1 "$tmp/gcc.err")"; done
	exit 0
}
dyn=$tmp/exec_dyn
st=$tmp/exec_static
printf '#!/bin/sh -e\nexec "$@"\n' >"$tmp/run.sh"
chmod +x "$tmp/run.sh"

# recorded NAME OUT N: the recording OUT succeeded with no "not followed"
# warning; else N FAIL lines (the checks that depend on it)
recorded() {
	local name=$1 out=$2 n=$3 rc=$4
	if [ "$rc" -eq 0 ] && ! grep -q "not followed" "$tmp/$out.err"; then
		return 0
	fi
	for i in $(seq "$n"); do
		echo "FAIL $name: record rc $rc: $(tr '\n' '|' <"$tmp/$out.err")"
	done
	return 1
}
# perf_has NAME DATA PATTERN...: perf script's "comm pid ip sym" lines of DATA
# (and its COMM records) match every PATTERN (grep -E)
perf_has() {
	local name=$1 data=$2 p
	shift 2
	[ $have_perf = 1 ] || { skip "$name: perf not installed"; return; }
	perf script -i "$data" --show-task-events -F comm,pid,ip,sym 2>/dev/null >"$tmp/ps.txt"
	for p in "$@"; do
		if ! grep -Eq "$p" "$tmp/ps.txt"; then
			fail "$name: perf script has no line matching '$p'"
			return
		fi
	done
	pass "$name"
}

# --- a shell running a dynamic and a static program (and the first again)
emu_record sh --exact "$tmp/sh.exact" -c 499 -- /bin/sh -c "$dyn 3000; $st 2000; $dyn 1000"
if recorded emulate_exec_shell sh 6 $?; then
	pass "emulate_exec_shell (no exec left unrecorded)"
	exact emulate_exec_shell_dynamic "$tmp/sh.exact" "$dyn" "work:has:cond:4000:3998|2" \
		"every_3rd:ret:1334:1334"
	exact emulate_exec_shell_static "$tmp/sh.exact" "$st" "work:has:cond:2000:1999|1" \
		"every_3rd:ret:667:667"
	# each image under its own name, its samples symbolized in its own binary
	perf_has emulate_exec_shell_names "$tmp/sh.data" "COMM exec: exec_dyn:" \
		"COMM exec: exec_static:" "^ *exec_dyn +[0-9]+ +[0-9a-f]+ work$" \
		"^ *exec_static +[0-9]+ +[0-9a-f]+ work$"
fi

# --- a chain of execs with no shell: one pid, three images
emu_record ch --exact "$tmp/ch.exact" -c 499 -- "$dyn" 1000 "$st" 1000 "$dyn" 1000
if recorded emulate_exec_chain ch 3 $?; then
	exact emulate_exec_chain "$tmp/ch.exact" "$dyn" "work:has:cond:2000:1998|2"
	if [ $have_perf = 1 ]; then
		np=$(perf script -i "$tmp/ch.data" -F pid 2>/dev/null | sort -u | wc -l)
		ne=$(perf script -i "$tmp/ch.data" --show-task-events 2>/dev/null | grep -c "COMM exec")
		[ "$np" -eq 1 ] && [ "$ne" -eq 3 ] &&
			pass "emulate_exec_chain_pid (one pid, $ne COMM exec records)" ||
			fail "emulate_exec_chain_pid: $np pids in samples (want 1), $ne COMM exec (want 3)"
	else
		skip "emulate_exec_chain_pid: perf not installed"
	fi
	# hwprof reads it too: the static image's loop among its branches
	if "$HWPROF" branches -i "$tmp/ch.data" --dso exec_static 2>"$tmp/br.err" |
		grep -Eq "exec_static +\[\.\] work +exec_static +\[\.\] work"; then
		pass "emulate_exec_chain_hwprof (work in exec_static among the branches)"
	else
		fail "emulate_exec_chain_hwprof: no exec_static work row: $(head -1 "$tmp/br.err")"
	fi
fi

# --- a script (#! with an argument) as the command
emu_record sc --exact "$tmp/sc.exact" -c 499 -- "$tmp/run.sh" "$dyn" 1500
if recorded emulate_exec_script sc 2 $?; then
	exact emulate_exec_script "$tmp/sc.exact" "$dyn" "work:has:cond:1500:1499|1"
	perf_has emulate_exec_script_name "$tmp/sc.data" "COMM exec: run.sh:" "COMM exec: exec_dyn:"
fi

# --- execvp's PATH search: the entries before the right one fail natively
emu_record ps --exact "$tmp/ps.exact" -c 499 -- /usr/bin/env PATH="/nonexistent-hwprof:$tmp" \
	exec_dyn 1200
if recorded emulate_exec_path_search ps 1 $?; then
	exact emulate_exec_path_search "$tmp/ps.exact" "$dyn" "work:has:cond:1200:1199|1"
fi

# --- a failed exec fails in the program, which goes on
emu_record nf -- /bin/sh -c 'no-such-command-hwprof 2>/dev/null; echo after=$?'
rc=$?
if [ $rc -eq 0 ] && grep -qx "after=127" "$tmp/nf.out"; then
	pass "emulate_exec_failed (the shell saw 127 and went on)"
else
	fail "emulate_exec_failed: rc $rc, stdout: $(tr '\n' '|' <"$tmp/nf.out")"
fi

# --- a Python driver (subprocess) and make
if command -v python3 >/dev/null; then
	emu_record py --exact "$tmp/py.exact" -c 499 -- python3 -c \
		'import subprocess, sys; subprocess.run([sys.argv[1], "900"], check=True)' "$st"
	recorded emulate_exec_python py 1 $? &&
		exact emulate_exec_python "$tmp/py.exact" "$st" "work:has:cond:900:899|1"
else
	skip "emulate_exec_python: python3 not installed"
fi
if command -v make >/dev/null; then
	printf 'all:\n\t$(P) 800\n' >"$tmp/mk"
	emu_record mk --exact "$tmp/mk.exact" -c 499 -- make -s -f "$tmp/mk" P="$st"
	recorded emulate_exec_make mk 1 $? &&
		exact emulate_exec_make "$tmp/mk.exact" "$st" "work:has:cond:800:799|1"
else
	skip "emulate_exec_make: make not installed"
fi

# --- fexecve: followed through the descriptor's path
emu_record fe --exact "$tmp/fe.exact" -c 499 -- "$dyn" 100 --fexecve "$st" 700
if recorded emulate_exec_fexecve fe 1 $?; then
	exact emulate_exec_fexecve "$tmp/fe.exact" "$st" "work:has:cond:700:699|1"
fi

# --- an image with no path (a memfd) is not followed: said once; it ran
# natively, so none of its branches are counted
emu_record fx --exact "$tmp/fx.exact" -c 499 -- "$dyn" 100 --memfd "$st" 100
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c "1 exec under .* not followed" "$tmp/fx.err")" -eq 1 ]; then
	pass "emulate_exec_not_followed ($(grep -o '1 exec.*followed' "$tmp/fx.err"))"
else
	fail "emulate_exec_not_followed: rc $rc: $(tr '\n' '|' <"$tmp/fx.err")"
fi
EMU_TEST_NAME=emulate_exec_not_followed_counts python3 "$tools/emu_exact.py" expect \
	"$tmp/fx.exact" "$st" "work:sites:cond:0"

# --- a set-user-ID program (of another user): the kernel would give it that
# user's rights, QEMU would not; it runs natively, said
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	cp "$st" "$tmp/suid_static" && chown nobody "$tmp/suid_static" && chmod 4755 "$tmp/suid_static"
	emu_record su -- "$dyn" 100 "$tmp/suid_static" 100
	rc=$?
	if [ $rc -eq 0 ] && grep -q "1 exec under .* not followed" "$tmp/su.err"; then
		pass "emulate_exec_setuid (run natively, said)"
	else
		fail "emulate_exec_setuid: rc $rc: $(tr '\n' '|' <"$tmp/su.err")"
	fi
else
	skip "emulate_exec_setuid: needs root and a user nobody to make a set-user-ID file"
fi
