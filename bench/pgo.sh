#!/bin/bash
# hwprof pgo against the tools it stands in for, end to end, each on an
# emulated recording of >= 1 GB (hwprof record --emulate):
#   hwprof pgo --format llvm   vs  llvm-profgen-19 --perfdata F --binary B
#     (what a user runs: profgen starts perf script itself, and its time,
#     CPU and memory count with profgen's), on a recording (-c 29) of a copy
#     of build/hwprof (its own DWARF: every function gets a profile) running
#     'hwprof branches' on a small recording;
#   hwprof pgo --format bolt   vs  perf2bolt -p F -o X B (LLVM 19), on a
#     recording (-c 13) of the SQLite driver tests/fixtures/realworld_sqlite.c
#     linked with --emit-relocs as in tests/e2e/pgo_bolt.sh (PGO_ROWS rows,
#     default 15000: 1.1 GB);
#   without branch stacks (a cpu-clock recording of the llvm subject):
#   --format llvm vs create_llvm_prof --use_lbr=false, --format bolt vs
#   perf2bolt -nl.
# Prints wall and CPU time (user + system, children included), the ratios
# and peak RSS of each. Each command runs once. Not a test: numbers depend
# on the machine. Skips when gcc's static SQLite/zlib, llvm-profgen-19 or
# perf2bolt-19 are absent.
# Usage: bench/pgo.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(realpath "${1:-build}")
HWPROF=$BUILD/hwprof
ROWS=${PGO_ROWS:-15000}
dir=$(realpath -m "${BENCH_DIR:-$BUILD/bench-data}")
profgen=$(command -v llvm-profgen-19 || echo /usr/lib/llvm-19/bin/llvm-profgen)
perf2bolt=/usr/lib/llvm-19/bin/perf2bolt # perf2bolt-19 starts llvm-bolt (it looks at its name)
lib=/usr/lib/x86_64-linux-gnu
if [ ! -x "$profgen" ] || [ ! -x "$perf2bolt" ] || ! command -v perf >/dev/null ||
	[ ! -f $lib/libsqlite3.a ] || [ ! -f $lib/libz.a ]; then
	echo "bench/pgo.sh: skipped (needs llvm-19, bolt-19, linux-perf, libsqlite3-dev, zlib1g-dev)"
	exit 0
fi
mkdir -p "$dir/pgo"
cd "$dir/pgo" # profgen and perf2bolt leave files in the current directory
bin=$dir/pgo/sqlite
data=$dir/pgo/sqlite-${ROWS}.perf.data
if [ ! -f "$data" ]; then
	gcc -O2 -g -Wl,--emit-relocs -o "$bin" "$root/tests/fixtures/realworld_sqlite.c" \
		-l:libsqlite3.a -l:libz.a -lm
	"$HWPROF" record --emulate -c 13 -o "$data" -- "$bin" "$ROWS" >/dev/null 2>"$dir/.err"
fi
# the llvm subject: a copy of hwprof (a rebuild must not change the binary
# the recording names), analysing a 150 KB recording of the driver
hbin=$dir/pgo/hwprof-subject
hdata=$dir/pgo/hwprof-subject.perf.data
if [ ! -f "$hdata" ]; then
	cp "$HWPROF" "$hbin"
	"$HWPROF" record --emulate -c 997 -o "$dir/pgo/small.perf.data" -- "$bin" 45 >/dev/null 2>"$dir/.err"
	"$HWPROF" record --emulate -c 29 -o "$hdata" -- "$hbin" branches -i "$dir/pgo/small.perf.data" \
		>/dev/null 2>"$dir/.err"
fi
cat "$data" "$bin" "$hdata" "$hbin" >/dev/null # page cache: measure the work, not the disk

# run LABEL CMD...: one run; sets wall, cpu and rss (KB)
run() {
	local label=$1 u s
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$dir/.t" "$@" >"$dir/.out" 2>&1 || {
		echo "$label failed: $(grep -m3 -i error "$dir/.out" || tail -3 "$dir/.out")" >&2; return 1; }
	read -r wall u s rss < <(tail -1 "$dir/.t")
	cpu=$(echo "$u + $s" | bc -l)
	printf '%-36s %8.2f s wall %8.2f s CPU  peak RSS %8.1f MB\n' "$label" "$wall" "$cpu" \
		"$(echo "$rss / 1024" | bc -l)"
}
ratio() { # NAME: the other tool's wall and CPU over hwprof's
	printf '%-36s %6.1fx the wall time, %6.1fx the CPU time, %6.1fx the peak RSS of hwprof\n' "$1" \
		"$(echo "$o_wall / $h_wall" | bc -l)" "$(echo "$o_cpu / $h_cpu" | bc -l)" "$(echo "$o_rss / $h_rss" | bc -l)"
}

echo "llvm input: $hdata ($(($(stat -c %s "$hdata") / 1048576)) MB; hwprof record --emulate -c 29 of hwprof branches), binary $hbin"
run "hwprof pgo --format llvm" "$HWPROF" pgo -q --format llvm -i "$hdata" --binary "$hbin" -o hw.prof
h_wall=$wall h_cpu=$cpu h_rss=$rss
run "llvm-profgen-19 --perfdata" "$profgen" --perfdata "$hdata" --binary "$hbin" --format=text --output pg.prof
o_wall=$wall o_cpu=$cpu o_rss=$rss
echo "bolt input: $data ($(($(stat -c %s "$data") / 1048576)) MB; $ROWS rows, hwprof record --emulate -c 13), binary $bin"
run "hwprof pgo --format bolt" "$HWPROF" pgo -q --format bolt -i "$data" --binary "$bin" -o hw.fdata
b_wall=$wall b_cpu=$cpu b_rss=$rss
run "perf2bolt -p" "$perf2bolt" -p "$data" -o p2b.fdata "$bin"
echo
ratio "llvm-profgen-19 (with perf script)"
cmp -s hw.prof pg.prof && echo "(the two llvm profiles are byte for byte equal)"
h_wall=$b_wall h_cpu=$b_cpu h_rss=$b_rss o_wall=$wall o_cpu=$cpu o_rss=$rss
ratio "perf2bolt-19"

# Without branch stacks: a cpu-clock recording (every 1 µs of CPU time) of
# the llvm subject analysing the 1.1 GB recording, against AutoFDO's
# create_llvm_prof --use_lbr=false and perf2bolt -nl.
if ! perf record -q -e cpu-clock -o "$dir/pgo/probe.data" -- /bin/true >/dev/null 2>&1; then
	echo "no-LBR part skipped: perf record -e cpu-clock does not work here"
	exit 0
fi
ndata=$dir/pgo/nolbr.perf.data
[ -f "$ndata" ] || perf record -q -e cpu-clock -c 1000 -o "$ndata" -- "$hbin" branches -i "$data" >/dev/null 2>&1
cat "$ndata" >/dev/null
echo
echo "no-LBR input: $ndata ($(($(stat -c %s "$ndata") / 1048576)) MB; perf record -e cpu-clock -c 1000 of hwprof branches), binary $hbin"
run "hwprof pgo --format llvm (IP samples)" "$HWPROF" pgo -q --format llvm -i "$ndata" --binary "$hbin" -o hw-ip.prof
n_wall=$wall n_cpu=$cpu n_rss=$rss
if command -v create_llvm_prof >/dev/null; then
	run "create_llvm_prof --use_lbr=false" create_llvm_prof --binary="$hbin" --profile="$ndata" --use_lbr=false \
		--format=text --out=afdo-ip.prof
	h_wall=$n_wall h_cpu=$n_cpu h_rss=$n_rss o_wall=$wall o_cpu=$cpu o_rss=$rss
	ratio "create_llvm_prof (no LBR)"
fi
run "hwprof pgo --format bolt (IP samples)" "$HWPROF" pgo -q --format bolt -i "$ndata" --binary "$hbin" -o hw-ip.fdata
n_wall=$wall n_cpu=$cpu n_rss=$rss
run "perf2bolt -nl" "$perf2bolt" -nl -p "$ndata" -o p2b-ip.fdata "$hbin"
h_wall=$n_wall h_cpu=$n_cpu h_rss=$n_rss o_wall=$wall o_cpu=$cpu o_rss=$rss
ratio "perf2bolt-19 -nl"
