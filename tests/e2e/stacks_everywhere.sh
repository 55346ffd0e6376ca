#!/bin/bash
# Call stacks (frame-pointer callchains, --call-graph dwarf unwound by
# src/unwind/) where a report is more than its call graph, on real perf 6.1
# cpu-clock recordings of tests/fixtures/dwarf_unwind.c made here:
#   - hwprof export --format pprof: each stack a sample, decoded from the
#     wire format (tests/tools/pprof_decode.py --folded) equal to perf
#     script's callchains folded (tests/tools/unwind_check.py folded), for
#     a --call-graph dwarf recording of a build without frame pointers and
#     a -g recording of one with them; the samples and period values sum
#     to perf script's; every location's lines in the fixture and ld.so
#     (inlined frames included) as addr2line -f -i gives them
#     (tests/tools/pprof_lines_check.py).
#   - hwprof diff: tests/fixtures/callgraph.c with beta's work raised by
#     its command line, recorded --call-graph dwarf: every function's
#     children and self share on both sides as perf report --children
#     gives it, beta's rise and alpha's fall significant, each change in
#     its interval (tests/tools/diff_children_check.py); a side
#     without call stacks said (a corpus recording of branch stacks alone;
#     a plain cpu-clock recording refused, saying it has neither).
#   - hwprof advise: tests/fixtures/advise_callers.c's mispredicting branch
#     found in an emulated branch recording (record --emulate -b), its
#     callers from a perf recording of the same binary given as a second
#     input (--call-graph dwarf of a gcc -fomit-frame-pointer build, -g of
#     a clang frame-pointer build): every finding's chain and counts as perf's
#     callchains give them (tests/tools/advise_callers_check.py), the
#     planted parse_block <- decompress <- main at about 75%; the HTML
#     report says it; without the stacks no callers anywhere.
#   - both in one recording, branch stacks and call chains (record
#     --emulate -b -g): advise's callers as perf's callchains of it; diff
#     of two such recordings of callgraph.c, beta raised: the branch and
#     block rows and the children shares (as perf report --children), the
#     planted change significant; the same run recorded at two periods
#     (emulated -g: the same instructions, only the sampling differs): no
#     significant children change.
# Skips where perf cannot record cpu-clock or gcc is missing.
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
HWPROF=${HWPROF:-$build/hwprof}
. "$tools/unwind_lib.sh"

CORPUS=${HWPROF_CORPUS:-$root/../shared/corpus}
NAMES=(stacks_pprof_dwarf stacks_pprof_dwarf_totals stacks_pprof_lines stacks_pprof_fp stacks_diff_dwarf
	stacks_diff_no_stacks stacks_advise_dwarf stacks_advise_fp stacks_advise_html
	stacks_advise_no_stacks stacks_advise_emulated_g stacks_diff_emulated_g stacks_diff_same_run)
echo "PLAN ${#NAMES[@]}"
said=()
done_() { said+=("$1"); }
skip_rest() {
	for n in "${NAMES[@]}"; do
		[[ " ${said[*]} " == *" $n "* ]] || { skip "$n: $1"; said+=("$n"); }
	done
}

fx=$root/tests/fixtures/dwarf_unwind.c
if [ ! -x "$PERF" ] || ! command -v gcc >/dev/null; then
	skip_rest "needs gcc and $PERF"
	exit 0
fi
if ! gcc -O2 -g -fomit-frame-pointer -o "$tmp/dw" "$fx" -lz 2>"$tmp/gcc.err" ||
	! gcc -O2 -g -fno-omit-frame-pointer -o "$tmp/fp" "$fx" -lz 2>>"$tmp/gcc.err"; then
	skip_rest "cannot build the fixture against zlib: $(head -1 "$tmp/gcc.err")"
	exit 0
fi
# record NAME BINARY [perf args]: $tmp/NAME.data, two rounds of the fixture
record() {
	local out=$1 bin=$2
	shift 2
	perfc record -N -q -e cpu-clock "$@" -o "$tmp/$out.data" "$bin" 2 >/dev/null 2>"$tmp/$out.rec"
}
if ! record dw "$tmp/dw" --call-graph dwarf; then
	skip_rest "perf cannot record cpu-clock here: $(head -1 "$tmp/dw.rec")"
	exit 0
fi

# pprof_folded NAME DATA: NAME.pb.gz, NAME.json and NAME.folded (by samples)
pprof_folded() {
	local name=$1 data=$2
	"$HWPROF" export -q --format pprof -i "$data" -o "$tmp/$name.pb.gz" 2>"$tmp/$name.err" &&
		python3 "$tools/pprof_decode.py" "$tmp/$name.pb.gz" >"$tmp/$name.json" 2>>"$tmp/$name.err" &&
		python3 "$tools/pprof_decode.py" "$tmp/$name.pb.gz" --folded samples >"$tmp/$name.folded" 2>>"$tmp/$name.err"
}

# 1. pprof of a --call-graph dwarf recording
perf_script "$tmp/dw.data" "$tmp/dw.script"
if pprof_folded dwp "$tmp/dw.data"; then
	CMP_NAME=stacks_pprof_dwarf python3 "$chk" folded "$tmp/dw.script" "$tmp/dwp.folded" /proc/kallsyms
	# samples and period (cpu-clock, nanoseconds) as perf script's
	want=$(awk '/^ *[0-9]+ *$/ { n++; p += $1 } END { print n + 0, p + 0 }' "$tmp/dw.script")
	got=$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
t = [x for x, _ in d['sample_type']]
print(sum(s['values'][t.index('samples')] for s in d['samples']), sum(s['values'][t.index('cpu-clock')] for s in d['samples']),
      dict(d['sample_type'])['cpu-clock'])" "$tmp/dwp.json" 2>&1)
	if [ "$got" = "$want nanoseconds" ]; then
		pass "stacks_pprof_dwarf_totals ($want samples and nanoseconds, as perf script)"
	else
		fail "stacks_pprof_dwarf_totals: pprof $got, perf script $want"
	fi
	CMP_NAME=stacks_pprof_lines python3 "$tools/pprof_lines_check.py" "$tmp/dwp.json" "$tmp/dw" \
		"$(readlink -f /lib64/ld-linux-x86-64.so.2)"
else
	fail "stacks_pprof_dwarf: $(head -1 "$tmp/dwp.err")"
fi
done_ stacks_pprof_dwarf
done_ stacks_pprof_dwarf_totals
done_ stacks_pprof_lines

# 2. pprof of a frame-pointer recording (-g): return addresses, named as perf names them
if record fp "$tmp/fp" -g; then
	perf_script "$tmp/fp.data" "$tmp/fp.script"
	if pprof_folded fpp "$tmp/fp.data"; then
		CMP_NAME=stacks_pprof_fp python3 "$chk" folded "$tmp/fp.script" "$tmp/fpp.folded" /proc/kallsyms
	else
		fail "stacks_pprof_fp: $(head -1 "$tmp/fpp.err")"
	fi
else
	fail "stacks_pprof_fp: perf record -g: $(head -1 "$tmp/fp.rec")"
fi
done_ stacks_pprof_fp

# 3. diff: children (and self) shares against perf report --children
# diff_check NAME BEFORE AFTER UP DOWN
diff_check() {
	local name=$1 b=$2 a=$3
	for x in "$b" "$a"; do
		perfc report -i "$tmp/$x.data" --no-inline --no-branch-stack --children --stdio -g none >"$tmp/$x.rep" 2>/dev/null
	done
	if "$HWPROF" diff -q --all --json "$tmp/$b.data" "$tmp/$a.data" >"$tmp/$name.json" 2>"$tmp/$name.err"; then
		CMP_NAME=$name python3 "$tools/diff_children_check.py" "$tmp/$name.json" "$tmp/$b.rep" "$tmp/$a.rep" "$4" "$5"
	else
		fail "$name: $(head -1 "$tmp/$name.err")"
	fi
}
if gcc -O2 -g -fomit-frame-pointer -o "$tmp/cg" "$root/tests/fixtures/callgraph.c" 2>"$tmp/gcc.err"; then
	if perfc record -N -q -e cpu-clock:u --call-graph dwarf -o "$tmp/cgb.data" "$tmp/cg" 1500 15000 >/dev/null 2>"$tmp/cg.rec" &&
		perfc record -N -q -e cpu-clock:u --call-graph dwarf -o "$tmp/cga.data" "$tmp/cg" 1500 60000 >/dev/null 2>>"$tmp/cg.rec"; then
		diff_check stacks_diff_dwarf cgb cga beta alpha
	else
		fail "stacks_diff_dwarf: $(head -1 "$tmp/cg.rec")"
	fi
else
	fail "stacks_diff_dwarf: $(head -1 "$tmp/gcc.err")"
fi
done_ stacks_diff_dwarf
# a side without stacks: said (branch stacks on both sides), refused (neither)
cb=$CORPUS/perf_data_converter/perf.data.callgraph_and_branch-3.8
bo=$CORPUS/perf_data_converter/perf.data.branch_stack_spec
if [ ! -f "$cb" ] || [ ! -f "$bo" ]; then
	skip "stacks_diff_no_stacks: no corpus ($cb)"
else
	"$HWPROF" diff "$cb" "$bo" >"$tmp/ns.out" 2>&1
	perfc record -N -q -e cpu-clock:u -o "$tmp/plain.data" "$tmp/cg" 100 >/dev/null 2>&1
	"$HWPROF" diff "$tmp/cgb.data" "$tmp/plain.data" >"$tmp/ns2.out" 2>&1
	rc=$?
	if grep -q "^# children not compared: $bo has no call stacks" "$tmp/ns.out" &&
		! grep -q "call stacks: .* children share compared" "$tmp/ns.out" &&
		[ $rc = 1 ] && grep -q "plain.data: no samples with branch stacks, nor call stacks" "$tmp/ns2.out"; then
		pass "stacks_diff_no_stacks (a side without call stacks said; one with neither refused)"
	else
		fail "stacks_diff_no_stacks: $(head -3 "$tmp/ns.out" | tr '\n' ' ') | rc $rc $(head -1 "$tmp/ns2.out")"
	fi
fi
done_ stacks_diff_no_stacks

# 4. advise: the findings' caller chains
if ! ready=$(emu_ready stacks_advise); then
	skip_rest "${ready#SKIP stacks_advise: }"
	exit 0
fi
for v in dwarf fp; do
	n=stacks_advise_$v
	if [ $v = dwarf ]; then
		cc=gcc flags=-fomit-frame-pointer cg=(--call-graph dwarf)
	else
		# clang: a leaf keeps its frame pointer too (gcc's coin() has
		# none, and a frame-pointer walk loses its caller)
		cc=clang flags="-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer" cg=(-g)
	fi
	if ! command -v $cc >/dev/null; then
		skip "$n: needs $cc"
		continue
	fi
	if ! $cc -O2 -g $flags -o "$tmp/acl_$v" "$root/tests/fixtures/advise_callers.c" 2>"$tmp/acl.err" ||
		! emu_record acl_emu_$v -b -c 1009 -- "$tmp/acl_$v" 100000 ||
		! perfc record -N -q -e cpu-clock:u "${cg[@]}" -o "$tmp/acl_$v.data" "$tmp/acl_$v" 3000000 >/dev/null 2>"$tmp/acl.err"; then
		fail "$n: $(head -1 "$tmp/acl.err" "$tmp/acl_emu_$v.err" 2>/dev/null | tr '\n' ' ')"
		continue
	fi
	perf_script "$tmp/acl_$v.data" "$tmp/acl_$v.script"
	if "$HWPROF" advise -q --json -i "$tmp/acl_emu_$v.data" -i "$tmp/acl_$v.data" >"$tmp/acl_$v.json" 2>"$tmp/acl.err"; then
		CMP_NAME=$n python3 "$tools/advise_callers_check.py" "$tmp/acl_$v.json" "$tmp/acl_$v.script" coin \
			"parse_block <- decompress <- main" 65 85
	else
		fail "$n: $(head -1 "$tmp/acl.err")"
	fi
done
done_ stacks_advise_dwarf
done_ stacks_advise_fp
if [ -s "$tmp/acl_dwarf.data" ] &&
	"$HWPROF" report -q --html "$tmp/acl.html" -i "$tmp/acl_emu_dwarf.data" -i "$tmp/acl_dwarf.data" 2>"$tmp/acl.err"; then
	if grep -q "sampled stacks come from parse_block &lt;- decompress &lt;- main" "$tmp/acl.html"; then
		pass "stacks_advise_html (the findings' evidence names the callers)"
	else
		fail "stacks_advise_html: no caller chain in the findings"
	fi
else
	fail "stacks_advise_html: $(head -1 "$tmp/acl.err")"
fi
done_ stacks_advise_html
# without stacks: no callers in the text, the JSON or the HTML
if [ -s "$tmp/acl_emu_dwarf.data" ] &&
	"$HWPROF" advise -q -i "$tmp/acl_emu_dwarf.data" >"$tmp/ns.txt" 2>&1 &&
	"$HWPROF" advise -q --json -i "$tmp/acl_emu_dwarf.data" >"$tmp/ns.json" 2>&1 &&
	"$HWPROF" report -q --html "$tmp/ns.html" -i "$tmp/acl_emu_dwarf.data" 2>&1 &&
	grep -q mispredict "$tmp/ns.txt" && ! grep -q "sampled stacks come from" "$tmp/ns.txt" "$tmp/ns.html" &&
	! grep -q '"callers' "$tmp/ns.json"; then
	pass "stacks_advise_no_stacks (no caller chain, no callers columns)"
else
	fail "stacks_advise_no_stacks: $(grep -m1 'come from\|callers' "$tmp/ns.txt" "$tmp/ns.json" "$tmp/ns.html" 2>&1 | head -1)"
fi
done_ stacks_advise_no_stacks

# 5. branch stacks and call chains in one recording (record --emulate -b -g)
if [ -x "$tmp/acl_dwarf" ] && emu_record aclg -b -g -c 1009 -- "$tmp/acl_dwarf" 100000 &&
	"$HWPROF" advise -q --json -i "$tmp/aclg.data" >"$tmp/aclg.json" 2>"$tmp/aclg.aerr"; then
	perf_script "$tmp/aclg.data" "$tmp/aclg.script"
	CMP_NAME=stacks_advise_emulated_g python3 "$tools/advise_callers_check.py" "$tmp/aclg.json" "$tmp/aclg.script" \
		coin "parse_block <- decompress <- main" 65 85
else
	fail "stacks_advise_emulated_g: $(head -1 "$tmp/aclg.err" "$tmp/aclg.aerr" 2>/dev/null | tr '\n' ' ')"
fi
done_ stacks_advise_emulated_g
if [ -x "$tmp/cg" ] && emu_record egb -b -g -c 10007 -- "$tmp/cg" 40 15000 &&
	emu_record ega -b -g -c 10007 -- "$tmp/cg" 40 60000; then
	out=$(diff_check stacks_diff_emulated_g egb ega beta alpha)
	if [[ $out == PASS* ]] && ! grep -q '"kind":"block"' "$tmp/stacks_diff_emulated_g.json"; then
		fail "stacks_diff_emulated_g: no block rows beside the children (the flow not compared)"
	else
		echo "$out"
	fi
else
	fail "stacks_diff_emulated_g: $(head -1 "$tmp/egb.err" "$tmp/ega.err" 2>/dev/null | tr '\n' ' ')"
fi
done_ stacks_diff_emulated_g
# the same run sampled at two periods (emulated: the same instructions each
# time, so only the sampling differs, never the machine's load)
if [ -x "$tmp/cg" ] && emu_record egs1 -g -c 10007 -- "$tmp/cg" 40 15000 &&
	emu_record egs2 -g -c 9973 -- "$tmp/cg" 40 15000; then
	diff_check stacks_diff_same_run egs1 egs2 - -
else
	fail "stacks_diff_same_run: $(head -1 "$tmp/egs1.err" "$tmp/egs2.err" 2>/dev/null | tr '\n' ' ')"
fi
done_ stacks_diff_same_run
skip_rest "not reached"
