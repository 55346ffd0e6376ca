#!/bin/bash
# hwprof timing on a recording written with hwprof's writer
# (tests/tools/gen_timing) whose ground truth the generator knows: a loop of
# block A (bimodal: 70% near 30 cycles, 30% near 200) and block B
# (unimodal near 50), 2% of counts unknown (0). Checks: every histogram
# equals the truth exactly; A has two modes at the right places and shares,
# B one; loop iteration times equal the truth's sums; --block selects by
# address; the JSON has the CSV's rows; an emulated recording says
# "modelled" in the table, its JSON/CSV and its SVG; a no_cycles recording
# is refused in one plain line.
set -u
echo "PLAN 8"
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
HWPROF=${HWPROF:-$build/hwprof}
gen=$build/tests/tools/gen_timing
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! "$gen" "$tmp/t.data" "$tmp/truth.txt" --samples 600 >/dev/null; then
	echo "FAIL timing_modes_gen: gen_timing failed"
	exit 0
fi
H() { "$HWPROF" timing -q -i "$tmp/t.data" "$@"; }
H --histograms --csv >"$tmp/h.csv" && H --csv >"$tmp/b.csv" && H --loops --csv >"$tmp/l.csv" &&
	H --json >"$tmp/b.json" && H --block 0x401008 --csv >"$tmp/blk.csv" || {
	echo "FAIL timing_modes: hwprof timing failed"
	exit 0
}
python3 - "$tmp" <<'PY'
import csv, json, math, sys
d = sys.argv[1]
truth = {}
for line in open(f"{d}/truth.txt"):
    kind, a, b, c, n = line.split()
    truth.setdefault((kind, int(a, 16), int(b, 16)), {})[int(c)] = int(n)

def rank(h, p):
    total, seen = sum(h.values()), 0
    for v in sorted(h):
        seen += h[v]
        if seen >= max(1, math.ceil(p * total)):
            return v

def check(name, bad, ok):
    print(f"FAIL {name}: " + "; ".join(bad) if bad else f"PASS {name} ({ok})")

# 1. histograms
got = {}
for r in csv.DictReader(open(f"{d}/h.csv")):
    got.setdefault(("block", int(r["start_addr"], 16), int(r["end_addr"], 16)), {})[int(r["cycles"])] = int(r["samples"])
want = {k: v for k, v in truth.items() if k[0] == "block"}
bad = [f"block {k[1]:#x}: histograms differ" for k in set(got) | set(want) if got.get(k) != want.get(k)]
check("timing_histograms_exact", bad, f"{len(got)} blocks, {sum(sum(h.values()) for h in got.values())} latencies")

# 2. modes
rows = {int(r["start_addr"], 16): r for r in csv.DictReader(open(f"{d}/b.csv"))}
bad = []
def modes(r):
    return [(int(c), float(s)) for c, s in (m.split(":") for m in r["modes"].split(";") if m)]
a, b = rows.get(0x401000), rows.get(0x401100)
if not a or not b:
    bad.append("blocks A and B not both in the table")
else:
    ma, mb = modes(a), modes(b)
    if int(a["nmodes"]) != 2 or len(ma) != 2:
        bad.append(f"block A (bimodal): modes {a['modes']}")
    elif not (abs(ma[0][0] - 30) <= 3 and abs(ma[1][0] - 200) <= 10 and abs(ma[0][1] - 70) <= 5 and abs(ma[1][1] - 30) <= 5):
        bad.append(f"block A: modes {a['modes']}, want 30 (70%) and 200 (30%)")
    if int(b["nmodes"]) != 1 or len(mb) != 1 or abs(mb[0][0] - 50) > 3:
        bad.append(f"block B (unimodal): modes {b['modes']}, want one near 50")
    for r, k in ((a, ("block", 0x401000, 0x401010)), (b, ("block", 0x401100, 0x401120))):
        h = truth[k]
        for f, v in (("samples", sum(h.values())), ("median", rank(h, .5)), ("p99", rank(h, .99)),
                     ("min", min(h)), ("max", max(h))):
            if int(r[f]) != v:
                bad.append(f"{k[1]:#x} {f}: {r[f]} != {v}")
check("timing_modes_bimodal_unimodal", bad, f"A: {a and a['modes']}; B: {b and b['modes']}")

# 3. loops: iterations whose both counts are known
lrows = list(csv.DictReader(open(f"{d}/l.csv")))
h = truth[("loop", 0x401120, 0x401000)]
bad = []
if len(lrows) != 1:
    bad.append(f"{len(lrows)} loops, want 1")
else:
    r = lrows[0]
    if int(r["branch_addr"], 16) != 0x401120 or int(r["head_addr"], 16) != 0x401000:
        bad.append(f"back edge {r['branch_addr']} -> {r['head_addr']}")
    for f, v in (("samples", sum(h.values())), ("min", min(h)), ("max", max(h)), ("median", rank(h, .5)),
                 ("p90", rank(h, .9)), ("cycles_total", sum(c * n for c, n in h.items()))):
        if int(r[f]) != v:
            bad.append(f"loop {f}: {r[f]} != {v}")
    if abs(float(r["branches_per_iteration"]) - 2) > 1e-9:
        bad.append(f"branches per iteration {r['branches_per_iteration']}")
check("timing_loops_exact", bad, f"{sum(h.values())} iterations, median {rank(h, .5)} cycles")

# 4. --block by address: block A's rows only, rates adding up to 100%
br = list(csv.DictReader(open(f"{d}/blk.csv")))
ha = truth[("block", 0x401000, 0x401010)]
bad = []
if {r["start_addr"] for r in br} != {"0x401000"}:
    bad.append(f"blocks {sorted({r['start_addr'] for r in br})}")
if {int(r["cycles"]): int(r["samples"]) for r in br} != ha:
    bad.append("rows differ from the truth")
# (rates are printed rounded)
if abs(sum(float(r["rate_percent"]) for r in br) - 100) > 0.001 * len(br) or abs(float(br[-1]["cumulative_percent"]) - 100) > 1e-6:
    bad.append("rates do not add up to 100%")
mode_rows = sorted(int(r["mode"]) for r in br if r["mode"])
if mode_rows != [1, 2]:
    bad.append(f"mode marks {mode_rows}")
check("timing_block_address", bad, f"{len(br)} values of block A")

# 5. JSON = CSV
js = json.load(open(f"{d}/b.json"))
bad = []
if len(js) != len(rows) or any(int(j["start_addr"], 16) not in rows for j in js):
    bad.append("JSON rows differ from CSV rows")
if any(j["cycles_source"] != "measured" for j in js):
    bad.append("cycles_source not 'measured'")
check("timing_json", bad, f"{len(js)} rows")
PY

# --block errors: a malformed location, and one no block contains
if H --block 'main+zz' >/dev/null 2>"$tmp/err"; then
	echo "FAIL timing_block_errors: a malformed --block was taken"
elif ! grep -q "offset after '+' is not a number" "$tmp/err" ||
	H --block 0x999999 >/dev/null 2>"$tmp/err2" || ! grep -q "no timed block contains 0x999999" "$tmp/err2"; then
	echo "FAIL timing_block_errors: $(cat "$tmp/err" "$tmp/err2" 2>/dev/null | head -2)"
else
	echo "PASS timing_block_errors ($(cut -c1-70 "$tmp/err2")...)"
fi

# emulated: modelled wherever the cycles are shown
"$gen" "$tmp/e.data" "$tmp/etruth.txt" --samples 200 --emulated >/dev/null
E() { "$HWPROF" timing -q -i "$tmp/e.data" "$@"; }
if ! E >"$tmp/e.txt" || ! E --csv >"$tmp/e.csv" || ! E --block 0x401000 --svg "$tmp/e.svg" >"$tmp/eb.txt"; then
	echo "FAIL timing_modelled: hwprof timing failed on the emulated recording"
elif ! grep -q "cycles modelled by the emulator" "$tmp/e.txt" || grep -q "cycles measured" "$tmp/e.txt" ||
	[ "$(tail -n +2 "$tmp/e.csv" | grep -vc ',modelled,')" -ne 0 ] || ! grep -q "modelled" "$tmp/eb.txt" ||
	! grep -q "cycles (modelled)" "$tmp/e.svg" || ! grep -q "modelled by hwprof" "$tmp/e.svg"; then
	echo "FAIL timing_modelled: 'modelled' missing: $(head -1 "$tmp/e.txt")"
else
	echo "PASS timing_modelled (text header, every CSV row, occurrence table and SVG say modelled)"
fi

# no_cycles: refused, saying why
"$gen" "$tmp/n.data" "$tmp/ntruth.txt" --samples 50 --no-cycles >/dev/null
if "$HWPROF" timing -i "$tmp/n.data" >"$tmp/n.out" 2>"$tmp/n.err"; then
	echo "FAIL timing_no_cycles_filter: exit 0"
elif [ -s "$tmp/n.out" ] || ! grep -q "carry no cycle counts: it was recorded with no_cycles" "$tmp/n.err"; then
	echo "FAIL timing_no_cycles_filter: $(head -1 "$tmp/n.err")"
else
	echo "PASS timing_no_cycles_filter"
fi
