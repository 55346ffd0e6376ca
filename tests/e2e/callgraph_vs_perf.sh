#!/bin/bash
# hwprof callgraph against perf 6.1's `perf report --children --stdio`: self
# and children per function (tests/tools/callgraph_compare.py names each
# normalization) on the corpus recordings with callchains or LBR call-stack
# mode, on a frame-pointer recording of tests/fixtures/callgraph.c (perf
# record -e cpu-clock -g), and on emulated call-stack-mode recordings
# (hwprof record --emulate --call-graph lbr) of the fixture and of gzip;
# --stitch-lbr on generated call-stack recordings perf stitches.
# On the frame-pointer recording also: `hwprof flame --folded` and
# `hwprof callgraph --function` against perf script's callchains, folded by
# tests/tools/stack_oracle.py.
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
HWPROF=${HWPROF:-$build/hwprof}
CORPUS=${HWPROF_CORPUS:-$root/../shared/corpus}
PERF=/usr/bin/perf
cmp=$tools/callgraph_compare.py

# PLAN: corpus 3 (1 SKIP without it), stitching 10, generated 1, the
# frame-pointer recording 5, emulated 2 (1 SKIP where it cannot run; all
# of the fixture's 7 are 1 SKIP without gcc); 1 without perf
if [ ! -x "$PERF" ]; then
	echo "PLAN 1"
else
	plan=11
	if [ -d "$CORPUS" ]; then plan=$((plan + 3)); else plan=$((plan + 1)); fi
	if ! command -v gcc >/dev/null; then
		plan=$((plan + 1))
	elif emu_ready callgraph_emulated >/dev/null; then
		plan=$((plan + 7))
	else
		plan=$((plan + 6))
	fi
	echo "PLAN $plan"
fi
if [ ! -x "$PERF" ]; then
	skip "callgraph_vs_perf: $PERF not installed"
	exit 0
fi

# compare NAME FILE [ARGS]: hwprof callgraph --json vs perf report --children
# (ARGS to both, e.g. --symfs DIR).
compare() {
	local name=$1 f=$2
	shift 2
	if ! "$PERF" report "$@" -i "$f" --no-branch-stack --children --stdio -g none >"$tmp/$name.perf" 2>"$tmp/$name.perferr"; then
		skip "$name: perf 6.1 cannot report it ($(grep -v '^$' "$tmp/$name.perferr" | head -1))"
		return
	fi
	if ! "$HWPROF" callgraph "$@" -q -i "$f" --json >"$tmp/$name.json" 2>"$tmp/$name.err"; then
		fail "$name: hwprof callgraph failed: $(head -1 "$tmp/$name.err")"
		return
	fi
	"$PERF" script --show-mmap-events -i "$f" 2>/dev/null | grep PERF_RECORD_MMAP >"$tmp/$name.mmaps"
	CMP_NAME=$name python3 "$cmp" "$tmp/$name.perf" "$tmp/$name.json" "$tmp/$name.mmaps"
}

if [ -d "$CORPUS" ]; then
	for rel in perf_data_converter/perf.data.callgraph_and_branch-3.8 \
		perf_data_converter/perf.data.raw_callgraph_branch-3.4 \
		perfparser/vector_static_gcc/perf.lbr.data; do
		if [ -f "$CORPUS/$rel" ]; then
			compare "callgraph_corpus_$(basename "$rel")" "$CORPUS/$rel"
		else
			skip "callgraph_corpus_$(basename "$rel"): not in $CORPUS"
		fi
	done
else
	skip "callgraph_corpus: no corpus at $CORPUS"
fi

# --stitch-lbr: generated call-stack recordings deeper than their 4-entry LBR,
# with the hardware index and CPU_PMU_CAPS (tests/tools/gen_stitch.py), on
# which perf stitches: report and folded stacks with and without stitching
for seed in 1 2; do
	if ! python3 "$tools/gen_stitch.py" "$tmp/st$seed.data" 600 $seed 2>"$tmp/gs.err"; then
		fail "callgraph_stitch_gen: $(head -1 "$tmp/gs.err")"
		break
	fi
	for mode in "" --stitch-lbr; do
		name=callgraph_stitch${seed}${mode:+_stitched}
		compare "$name" "$tmp/st$seed.data" $mode
		"$PERF" script -i "$tmp/st$seed.data" $mode -F period,ip,sym,dso >"$tmp/st.script" 2>/dev/null
		if "$HWPROF" flame -q -i "$tmp/st$seed.data" $mode --folded --no-inline >"$tmp/st${mode:+s}.folded" 2>"$tmp/fl.err"; then
			CMP_NAME=flame_folded_stitch${seed}${mode:+_stitched} python3 "$tools/stack_oracle.py" folded "$tmp/st.script" "$tmp/st${mode:+s}.folded"
		else
			fail "flame_folded_stitch$seed: $(head -1 "$tmp/fl.err")"
		fi
	done
	# stitching changed the stacks (else the cases above prove nothing)
	if cmp -s "$tmp/st.folded" "$tmp/sts.folded"; then
		fail "callgraph_stitch${seed}_effect: the same stacks with and without --stitch-lbr"
	else
		pass "callgraph_stitch${seed}_effect ($(wc -l <"$tmp/st.folded") stacks unstitched, $(wc -l <"$tmp/sts.folded") stitched)"
	fi
done

# the benchmark's generator: 4096 call paths through 2048 functions of an ELF
# it writes (tests deep chains and many distinct stacks)
gen=$build/bench/gen_branch_perfdata
if [ -x "$gen" ]; then
	mkdir -p "$tmp/sym/usr/lib/hwprof-bench"
	if "$gen" "$tmp/gen.data" 8 --callchain --elf "$tmp/sym/usr/lib/hwprof-bench/libbenchfake.so" >/dev/null 2>"$tmp/gen.err"; then
		compare callgraph_generated "$tmp/gen.data" --symfs "$tmp/sym"
	else
		fail "callgraph_generated: $(head -1 "$tmp/gen.err")"
	fi
else
	skip "callgraph_generated: $gen not built"
fi

if ! command -v gcc >/dev/null; then
	skip "callgraph_fixture: gcc not installed"
	exit 0
fi
gcc -O2 -g -fno-omit-frame-pointer -o "$tmp/callgraph" "$root/tests/fixtures/callgraph.c" 2>"$tmp/gcc.err" ||
	{ fail "callgraph_build: $(head -1 "$tmp/gcc.err")"; exit 0; }

if "$PERF" record -q -e cpu-clock -c 100000 -g -o "$tmp/fp.data" "$tmp/callgraph" 3000 >/dev/null 2>"$tmp/rec.err"; then
	compare callgraph_fp "$tmp/fp.data"
	"$PERF" script -i "$tmp/fp.data" -F period,ip,sym,dso >"$tmp/fp.script" 2>/dev/null
	# (each sample's own IP: one whose chain perf discards prints no frame)
	"$PERF" script -i "$tmp/fp.data" -F period,ip,sym,dso -G >"$tmp/fp.ips" 2>/dev/null
	if "$HWPROF" flame -q -i "$tmp/fp.data" --folded --no-inline >"$tmp/fp.folded" 2>"$tmp/fl.err"; then
		CMP_NAME=flame_folded_vs_perf_script CMP_IPS=$tmp/fp.ips python3 "$tools/stack_oracle.py" folded \
			"$tmp/fp.script" "$tmp/fp.folded"
	else
		fail "flame_folded_vs_perf_script: $(head -1 "$tmp/fl.err")"
	fi
	for fn in shared leaf_work; do
		if "$HWPROF" callgraph -q -i "$tmp/fp.data" --no-inline --function $fn --json >"$tmp/fn.json" 2>"$tmp/fn.err"; then
			CMP_NAME=callgraph_function_$fn python3 "$tools/stack_oracle.py" function $fn "$tmp/fp.script" "$tmp/fn.json"
		else
			fail "callgraph_function_$fn: $(head -1 "$tmp/fn.err")"
		fi
	done
	# inlined frames: mix() is inlined into shared() and beta(); the tree has it
	# below them, and the report, as perf's, has no row for it
	"$HWPROF" flame -q -i "$tmp/fp.data" --folded >"$tmp/fp.inl" 2>/dev/null
	if grep -q ';shared;mix ' "$tmp/fp.inl" && ! grep -q '\[\.\] mix' <("$HWPROF" callgraph -q -i "$tmp/fp.data"); then
		pass "callgraph_inlined (mix below shared in the stacks, no row of its own)"
	else
		fail "callgraph_inlined: $(grep -c ';mix' "$tmp/fp.inl") stacks with mix"
	fi
else
	for name in callgraph_fp flame_folded_vs_perf_script callgraph_function_shared callgraph_function_leaf_work callgraph_inlined; do
		skip "$name: perf record -e cpu-clock -g failed here ($(head -1 "$tmp/rec.err"))"
	done
fi

emu_ready callgraph_emulated || exit 0
if emu_record emu_lbr --call-graph lbr -c 5003 -- "$tmp/callgraph" 300; then
	compare callgraph_emulated_lbr "$tmp/emu_lbr.data"
else
	fail "callgraph_emulated_lbr: $(head -1 "$tmp/emu_lbr.err")"
fi
gzip_bin=$(command -v gzip || true)
if [ -n "$gzip_bin" ]; then
	head -c 3000000 "$HWPROF" >"$tmp/input"
	if emu_record emu_gzip --call-graph lbr -c 20011 -- "$gzip_bin" -kf "$tmp/input"; then
		compare callgraph_emulated_gzip "$tmp/emu_gzip.data"
	else
		fail "callgraph_emulated_gzip: $(head -1 "$tmp/emu_gzip.err")"
	fi
else
	skip "callgraph_emulated_gzip: gzip not installed"
fi
