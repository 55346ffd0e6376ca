#!/bin/bash
# make bench-dwarf: DWARF unwinding (perf record --call-graph dwarf), hwprof
# against perf 6.1 on the same recording, in the same run.
#   bench/dwarf.sh [BUILD_DIR]
#   DWARF_MB    size of the recording in MB (default 500): perf record -e
#               cpu-clock --call-graph dwarf of tests/fixtures/dwarf_unwind.c
#               (-O2 -g -fomit-frame-pointer: a 25-deep recursion, libc's
#               qsort, zlib, a signal handler), run until the file is that big
#   BENCH_DIR   where the recording is kept (default BUILD_DIR/bench-data)
# Rows: hwprof callgraph against perf report --children --stdio -g none (the
# same table) and perf report --stdio -g (its call-graph text), hwprof flame
# --folded against perf script | awk fold (bench/run.sh's stackcollapse), all
# --no-inline on both sides (perf's addr2line for
# inline chains would dominate its time); then hwprof with the cached
# unwinding rules off (HWPROF_UNWIND_NO_RULES=1: libdwfl for every sample).
# hwprof runs on one thread (-j 1: the per-core figure; each thread of a
# parallel pass sets its own unwinder up, which a recording this short
# does not repay). Each command runs once, from the page cache. CPU s = user + system,
# children included; RSS = peak resident; ratio = perf / hwprof. Not a test.
set -uo pipefail
BUILD=$(realpath "${1:-build}")
HWPROF=$BUILD/hwprof
MB=${DWARF_MB:-500}
dir=$(realpath -m "${BENCH_DIR:-$BUILD/bench-data}")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
mkdir -p "$dir/out"
# shellcheck source=bench/measure.sh
. "$here/measure.sh"
for t in perf gcc bc /usr/bin/time; do
	command -v $t >/dev/null || { echo "bench: $t is missing" >&2; exit 1; }
done

bin=$dir/dwarf_unwind
data=$dir/dwarf-${MB}mb.perf.data
if [ ! -f "$data" ]; then
	gcc -O2 -g -fomit-frame-pointer -o "$bin" "$root/tests/fixtures/dwarf_unwind.c" -lz || exit 1
	# about 2.4 MB a round at perf's default 4 kHz: record in one go
	rounds=$(((MB * 10 + 23) / 24))
	echo "bench: recording $bin $rounds rounds (--call-graph dwarf) ..." >&2
	perf record -q -e cpu-clock --call-graph dwarf -o "$data" "$bin" "$rounds" >/dev/null || exit 1
fi
cat "$data" >/dev/null
cd "$dir/out" || exit 1
bytes=$(stat -c %s "$data")
samples=$(perf report --stats -i "$data" 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')

fold='/^[^\t]/ { n = 0; next }
/^\t/ { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); f[n++] = s; next }
/^$/ { if (n) { k = f[n - 1]; for (i = n - 2; i >= 0; i--) k = k ";" f[i]; c[k]++ } n = 0 }
END { for (k in c) print k, c[k] }'

T=$'\t'
rows=()
# row LABEL HWPROF_ENV TOOL_LABEL TOOL_CMD -- HWPROF_ARGS...
row() {
	local label=$1 env=$2 tl=$3 cmd=$4 hc hw hr
	shift 5
	echo "bench: $label ..." >&2
	measure 0 /dev/null env $env "$HWPROF" "$@"
	[ "$m_rc" = 0 ] || { rows+=("$label${T}fails: $(head -1 "$dir/.err")"); return; }
	hc=$m_cpu hw=$m_wall hr=$m_rss
	local line="$label$T$(fmt "$hc" 2)$T$(fmt "$hw" 2)$T$(fmt "$(echo "$bytes / 1000000000 / ($hc + 0.001)" | bc -l)" 2)$T$(fmt "$hr" 0)"
	if [ "$cmd" = - ]; then
		rows+=("$line$T-$T-$T-$T-$T-$T-")
		return
	fi
	measure 0 "$dir/out/tool.out" bash -c "$cmd"
	rows+=("$line$T$tl$T$(fmt "$m_cpu" 2)$T$(fmt "$m_wall" 2)$T$(fmt "$m_rss" 0)$T$(ratio "$m_cpu" "$hc")$T$(ratio "$m_wall" "$hw")")
}

pr="perf report --children --stdio -g none --no-inline -i $data"
ps="perf script -F ip,sym --no-inline -i $data | awk '$fold' >awk.folded"
row "callgraph" "" "perf report --children" "$pr" -- callgraph -j 1 --no-inline -i "$data"
row "callgraph" "" "perf report -g" "perf report --stdio -g --no-inline -i $data" -- callgraph -j 1 --no-inline -i "$data"
row "flame --folded" "" "perf script | awk fold" "$ps" -- flame -j 1 --no-inline --folded -i "$data" -o hw.folded
row "callgraph, libdwfl only" "HWPROF_UNWIND_NO_RULES=1" "perf report --children" "$pr" -- callgraph -j 1 --no-inline -i "$data"
row "flame --folded, libdwfl only" "HWPROF_UNWIND_NO_RULES=1" "perf script | awk fold" "$ps" \
	-- flame -j 1 --no-inline --folded -i "$data" -o hw.folded

echo
echo "$(nproc) CPUs: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $(uname -sr)"
echo "input: $(basename "$data"), $((bytes / 1000000)) MB, $samples samples (perf record -e cpu-clock --call-graph dwarf)"
head="report${T}hwprof -j 1 CPU s${T}wall s${T}GB/s${T}RSS MB${T}perf 6.1${T}CPU s${T}wall s${T}RSS MB${T}ratio CPU${T}ratio wall"
printf '%s\n' "$head" "${rows[@]}" | awk -F'\t' '
	{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } if (NF > nf) nf = NF }
	END {
		for (r = 1; r <= NR; r++) {
			line = "|"
			for (i = 1; i <= nf; i++) line = line sprintf(" %-" w[i] "s |", c[r, i])
			print line
			if (r == 1) { line = "|"; for (i = 1; i <= nf; i++) { d = ""; for (k = 0; k < w[i]; k++) d = d "-"; line = line " " d " |" } print line }
		}
	}'
