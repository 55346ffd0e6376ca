#!/bin/bash
# hwprof branches vs perf report -b on the same >= 1 GB recording of a real
# program with debug info: hwprof itself (built -O2 -g), recorded under the
# emulated LBR while it prints a generated branch-stack file. Prints times,
# peak RSS and the ratio. perf 6.1 resolves each source line through the
# addr2line program and needs hours for such a file, so it runs under a time
# limit (PERF_LIMIT seconds, default 900): the ratio is then a lower bound.
# Usage: bench/branches.sh BUILD_DIR [TARGET_MB]
set -euo pipefail
BUILD=${1:-build}
TARGET_MB=${2:-1024}
PERF_LIMIT=${PERF_LIMIT:-900}
HWPROF=$BUILD/hwprof
dir=${BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$dir"
rec=$dir/emulated-hwprof-${TARGET_MB}mb.perf.data
if [ ! -f "$rec" ]; then
	# The emulated run records about 0.45 bytes per input byte at -c 2000.
	in=$dir/workload-input.perf.data
	"$BUILD/bench/gen_branch_perfdata" "$in" $((TARGET_MB * 23 / 10)) >/dev/null
	"$HWPROF" record --emulate -c 2000 -o "$rec" -- "$HWPROF" script -i "$in" >/dev/null
	rm -f "$in"
fi
bytes=$(stat -c %s "$rec")
cat "$rec" >/dev/null
echo "input: $rec ($((bytes / 1048576)) MB, emulated LBR of hwprof script)"

/usr/bin/time -f "%e %M" -o "$dir/.t" "$HWPROF" branches --sort srcline_from,srcline_to -i "$rec" >"$dir/hwprof.txt"
read -r hw_s hw_rss <"$dir/.t"
printf '%-62s %9.2f s  peak RSS %7.1f MB\n' "hwprof branches --sort srcline_from,srcline_to" "$hw_s" "$(echo "$hw_rss / 1024" | bc -l)"

set +e
/usr/bin/time -f "%e %M" -o "$dir/.t" timeout "$PERF_LIMIT" \
	perf report -b --sort srcline_from,srcline_to --stdio -i "$rec" >"$dir/perf.txt" 2>/dev/null
rc=$?
set -e
read -r perf_s perf_rss <"$dir/.t" || true
if [ "$rc" = 124 ]; then
	printf '%-62s > %7d s  (stopped at the limit)\n' "perf report -b --sort srcline_from,srcline_to --stdio" "$PERF_LIMIT"
	printf 'hwprof is more than %.0fx faster (perf did not finish in %d s)\n' "$(echo "$PERF_LIMIT / $hw_s" | bc -l)" "$PERF_LIMIT"
else
	printf '%-62s %9.2f s  peak RSS %7.1f MB\n' "perf report -b --sort srcline_from,srcline_to --stdio" "$perf_s" "$(echo "$perf_rss / 1024" | bc -l)"
	printf 'hwprof is %.0fx faster (target >= 100x)\n' "$(echo "$perf_s / $hw_s" | bc -l)"
fi
