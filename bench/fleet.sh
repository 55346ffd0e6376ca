#!/bin/bash
# hwprof push / fleet with many hosts: two clickhouse-server shards on
# loopback (scripts/clickhouse_shards.sh), N simulated hosts (default 1000,
# FLEET_HOSTS=N), each pushing one of five emulated recordings of the test
# fixture (different periods) under its own host name, window and spool,
# 4 pushes at a time. Prints rows per second pushed (wall clock of all pushes) and
# the CPU time of the push processes, the latency of fleet queries over all
# hosts (median of 5), and the bytes the shards store per host (after
# OPTIMIZE ... FINAL) against the recording's perf.data size.
#   bench/fleet.sh [BUILD]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
HWPROF=$build/hwprof
N=${FLEET_HOSTS:-1000}
command -v clickhouse-server >/dev/null || [ -x /usr/sbin/clickhouse-server ] ||
	{ echo "fleet bench: clickhouse-server not installed"; exit 0; }
tmp=$(mktemp -d)
ch=$tmp/ch
p1=$((10000 + RANDOM % 9000)); p2=$((p1 + 10000)) # below the ephemeral ports
trap '"$root/scripts/clickhouse_shards.sh" stop "$ch" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
"$root/scripts/clickhouse_shards.sh" start "$ch" $p1 $p2
U=http://127.0.0.1:$p1/
gcc -O1 -g -fno-inline -o "$tmp/basic" "$root/tests/fixtures/emu_basic.c"
for k in 0 1 2 3 4; do
	"$HWPROF" record --emulate -q -c $((1000 + 7 * k)) -o "$tmp/r$k.data" -- "$tmp/basic" >/dev/null
done
"$HWPROF" fleet init "$U" "http://127.0.0.1:$p2/" --cluster hwprof
rows=0
for k in 0 1 2 3 4; do
	r=$(($("$HWPROF" export -i "$tmp/r$k.data" | wc -l) - 1))
	rows=$((rows + r * ((N - k + 4) / 5)))
done
t0=$(date +%s.%N)
seq 0 $((N - 1)) | /usr/bin/time -f "%U %S" -o "$tmp/cpu" xargs -P 4 -I{} sh -c \
	'"$1" push "$2" "$3/r$(({} % 5)).data" --host host{} --window $((1790000000 + {})),$((1790000060 + {})) --spool "$3/spool{}" -q' \
	_ "$HWPROF" "$U" "$tmp"
t1=$(date +%s.%N)
wall=$(echo "$t1 - $t0" | bc -l)
read -r cu cs <"$tmp/cpu"
printf 'push: %d hosts, %d rows in %.1f s wall = %.0f rows/s (%.0f hosts/s); hwprof CPU %.2f s (%.1f ms per host)\n' \
	"$N" "$rows" "$wall" "$(echo "$rows / $wall" | bc -l)" "$(echo "$N / $wall" | bc -l)" \
	"$(echo "$cu + $cs" | bc -l)" "$(echo "1000 * ($cu + $cs) / $N" | bc -l)"
bid=$(readelf -n "$tmp/basic" | sed -n 's/.*Build ID: *//p')
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
for q in "branches $U --build-id $bid" "probs $U --build-id $bid" "mispredicts $U --build-id $bid" "rows $U"; do
	for _ in 1 2 3 4 5; do
		s=$(date +%s%N); "$HWPROF" fleet $q >/dev/null 2>&1; e=$(date +%s%N)
		echo $(((e - s) / 1000000))
	done | median | xargs printf "fleet %s: %s ms (median of 5)\n" "${q%% *}"
done
bytes=0
for p in $p1 $p2; do
	curl -s "http://127.0.0.1:$p/" --data-binary "OPTIMIZE TABLE hwprof_rows_local FINAL" >/dev/null
	b=$(curl -s "http://127.0.0.1:$p/" --data-binary \
		"SELECT sum(bytes_on_disk) FROM system.parts WHERE table = 'hwprof_rows_local' AND active")
	bytes=$((bytes + b))
done
size=$(stat -c %s "$tmp/r0.data")
printf 'stored: %d bytes for %d hosts = %.0f bytes per host; perf.data %d bytes (%.1f%%)\n' \
	"$bytes" "$N" "$(echo "$bytes / $N" | bc -l)" "$size" "$(echo "100 * $bytes / $N / $size" | bc -l)"
