#!/bin/bash
# hwprof advise on emulated recordings of tests/fixtures/advise_patterns.c:
#   - planted build: the top finding of each kind is the planted one (the
#     biased branch, the random branch, the monomorphic call: by source
#     line from --json), with its evidence in range;
#   - the -DCLEAN build (same work, patterns removed) gives no finding of
#     those kinds;
#   - a bimodal block written with the writer (tests/tools/gen_timing) is
#     the one multimodal finding, with both peaks; its unimodal neighbour
#     is not reported;
#   - acting on the biased-branch finding (the hint flipped, as the advice
#     says) moves the branch's taken probability from ~95% to ~5%
#     (hwprof probs on the clean build);
#   - thresholds: a --bias above the branch's probability hides it, --kind
#     filters; bad option values are one-line errors.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where emulated recording cannot run
ready=$(emu_ready advise) || { echo "PLAN 1"; echo "$ready"; exit 0; }
echo "PLAN 22"
fx=$root/tests/fixtures
cd "$tmp" || exit 1
if ! gcc -O2 -g -o ap "$fx/advise_patterns.c" || ! gcc -O2 -g -DCLEAN -o apc "$fx/advise_patterns.c"; then
	fail "advise_build: gcc failed"; exit 0
fi
emu_record ap -b -c 1009 -- ./ap && emu_record apc -b -c 1009 -- ./apc ||
	{ fail "advise_record: $(head -1 ap.err apc.err)"; exit 0; }
line_of() { grep -n -F "/* $1 */" "$fx/advise_patterns.c" | head -1 | cut -d: -f1; }
biased=$(line_of "the biased branch")
random=$(line_of "the random branch")
mono=$(line_of "the monomorphic call")

"$HWPROF" advise -i ap.data --json >ap.json 2>ap.advise.err || fail "advise_json: $(head -1 ap.advise.err)"
"$HWPROF" advise -i apc.data --json >apc.json 2>apc.advise.err || fail "advise_json_clean: $(head -1 apc.advise.err)"
python3 - ap.json apc.json "$biased" "$random" "$mono" <<'PY'
import json, sys
rows, clean = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
want = {"biased-branch": int(sys.argv[3]), "mispredict": int(sys.argv[4]), "monomorphic-call": int(sys.argv[5]),
        # the random branch's mispredicts make the emulator's cost model add
        # its penalty to some executions of the block: two latency peaks
        "multimodal-block": int(sys.argv[4])}
# the evidence each planted pattern must show (the fixture's design)
rng = {"biased-branch": (90, 99), "mispredict": (15, 60), "monomorphic-call": (97, 100),
       "multimodal-block": (2, 6)}
for kind, line in want.items():
    top = next((r for r in rows if r["kind"] == kind), None)
    if top is None:
        print(f"FAIL advise_top_{kind}: no {kind} finding")
    # the random branch's mispredicts land on either arm of it: a block of coin()
    elif (top["symbol"] != "coin" if kind == "multimodal-block" else top["line"] != line) or \
            "advise_patterns.c" not in (top["file"] or ""):
        print(f"FAIL advise_top_{kind}: top is {top['file']}:{top['line']}, planted at line {line}")
    elif not rng[kind][0] <= top["value_percent"] <= rng[kind][1] or (
            top["low_percent"] is not None and not top["low_percent"] <= top["value_percent"] <= top["high_percent"]):
        print(f"FAIL advise_top_{kind}: value {top['value_percent']:.1f}% [{top['low_percent']:.1f}, {top['high_percent']:.1f}] outside {rng[kind]}")
    else:
        print(f"PASS advise_top_{kind} ({top['symbol']}+{top['sym_offset']} line {line}: {top['value_percent']:.1f}%, "
              f"share {top['share_percent']:.1f}%, {top['samples']} samples)")
    found = [r for r in clean if r["kind"] == kind]
    if found:
        print(f"FAIL advise_clean_{kind}: {len(found)} findings, first at {found[0]['symbol']} line {found[0]['line']}")
    else:
        print(f"PASS advise_clean_{kind} (none in the clean build)")
PY

# a bimodal block written with the writer (tests/tools/gen_timing: block A
# 70% near 30 cycles, 30% near 200; block B unimodal near 50)
"$build/tests/tools/gen_timing" gt.data gt.truth >/dev/null 2>&1 || fail "advise_gen_timing: gen_timing failed"
"$HWPROF" advise -q -i gt.data --json >gt.json 2>gt.err || fail "advise_gen_timing: $(head -1 gt.err)"
python3 - gt.json <<'PY'
import json, sys
rows = [r for r in json.load(open(sys.argv[1])) if r["kind"] == "multimodal-block"]
# block A at 0x401000: module offset 0x1000 (the generator maps 0x400000 from offset 0)
if [r["offset"] for r in rows] != ["0x1000"]:
    print(f"FAIL advise_bimodal_block: multimodal findings at offsets {[r['offset'] for r in rows]}, want block A's (0x1000) only")
elif not (25 <= rows[0]["fast_mode_cycles"] <= 35 and 180 <= rows[0]["slow_mode_cycles"] <= 220
          and 60 <= rows[0]["fast_mode_percent"] <= 80):
    r = rows[0]
    print(f"FAIL advise_bimodal_block: modes {r['fast_mode_cycles']} ({r['fast_mode_percent']:.0f}%), {r['slow_mode_cycles']}")
else:
    r = rows[0]
    print(f"PASS advise_bimodal_block (block A: {r['fast_mode_cycles']} cycles {r['fast_mode_percent']:.0f}%, "
          f"{r['slow_mode_cycles']} cycles {r['slow_mode_percent']:.0f}%; unimodal block B not reported)")
PY

# the advice taken: the hint flipped, the hot path falls through
p=$("$HWPROF" probs -i apc.data --json | python3 -c "
import json, sys
rows = [r for r in json.load(sys.stdin) if r['line'] == $biased and r['executions'] >= 1000]
print(f\"{rows[0]['taken_percent']:.1f}\" if rows else 'none')")
case $p in
none) fail "advise_acted: the clean build's branch at line $biased not in probs" ;;
*) if python3 -c "import sys; sys.exit(0 if float('$p') < 10 else 1)"; then
	pass "advise_acted (line $biased taken $p% after the hint flip, 95% before)"
   else
	fail "advise_acted: line $biased still taken $p%"
   fi ;;
esac

# thresholds and filters
n=$("$HWPROF" advise -i ap.data --bias 99 --kind biased-branch --json | python3 -c "import json,sys; print(len(json.load(sys.stdin)))")
[ "$n" = 0 ] && pass "advise_threshold (--bias 99 hides the 95% branch)" || fail "advise_threshold: $n findings"
"$HWPROF" advise -i ap.data --kind mispredict >kind.txt 2>&1 && ! grep -qE 'biased-branch|monomorphic' kind.txt &&
	grep -q mispredict kind.txt && pass "advise_kind" || fail "advise_kind: $(head -2 kind.txt | tr '\n' ' ')"
for args in "--bias 0" "--bias 150" "--spread 1" "--kind nope" "--penalty x"; do
	if "$HWPROF" advise -i ap.data $args >/dev/null 2>err.txt; then
		fail "advise_usage '$args': exit 0"
	elif [ "$(wc -l <err.txt)" -ne 1 ]; then
		fail "advise_usage '$args': $(head -2 err.txt | tr '\n' ' ')"
	else
		pass "advise_usage '$args' ($(cat err.txt))"
	fi
done

# modelled cycles are labelled wherever branches shows them (the emulated
# recording) and measured ones are not (the writer's cycles:u recording)
src_of() { "$HWPROF" branches -q -i "$1" --sort symbol_from,cycles --limit 1 --json |
	python3 -c "import json,sys; print(json.load(sys.stdin)[0]['cycles_source'])"; }
if [ "$(src_of ap.data)" = modelled ] && [ "$(src_of gt.data)" = measured ] &&
	"$HWPROF" branches -q -i ap.data --sort symbol_from,cycles --limit 1 | grep -q '^# cycles modelled' &&
	! "$HWPROF" branches -q -i gt.data --sort symbol_from,cycles --limit 1 | grep -q 'modelled'; then
	pass "branches_cycles_labelled (emulated: modelled, in the text and cycles_source; writer's cycles:u: measured)"
else
	fail "branches_cycles_labelled: $(src_of ap.data) / $(src_of gt.data)"
fi

# memory findings, on emulated memory samples (record --emulate --mem): the
# false-sharing fixture's line is the top false-sharing finding with both
# offsets and both writers, its padded build has none; the array walk's
# loop loads from DRAM (its 256 MiB array), the false-sharing fixture does not
gcc -O2 -g -pthread -o fs "$fx/mem_false_sharing.c" && gcc -O2 -g -pthread -DPADDED -o fsp "$fx/mem_false_sharing.c" &&
	gcc -O1 -g -fno-inline -o walk "$fx/mem_walk.c" || { fail "advise_mem_build: gcc failed"; exit 0; }
for p in fs fsp walk; do
	"$HWPROF" record -q --emulate --mem -c 211 -o $p.data -- ./$p >/dev/null 2>$p.err ||
		{ fail "advise_mem_record_$p: $(head -1 $p.err)"; exit 0; }
	"$HWPROF" advise -q -i $p.data --json >$p.json 2>$p.aerr || fail "advise_mem_$p: $(head -1 $p.aerr)"
done
python3 - fs.json fsp.json walk.json "" <<'PY'
import json, sys
fs, fsp, walk = (json.load(open(p)) for p in sys.argv[1:4])
top = next((r for r in fs if r["kind"] == "false-sharing"), None)
if top is None:
    print("FAIL advise_false_sharing: no false-sharing finding")
elif {top["offset1"], top["offset2"]} != {"0x0", "0x8"} or top["threads"] < 2 or \
        {top["symbol"], top["second_symbol"]} != {"bump_a", "bump_b"}:
    print(f"FAIL advise_false_sharing: offsets {top['offset1']}, {top['offset2']}, writers {top['symbol']}, "
          f"{top['second_symbol']}, {top['threads']} threads")
else:
    print(f"PASS advise_false_sharing (line {top['data_addr']}: offsets {top['offset1']} and {top['offset2']} "
          f"written by {top['symbol']} (line {top['line']}) and {top['second_symbol']} (line {top['second_line']}); "
          f"{top['events']} HITM of {top['samples']})")
bad = [r for r in fsp if r["kind"] == "false-sharing"]
print(("FAIL" if bad else "PASS") + f" advise_false_sharing_padded ({len(bad)} false-sharing findings in the padded build)")
dram = [r for r in walk if r["kind"] == "dram-loads"]
if not dram or not (dram[0]["file"] or "").endswith("mem_walk.c") or dram[0]["value_percent"] < 20:
    print(f"FAIL advise_dram_loads: {[(r['symbol'], r['line'], r['value_percent']) for r in dram]}")
else:
    r = dram[0]
    print(f"PASS advise_dram_loads ({r['symbol']} mem_walk.c:{r['line']}: {r['value_percent']:.1f}% of {r['samples']} "
          f"sampled loads from DRAM, share {r['share_percent']:.1f}% of load latency)")
bad = [r for r in fs if r["kind"] == "dram-loads"]
print(("FAIL" if bad else "PASS") + f" advise_dram_loads_clean ({len(bad)} dram-loads findings for the false-sharing fixture)")
PY
