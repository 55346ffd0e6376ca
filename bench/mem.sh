#!/bin/bash
# hwprof mem and c2c on generated memory-sample recordings of 1 M and 10 M
# samples over the same 100 k data addresses (bench/gen_mem_perfdata, made
# when missing: 80 MB and 800 MB): CPU seconds, GB/s, peak RSS of each, and
# the ratio of the 10 M run's peak RSS to the 1 M run's. The reports sum
# while reading, so their memory follows the distinct keys: the ratio stays
# near 1 (c2c's grows a little: 10 M samples show more threads per address
# and more shared lines to print). Not a test: numbers depend on the machine.
# Then the parallel pass: -j 1 against -j 2 (see the end).
# Usage: bench/mem.sh BUILD_DIR
set -euo pipefail
BUILD=${1:-build}
HWPROF=$BUILD/hwprof
dir=${BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$dir"
for n in 1 10; do
	f=$dir/mem-${n}m.perf.data
	[ -f "$f" ] || "$BUILD/bench/gen_mem_perfdata" "$f" $((n * 1000000)) --addrs 100000 >/dev/null
	cat "$f" >/dev/null # page cache: measure the work, not the disk
done

# run FILE ARGS...: sets cpu (user + sys seconds) and rss (KB)
run() {
	local f=$1; shift
	/usr/bin/time -f "%U %S %M" -o "$dir/.t" "$HWPROF" "$@" -i "$f" >/dev/null 2>"$dir/.err" ||
		{ echo "hwprof $* failed: $(head -3 "$dir/.err")" >&2; return 1; }
	local u s
	read -r u s rss < <(tail -1 "$dir/.t")
	cpu=$(echo "$u + $s" | bc -l)
}

printf '%-18s %-22s %-22s %s\n' "" " 1 M samples (80 MB)" " 10 M samples (800 MB)" "RSS 10M/1M"
printf '%-18s %7s %6s %7s %7s %6s %7s\n' command "CPU s" GB/s "RSS MB" "CPU s" GB/s "RSS MB"
for args in "mem -s symbol" "mem -s line" "mem -s addr" "mem -s cacheline" "mem -s object" "mem -s hist" "c2c"; do
	line=$(printf '%-18s' "$args")
	r1=0
	for n in 1 10; do
		f=$dir/mem-${n}m.perf.data
		run "$f" $args
		bytes=$(stat -L -c %s "$f")
		line+=$(printf ' %7.2f %6.2f %7.0f' "$cpu" "$(echo "$bytes / 1073741824 / ($cpu + 0.0001)" | bc -l)" \
			"$(echo "$rss / 1024" | bc -l)")
		[ $n = 1 ] && r1=$rss
	done
	printf '%s %10.2f\n' "$line" "$(echo "$rss / $r1" | bc -l)"
done

# The parallel pass on the 10 M-sample recordings (and a 10 M-sample skid
# recording, tests/tools/gen_skid_perfdata): -j 1 against -j 2, wall and
# CPU seconds of each, and the wall-time ratio. The reading thread reads
# of a sample only its time, pid and tid and hands out where it is; the
# other threads parse and count (docs/design.md, the pipeline).
skid=$dir/skid-10m.perf.data
[ -f "$skid" ] || "$BUILD/tests/tools/gen_skid_perfdata" 1 "$skid" "$dir/.skid.expected" 10000000
cat "$skid" >/dev/null
# runw FILE ARGS...: sets wall and cpu (seconds)
runw() {
	local f=$1 u s; shift
	/usr/bin/time -f "%e %U %S" -o "$dir/.t" "$HWPROF" "$@" -i "$f" >/dev/null 2>"$dir/.err" ||
		{ echo "hwprof $* failed: $(head -3 "$dir/.err")" >&2; return 1; }
	read -r wall u s < <(tail -1 "$dir/.t")
	cpu=$(echo "$u + $s" | bc -l)
}
echo
printf '%-18s %8s %8s %8s %8s %8s\n' "10 M samples" "-j1 wall" "-j1 CPU" "-j2 wall" "-j2 CPU" "j1/j2"
for args in "mem" "mem -s addr" "c2c" "skid"; do
	f=$dir/mem-10m.perf.data
	[ "$args" = skid ] && f=$skid
	runw "$f" $args -j 1
	w1=$wall c1=$cpu
	runw "$f" $args -j 2
	printf '%-18s %8.2f %8.2f %8.2f %8.2f %8.2f\n' "$args" "$w1" "$c1" "$wall" "$cpu" "$(echo "$w1 / $wall" | bc -l)"
done
