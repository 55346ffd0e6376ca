#!/bin/bash
# hwprof record --emulate's progress line: on a terminal (a pty from
# script(1)) a recording longer than a second shows "elapsed, samples, taken
# branches" redrawn in place with \r, at most a few times a second, and
# clears it before the summary; with stderr not a terminal, stderr holds only
# the summary line; with -q no progress line even on a terminal.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 2 without script(1) (the non-terminal check and a SKIP); 1 (the
# SKIP) where emulated recording cannot run
ready=$(emu_ready emulate_progress) || { echo "PLAN 1"; echo "$ready"; exit 0; }
if command -v script >/dev/null; then echo "PLAN 3"; else echo "PLAN 2"; fi
emu_build cpu || exit 0
bin=$tmp/cpu
args=(branchy 600) # about 2 s emulated

# --- not a terminal: no progress line, no \r
if emu_record plain -- "$bin" "${args[@]}"; then
	if grep -q $'\r' "$tmp/plain.err" || grep -q ' s, [0-9]* samples' "$tmp/plain.err"; then
		fail "emulate_progress_not_tty: progress on a non-terminal stderr: $(head -c 200 "$tmp/plain.err" | cat -A)"
	elif [ "$(grep -c . "$tmp/plain.err")" -ne 1 ] || ! grep -q '^\[ hwprof record: Captured and wrote' "$tmp/plain.err"; then
		fail "emulate_progress_not_tty: stderr is not just the summary: $(cat -A "$tmp/plain.err" | head -3)"
	else
		pass "emulate_progress_not_tty (stderr: the summary line only)"
	fi
else
	fail "emulate_progress_not_tty: record failed: $(head -1 "$tmp/plain.err")"
fi

# --- a terminal
if ! command -v script >/dev/null; then
	skip "emulate_progress_tty: script(1) not installed (bsdutils)"
	exit 0
fi
start=$(date +%s.%N)
script -qec "'$HWPROF' record --emulate -o '$tmp/tty.data' -- '$bin' ${args[*]} >/dev/null" \
	"$tmp/tty.log" >/dev/null 2>&1 </dev/null
rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
if [ $rc -ne 0 ]; then
	fail "emulate_progress_tty: record under script(1) exited $rc: $(tail -3 "$tmp/tty.log")"
	exit 0
fi
# one progress line per \r-separated field: "[ hwprof record: 1.2 s, N samples, X taken branches ]"
tr '\r' '\n' <"$tmp/tty.log" >"$tmp/tty.lines"
lines=$(grep -cE '^\[ hwprof record: [0-9]+\.[0-9] s, [0-9]+ samples, [0-9.]+( M)? taken branches \]' "$tmp/tty.lines")
first=$(grep -m1 -oE '^\[ hwprof record: [0-9]+\.[0-9] s' "$tmp/tty.lines" | grep -oE '[0-9]+\.[0-9]')
last_samples=$(grep -oE ' s, [0-9]+ samples' "$tmp/tty.lines" | tail -1 | grep -oE '[0-9]+')
max=$(awk -v s="$secs" 'BEGIN { printf "%d", s * 5 + 1 }')
if [ "$lines" -lt 1 ]; then
	fail "emulate_progress_tty: no progress line in $secs s: $(head -c 300 "$tmp/tty.log" | cat -A)"
elif [ "$lines" -gt "$max" ]; then
	fail "emulate_progress_tty: $lines redraws in $secs s (more than 4 a second)"
elif awk -v f="$first" 'BEGIN { exit !(f < 1.0) }'; then
	fail "emulate_progress_tty: the line appeared at $first s (before one second)"
elif [ -z "$last_samples" ] || [ "$last_samples" -eq 0 ]; then
	fail "emulate_progress_tty: the sample count did not move"
# cleared: blanks, then the summary starts at column 0
elif ! grep -qE $'\r +\r\\[ hwprof record: Captured and wrote' "$tmp/tty.log"; then
	fail "emulate_progress_tty: the line is not cleared before the summary: $(tail -c 300 "$tmp/tty.log" | cat -A)"
else
	pass "emulate_progress_tty ($lines redraws in $(printf %.1f "$secs") s, first at $first s, cleared)"
fi

# --- -q: no progress line on a terminal either (only errors are printed)
script -qec "'$HWPROF' record --emulate -q -o '$tmp/q.data' -- '$bin' ${args[*]} >/dev/null" \
	"$tmp/q.log" >/dev/null 2>&1 </dev/null
rc=$?
if [ $rc -ne 0 ]; then
	fail "emulate_progress_quiet: record -q under script(1) exited $rc: $(tail -3 "$tmp/q.log")"
elif grep -q ' s, [0-9]* samples' "$tmp/q.log"; then
	fail "emulate_progress_quiet: progress line with -q: $(head -c 200 "$tmp/q.log" | cat -A)"
elif grep -q 'Captured and wrote' "$tmp/q.log"; then
	fail "emulate_progress_quiet: summary line with -q (perf record -q prints none)"
else
	pass "emulate_progress_quiet (no progress nor summary line with -q)"
fi
