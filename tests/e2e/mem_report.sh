#!/bin/bash
# hwprof mem against an independent recount of perf 6.1's dump of the corpus
# PEBS load-latency recording (perf_data_converter/perf.data.weight_struct):
# totals (samples, loads, stores, HITM, latency sum and max), samples and
# latency per data source (from perf's decoded text, not hwprof's bits), and
# the log2 latency histogram (tests/e2e/mem_recount.py).
set -u
corpus=${HWPROF_CORPUS:-../shared/corpus}
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
oracle=$corpus/oracles/perf_data_converter_perf.data.weight_struct.perf61.mem.txt.gz
data=$corpus/perf_data_converter/perf.data.weight_struct
if [ ! -f "$oracle" ] || [ ! -f "$data" ]; then
	echo "PLAN 1"
	echo "SKIP mem_recount: no corpus at $corpus"
	exit 0
fi
echo "PLAN 7"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in source hist symbol; do
	if ! "$HWPROF" mem -i "$data" -s $k --json >"$tmp/$k.json" 2>"$tmp/err"; then
		echo "FAIL mem_recount: hwprof mem -s $k failed: $(head -1 "$tmp/err")"
		exit 0
	fi
done
python3 "$root/tests/e2e/mem_recount.py" "$oracle" "$tmp/source.json" "$tmp/hist.json" "$tmp/symbol.json"

# Text output: the overview names the totals; CSV has a header and one row per source.
"$HWPROF" mem -i "$data" >"$tmp/text" 2>&1
grep -q '14 memory samples (14 loads, 0 stores)' "$tmp/text" &&
	echo "PASS mem_text_overview" || echo "FAIL mem_text_overview: $(head -1 "$tmp/text")"
n=$("$HWPROF" mem -i "$data" -s source --csv | wc -l)
[ "$n" -eq 5 ] && echo "PASS mem_csv (4 sources)" || echo "FAIL mem_csv: $n lines"
# A recording without memory samples: one clear line, non-zero exit.
if "$HWPROF" mem -i "$corpus/perf_data_converter/perf.data.branch-4.14" >"$tmp/out" 2>"$tmp/err"; then
	echo "FAIL mem_no_samples: exit 0"
elif [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'no memory samples' "$tmp/err"; then
	echo "PASS mem_no_samples"
else
	echo "FAIL mem_no_samples: $(cat "$tmp/err")"
fi

# AMD IBS op samples (RAW registers, no DATA_SRC): 100 loads that hit the data
# cache (IbsDcMiss 0), tag-to-retire i cycles, at 100 distinct lines
# (tests/tools/gen_mem_perfdata --ibs documents the register values).
gen=${BUILD:-build}/tests/tools/gen_mem_perfdata
if "$gen" 1 "$tmp/ibs.data" --ibs && "$HWPROF" mem -i "$tmp/ibs.data" -s cacheline --json >"$tmp/ibs.json" 2>"$tmp/err"; then
	python3 - "$tmp/ibs.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
got = (len(rows), sum(r['samples'] for r in rows), sum(r['loads'] for r in rows),
       sum(r['l1'] for r in rows), sum(r['latency_sum'] for r in rows))
want = (100, 100, 100, 100, sum(range(100)))
print(f'PASS mem_ibs (100 lines, 100 L1 loads, latency sum {want[4]})' if got == want else
      f'FAIL mem_ibs: (lines, samples, loads, l1, latency sum) {got}, want {want}')
PY
else
	echo "FAIL mem_ibs: $(head -1 "$tmp/err")"
fi
# A truncated IBS sample: one line naming the file, the offset and the cause.
"$gen" 1 "$tmp/ibs_short.data" --ibs --short
if "$HWPROF" mem -i "$tmp/ibs_short.data" >/dev/null 2>"$tmp/err"; then
	echo "FAIL mem_ibs_short: exit 0"
elif [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'ibs_short.data: sample at offset 0x[0-9a-f]*: IBS op sample: .* raw bytes' "$tmp/err"; then
	echo "PASS mem_ibs_short ($(cat "$tmp/err"))"
else
	echo "FAIL mem_ibs_short: $(cat "$tmp/err")"
fi

# Corrupted memory recordings (seeded byte flips of a generated PEBS file and
# an IBS one): hwprof mem and c2c end without a signal, and a failure is one
# line on stderr.
"$gen" 3 "$tmp/flip_src.data" --weight-struct --random 200
python3 - "$HWPROF" "$tmp" <<'PY'
import os, random, subprocess, sys
hwprof, tmp = sys.argv[1:]
rng = random.Random(13)
bad, runs = [], 0
for src in ('flip_src.data', 'ibs.data'):
    data = open(os.path.join(tmp, src), 'rb').read()
    for i in range(60):
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        path = os.path.join(tmp, 'flip.data')
        open(path, 'wb').write(b)
        for cmd in (['mem'], ['mem', '-s', 'object'], ['c2c']):
            runs += 1
            p = subprocess.run([hwprof] + cmd + ['-i', path], capture_output=True, timeout=20)
            errs = [l for l in p.stderr.decode('utf-8', 'replace').splitlines()
                    if not l.startswith('hwprof: warning: ')]
            if p.returncode < 0 or p.returncode > 1 or (p.returncode and len(errs) != 1):
                bad.append(f'{src} flip {i} {cmd}: exit {p.returncode}, {errs[:2]}')
print(f'FAIL mem_corrupted: {bad[:3]}' if bad else
      f'PASS mem_corrupted ({runs} runs of mem/c2c on flipped files: no crash, one-line errors)')
PY
