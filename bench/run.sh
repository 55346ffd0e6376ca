#!/bin/bash
# make bench: one table of every report, hwprof against the established
# tool for the same answer, on the same input, in the same run.
#   bench/run.sh [BUILD_DIR]
#   BENCH_MB     size of the generated recordings in MB (default 1100; e.g.
#                100 to iterate); the SQLite and memory recordings scale with it
#   TOOL_LIMIT   seconds before an established tool is stopped (default 900;
#                its ratio is then a lower bound, "> N")
#   BENCH_JOBS   thread counts of the columns beside hwprof -j 1 (default: the
#                CPUs available, when more than one; "" for -j 1 alone), each
#                with its wall-time speedup over -j 1 (commands without -j:
#                info, script, show "-" there)
#   BENCH_DIR    where the recordings are kept (default BUILD_DIR/bench-data)
# Each command runs once (stdout to a file or /dev/null), from the page cache.
# CPU s = user + system, children included (perf script | awk counts both);
# GB/s = input size / hwprof's CPU s (per core); RSS = peak resident memory;
# ratio = tool / hwprof: CPU against -j 1's, wall against the last -j
# column's (the threads hwprof takes by default). Not a test: numbers depend on the machine, and wall
# times on what else runs on it (printed: load average before and after).
set -uo pipefail
BUILD=$(realpath "${1:-build}")
HWPROF=$BUILD/hwprof
MB=${BENCH_MB:-1100}
LIMIT=${TOOL_LIMIT:-900}
default_jobs=$(nproc)
[ "$default_jobs" -gt 1 ] || default_jobs=""
read -ra JOBS <<<"${BENCH_JOBS-$default_jobs}"
dir=$(realpath -m "${BENCH_DIR:-$BUILD/bench-data}")
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/out"
# shellcheck source=bench/measure.sh
. "$here/measure.sh"
# shellcheck source=bench/inputs.sh
. "$here/inputs.sh"
for t in perf bc /usr/bin/time; do
	command -v $t >/dev/null || { echo "bench: $t is missing (scripts/setup.sh bench)" >&2; exit 1; }
done
profgen=$(command -v llvm-profgen-19 || echo /usr/lib/llvm-19/bin/llvm-profgen)
perf2bolt=/usr/lib/llvm-19/bin/perf2bolt # perf2bolt-19 starts llvm-bolt (it looks at its name)

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "bench: making the recordings ($dir) ..." >&2
make_inputs
cd "$dir/out" || exit 1 # llvm-profgen and perf2bolt leave files in the current directory
for f in "$in_branch" "$in_call" ${in_sqlite:+"$in_sqlite" "$in_mem" "$sqlite_bin"} ${in_probe:+"$in_probe" "$probe_bin"} "$elf"; do
	cat "$f" >/dev/null # page cache: measure the work, not the disk
done

# stackcollapse in awk (no FlameGraph package in Debian 12): the frames of a
# sample (callee first) folded callers first, one line per stack, its count
fold='/^[^\t]/ { n = 0; next }
/^\t/ { s = $2; sub(/\+0x[0-9a-f]+$/, "", s); f[n++] = s; next }
/^$/ { if (n) { k = f[n - 1]; for (i = n - 2; i >= 0; i--) k = k ";" f[i]; c[k]++ } n = 0 }
END { for (k in c) print k, c[k] }'

rows=() # the table's lines, tab-separated
declare -A memo memo_err # a tool command measured once, shown on each row that names it

# row REPORT INPUT TOOL_LABEL TOOL_CMD -- HWPROF_ARGS...
# TOOL_CMD is a shell command line ("-": no established tool gives this
# answer); HWPROF_ARGS start with the command; hwprof -j N goes after it.
row() {
	local report=$1 input=$2 label=$3 cmd=$4 line j hw_cpu=0 hw_wall=0 T=$'\t'
	shift 5
	local name=$1 args=("${@:2}")
	if [ -z "$input" ]; then
		rows+=("$report$T-$T${why:-${why_sqlite:-no input}}")
		return
	fi
	local bytes
	bytes=$(stat -c %s "$input")
	echo "bench: $report ..." >&2
	line="$report$T$(basename "$input")"
	# -j 1 first (a command without threads: as it is), then each of JOBS
	local takes_j=1 first=1 one_wall=0
	"$HWPROF" "$name" --help 2>/dev/null | grep -q -- '--jobs' || takes_j=""
	for j in 1 "${JOBS[@]}"; do
		if [ -z "$first" ] && [ -z "$takes_j" ]; then
			line+="$T-$T-$T-$T-$T-"
			continue
		fi
		measure 0 /dev/null "$HWPROF" "$name" ${takes_j:+-j "$j"} "${args[@]}"
		if [ "$m_rc" != 0 ]; then
			line+="${T}fails: $(head -1 "$dir/.err" | cut -c1-40 | tr -d "\t")$T-$T-$T-"
			[ -z "$first" ] && line+="$T-"
			first=""
			continue
		fi
		[ -n "$first" ] && hw_cpu=$m_cpu one_wall=$m_wall
		hw_wall=$m_wall
		line+="$T$(fmt "$m_cpu" 2)$T$(fmt "$m_wall" 2)$T$(fmt "$(echo "$bytes / 1000000000 / ($m_cpu + 0.001)" | bc -l)" 2)$T$(fmt "$m_rss" 0)"
		[ -z "$first" ] && line+="$T$(ratio "$one_wall" "$m_wall")" # the parallel pass's speedup
		first=""
	done
	if [ "$cmd" = - ]; then
		rows+=("$line$T-$T-$T-$T-$T-$T-")
		return
	fi
	if [ -z "${memo[$cmd]:-}" ]; then
		measure "$LIMIT" "$dir/out/tool.out" bash -c "$cmd"
		memo[$cmd]="$m_rc $m_cpu $m_wall $m_rss"
		memo_err[$cmd]=$(grep -v '^#' "$dir/.err" | head -1 | head -c 50)
	fi
	local rc c w r
	read -r rc c w r <<<"${memo[$cmd]}"
	case $rc in
	0) line+="$T$label$T$(fmt "$c" 2)$T$(fmt "$w" 2)$T$(fmt "$r" 0)$T$(ratio "$c" "$hw_cpu")$T$(ratio "$w" "$hw_wall")" ;;
	124) line+="$T$label (stopped)$T> $(fmt "$c" 0)$T> $(fmt "$w" 0)$T$(fmt "$r" 0)$T> $(ratio "$c" "$hw_cpu")$T> $(ratio "$w" "$hw_wall")" ;;
	*) line+="$T$label: fails (${memo_err[$cmd]})$T-$T-$T-$T-$T-" ;;
	esac
	rows+=("$line")
}

B=$in_branch C=$in_call S=$in_sqlite M=$in_mem
pr_b="perf report -b --stdio --symfs $symfs -i $B"
profgen_b="$profgen --perfdata $B --binary $elf --skip-symbolization --output pg-ranges.txt"
row info "$B" "perf report --stats" "perf report --stats -i $B" -- info -i "$B"
row script "$B" "perf script -F ip,brstack" "perf script -F ip,brstack -i $B" -- script -i "$B"
row branches "$B" "perf report -b (same keys)" "$pr_b -F overhead,sample,dso_from,symbol_from,dso_to,symbol_to" \
	-- branches -i "$B" --symfs "$symfs"
row mispredicts "$B" "perf report -b -F addr_from,mispredict" "$pr_b -F overhead,sample,addr_from,mispredict" \
	-- mispredicts -i "$B" --symfs "$symfs"
row probs "$B" "llvm-profgen --skip-symbolization" "$profgen_b" -- probs -i "$B" --symfs "$symfs"
row blocks "$B" "llvm-profgen --skip-symbolization" "$profgen_b" -- blocks -i "$B" --symfs "$symfs"
row paths "$B" - - -- paths -i "$B" --symfs "$symfs"
row timing "$B" - - -- timing -i "$B" --symfs "$symfs"
row "ranges --format profgen" "$B" "llvm-profgen --skip-symbolization" "$profgen_b" \
	-- ranges -i "$B" --symfs "$symfs" --format profgen --binary "${elf##*/}" -o hw-ranges.txt
row advise "$B" - - -- advise -i "$B" --symfs "$symfs"
row "report --html" "$B" - - -- report -i "$B" --symfs "$symfs" --html report.html
row export "$B" "llvm-profgen --skip-symbolization" "$profgen_b" -- export -i "$B" --symfs "$symfs"
row callgraph "$C" "perf report --children -g none" \
	"perf report --children --stdio -g none --sort dso,sym --symfs $symfs -i $C" -- callgraph -i "$C" --symfs "$symfs"
row "flame --folded" "$C" "perf script | awk fold" \
	"perf script -F ip,sym --symfs $symfs -i $C | awk '$fold' >awk.folded" \
	-- flame -i "$C" --symfs "$symfs" --folded -o hw.folded
row "pgo --format llvm" "$S" "llvm-profgen-19 --perfdata" \
	"$profgen --perfdata $S --binary $sqlite_bin --format=text --output pg.prof" \
	-- pgo -i "$S" --binary "$sqlite_bin" --format llvm -o hw.prof
why=${why_probe:-} row "pgo --format llvm-cs" "${in_probe:-}" "llvm-profgen-19 --perfdata" \
	"$profgen --perfdata ${in_probe:-} --binary ${probe_bin:-} --format=text --output pg-cs.prof" \
	-- pgo -i "${in_probe:-}" --binary "${probe_bin:-}" --format llvm-cs -o hw-cs.prof
row "pgo --format bolt" "$S" "perf2bolt -p" "$perf2bolt -p $S -o p2b.fdata $sqlite_bin" \
	-- pgo -i "$S" --binary "$sqlite_bin" --format bolt -o hw.fdata
row mem "$M" "perf mem report" "perf mem report --stdio -i $M" -- mem -i "$M"
row c2c "$M" "perf c2c report" "perf c2c report --stdio -i $M" -- c2c -i "$M"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# the table, Markdown with aligned columns
echo
echo "$(nproc) CPUs: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $(uname -sr)"
T=$'\t'
head="report${T}input${T}hwprof -j 1 CPU s${T}wall s${T}GB/s${T}RSS MB"
for j in "${JOBS[@]}"; do head+="$T-j $j CPU s${T}wall s${T}GB/s${T}RSS MB${T}speedup wall"; done
head+="${T}established tool${T}CPU s${T}wall s${T}RSS MB${T}ratio CPU${T}ratio wall"
printf '%s\n' "$head" "${rows[@]}" | sed 's/|/\\|/g' | awk -F'\t' '
	{ for (i = 1; i <= NF; i++) { c[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } if (NF > nf) nf = NF }
	END {
		for (r = 1; r <= NR; r++) {
			s = "|"
			for (i = 1; i <= nf; i++) s = s sprintf(" %" (i <= 2 || c[1, i] ~ /tool/ ? "-" : "") w[i] "s |", c[r, i])
			print s
			if (r == 1) { s = "|"; for (i = 1; i <= nf; i++) { d = ""; for (k = 0; k < w[i] + 2; k++) d = d "-"; s = s d "|" } print s }
		}
	}'
echo
for f in "$B" "$C" ${S:+"$S" "$M"}; do
	printf '%s: %d MB, %s samples\n' "$(basename "$f")" $(($(stat -c %s "$f") / 1048576)) \
		"$("$HWPROF" info -i "$f" | sed -n 's/^samples: \([0-9]*\).*/\1/p')"
done
[ -n "$S" ] && echo "SQLite binary: $sqlite_bin ($(($(stat -c %s "$sqlite_bin") / 1048576)) MB, -O2 -g)"
# the same answer: checked where the outputs are files of one format
if [ -f hw.folded ] && [ -f awk.folded ]; then
	cmp -s <(sort hw.folded) <(sort awk.folded) && s=equal || s=DIFFERENT
	echo "flame --folded and the awk fold of perf script: $s"
fi
if [ -f hw-ranges.txt ] && [ -f pg-ranges.txt ]; then
	cmp -s hw-ranges.txt pg-ranges.txt && s="byte for byte equal" || s=DIFFERENT
	echo "ranges --format profgen and llvm-profgen-19 --skip-symbolization: $s"
fi
if [ -f hw.prof ] && [ -f pg.prof ]; then
	cmp -s hw.prof pg.prof && s="byte for byte equal" || s=DIFFERENT
	echo "pgo --format llvm and llvm-profgen-19's profile: $s"
fi
