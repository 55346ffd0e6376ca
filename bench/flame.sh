#!/bin/bash
# hwprof flame on a callchain recording of >= 1 GB (FLAME_MB, default 1100)
# against what users run today: perf script's text piped into a folding step
# (an awk stackcollapse: one line per stack, its count), and perf's own
# `perf script report flamegraph` (its flamegraph.py, JSON output: the HTML
# one fetches a template from the network). The recording comes from
# bench/gen_branch_perfdata --callchain: 4096 call paths (2 to 60 frames)
# through the 2048 functions of an ELF it writes, used as --symfs, so every
# frame has a name. Also hwprof flame --folded on a recording a tenth the
# size: peak memory does not grow with the input. Checks that hwprof's folded
# stacks equal the awk fold of perf script. Prints wall and CPU time (user +
# system, children included) and peak RSS of each; each command runs once.
# Usage: bench/flame.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(realpath "${1:-build}")
HWPROF=$BUILD/hwprof
MB=${FLAME_MB:-1100}
dir=$(realpath -m "${BENCH_DIR:-$BUILD/bench-data}")/flame
fg=$(ls /usr/lib/perf-core/scripts/python/flamegraph.py /usr/libexec/perf-core/scripts/python/flamegraph.py \
	2>/dev/null | head -1 || true)
if ! command -v perf >/dev/null || [ ! -x "$BUILD/bench/gen_branch_perfdata" ]; then
	echo "bench/flame.sh: skipped (needs linux-perf and a build with bench/gen_branch_perfdata)"
	exit 0
fi
mkdir -p "$dir/sym/usr/lib/hwprof-bench"
elf=$dir/sym/usr/lib/hwprof-bench/libbenchfake.so
big=$dir/callchain-${MB}.data
small=$dir/callchain-$((MB / 10)).data
[ -f "$big" ] || "$BUILD/bench/gen_branch_perfdata" "$big" "$MB" --callchain --elf "$elf"
[ -f "$small" ] || "$BUILD/bench/gen_branch_perfdata" "$small" $((MB / 10)) --callchain --elf "$elf"
cat "$big" >/dev/null # page cache: measure the work, not the disk

run() { # LABEL CMD...: one run; sets wall, cpu and rss (KB)
	local label=$1 u s
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$dir/.t" "$@" 2>"$dir/.err" || {
		echo "$label failed: $(tail -3 "$dir/.err")" >&2; return 1; }
	read -r wall u s rss < <(tail -1 "$dir/.t")
	cpu=$(echo "$u + $s" | bc -l)
	printf '%-44s %8.2f s wall %8.2f s CPU  peak RSS %8.1f MB\n' "$label" "$wall" "$cpu" \
		"$(echo "$rss / 1024" | bc -l)"
}
# stackcollapse in awk: frames of a sample (callee first) folded callers first
fold='/^[^\t]/ { n = 0; next }
/^\t/ { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); f[n++] = s; next }
/^$/ { if (n) { k = f[n - 1]; for (i = n - 2; i >= 0; i--) k = k ";" f[i]; c[k]++ } n = 0 }
END { for (k in c) print k, c[k] }'

echo "input: $big ($(($(stat -c %s "$big") / 1048576)) MB), symbols under $dir/sym"
run "hwprof flame --folded ($((MB / 10)) MB input)" "$HWPROF" flame -q -i "$small" --symfs "$dir/sym" --folded -o "$dir/small.folded"
run "hwprof flame --folded" "$HWPROF" flame -q -i "$big" --symfs "$dir/sym" --folded -o "$dir/hw.folded"
h_wall=$wall h_cpu=$cpu h_rss=$rss
run "hwprof flame -o FILE.svg" "$HWPROF" flame -q -i "$big" --symfs "$dir/sym" -o "$dir/hw.svg"
run "perf script | awk fold" bash -c "perf script -i '$big' --symfs '$dir/sym' -F ip,sym 2>/dev/null | awk '$fold' >'$dir/awk.folded'"
a_wall=$wall a_cpu=$cpu a_rss=$rss
printf '%-44s %6.1fx the CPU time, %6.1fx the peak RSS of hwprof flame --folded\n' "perf script | awk fold:" \
	"$(echo "$a_cpu / $h_cpu" | bc -l)" "$(echo "$a_rss / $h_rss" | bc -l)"
if [ -n "$fg" ]; then
	run "perf script report flamegraph (JSON)" perf script -i "$big" --symfs "$dir/sym" -s "$fg" -- --format json -o "$dir/perf-flame.json"
	printf '%-44s %6.1fx the CPU time, %6.1fx the peak RSS of hwprof flame --folded\n' "perf script report flamegraph:" \
		"$(echo "$cpu / $h_cpu" | bc -l)" "$(echo "$rss / $h_rss" | bc -l)"
fi
bytes=$(perf script -i "$small" --symfs "$dir/sym" -F ip,sym 2>/dev/null | wc -c)
echo "perf script text: $((bytes / 1048576)) MB for the $((MB / 10)) MB input (about $((bytes * 10 / 1048576)) MB for the large one)"
if cmp -s <(sort "$dir/hw.folded") <(sort "$dir/awk.folded"); then
	echo "(hwprof's folded stacks equal the awk fold of perf script, line for line)"
else
	echo "hwprof's folded stacks DIFFER from the awk fold of perf script" >&2
	exit 1
fi
