#!/bin/bash
# SPDX-License-Identifier: MIT
# Propeller with hwprof's files against the baseline and against BOLT with
# the same recording, on SQLite built from source (docs/hwprof-pgo.md,
# "Propeller"; tests/e2e/pgo_propeller.sh checks the flow on a fixture):
#   baseline   tests/fixtures/realworld_sqlite.c and the SQLite amalgamation
#              built by clang-19 -O2 -g -fbasic-block-address-map
#              -ffunction-sections, linked by lld with --emit-relocs (for
#              BOLT), static zlib; trained on 20000 rows, recorded with
#              'hwprof record --emulate -b -c 997';
#   propeller  rebuilt with -fbasic-block-sections=list= the cluster file of
#              'hwprof pgo --format propeller', linked with
#              --symbol-ordering-file= its --symbol-order;
#   bolt       the baseline rewritten by llvm-bolt-19 (ext-tsp, cdsort,
#              hot/cold splitting) with the fdata of 'hwprof pgo --format
#              bolt' from the same recording.
# Prints, per variant, the taken branches in the program's own code on 40000
# rows (exact counts of 'record --emulate --exact', by kind:
# tests/tools/taken_count.py), then the median CPU (user + system) and wall
# times of PROPELLER_RUNS (default 9) interleaved runs on 400000 rows. The
# three must print the same. Not a test: times depend on the machine (the
# load average is printed).
# SQLite's source: $SQLITE_AMALGAMATION (sqlite3.c and sqlite3.h), else the
# amalgamation the npm package better-sqlite3 ships (as bench/inputs.sh).
# Usage: bench/pgo_propeller.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-build}")
HWPROF=$build/hwprof
RUNS=${PROPELLER_RUNS:-9}
dir=$(realpath -m "${BENCH_DIR:-$build/bench-data}/propeller")
bolt=/usr/lib/llvm-19/bin/llvm-bolt
mkdir -p "$dir"
for t in clang-19 ld.lld "$bolt" qemu-x86_64; do
	command -v "$t" >/dev/null || { echo "bench/pgo_propeller.sh: skipped ($t not installed)"; exit 0; }
done
src=${SQLITE_AMALGAMATION:-$dir/amal}
if [ ! -f "$src/sqlite3.c" ]; then
	command -v npm >/dev/null || { echo "bench/pgo_propeller.sh: no SQLite source (SQLITE_AMALGAMATION or npm)"; exit 0; }
	(cd "$dir" && npm pack -q better-sqlite3@12.11.1 >npm.log 2>&1 &&
		tar xzf better-sqlite3-*.tgz package/deps/sqlite3 && rm -rf amal && mv package/deps/sqlite3 amal &&
		rm -rf package better-sqlite3-*.tgz)
fi
cd "$dir"
drv=$root/tests/fixtures/realworld_sqlite.c
cflags=(-O2 -g -ffunction-sections -I"$src")
libs=(-l:libz.a -lm -lpthread)
say() { echo "bench: $*" >&2; }

if [ ! -x base ] || [ "$drv" -nt base ]; then
	say "compiling SQLite with -fbasic-block-address-map (a few minutes)"
	clang-19 "${cflags[@]}" -fbasic-block-address-map -c "$src/sqlite3.c" -o sqlite3.base.o
	clang-19 "${cflags[@]}" -fbasic-block-address-map -c "$drv" -o drv.base.o
	clang-19 -fuse-ld=lld -Wl,--emit-relocs -o base drv.base.o sqlite3.base.o "${libs[@]}"
fi
"$HWPROF" record -q --emulate -b -c 997 -o train.data -- ./base 20000 >/dev/null
"$HWPROF" pgo -v --format propeller -i train.data --binary base -o clusters.txt --symbol-order order.txt 2>&1 |
	grep 'propeller:' >&2
say "compiling SQLite with the cluster file"
clang-19 "${cflags[@]}" -fbasic-block-sections=list=clusters.txt -c "$src/sqlite3.c" -o sqlite3.prop.o
clang-19 "${cflags[@]}" -fbasic-block-sections=list=clusters.txt -c "$drv" -o drv.prop.o
clang-19 -fuse-ld=lld -Wl,--symbol-ordering-file=order.txt -o propeller drv.prop.o sqlite3.prop.o "${libs[@]}"
"$HWPROF" pgo -q --format bolt -i train.data --binary base -o base.fdata
"$bolt" base -o bolt -data=base.fdata -reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions \
	-split-all-cold -split-eh >bolt.log 2>&1

for v in base propeller bolt; do
	./$v 40000 >"$v.out"
	cmp -s base.out "$v.out" || { echo "bench/pgo_propeller.sh: $v prints something else than the baseline"; exit 1; }
done
echo "taken branches in the program's own code, 40000 rows (exact, emulated):"
for v in base propeller bolt; do
	"$HWPROF" record -q --emulate --exact "$v.sites" -o /dev/null -- ./$v 40000 >/dev/null 2>&1
	printf '  %-10s %s\n' "$v" "$(python3 "$root/tests/tools/taken_count.py" "$v.sites" "$v")"
done
echo "times, 400000 rows, median of $RUNS interleaved runs (load average: $(cut -d' ' -f1-3 /proc/loadavg)):"
python3 - "$RUNS" base propeller bolt <<'PY'
import os, statistics, subprocess, sys, time
runs, bins = int(sys.argv[1]), sys.argv[2:]
res = {b: ([], []) for b in bins}
for r in range(runs):
    for b in bins[r % len(bins):] + bins[:r % len(bins)]:
        t0 = time.perf_counter()
        p = subprocess.Popen(["./" + b, "400000"], stdout=subprocess.DEVNULL)
        _, _, ru = os.wait4(p.pid, 0)
        res[b][0].append(time.perf_counter() - t0)
        res[b][1].append(ru.ru_utime + ru.ru_stime)
base = statistics.median(res[bins[0]][1])
for b in bins:
    cpu, wall = statistics.median(res[b][1]), statistics.median(res[b][0])
    print("  %-10s cpu %.3f s (%.3f-%.3f), wall %.3f s (%.3f-%.3f), cpu speedup %.3fx" %
          (b, cpu, min(res[b][1]), max(res[b][1]), wall, min(res[b][0]), max(res[b][0]), base / cpu))
PY
