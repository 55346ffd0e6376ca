#!/bin/bash
# hwprof record --emulate --exact: exact per-site branch counts of a fixture
# (loops, if-taken ratios, recursion, indirect calls through a table) equal
# the analytic counts and callgrind's, for PIE and non-PIE builds.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where emulated recording cannot run
ready=$(emu_ready emulate_exact) || { echo "PLAN 1"; echo "$ready"; exit 0; }
echo "PLAN 22"

for pie in pie no-pie; do
	emu_build basic -$pie || continue
	mv "$tmp/basic" "$tmp/basic-$pie"
	bin=$tmp/basic-$pie
	if ! emu_record basic-$pie -c 997 --exact "$tmp/basic-$pie.exact" -- "$bin" 3; then
		fail "emulate_exact_$pie: record failed: $(head -1 "$tmp/basic-$pie.err")"
		continue
	fi
	# 3 repetitions of: loop_1000, every_4th(1000), fib(15), dispatch(1000)
	exact "emulate_exact_$pie" "$tmp/basic-$pie.exact" "$bin" \
		"loop_1000:has:cond:3000:2997" \
		"every_4th:has:cond:3000:750|2250" \
		"every_4th:call:750:750" \
		"hit:ret:750:750" \
		"fib:ret:5919:5919" \
		"fib:call:5916:5916" \
		"fib:has:cond:5919:2961|2958" \
		"dispatch:icall:3000:3000" \
		"dispatch:targets:op_add=750,op_sub=750,op_xor=750,op_mul=750" \
		"op_add:ret:750:750"
	callgrind "emulate_exact_callgrind_$pie" "$bin" "$tmp/basic-$pie.exact" 3
done
