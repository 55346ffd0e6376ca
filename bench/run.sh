#!/bin/bash
# hwprof vs perf on the same generated branch-stack perf.data, in one run.
# Prints times, throughput, peak RSS and the ratios. Not a test: numbers
# depend on the machine. Usage: bench/run.sh BUILD_DIR [SIZE_MB]
set -euo pipefail
BUILD=${1:-build}
SIZE_MB=${2:-${BENCH_MB:-1100}}
HWPROF=$BUILD/hwprof
dir=${BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$dir"
data=$dir/branches-${SIZE_MB}mb.perf.data
[ -f "$data" ] || "$BUILD/bench/gen_branch_perfdata" "$data" "$SIZE_MB"
bytes=$(stat -c %s "$data")
cat "$data" >/dev/null # page cache: measure parsing, not the disk

# run LABEL CMD...: wall seconds and peak RSS (KB) of CMD with stdout to /dev/null
run() {
	local label=$1; shift
	/usr/bin/time -f "%e %M" -o "$dir/.time" "$@" >/dev/null 2>"$dir/.err" || {
		echo "$label failed: $(head -3 "$dir/.err")" >&2; return 1; }
	read -r secs rss <"$dir/.time"
	printf '%-44s %8.2f s %9.0f MB/s  peak RSS %7.1f MB\n' "$label" "$secs" \
		"$(echo "$bytes / 1048576 / ($secs + 0.0001)" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}
echo "input: $data ($((bytes / 1048576)) MB)"
run "hwprof info" "$HWPROF" info -i "$data"; hw_info=$secs; hw_info_rss=$rss
run "hwprof script" "$HWPROF" script -i "$data"; hw_script=$secs; hw_script_rss=$rss
run "perf script -F ip,brstack" perf script -F ip,brstack -i "$data"; perf_script=$secs; perf_rss=$rss
echo
printf 'hwprof script vs perf script -F ip,brstack: %.1fx faster (target >= 5x)\n' \
	"$(echo "$perf_script / $hw_script" | bc -l)"
printf 'hwprof info ingest: %.2f GB/s (target >= 1 GB/s on one core)\n' \
	"$(echo "$bytes / 1073741824 / $hw_info" | bc -l)"
printf 'peak RSS: hwprof info %.1f MB, hwprof script %.1f MB (target <= 64 MB), perf script %.1f MB\n' \
	"$(echo "$hw_info_rss / 1024" | bc -l)" "$(echo "$hw_script_rss / 1024" | bc -l)" "$(echo "$perf_rss / 1024" | bc -l)"
echo
bench/reports.sh "$BUILD" "$SIZE_MB"
bench/flow.sh "$BUILD" "$SIZE_MB"
bench/pgo.sh "$BUILD"
bench/flame.sh "$BUILD"
