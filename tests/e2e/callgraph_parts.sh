#!/bin/bash
# The call graph counted in parts and merged (tests/unit/test_callgraph_parts,
# analysis/callgraph_part.h) equals the sequential one, every output byte
# for byte, on recordings made here: a generated call-stack recording
# (bench/gen_branch_perfdata --callchain, with its ELF for names), LBR
# call-stack recordings perf stitches (tests/tools/gen_stitch.py: parts
# must refuse --stitch-lbr there or agree), a frame-pointer recording of
# tests/fixtures/callgraph.c (perf record -g) and emulated call-stack
# recordings of the fixture and of gzip (hwprof record --emulate
# --call-graph lbr).
. "$(dirname "$0")/../tools/emu_lib.sh"
HWPROF=${HWPROF:-$build/hwprof}
unit=$build/tests/unit/test_callgraph_parts
PERF=/usr/bin/perf

echo "PLAN 4"

# parts NAME FILE[=SYMFS]...: the unit test's named_recordings case on them
parts() {
	local name=$1
	shift
	if HWPROF_CORPUS=/nonexistent HWPROF_CG_PARTS="$*" "$unit" >"$tmp/$name.out" 2>"$tmp/$name.err" &&
		grep -q '^PASS named_recordings' "$tmp/$name.out"; then
		pass "$name ($(grep -c '^# ' "$tmp/$name.out") recordings alike)"
	else
		fail "$name: $(grep -v '^ ' "$tmp/$name.err" | head -1)"
	fi
}

sym=$tmp/sym
elf=$sym/usr/lib/hwprof-bench/libbenchfake.so # the path the generator's MMAP2 names
mkdir -p "${elf%/*}"
if "$build/bench/gen_branch_perfdata" "$tmp/gen.data" 8 --callchain --elf "$elf" >/dev/null 2>"$tmp/gen.err"; then
	parts callgraph_parts_generated "$tmp/gen.data=$sym"
else
	fail "callgraph_parts_generated: $(head -1 "$tmp/gen.err")"
fi

st=()
for seed in 1 2; do
	python3 "$tools/gen_stitch.py" "$tmp/st$seed.data" 600 $seed 2>"$tmp/gs.err" && st+=("$tmp/st$seed.data")
done
if [ ${#st[@]} = 2 ]; then
	parts callgraph_parts_stitch "${st[@]}"
else
	fail "callgraph_parts_stitch: $(head -1 "$tmp/gs.err")"
fi

if ! command -v gcc >/dev/null; then
	skip "callgraph_parts_fp: gcc not installed"
	skip "callgraph_parts_emulated: gcc not installed"
	exit 0
fi
gcc -O2 -g -fno-omit-frame-pointer -o "$tmp/callgraph" "$root/tests/fixtures/callgraph.c" 2>"$tmp/gcc.err" ||
	{ fail "callgraph_parts_fp: $(head -1 "$tmp/gcc.err")"; fail "callgraph_parts_emulated: no fixture"; exit 0; }
if [ ! -x "$PERF" ]; then
	skip "callgraph_parts_fp: $PERF not installed"
elif ! "$PERF" record -q -e cpu-clock -g -o "$tmp/fp.data" "$tmp/callgraph" 300 >/dev/null 2>"$tmp/perf.err"; then
	skip "callgraph_parts_fp: perf record cannot sample here ($(head -1 "$tmp/perf.err"))"
else
	parts callgraph_parts_fp "$tmp/fp.data"
fi

emu_ready callgraph_parts_emulated || exit 0
emu=()
emu_record emu_lbr --call-graph lbr -c 5003 -- "$tmp/callgraph" 300 && emu+=("$tmp/emu_lbr.data")
gzip_bin=$(command -v gzip)
if [ -n "$gzip_bin" ]; then
	head -c 2000000 "$HWPROF" >"$tmp/input"
	emu_record emu_gzip --call-graph lbr -c 20011 -- "$gzip_bin" -kf "$tmp/input" && emu+=("$tmp/emu_gzip.data")
fi
if [ ${#emu[@]} -gt 0 ]; then
	parts callgraph_parts_emulated "${emu[@]}"
else
	fail "callgraph_parts_emulated: $(head -1 "$tmp/emu_lbr.err")"
fi
