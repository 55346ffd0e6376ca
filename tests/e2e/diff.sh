#!/bin/bash
# hwprof diff on emulated recordings of tests/fixtures/diff_branch.c, whose
# planted branch goes the way the command line says:
#   - the same run recorded twice (another sample period): no significant
#     change (--all --json: every row checked);
#   - the planted probability moved from 30% to 60%: the top significant
#     change is that branch, the true change (the fixture's generator
#     replayed by tests/tools/diff_check.py) inside its interval, no other
#     branch called changed;
#   - the same against a rebuild with extra code (another build-id, every
#     address moved): matched by symbol and line, the same answers;
#   - block latency on writer-made recordings: another random stream is
#     no change; more slow executions of a block are found, the true change
#     of its mean inside the interval;
#   - usage errors: one line each.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where emulated recording cannot run
ready=$(emu_ready diff) || { echo "PLAN 1"; echo "$ready"; exit 0; }
echo "PLAN 12"
fx=$root/tests/fixtures
check=$tools/diff_check.py
cd "$tmp" || exit 1
rounds=300000
mkdir -p v2
if ! gcc -O2 -g -o db "$fx/diff_branch.c" || ! gcc -O2 -g -DSHIFT -o v2/db "$fx/diff_branch.c"; then
	fail "diff_build: gcc failed"; exit 0
fi
rec() { # OUT PERIOD BINARY PERMILLE
	emu_record "$1" -b -c "$2" -- "$3" "$4" $rounds || { fail "diff_record_$1: $(head -1 "$1.err")"; return 1; }
}
rec a1 1009 ./db 300 && rec a2 997 ./db 300 && rec b 1009 ./db 600 && rec c0 1009 v2/db 300 && rec c 1009 v2/db 600 || exit 0
p300=$(python3 "$check" truth 300 $rounds)
p600=$(python3 "$check" truth 600 $rounds)

# NAME BEFORE AFTER MODE [ARGS]
one() {
	local name=$1 before=$2 after=$3 mode=$4 out
	shift 4
	if ! "$HWPROF" diff --all --json "$before" "$after" >"$name.json" 2>"$name.err"; then
		fail "diff_$name: exit $?: $(head -1 "$name.err")"; return
	fi
	if out=$(python3 "$check" "$mode" "$name.json" "$@" 2>&1); then
		pass "diff_$name ($out)"
	else
		fail "diff_$name: $out"
	fi
}
line=$(grep -n -F '/* the planted branch */' "$fx/diff_branch.c" | head -1 | cut -d: -f1)
one same a1.data a2.data none
one planted a1.data b.data planted "$line" "$p300" "$p600"
one rebuilt_same a1.data c0.data none
one rebuilt_planted a1.data c.data planted "$line" "$p300" "$p600"

# the text report says which matching was used, and "no significant change"
"$HWPROF" diff a1.data a2.data >same.txt 2>&1 && grep -q '^no significant change$' same.txt &&
	! grep -q 'build-ids differ' same.txt && pass "diff_text_same" || fail "diff_text_same: $(head -3 same.txt | tr '\n' ' ')"
"$HWPROF" diff a1.data c.data >rebuilt.txt 2>&1 && grep -q 'matched by symbol and line' rebuilt.txt &&
	grep -q "diff_branch.c:$line" rebuilt.txt && pass "diff_text_rebuilt" ||
	fail "diff_text_rebuilt: $(head -4 rebuilt.txt | tr '\n' ' ')"

# usage errors
for args in "a1.data" "- -" "--min-change 0 a1.data b.data" "a1.data missing.data"; do
	if "$HWPROF" diff $args >err.out 2>err.txt; then
		fail "diff_usage '$args': exit 0"
	elif [ "$(wc -l <err.txt)" -ne 1 ]; then
		fail "diff_usage '$args': $(wc -l <err.txt) lines: $(head -2 err.txt | tr '\n' ' ')"
	else
		pass "diff_usage '$args' ($(cat err.txt))"
	fi
done

# block latency, on writer-made recordings (tests/tools/gen_timing): block A
# is slow (~200 cycles) in 30% of its executions; another random stream
# changes nothing, 45% slow executions raise A's mean, which the interval
# must hold (the true means from the generator's truth files)
gen=$build/tests/tools/gen_timing
"$gen" g1.data g1.truth --samples 1000 && "$gen" g2.data g2.truth --samples 1000 --seed 7 &&
	"$gen" g3.data g3.truth --samples 1000 --miss 45 --seed 9 || fail "diff_latency_gen: gen_timing failed"
"$HWPROF" diff -q --all --json g1.data g2.data >lat_same.json 2>lat.err &&
	"$HWPROF" diff -q --all --json g1.data g3.data >lat_planted.json 2>>lat.err ||
	fail "diff_latency: $(head -1 lat.err)"
python3 - lat_same.json lat_planted.json g1.truth g3.truth <<'PY'
import json, sys
same, planted = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
def mean_a(path):  # block A: 401000..401010
    n = s = 0
    for line in open(path):
        f = line.split()
        if f[0] == "block" and f[1] == "401000":
            n += int(f[4]); s += int(f[3]) * int(f[4])
    return s / n
lat = [r for r in same if r["measure"] == "latency"]
sig = [r for r in lat if r["significant"]]
print(("FAIL" if sig or not lat else "PASS") + f" diff_latency_same ({len(lat)} block latencies, {len(sig)} significant)")
rows = [r for r in planted if r["measure"] == "latency" and r["significant"]]
truth = mean_a(sys.argv[4]) - mean_a(sys.argv[3])
if len(rows) != 1 or rows[0]["before_offset"] != "0x1000":
    print(f"FAIL diff_latency_planted: significant latency rows at {[r['before_offset'] for r in rows]}, want block A only")
elif not rows[0]["change_low"] <= truth <= rows[0]["change_high"]:
    r = rows[0]
    print(f"FAIL diff_latency_planted: true change {truth:+.1f} outside [{r['change_low']:+.1f}, {r['change_high']:+.1f}]")
else:
    r = rows[0]
    print(f"PASS diff_latency_planted (block A {r['before']:.1f} -> {r['after']:.1f} cycles, change {r['change']:+.1f} "
          f"[{r['change_low']:+.1f}, {r['change_high']:+.1f}], true {truth:+.1f}; block B unchanged)")
PY
