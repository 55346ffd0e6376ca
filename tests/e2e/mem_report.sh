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
	echo "SKIP mem_recount: no corpus at $corpus"
	exit 0
fi
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
