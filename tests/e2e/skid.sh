#!/bin/bash
# hwprof skid on recordings with a known skid: tests/tools/gen_skid_perfdata
# writes a precise and a non-precise event over the same sites, the
# non-precise samples moved by skids drawn from a known set (and some with no
# precise sample before them); the distribution hwprof reports must equal the
# generator's ground truth bucket by bucket, and the line table must account
# for every sample of both events. A recording with one event is refused.
set -u
echo "PLAN 3"
build=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for seed in 1 2; do
	"$build/tests/tools/gen_skid_perfdata" $seed "$tmp/s.data" "$tmp/truth" || { echo "FAIL skid_$seed: generator"; continue; }
	"$HWPROF" skid -i "$tmp/s.data" --dist --json >"$tmp/dist.json" 2>"$tmp/err" &&
		"$HWPROF" skid -i "$tmp/s.data" --json >"$tmp/lines.json" 2>>"$tmp/err" ||
		{ echo "FAIL skid_$seed: $(head -1 "$tmp/err")"; continue; }
	python3 - "$seed" "$tmp/truth" "$tmp/dist.json" "$tmp/lines.json" <<'PY'
import json, sys
seed, truth_f, dist_f, lines_f = sys.argv[1:]
def bucket(d):
    if d == 0: return '0'
    for lo, hi in ((1, 3), (4, 7), (8, 15), (16, 31), (32, 63), (64, 127), (128, 256)):
        if lo <= d <= hi: return f'{lo}-{hi}'
want = {}
for line in open(truth_f):
    k, n = line.split()
    b = 'none' if k == 'none' else bucket(int(k))
    want[b] = want.get(b, 0) + int(n)
got = {r['skid']: r['samples'] for r in json.load(open(dist_f)) if r['samples']}
lines = json.load(open(lines_f))
tp, ti = sum(r['precise'] for r in lines), sum(r['imprecise'] for r in lines)
if got != want:
    print(f'FAIL skid_{seed}: distribution {got}, truth {want}')
elif tp != 10000 or ti != 10000:
    print(f'FAIL skid_{seed}: line table holds {tp} precise, {ti} non-precise samples of 10000 each')
else:
    print(f'PASS skid_{seed} (distribution equals the injected skids: {want})')
PY
done
if "$HWPROF" skid -i "${HWPROF_CORPUS:-../shared/corpus}/perf_data_converter/perf.data.branch-4.14" >/dev/null 2>"$tmp/err"; then
	echo "FAIL skid_one_event: exit 0"
elif [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'two sampling events' "$tmp/err"; then
	echo "PASS skid_one_event"
elif [ ! -e "${HWPROF_CORPUS:-../shared/corpus}/perf_data_converter/perf.data.branch-4.14" ]; then
	echo "SKIP skid_one_event: no corpus"
else
	echo "FAIL skid_one_event: $(cat "$tmp/err")"
fi
