#!/bin/bash
# hwprof record --emulate, read by perf: perf script and perf report
# symbolize the fixture; branch stacks are consistent with the code at every
# depth, with period jitter; the -j filters (types, call-stack mode, no_flags,
# no_cycles) hold in every sample.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where emulated recording cannot run or perf is missing
ready=$(emu_ready emulate_perf) || { echo "PLAN 1"; echo "$ready"; exit 0; }
if command -v perf >/dev/null; then echo "PLAN 26"; else echo "PLAN 1"; fi
emu_build basic || exit 0
bin=$tmp/basic
if ! command -v perf >/dev/null; then
	skip "emulate_perf: perf not installed"
	exit 0
fi
stacks() { # name mode args < perf script output
	local name=$1 out
	shift
	if out=$(python3 "$tools/emu_stacks.py" "$@"); then pass "$name ($out)"; else fail "$name: $out"; fi
}

# --- perf reads and symbolizes the file
if emu_record sym -c 997 -- "$bin" 3; then
	perf script -i "$tmp/sym.data" -F comm,pid,tid,ip,sym,brstacksym >"$tmp/sym.txt" 2>"$tmp/sym.perr"
	missing=
	for f in loop_1000 every_4th fib dispatch op_add hit; do
		grep -q "$f" "$tmp/sym.txt" || missing="$missing $f"
	done
	[ -z "$missing" ] && pass "emulate_perf_script ($(wc -l <"$tmp/sym.txt") samples, fixture functions symbolized)" ||
		fail "emulate_perf_script: no$missing in perf script output"
	# perf 6.1 crashes in `perf report -b --sort symbol_from,...` on any input
	# (hardware recordings too); then the same rows via -F.
	(perf report -b --sort symbol_from,symbol_to --stdio -i "$tmp/sym.data"; exit $?) \
		>"$tmp/rep.txt" 2>"$tmp/rep.err"
	rc=$?
	how="--sort symbol_from,symbol_to"
	if [ $rc -ge 128 ]; then
		perf report -b -F overhead,sample,symbol_from,symbol_to --stdio -i "$tmp/sym.data" \
			>"$tmp/rep.txt" 2>"$tmp/rep.err"
		rc=$?
		how="-F overhead,sample,symbol_from,symbol_to (perf crashed with --sort)"
	fi
	if [ $rc -eq 0 ] && grep -Eq '\[\.\] fib +\[\.\] fib' "$tmp/rep.txt" &&
		grep -Eq '\[\.\] op_add +\[\.\] dispatch' "$tmp/rep.txt"; then
		pass "emulate_perf_report_branches ($how)"
	else
		fail "emulate_perf_report_branches: rc $rc, no fib->fib / op_add->dispatch rows ($how)"
	fi
	if perf report --stdio -i "$tmp/sym.data" 2>/dev/null | grep -q 'branches:emulated'; then
		pass "emulate_perf_event_name"
	else
		fail "emulate_perf_event_name: perf report does not name the event branches:emulated"
	fi
	if "$HWPROF" info -i "$tmp/sym.data" 2>/dev/null | grep -q 'branches:emulated'; then
		pass "emulate_hwprof_info_event_name"
	else
		fail "emulate_hwprof_info_event_name: hwprof info does not show branches:emulated"
	fi
else
	fail "emulate_perf_record: $(head -1 "$tmp/sym.err")"
fi

# --- consistency with the code, every depth, with jitter
for depth in 8 16 32 64; do
	if emu_record d$depth -c 1009 --depth $depth --jitter 20 -j any,u,save_type -- "$bin" 3; then
		check emulate_consistent_depth$depth "$tmp/d$depth.data"
		perf script -i "$tmp/d$depth.data" -F brstack 2>/dev/null |
			stacks emulate_depth$depth depth $depth
	else
		fail "emulate_depth$depth: $(head -1 "$tmp/d$depth.err")"
	fi
done
if perf script -i "$tmp/d32.data" -F period 2>/dev/null |
	awk '{n++; s+=$1; if(!($1 in v)){v[$1]=1; d++}; if($1<lo||!lo)lo=$1; if($1>hi)hi=$1}
	     END {m=s/n; exit !(d>10 && m>1009*0.9 && m<1009*1.1 && lo>=1009*0.79 && hi<=1009*1.21)}'; then
	pass "emulate_jitter (periods vary within +-20% of 1009)"
else
	fail "emulate_jitter: sample periods do not vary within +-20% of 1009"
fi
# --seed: the jitter's draws made again (the same periods, sample for
# sample), another seed other draws; not an option without --emulate, and
# said to do nothing without --jitter
seed_err=
for s in 7a 7b 8; do
	emu_record seed$s -c 1009 --jitter 20 --seed "${s%[ab]}" -- "$bin" 3 ||
		seed_err="record: $(head -1 "$tmp/seed$s.err")"
	perf script -i "$tmp/seed$s.data" -F period 2>/dev/null >"$tmp/seed$s.periods"
done
if [ -n "$seed_err" ]; then
	fail "emulate_seed: $seed_err"
elif [ -s "$tmp/seed7a.periods" ] && cmp -s "$tmp/seed7a.periods" "$tmp/seed7b.periods" &&
	! cmp -s "$tmp/seed7a.periods" "$tmp/seed8.periods" &&
	! "$HWPROF" record --seed 7 -o "$tmp/hw.data" -- true 2>"$tmp/seedhw.err" &&
	grep -q -- "--seed is an option of --emulate" "$tmp/seedhw.err" &&
	emu_record seedonly -c 1009 --seed 7 -- "$bin" 3 && grep -q -- "--seed without --jitter" "$tmp/seedonly.err"; then
	pass "emulate_seed ($(grep -c . "$tmp/seed7a.periods") periods drawn again with --seed 7, others with 8)"
else
	fail "emulate_seed: --seed 7 twice: $(cmp "$tmp/seed7a.periods" "$tmp/seed7b.periods" 2>&1 | head -1); $(head -1 "$tmp/seedhw.err")"
fi

# --- -j filters
filter() { # name filter types
	local name=$1 j=$2 types=$3
	if emu_record f_$name -c 211 -j "$j" -- "$bin" 3; then
		perf script -i "$tmp/f_$name.data" -F brstack 2>/dev/null | stacks "emulate_filter_$name" types "$types"
	else
		fail "emulate_filter_$name: $(head -1 "$tmp/f_$name.err")"
	fi
}
filter any_call any_call,u,save_type CALL,IND_CALL,IRQ
filter any_ret any_ret,u,save_type RET,SYSRET,ERET
filter cond cond,u,save_type COND
filter ind_call ind_call,u,save_type IND_CALL
filter call call,u,save_type CALL
filter ind_jmp ind_jmp,u,save_type IND
filter call_or_ret any_call,any_ret,u,save_type CALL,IND_CALL,RET,SYSRET,IRQ,ERET
if emu_record cs -c 211 -j call_stack,u,save_type -- "$bin" 3; then
	perf script -i "$tmp/cs.data" -F brstack 2>/dev/null | stacks emulate_callstack_types types CALL,IND_CALL,IRQ
	# the fixture is built without sibling calls: no tail call hides a frame
	perf script -i "$tmp/cs.data" -F brstacksym 2>/dev/null | stacks emulate_callstack_lifo callstack \
		main,loop_1000,every_4th,fib,dispatch,op_add,op_sub,op_xor,op_mul,hit
else
	fail "emulate_callstack: $(head -1 "$tmp/cs.err")"
fi
# --call-graph lbr: perf builds call graphs from the call-stack branch stacks
if emu_record cg -c 997 --call-graph lbr -- "$bin" 3; then
	perf report --stdio --no-children -i "$tmp/cg.data" >"$tmp/cg.txt" 2>/dev/null
	if grep -q -- '---fib' "$tmp/cg.txt" && grep -Eq '^ +\|? *\|? *.*main$|--main$| main$' "$tmp/cg.txt" &&
		grep -q '__libc_start_call_main' "$tmp/cg.txt"; then
		pass "emulate_callgraph_lbr (perf report -g: fib ... main __libc_start_call_main)"
	else
		fail "emulate_callgraph_lbr: perf report shows no fib -> main call graph"
	fi
else
	fail "emulate_callgraph_lbr: $(head -1 "$tmp/cg.err")"
fi
if emu_record nf -c 211 -j any,u,no_flags,no_cycles -- "$bin" 1; then
	perf script -i "$tmp/nf.data" -F brstack 2>/dev/null | stacks emulate_no_flags noflags
	perf script -i "$tmp/nf.data" -F brstack 2>/dev/null | stacks emulate_no_cycles nocycles
else
	fail "emulate_no_flags: $(head -1 "$tmp/nf.err")"
fi
