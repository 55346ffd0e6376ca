#!/bin/bash
# hwprof branches / mispredicts beyond the perf comparison: mispredict counts
# and Wilson intervals recomputed independently from `hwprof script --json`,
# filters, JSON/CSV, missing binaries, data without mispredict information.
set -u
echo "PLAN 6"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=${HWPROF_ROOT:-.}
gen=$root/${BUILD:-build}/tests/tools/gen_fixture_branches
corpus=${HWPROF_CORPUS:-../shared/corpus}
gcc -g -O1 -o "$tmp/branchy" "$root/tests/fixtures/branchy.c"
"$gen" "$tmp/branchy" "$tmp/b.data" --samples 500 --seed 3 >/dev/null

"$HWPROF" script --json -i "$tmp/b.data" >"$tmp/b.json"
"$HWPROF" mispredicts --csv -i "$tmp/b.data" >"$tmp/m.csv" 2>"$tmp/m.err"
"$HWPROF" probs --csv -i "$tmp/b.data" >"$tmp/p.csv" 2>"$tmp/p.err"
if python3 - "$tmp/b.json" "$tmp/m.csv" "$tmp/p.csv" <<'PY'
import csv, json, math, sys
from collections import defaultdict
# Independent recount: per branch source address, entries / mispredicted.
sampled, mis, info = defaultdict(int), defaultdict(int), defaultdict(int)
for line in open(sys.argv[1]):
    for e in json.loads(line)["branch_stack"]["entries"]:
        a = e["from"]
        sampled[a] += 1
        mis[a] += e["mispred"] and not e["predicted"]
        info[a] += e["mispred"] or e["predicted"]
want = sorted((mis[a], sampled[a]) for a in sampled)
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
got = sorted((int(r["mispredicted"]), int(r["sampled"])) for r in rows)
assert got == want, f"(mispredicted, sampled) per branch differ: {got[:5]} vs {want[:5]}"
total = sum(mis.values())
z = 1.959963984540054
# Conditional branches with fall-through ranges are rated per execution:
# hwprof probs' numbers for them (tests/e2e/flow_exact.sh checks those).
probs = {p["offset"]: p for p in csv.DictReader(open(sys.argv[3], newline=""))}
for r in rows:
    p = probs.get(r["offset"])
    if r["rate_basis"] == "execution" and p:
        assert r["executions"] == p["executions"], (r, p)
        for a, b in (("rate_percent", "mispredict_per_execution_percent"),
                     ("rate_low_percent", "mispredict_per_execution_low_percent"),
                     ("rate_high_percent", "mispredict_per_execution_high_percent")):
            assert abs(float(r[a]) - float(p[b])) < 1e-3, (a, r, p)
        continue
    # any other branch is taken whenever it runs: per entry
    assert r["rate_basis"] == "taken" or r["executions"] == r["sampled"], r
    k, n = int(r["mispredicted"]), int(r["sampled"])  # every entry carries a bit here
    p = k / n
    c = (p + z*z/(2*n)) / (1 + z*z/n)
    h = z * math.sqrt(p*(1-p)/n + z*z/(4*n*n)) / (1 + z*z/n)
    assert abs(float(r["rate_low_percent"]) - 100*max(0, c-h)) < 1e-3, r
    assert abs(float(r["rate_high_percent"]) - 100*min(1, c+h)) < 1e-3, r
    assert abs(float(r["share_percent"]) - 100*k/total) < 1e-3, r
ordered = [int(r["mispredicted"]) for r in rows]
assert ordered == sorted(ordered, reverse=True), "not sorted by impact"
print(f"{len(rows)} branches, {total} mispredicts")
PY
then echo "PASS mispredicts_recount"; else echo "FAIL mispredicts_recount"; fi

# Filters: --sym keeps exactly the rows naming the symbol; --min-percent cuts.
"$HWPROF" branches --csv --sort symbol_from,symbol_to -i "$tmp/b.data" >"$tmp/all.csv"
"$HWPROF" branches --csv --sort symbol_from,symbol_to --sym walk -i "$tmp/b.data" >"$tmp/walk.csv"
"$HWPROF" branches --csv --sort symbol_from,symbol_to --min-percent 5 -i "$tmp/b.data" >"$tmp/min.csv"
"$HWPROF" branches --json --sort symbol_from,symbol_to -i "$tmp/b.data" >"$tmp/all.json"
if python3 - "$tmp" <<'PY'
import csv, json, sys
d = sys.argv[1]
rd = lambda f: list(csv.DictReader(open(f"{d}/{f}", newline="")))
allr, walk, mn = rd("all.csv"), rd("walk.csv"), rd("min.csv")
exp = [r for r in allr if "walk" in r["from_symbol"] or "walk" in r["to_symbol"]]
assert walk == exp and walk, "--sym walk"
assert mn == [r for r in allr if float(r["percent"]) >= 5] and mn, "--min-percent"
js = json.load(open(f"{d}/all.json"))
assert [(j["from_symbol"], j["to_symbol"], j["count"]) for j in js] == \
       [(r["from_symbol"], r["to_symbol"], int(r["count"])) for r in allr], "json vs csv"
assert abs(sum(j["percent"] for j in js) - 100) < 0.01
PY
then echo "PASS branches_filters_formats"; else echo "FAIL branches_filters_formats"; fi

# Unknown sort key: one clear line. (A prefix of a key is that key, as in
# perf: "symbol_fro" is symbol_from.)
if "$HWPROF" branches --sort symbol_frox -i "$tmp/b.data" 2>"$tmp/e" >/dev/null; then
	echo "FAIL branches_bad_sort: accepted"
elif [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "unknown key 'symbol_frox'" "$tmp/e"; then
	echo "PASS branches_bad_sort"
else
	echo "FAIL branches_bad_sort: $(cat "$tmp/e")"
fi

# The binary is gone: rows fall back to module+offset, one warning line says how to fix it.
cp "$tmp/branchy" "$tmp/gone"
"$gen" "$tmp/gone" "$tmp/g.data" --samples 50 >/dev/null
rm "$tmp/gone"
"$HWPROF" branches --sort dso_from,symbol_from -i "$tmp/g.data" >"$tmp/g.out" 2>"$tmp/g.err"
if [ "$(wc -l <"$tmp/g.err")" = 1 ] && grep -q -- "--symfs" "$tmp/g.err" && grep -q "gone" "$tmp/g.err" &&
	grep -q '\[\.\] 0x0000000000' "$tmp/g.out"; then
	echo "PASS branches_missing_binary"
else
	echo "FAIL branches_missing_binary: $(cat "$tmp/g.err")"
fi
# ... and --symfs brings the symbols back.
mkdir -p "$tmp/root$tmp" && cp "$tmp/branchy" "$tmp/root$tmp/gone"
if "$HWPROF" branches --sort symbol_from --symfs "$tmp/root" -i "$tmp/g.data" 2>"$tmp/s.err" | grep -q '\[\.\] walk' && [ ! -s "$tmp/s.err" ]; then
	echo "PASS branches_symfs"
else
	echo "FAIL branches_symfs: $(cat "$tmp/s.err")"
fi

# Stacks synthesized from an instruction trace carry no mispredict information.
f=$corpus/autofdo/perf-kernel.data
if [ -f "$f" ]; then
	if "$HWPROF" mispredicts -i "$f" 2>/dev/null | grep -q "no mispredict information"; then
		echo "PASS mispredicts_etm_no_info"
	else
		echo "FAIL mispredicts_etm_no_info"
	fi
else
	echo "SKIP mispredicts_etm_no_info: no corpus"
fi
