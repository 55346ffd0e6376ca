#!/bin/bash
# hwprof probs (ranges, decoding, the flow walk) and hwprof timing (block
# latency histograms, loop iterations) against hwprof branches on
# the same generated branch-stack perf.data of >= 1 GB (bench/run.sh's file),
# with the generated module written as an ELF file (gen_branch_perfdata
# --elf) under a symfs, so that probs has code to decode. Target: probs at
# most 2x the time of branches, in flat memory: its peak RSS on the full file
# and on a quarter of it are printed side by side (they must be about equal:
# the tables grow with distinct ranges and branches, not with the input).
# Each command runs RUNS times (default 3); the fastest run counts, by CPU
# time (user + system: on a shared machine the wall time measures the other
# tenants too; it is printed as well). Not a test: numbers depend on the
# machine.
# Usage: bench/flow.sh BUILD_DIR [SIZE_MB]
set -euo pipefail
BUILD=${1:-build}
SIZE_MB=${2:-${BENCH_MB:-1100}}
RUNS=${RUNS:-3}
HWPROF=$BUILD/hwprof
GEN=$BUILD/bench/gen_branch_perfdata
dir=${BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$dir"
data=$dir/branches-${SIZE_MB}mb.perf.data
quarter_mb=$((SIZE_MB / 4))
quarter=$dir/branches-${quarter_mb}mb.perf.data
symfs=$dir/symfs
elf=$symfs/usr/lib/hwprof-bench/libbenchfake.so
[ -f "$data" ] || "$GEN" "$data" "$SIZE_MB" >/dev/null
[ -f "$quarter" ] || "$GEN" "$quarter" "$quarter_mb" >/dev/null
# The module depends only on the seed and the block count (the defaults,
# as for the data files): a 0 MB run writes it.
mkdir -p "$(dirname "$elf")"
"$GEN" "$dir/.elf-only.perf.data" 0 --elf "$elf" >/dev/null
rm -f "$dir/.elf-only.perf.data"
bytes=$(stat -c %s "$data")
cat "$data" "$quarter" >/dev/null # page cache: measure the work, not the disk

# best LABEL FILE CMD...: the fastest of RUNS runs by CPU time; sets cpu,
# wall and rss (KB, the largest)
best() {
	local label=$1 file=$2 w c r
	shift 2
	cpu= wall= rss=
	for _ in $(seq "$RUNS"); do
		if ! /usr/bin/time -f "%e %U %S %M" -o "$dir/.t" "$HWPROF" "$@" -i "$file" --symfs "$symfs" \
			>/dev/null 2>"$dir/.err"; then
			echo "$label failed: $(head -3 "$dir/.err")" >&2
			return 1
		fi
		read -r w u sy r < <(tail -1 "$dir/.t")
		c=$(echo "$u + $sy" | bc -l)
		if [ -z "$cpu" ] || [ "$(echo "$c < $cpu" | bc -l)" = 1 ]; then cpu=$c wall=$w; fi
		if [ -z "$rss" ] || [ "$r" -gt "$rss" ]; then rss=$r; fi
	done
	printf '%-44s %7.2f s CPU %7.2f s wall %6.2f GB/s  peak RSS %7.1f MB\n' "$label" "$cpu" "$wall" \
		"$(echo "$(stat -c %s "$file") / 1073741824 / ($cpu + 0.0001)" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}

echo "input: $data ($((bytes / 1048576)) MB), module $elf"
best "hwprof branches" "$data" branches
br_s=$cpu br_rss=$rss
best "hwprof probs" "$data" probs
pr_s=$cpu pr_rss=$rss
best "hwprof blocks" "$data" blocks
best "hwprof probs --indirect" "$data" probs --indirect
best "hwprof paths" "$data" paths
best "hwprof timing" "$data" timing
tm_s=$cpu tm_rss=$rss
best "hwprof timing --loops" "$data" timing --loops
best "hwprof probs (a quarter of the input)" "$quarter" probs
q_rss=$rss
best "hwprof timing (a quarter of the input)" "$quarter" timing
tq_rss=$rss
# the top rows only: reading and counting without rendering every row (the
# module has no DWARF, and each row's source line is then looked up in the
# symbol table, as perf's addr2line does)
best "hwprof branches --limit 100" "$data" branches --limit 100
brl_s=$cpu
best "hwprof probs --limit 100" "$data" probs --limit 100
prl_s=$cpu
echo
verdict() { [ "$(echo "$1 <= 2" | bc -l)" = 1 ] && echo met || echo NOT met; }
ratio=$(echo "$pr_s / $br_s" | bc -l)
printf 'hwprof probs / hwprof branches: %.2fx the CPU time (target <= 2x): %s\n' "$ratio" "$(verdict "$ratio")"
ratio=$(echo "$prl_s / $brl_s" | bc -l)
printf 'the same with --limit 100: %.2fx (target <= 2x): %s\n' "$ratio" "$(verdict "$ratio")"
printf 'hwprof timing / hwprof branches: %.2fx the CPU time; peak RSS %.1f MB on %d MB, %.1f MB on %d MB\n' \
	"$(echo "$tm_s / $br_s" | bc -l)" "$(echo "$tm_rss / 1024" | bc -l)" "$SIZE_MB" "$(echo "$tq_rss / 1024" | bc -l)" "$quarter_mb"
printf 'peak RSS of hwprof probs: %.1f MB on %d MB, %.1f MB on %d MB (flat memory: about equal); hwprof branches %.1f MB\n' \
	"$(echo "$pr_rss / 1024" | bc -l)" "$SIZE_MB" "$(echo "$q_rss / 1024" | bc -l)" "$quarter_mb" \
	"$(echo "$br_rss / 1024" | bc -l)"
