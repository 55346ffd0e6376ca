#!/bin/bash
# User stacks recorded to be unwound (--call-graph dwarf) that cannot be
# unwound to their end are said once, with how many samples and what to
# record or give instead, by every command that shows stacks; never a
# silent one-frame graph. A recording unwound to the end, and a
# frame-pointer one, are not warned about.
#   - binaries missing (an empty --symfs): every stack stops at its first
#     frame, said with the binary's name;
#   - a stack copy too small (--call-graph dwarf,256): said with a larger
#     size to record;
#   - registers without a stack copy (perf record --user-regs): said with
#     --call-graph dwarf to record;
#   - record --call-graph dwarf no longer warns that reports do not unwind,
#     and hwprof's own recording (-e cpu-clock: no PMU needed) unwinds to
#     main; record --emulate --call-graph dwarf is refused in one line.
set -u
HWPROF=${HWPROF:-build/hwprof}
NAMES=(dwarf_said_missing_callgraph dwarf_said_missing_flame dwarf_said_short dwarf_said_no_stack
	dwarf_said_report_html dwarf_said_record dwarf_said_nothing_complete dwarf_said_no_warning_fp
	dwarf_hwprof_record dwarf_emulate_refused)
echo "PLAN ${#NAMES[@]}"
if ! command -v gcc >/dev/null 2>&1 || ! command -v perf >/dev/null 2>&1; then
	for n in "${NAMES[@]}"; do echo "SKIP $n: needs gcc and perf"; done
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/w.c" <<'C'
#include <stdlib.h>
volatile long sink;
__attribute__((noinline)) long leaf(long n) { long s = 0; for (long i = 0; i < n; i++) s += i * i % 7; return s; }
__attribute__((noinline)) long deep(int d, long n) { long r = d ? deep(d - 1, n) : leaf(n); sink += r; return r + d; }
__attribute__((noinline)) long mid(long n) { return leaf(n) + deep(40, n / 2); }
int main(void) { for (int k = 0; k < 3; k++) sink += mid(20000000); return 0; }
C
gcc -O2 -g -fomit-frame-pointer -o "$tmp/w" "$tmp/w.c"
gcc -O2 -g -fno-omit-frame-pointer -o "$tmp/wfp" "$tmp/w.c"
perfc() { perf --buildid-dir "$tmp/cache" "$@"; }
export PERF_BUILDID_DIR=$tmp/cache
if ! perfc record -N -q -e cpu-clock --call-graph dwarf -o "$tmp/dw.data" "$tmp/w" >/dev/null 2>"$tmp/rec.err" ||
	! perfc record -N -q -e cpu-clock --call-graph dwarf,256 -o "$tmp/short.data" "$tmp/w" >/dev/null 2>>"$tmp/rec.err" ||
	! perfc record -N -q -e cpu-clock --user-regs=ip,sp -o "$tmp/regs.data" "$tmp/w" >/dev/null 2>>"$tmp/rec.err" ||
	! perfc record -N -q -e cpu-clock -g -o "$tmp/fp.data" "$tmp/wfp" >/dev/null 2>>"$tmp/rec.err"; then
	for n in "${NAMES[@]}"; do echo "SKIP $n: perf cannot record cpu-clock here: $(head -1 "$tmp/rec.err")"; done
	exit 0
fi
samples() { perfc script -i "$1" -F time 2>/dev/null | grep -c .; }
n=$(samples "$tmp/dw.data")
# a sample perf took with the user registers but could not copy the stack
# of (at the process's exit, say): perf's dump says "ustack: size 0"
nostack=$(perfc report -D -i "$tmp/dw.data" 2>/dev/null | grep -c '^\.\.\. ustack: size 0,')
nostack_said=""
[ "$nostack" -gt 0 ] && nostack_said=".*; $nostack have registers but no stack copy"

# once, with the count: every sample has user registers (one process)
said() {
	local name=$1 want=$2
	shift 2
	if "$HWPROF" "$@" >"$tmp/out" 2>"$tmp/err" && [ -s "$tmp/out" ] &&
		[ "$(grep -c 'end before their outermost frame' "$tmp/err")" = 1 ] && grep -qE "$want" "$tmp/err"; then
		echo "PASS $name: $(grep -o 'end before.*' "$tmp/err" | cut -c1-160)"
	else
		echo "FAIL $name: want /$want/; stderr: $(head -3 "$tmp/err" | tr '\n' ' ')"
	fi
}
mkdir -p "$tmp/empty"
missing=": $n of $n user stacks .*: $((n - nostack)) reached code of a binary not found \(.*$tmp/w$nostack_said"
said dwarf_said_missing_callgraph "$missing" callgraph --symfs "$tmp/empty" -i "$tmp/dw.data"
said dwarf_said_missing_flame "$missing" flame --folded --symfs "$tmp/empty" -i "$tmp/dw.data"
said dwarf_said_short "[0-9]+ ran past their 256-byte stack copy \(record with --call-graph dwarf,1024\)" \
	flame --folded -i "$tmp/short.data"
nr=$(samples "$tmp/regs.data")
said dwarf_said_no_stack ": $nr of $nr user stacks .*: $nr have registers but no stack copy \(record with --call-graph dwarf\)" \
	flame --folded -i "$tmp/regs.data"

# report --html: the page needs branch stacks, which cpu-clock has not: it
# refuses the recording in one line, or shows a flame graph that says why
# stacks end early
if "$HWPROF" report --html "$tmp/r.html" --symfs "$tmp/empty" -i "$tmp/dw.data" 2>"$tmp/err"; then
	if grep -q 'Flame graph' "$tmp/r.html" && ! grep -q 'end before their outermost frame' "$tmp/r.html"; then
		echo "FAIL dwarf_said_report_html: the page's flame graph does not say that stacks end early"
	else
		echo "PASS dwarf_said_report_html: the flame graph says which stacks end early"
	fi
else
	echo "PASS dwarf_said_report_html: report refuses it with one line: $(head -1 "$tmp/err")"
fi

if "$HWPROF" record --print-attr --call-graph dwarf,4096 -- true >/dev/null 2>"$tmp/err" && ! grep -qi 'unwind' "$tmp/err"; then
	echo "PASS dwarf_said_record: --call-graph dwarf is recorded without a warning (reports unwind it)"
else
	echo "FAIL dwarf_said_record: $(head -2 "$tmp/err" | tr '\n' ' ')"
fi

# unwound to the end: nothing said (but of the samples perf took without a
# stack copy, if any: they alone)
if [ "$nostack" -gt 0 ]; then
	said dwarf_said_nothing_complete ": $nostack of $n user stacks .*: $nostack have registers but no stack copy" \
		callgraph -i "$tmp/dw.data"
elif "$HWPROF" callgraph -i "$tmp/dw.data" >/dev/null 2>"$tmp/err" && ! grep -q 'unwind\|outermost' "$tmp/err"; then
	echo "PASS dwarf_said_nothing_complete: nothing said"
else
	echo "FAIL dwarf_said_nothing_complete: $(head -2 "$tmp/err" | tr '\n' ' ')"
fi
if "$HWPROF" callgraph -i "$tmp/fp.data" >/dev/null 2>"$tmp/err" && ! grep -q 'unwind\|outermost' "$tmp/err"; then
	echo "PASS dwarf_said_no_warning_fp: nothing said"
else
	echo "FAIL dwarf_said_no_warning_fp: $(head -2 "$tmp/err" | tr '\n' ' ')"
fi

# hwprof's own recording: a software event with registers and a stack copy
if "$HWPROF" record -e cpu-clock --call-graph dwarf -o "$tmp/own.data" -- "$tmp/w" >/dev/null 2>"$tmp/err" &&
	"$HWPROF" flame --folded -i "$tmp/own.data" 2>>"$tmp/err" | grep -q "main;mid;leaf "; then
	echo "PASS dwarf_hwprof_record: hwprof record -e cpu-clock --call-graph dwarf unwinds to main;mid;leaf"
else
	echo "FAIL dwarf_hwprof_record: $(head -2 "$tmp/err" | tr '\n' ' ')"
fi
if ! "$HWPROF" record --emulate --call-graph dwarf -o "$tmp/emu.data" -- true >/dev/null 2>"$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "cpu-clock --call-graph dwarf" "$tmp/err" && [ ! -e "$tmp/emu.data" ]; then
	echo "PASS dwarf_emulate_refused: $(cat "$tmp/err")"
else
	echo "FAIL dwarf_emulate_refused: $(head -2 "$tmp/err" | tr '\n' ' ')"
fi
