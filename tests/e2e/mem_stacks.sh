#!/bin/bash
# Memory samples with their call stacks (perf mem record -g, perf c2c record
# -g): on a generated recording of PEBS loads and stores with callchains,
#  - flame --memory / --hitm, by samples and by --latency, equal the stacks
#    perf script prints for the same samples, folded and summed here
#    (tests/tools/stack_oracle.py);
#  - mem --children and c2c --children --latency count, per frame, the
#    samples (latency) of the memory (HITM) samples with it on their stack;
#  - -j 2 prints what -j 1 prints;
#  - what cannot be had is said in one line.
. "$(dirname "$0")/../tools/emu_lib.sh"
oracle=$tools/stack_oracle.py
echo "PLAN 8"
gen=$build/bench/gen_mem_perfdata
if [ ! -x "$gen" ] || ! command -v perf >/dev/null; then
	for t in flame_memory flame_latency flame_hitm mem_children c2c_children jobs errors no_stacks; do
		skip "mem_stacks_$t: needs $gen (make all) and perf"
	done
	exit 0
fi
"$gen" "$tmp/m.data" 40000 --addrs 3000 --callchain >/dev/null
perf script -i "$tmp/m.data" -F data_src,weight,ip,sym,dso >"$tmp/m.script" 2>/dev/null
# folded NAME FILTER WEIGHT ARGS...
folded() {
	local name=$1 filter=$2 weight=$3
	shift 3
	"$HWPROF" flame --folded -i "$tmp/m.data" "$@" >"$tmp/$name.folded" 2>"$tmp/$name.err"
	CMP_NAME=mem_stacks_$name python3 "$oracle" folded-mem "$filter" "$weight" "$tmp/m.script" "$tmp/$name.folded"
}
folded flame_memory all samples --memory
folded flame_latency all latency --memory --latency
folded flame_hitm hitm latency --hitm --latency
"$HWPROF" mem --children --json -i "$tmp/m.data" >"$tmp/mc.json" 2>/dev/null
CMP_NAME=mem_stacks_mem_children python3 "$oracle" children-mem all samples "$tmp/m.script" "$tmp/mc.json"
"$HWPROF" c2c --children --latency --json -i "$tmp/m.data" >"$tmp/cc.json" 2>/dev/null
CMP_NAME=mem_stacks_c2c_children python3 "$oracle" children-mem hitm latency "$tmp/m.script" "$tmp/cc.json"
# the parallel pass counts memory samples the same
"$HWPROF" mem --children -i "$tmp/m.data" -j 1 >"$tmp/j1" 2>&1
"$HWPROF" mem --children -i "$tmp/m.data" -j 2 -v >"$tmp/j2" 2>"$tmp/j2.err"
"$HWPROF" mem --children -i "$tmp/m.data" -j 2 >"$tmp/j2" 2>&1
if cmp -s "$tmp/j1" "$tmp/j2" && grep -q "parallel pass on 2 threads" "$tmp/j2.err"; then
	pass "mem_stacks_jobs (-j 2 in parallel, as -j 1)"
else
	fail "mem_stacks_jobs: $(cmp "$tmp/j1" "$tmp/j2" 2>&1 | head -1) $(grep pass "$tmp/j2.err")"
fi
# one-line errors
"$HWPROF" mem --latency -i "$tmp/m.data" >/dev/null 2>"$tmp/e1"
r1=$?
"$gen" "$tmp/none.data" 10 --addrs 10 >/dev/null
perf_ok=1
gcc -O1 -o "$tmp/t" -x c - <<<'int main(void){volatile long s=0;for(long i=0;i<50000000;i++)s+=i;return 0;}' &&
	perf record -q -e cpu-clock -g -o "$tmp/cpu.data" "$tmp/t" >/dev/null 2>&1 || perf_ok=0
if [ $perf_ok = 1 ]; then
	"$HWPROF" mem --children -i "$tmp/cpu.data" >/dev/null 2>"$tmp/e2"
	r2=$?
else
	echo "hwprof: x: no memory samples" >"$tmp/e2"
	r2=1
fi
if [ $r1 -ne 0 ] && [ $r2 -ne 0 ] && [ "$(wc -l <"$tmp/e1")" -eq 1 ] && [ "$(wc -l <"$tmp/e2")" -eq 1 ] &&
	grep -q "no memory samples" "$tmp/e2"; then
	pass "mem_stacks_errors ($(cat "$tmp/e2"))"
else
	fail "mem_stacks_errors: rc $r1/$r2: $(cat "$tmp/e1" "$tmp/e2" | tr '\n' '|')"
fi
# memory samples without stacks: said, not a silent one-frame graph
"$HWPROF" mem --children -i "$tmp/none.data" >/dev/null 2>"$tmp/e3"
if grep -q "no sample has a call stack" "$tmp/e3"; then
	pass "mem_stacks_no_stacks (said)"
else
	fail "mem_stacks_no_stacks: $(tr '\n' '|' <"$tmp/e3")"
fi
