#!/bin/bash
# make demo: records the bundled example program (tests/fixtures/branchy.c) and
# shows hwprof's reports on it. With no PMU here, the recording is emulated
# when the QEMU plugin is built (hwprof record --emulate); otherwise it is
# synthesized from the program's real branch instructions.
set -euo pipefail
HWPROF=$1
BUILD=$(dirname "$HWPROF")
out=$BUILD/demo
mkdir -p "$out"
gcc -g -O1 -o "$out/branchy" tests/fixtures/branchy.c
data=$out/branchy.perf.data
if [ -f "$BUILD/hwprof-emu.so" ] && command -v qemu-x86_64 >/dev/null &&
	"$HWPROF" record --emulate -c 1009 -o "$data" -- "$out/branchy" 200000 >/dev/null 2>"$out/record.err"; then
	echo "== hwprof record --emulate -c 1009 -o $data -- branchy 200000   (emulated LBR: no PMU here)"
else
	"$BUILD/tests/tools/gen_fixture_branches" "$out/branchy" "$data" --samples 2000 >/dev/null
	echo "== synthesized branch stacks over branchy's real branch instructions: $data"
fi
echo
echo "== hwprof advise --limit 5   (findings with their evidence and what to do)"
"$HWPROF" advise --limit 5 -i "$data"
echo "== hwprof annotate --limit 1   (the hottest function's code with the recording's numbers on it)"
"$HWPROF" annotate --limit 1 --color never -i "$data"
echo
echo "== hwprof report --html $out/report.html   (one self-contained page: the findings, each linked to its"
echo "   instruction in the annotated code of the hot functions, then every table; open it in a browser)"
"$HWPROF" report --html "$out/report.html" -i "$data"
echo
echo "== hwprof branches --sort symbol_from,symbol_to,srcline_from,srcline_to,mispredict --min-percent 1"
"$HWPROF" branches --sort symbol_from,symbol_to,srcline_from,srcline_to,mispredict --min-percent 1 -i "$data" | head -25
echo
echo "== hwprof mispredicts --limit 10"
"$HWPROF" mispredicts --limit 10 -i "$data"
echo
echo "== hwprof probs --limit 8   (taken probability per conditional branch, from the fall-through ranges)"
"$HWPROF" probs --limit 8 -i "$data"
echo
echo "== hwprof paths --limit 5   (hot paths of blocks inside a function)"
"$HWPROF" paths --limit 5 -i "$data"
echo
echo "== hwprof timing --limit 6   (block latency: cycles per block, modes, IPC; modelled when emulated)"
"$HWPROF" timing --limit 6 -i "$data"
echo
echo "== hwprof timing --block add_one --svg $out/add_one.svg   (occurrence rates of one block, and its chart)"
"$HWPROF" timing --block add_one --svg "$out/add_one.svg" -i "$data"
echo
echo "== hwprof ranges --stats"
"$HWPROF" ranges --stats -i "$data"
echo
echo "== hwprof info (excerpt)"
"$HWPROF" info -i "$data" | sed -n '/^samples:/,$p'
echo
echo "== the same from a program linked against libhwprof.so (examples/hottest_branch.c)"
gcc -std=c11 -Iinclude -o "$out/hottest_branch" examples/hottest_branch.c -L"$BUILD" -lhwprof \
	-Wl,-rpath,"$(cd "$BUILD" && pwd)"
"$out/hottest_branch" "$data"
