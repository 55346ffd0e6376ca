#!/bin/bash
# hwprof timing on the corpus recordings with LBR cycles: every block's
# latency histogram (cycle value -> samples), and its samples, min, median,
# p90, p99, max, total and mean, equal those tests/tools/timing_oracle.py
# computes independently from perf 6.1's own dump (oracles/). Recordings
# without cycles (AMD LBRv2, stacks synthesized from Arm ETM, a Westmere
# LBR) must say so in one line, naming why, and print no zeros.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
corpus=${HWPROF_CORPUS:-../shared/corpus}
if [ ! -d "$corpus/oracles" ]; then
	echo "PLAN 1"
	echo "SKIP timing_corpus: no corpus at $corpus"
	exit 0
fi
if ! command -v python3 >/dev/null; then
	echo "PLAN 1"
	echo "SKIP timing_corpus: python3 not installed"
	exit 0
fi
echo "PLAN 6" # 3 recordings with cycles, 3 without
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for pair in autofdo/propeller_sample_1.perfdata1:autofdo_propeller_sample_1.perfdata1 \
	perf_data_converter/perf.data.branch-4.14:perf_data_converter_perf.data.branch-4.14 \
	simpleperf/lbr/perf_lbr.data:simpleperf_lbr_perf_lbr.data; do
	src=$corpus/${pair%%:*}
	oracle=$corpus/oracles/${pair#*:}.perf61.ip-brstack.txt.gz
	name=timing_corpus_$(basename "$src")
	if ! "$HWPROF" timing -q --histograms --csv -i "$src" >"$tmp/h.csv" 2>"$tmp/err" ||
		! "$HWPROF" timing -q --csv -i "$src" >"$tmp/b.csv" 2>>"$tmp/err" ||
		! "$HWPROF" ranges -q --stats --csv -i "$src" >"$tmp/st.csv" 2>>"$tmp/err"; then
		echo "FAIL $name: hwprof failed: $(head -1 "$tmp/err")"
		continue
	fi
	unmapped=$(awk -F, '$1 == "rejected" && ($2 == "unmapped" || $2 == "modules") { n += $3 } END { print n + 0 }' "$tmp/st.csv")
	out=$(python3 "$root/tests/tools/timing_oracle.py" "$oracle" "$tmp/h.csv" "$tmp/b.csv" "$unmapped")
	case $out in
	PASS*) echo "PASS $name (${out#PASS })" ;;
	*) echo "FAIL $name: ${out#FAIL: }" ;;
	esac
done

# no cycles: one plain line, the reason named, nothing on stdout
for pair in "autofdo/test.lbr:Skylake" "perf_data_converter/perf.data.branch_stack_spec:AMD" \
	"autofdo/perf-kernel.data:synthesized"; do
	src=$corpus/${pair%%:*}
	want=${pair#*:}
	name=timing_no_cycles_$(basename "$src")
	if "$HWPROF" timing -i "$src" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL $name: exit 0 without cycles"
	elif [ -s "$tmp/out" ] || [ "$(grep -vc warning "$tmp/err")" -ne 1 ] ||
		! grep -q "carry no cycle counts.*$want" "$tmp/err"; then
		echo "FAIL $name: stdout $(wc -c <"$tmp/out") bytes, stderr: $(grep -v warning "$tmp/err" | head -2)"
	else
		echo "PASS $name ($(grep -v warning "$tmp/err" | cut -c1-110)...)"
	fi
done
