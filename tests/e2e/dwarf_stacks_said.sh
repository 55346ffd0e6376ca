#!/bin/bash
# Stacks recorded with --call-graph dwarf (a copy of the user stack and its
# registers per sample) are not unwound yet: every command that shows stacks
# says so once, with how many samples it concerns, instead of a silent
# one-frame graph; hwprof record --call-graph dwarf says it when asked for
# it. A frame-pointer recording says nothing of the kind.
set -u
HWPROF=${HWPROF:-build/hwprof}
if ! command -v gcc >/dev/null 2>&1 || ! command -v perf >/dev/null 2>&1; then
	echo "PLAN 1"
	echo "SKIP dwarf_stacks_said: needs gcc and perf"
	exit 0
fi
echo "PLAN 5"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/w.c" <<'C'
#include <stdlib.h>
volatile long sink;
__attribute__((noinline)) long leaf(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i % 7; return s; }
__attribute__((noinline)) long mid(long n) { return leaf(n) + leaf(n / 2); }
int main(void) { for (int k = 0; k < 3; k++) sink += mid(20000000); return 0; }
C
gcc -O2 -g -fomit-frame-pointer -o "$tmp/w" "$tmp/w.c"
gcc -O2 -g -fno-omit-frame-pointer -o "$tmp/wfp" "$tmp/w.c"
if ! perf record -q -e cpu-clock --call-graph dwarf -o "$tmp/dw.data" "$tmp/w" >/dev/null 2>"$tmp/rec.err" ||
	! perf record -q -e cpu-clock -g -o "$tmp/fp.data" "$tmp/wfp" >/dev/null 2>>"$tmp/rec.err"; then
	for t in callgraph flame report_html record no_warning_fp; do
		echo "SKIP dwarf_said_$t: perf cannot record cpu-clock here: $(head -1 "$tmp/rec.err")"
	done
	exit 0
fi
samples=$(perf script -i "$tmp/dw.data" -F time -G 2>/dev/null | grep -c .)

# one warning naming the samples concerned (all of them), exit 0
said() {
	local name=$1
	shift
	if "$HWPROF" "$@" >"$tmp/out" 2>"$tmp/err" &&
		[ "$(grep -c 'carry a user stack to unwind' "$tmp/err")" = 1 ] &&
		grep -q ": $samples of $samples samples carry a user stack" "$tmp/err" && [ -s "$tmp/out" ]; then
		echo "PASS dwarf_said_$name: $samples of $samples samples said, once"
	else
		echo "FAIL dwarf_said_$name: $samples samples; stderr: $(head -3 "$tmp/err" | tr '\n' ' ')"
	fi
}
said callgraph callgraph -i "$tmp/dw.data"
said flame flame --folded -i "$tmp/dw.data"

# report --html: the page says it where the flame graph would be (this
# recording has no branch stacks: the page needs some, so it is checked on
# the flame graph's own text through the library's call graph; skipped if
# report refuses the recording)
if "$HWPROF" report --html "$tmp/r.html" -i "$tmp/dw.data" 2>"$tmp/err"; then
	if grep -q 'Flame graph' "$tmp/r.html" && ! grep -q 'not unwound yet' "$tmp/r.html"; then
		echo "FAIL dwarf_said_report_html: the page shows a flame graph without saying the stacks are not unwound"
	else
		echo "PASS dwarf_said_report_html: no unexplained one-frame flame graph"
	fi
else
	echo "PASS dwarf_said_report_html: report refuses it with one line: $(head -1 "$tmp/err")"
fi

# record: said when asked for dwarf, not for fp
if "$HWPROF" record --print-attr --call-graph dwarf,4096 -- true >/dev/null 2>"$tmp/err" &&
	grep -q 'do not unwind DWARF stacks yet' "$tmp/err" &&
	"$HWPROF" record --print-attr --call-graph fp -- true >/dev/null 2>"$tmp/err2" && ! grep -q 'DWARF' "$tmp/err2"; then
	echo "PASS dwarf_said_record: --call-graph dwarf warns, fp does not"
else
	echo "FAIL dwarf_said_record: $(head -2 "$tmp/err" "$tmp/err2" | tr '\n' ' ')"
fi

if "$HWPROF" callgraph -i "$tmp/fp.data" >/dev/null 2>"$tmp/err" && ! grep -q 'unwind' "$tmp/err"; then
	echo "PASS dwarf_said_no_warning_fp: a frame-pointer recording is not warned about"
else
	echo "FAIL dwarf_said_no_warning_fp: $(head -2 "$tmp/err" | tr '\n' ' ')"
fi
