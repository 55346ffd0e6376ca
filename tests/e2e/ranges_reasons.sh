#!/bin/bash
# Every rejection reason of hwprof ranges on a perf-script text made for it
# (tests/tools/gen_range_cases.py: stacks over a fixture compiled here, one
# kind of range each, chosen from objdump -d): the counts by reason are the
# generator's; --max-range moves the accepted one to too_long; the accepted
# range's offsets in --json are objdump's; and llvm-profgen-19, reading the
# same text, rejects and counts the same (tests/tools/profgen_compare.py,
# rules 'plt', 'not_insn' and 'ind_jump': llvm-profgen lets a range run
# through an indirect jump; skipped without llvm-profgen-19).
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
tools=$root/tests/tools
build=$root/${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v gcc >/dev/null || ! command -v objdump >/dev/null || ! command -v readelf >/dev/null; then
	echo "PLAN 1"
	echo "SKIP ranges_reasons: gcc, objdump or readelf not installed"
	exit 0
fi
echo "PLAN 5"
if ! gcc -O2 -g -fPIE -pie -o "$tmp/dc" "$root/tests/fixtures/decode_classes.c" 2>"$tmp/gcc.err"; then
	echo "FAIL ranges_reasons_build: $(head -1 "$tmp/gcc.err")"
	exit 0
fi
python3 "$tools/gen_range_cases.py" "$tmp/dc" "$tmp/expect.json" "$tmp/lengths.json" >"$tmp/cases.txt"

check_stats() { # NAME EXPECT-JSON hwprof-args...
	local name=$1 exp=$2 out
	shift 2
	if ! "$HWPROF" ranges --stats --csv -i "$tmp/cases.txt" "$@" >"$tmp/stats.csv" 2>"$tmp/err"; then
		echo "FAIL $name: $(head -1 "$tmp/err")"
		return
	fi
	if out=$(python3 - "$exp" "$tmp/stats.csv" <<'PY'
import csv, json, sys
exp = json.loads(sys.argv[1]) if sys.argv[1].startswith("{") else json.load(open(sys.argv[1]))
got = {}
for r in csv.DictReader(open(sys.argv[2])):
    got[r["reason"] or r["outcome"]] = int(r["ranges"])
bad = [f"{k}: {got.get(k)} != {v}" for k, v in exp.items() if got.get(k) != v]
bad += [f"{k}: {v} unexpected" for k, v in got.items()
        if k not in exp and k not in ("all", "not_decoded") and v]
if got["all"] != sum(exp.values()):
    bad.append(f"all: {got['all']} != {sum(exp.values())}")
print("; ".join(bad) if bad else " ".join(f"{k}={v}" for k, v in sorted(exp.items())))
sys.exit(1 if bad else 0)
PY
	); then
		echo "PASS $name ($out)"
	else
		echo "FAIL $name: $out"
	fi
}

check_stats ranges_reasons "$tmp/expect.json"
# a limit one byte below the accepted range's length: it and every other
# kind at least as long become too_long (checked before decoding)
read -r limit exp < <(python3 - "$tmp/expect.json" "$tmp/lengths.json" <<'PY'
import json, sys
d, lens = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
limit = lens["accepted"]["bytes"] - 1
d["too_long"] = 0
for k, x in lens.items():
    if x["bytes"] > limit:
        d["too_long"] += x["count"]
        d[x["reason"]] -= x["count"]
d = {k: v for k, v in d.items() if v}
print(limit, json.dumps(d))
PY
)
check_stats ranges_reasons_max_range "$exp" --max-range "$limit"

# the accepted range's file offsets, against objdump's addresses and readelf's segments
"$HWPROF" ranges --json -i "$tmp/cases.txt" >"$tmp/ranges.json" 2>/dev/null
got=$(python3 - "$tmp/ranges.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
rows = rows["rows"] if isinstance(rows, dict) else rows
print(" ".join(f"{r['start_offset']}-{r['end_offset']}:{r['count']}:{r['bytes']}" for r in rows))
PY
)
want=$(python3 - "$tmp/dc" "$tmp/cases.txt" <<'PY'
import re, subprocess, sys
ph = subprocess.run(["readelf", "-lW", sys.argv[1]], capture_output=True, text=True).stdout
seg = next(l.split() for l in ph.splitlines() if l.split()[:1] == ["LOAD"] and "E" in l.split()[6:-1])
off, va = int(seg[1], 16), int(seg[2], 16)
base = 0x555555554000
# the accepted kind is written first: its older entry's target and newer entry's source
line = [l for l in open(sys.argv[2]) if "PERF_RECORD" not in l][0]
e = re.findall(r"0x([0-9a-f]+)/0x([0-9a-f]+)/", line)
s, t = int(e[1][1], 16) - base - va + off, int(e[0][0], 16) - base - va + off
print(f"{s:#x}-{t:#x}:5:{t - s}")
PY
)
if [ -n "$got" ] && [ "$got" = "$want" ]; then
	echo "PASS ranges_reasons_json_offsets ($got)"
else
	echo "FAIL ranges_reasons_json_offsets: hwprof '$got', objdump '$want'"
fi

# A library caller may check the ranges between samples; a check that drops
# a range moves the later range rows, which the timing finds its blocks by:
# one crossing sample, then three of the accepted range with 5 cycles each,
# checked after 1, 2 and 3 samples, give the blocks of a straight read.
python3 - "$tmp/cases.txt" >"$tmp/mid.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
head = [l for l in lines if "PERF_RECORD" in l]
samples = [l for l in lines if "PERF_RECORD" not in l]
cycles = lambda l: l.replace("/P/-/-/0", "/P/-/-/5", 1)  # the newest entry's cycles
# gen_range_cases.py writes the 5 accepted samples first, then the crossing ones
print("\n".join(head + [cycles(samples[5])] + [cycles(samples[0])] * 3))
PY
mid=$("$build/tests/tools/timing_checked_midway" "$tmp/mid.txt" 1 2 3 2>&1)
case $? in
0) echo "PASS ranges_reasons_timing_checked_midway (${mid%%$'\n'*})" ;;
*) echo "FAIL ranges_reasons_timing_checked_midway: $(echo "$mid" | tr '\n' ';')" ;;
esac

profgen=$(command -v llvm-profgen-19 || echo /usr/lib/llvm-19/bin/llvm-profgen)
if [ ! -x "$profgen" ]; then
	echo "SKIP ranges_reasons_profgen: llvm-profgen-19 not installed (apt-get install llvm-19)"
	exit 0
fi
(cd "$tmp" && "$profgen" --perfscript "$tmp/cases.txt" --binary "$tmp/dc" --skip-symbolization \
	-o "$tmp/pg.txt" >"$tmp/pg.out" 2>&1)
"$HWPROF" ranges --format profgen -i "$tmp/cases.txt" -o "$tmp/hw.txt" 2>/dev/null
if out=$(python3 "$tools/profgen_compare.py" "$tmp/dc" "$tmp/hw.txt" "$tmp/pg.txt"); then
	echo "PASS ranges_reasons_profgen ($out)"
else
	echo "FAIL ranges_reasons_profgen: $out"
fi
