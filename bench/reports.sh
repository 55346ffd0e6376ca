#!/bin/bash
# The report commands on the generated branch-stack perf.data (bench/run.sh's
# file, made when missing): hwprof branches under its default keys and under
# source-line keys, and hwprof mispredicts, each against perf report -b with
# the same sort keys. Prints seconds, GB/s (target >= 1 GB/s on one core),
# peak RSS and the ratio to perf. perf is slow on a file this size: it runs
# under a time limit (PERF_LIMIT seconds, default 120; 0 skips perf), and a
# stopped run prints "> N x". perf 6.1 crashes on `--sort symbol_from`, so it
# gets the equivalent `-F overhead,sample,KEYS`. Not a test: numbers depend
# on the machine.
# Usage: bench/reports.sh BUILD_DIR [SIZE_MB]
set -euo pipefail
BUILD=${1:-build}
SIZE_MB=${2:-${BENCH_MB:-1100}}
PERF_LIMIT=${PERF_LIMIT:-120}
HWPROF=$BUILD/hwprof
dir=${BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$dir"
data=$dir/branches-${SIZE_MB}mb.perf.data
[ -f "$data" ] || "$BUILD/bench/gen_branch_perfdata" "$data" "$SIZE_MB" >/dev/null
bytes=$(stat -c %s "$data")
cat "$data" >/dev/null # page cache: measure the work, not the disk
echo "input: $data ($((bytes / 1048576)) MB)"
printf '%-52s %8s %8s %10s   %s\n' command seconds GB/s "peak RSS" "perf report -b (same keys)"

# timed OUT CMD...: sets secs and rss (KB); returns CMD's status
timed() {
	local out=$1; shift
	/usr/bin/time -f "%e %M" -o "$dir/.t" "$@" >"$out" 2>"$dir/.err"
	local rc=$?
	read -r secs rss < <(tail -1 "$dir/.t") || true # after any "terminated by signal" line
	return $rc
}

# report LABEL PERF_KEYS HWPROF_ARGS...
report() {
	local label=$1 keys=$2; shift 2
	if ! timed /dev/null "$HWPROF" "$@" -i "$data"; then
		echo "$label failed: $(head -3 "$dir/.err")" >&2
		return 1
	fi
	local hw_s=$secs hw_rss=$rss vs="not run (PERF_LIMIT=0)"
	if [ "$PERF_LIMIT" != 0 ]; then
		set +e
		timed /dev/null timeout "$PERF_LIMIT" perf report -b --stdio -F "overhead,sample,$keys" -i "$data"
		local rc=$?
		set -e
		if [ "$rc" = 124 ]; then
			vs=$(printf '> %.0fx (perf stopped at %d s)' "$(echo "$PERF_LIMIT / $hw_s" | bc -l)" "$PERF_LIMIT")
		elif [ "$rc" = 0 ]; then
			vs=$(printf '%.1fx (perf %.2f s, %.0f MB)' "$(echo "$secs / $hw_s" | bc -l)" "$secs" \
				"$(echo "$rss / 1024" | bc -l)")
		else
			vs="perf failed (exit $rc: $(grep -v '^#' "$dir/.err" | head -1))"
		fi
	fi
	printf '%-52s %8.2f %8.2f %7.1f MB   %s\n' "$label" "$hw_s" \
		"$(echo "$bytes / 1073741824 / ($hw_s + 0.0001)" | bc -l)" "$(echo "$hw_rss / 1024" | bc -l)" "$vs"
}

report "hwprof branches" dso_from,symbol_from,dso_to,symbol_to branches
report "hwprof branches --sort srcline_from,srcline_to" srcline_from,srcline_to \
	branches --sort srcline_from,srcline_to
# perf has no per-instruction mispredict view: its nearest is one row per
# source address and mispredict flag.
report "hwprof mispredicts" addr_from,mispredict mispredicts
