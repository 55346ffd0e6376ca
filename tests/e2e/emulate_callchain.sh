#!/bin/bash
# hwprof record --emulate -b -g: samples with a branch stack AND a call chain
# (the plugin's shadow call stack), as perf record -b -g writes them on
# Intel. tests/fixtures/callgraph.c (recursion 4 deep, two callers of one
# function), built without frame pointers (-O2): the chains are exact anyway.
#   - the attr's sample_type is perf record -b -g's (IP|TID|TIME|CALLCHAIN|PERIOD|BRANCH_STACK);
#   - perf script -F ip,sym,brstack: every sample has a chain and a branch
#     stack, every chain is a call path of the program (tests/tools/emu_chain_check.py);
#   - perf report -g reads the chains (the recursion shows under beta).
. "$(dirname "$0")/../tools/emu_lib.sh"
echo "PLAN 3"
names="emulate_callchain_attr emulate_callchain_paths emulate_callchain_report"
skip_all() { for n in $names; do skip "$n: $1"; done; exit 0; }
ready=$(emu_ready emulate_callchain) || skip_all "${ready#SKIP emulate_callchain: }"
command -v perf >/dev/null || skip_all "perf not installed"
gcc -O2 -g -fno-optimize-sibling-calls -o "$tmp/cg" "$root/tests/fixtures/callgraph.c" 2>"$tmp/cc.err" ||
	skip_all "gcc failed: $(head -1 "$tmp/cc.err")"
if ! emu_record cg -b -g -c 3001 -- "$tmp/cg" 20; then
	for n in $names; do fail "$n: record failed: $(head -1 "$tmp/cg.err")"; done
	exit 0
fi
st=$(perf evlist -v -i "$tmp/cg.data" 2>/dev/null | grep -o 'sample_type: [A-Z_|]*' | head -1)
if [ "$st" = "sample_type: IP|TID|TIME|CALLCHAIN|PERIOD|BRANCH_STACK" ]; then
	pass "emulate_callchain_attr ($st)"
else
	fail "emulate_callchain_attr: got '$st'"
fi
perf script -i "$tmp/cg.data" -F ip,sym,brstack 2>"$tmp/script.err" |
	python3 "$tools/emu_chain_check.py" emulate_callchain_paths
perf report -i "$tmp/cg.data" -g caller --stdio --no-children 2>"$tmp/report.err" >"$tmp/report.txt"
# the leaf_work entry's graph: beta, then recurse four times, shared, leaf_work
if awk '/\[\.\] leaf_work/ { on = 1 } on && /--beta/ { b = 1; next } b && /recurse/ { r++ }
	b && /shared/ { exit !(r == 4) } END { if (!b) exit 1 }' "$tmp/report.txt"; then
	pass "emulate_callchain_report (perf report -g: beta -> recurse x4 -> shared -> leaf_work)"
else
	fail "emulate_callchain_report: $(head -1 "$tmp/report.err") $(grep -c recurse "$tmp/report.txt") recurse lines"
fi
