#!/bin/bash
# SPDX-License-Identifier: MIT
# The gain of PGO with hwprof's profiles against the established tools',
# end to end (the flows of tests/tools/pgo_e2e_lib.sh; tests/long/pgo_e2e.sh
# checks their output):
#   hwprof (LLVM)   hwprof built by clang-19 -O2 -g -fdebug-info-for-profiling,
#                   trained on 'hwprof probs' of a 4 MB generated recording
#                   (recorded with hwprof record --emulate -b -c 1009),
#                   rebuilt with -fprofile-sample-use= the profile of hwprof
#                   pgo --format llvm / of llvm-profgen-19; timed on 'hwprof
#                   probs' of a 400 MB recording;
#   sqlite (BOLT)   tests/fixtures/realworld_sqlite.c linked with --emit-relocs
#                   against Debian's static SQLite, trained on 20000 rows
#                   (-c 97), llvm-bolt-19 with the fdata of hwprof pgo
#                   --format bolt / of perf2bolt; timed on 1.5 M rows;
#   lua (BOLT)      tests/fixtures/flow_lua.c against Debian's static Lua 5.4,
#                   trained with n=20000 (-c 97), timed with n=400000.
# Each program variant runs PGO_E2E_RUNS times (default 9), interleaved (one
# round runs every variant once, in a rotating order), stdout to /dev/null.
# Prints per variant the median CPU time (user + system) and wall time with
# their min-max spread, the speedups of the medians over the baseline, and
# how the two profiles compare. Then, free of the machine's noise, the taken
# branches each variant executes on a medium input (counted by the emulator
# of hwprof record --emulate; Lua seeds its string hashes with the time and
# addresses, so its counts vary by 1-2% from run to run: the median of 5):
# what BOLT's block layout and PGO's branch directions aim to cut. Not a
# test: the times depend on the machine (the load average is printed before
# and after).
# Usage: bench/pgo_e2e.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
e2e_build=$(realpath "${1:-build}")
HWPROF=$e2e_build/hwprof
RUNS=${PGO_E2E_RUNS:-9}
e2e_dir=$(realpath -m "${BENCH_DIR:-$e2e_build/bench-data}/pgo_e2e")
mkdir -p "$e2e_dir"
. "$root/tests/tools/pgo_e2e_lib.sh"
missing=$(e2e_missing)
if [ -n "$missing" ]; then
	echo "bench/pgo_e2e.sh: skipped (not installed: $missing)"
	exit 0
fi

names=() labels=() # per program: its name and the established tool
declare -A bin args
declare -A margs reps # the medium input of the emulated count, its repeats
prepare() { # NAME LABEL ARGS MEDIUM_ARGS REPEATS: after an e2e_* call
	names+=("$1")
	labels+=("$2")
	local v
	for v in 0 1 2; do bin[$1,$v]=${e2e_bins[$v]}; done
	args[$1]=$3 margs[$1]=$4 reps[$1]=$5
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "building, recording the training runs, writing the profiles, optimizing ($e2e_dir) ..."
e2e_llvm_hwprof 4 400 1009 || { echo "hwprof (LLVM): $e2e_err" >&2; exit 1; }
e2e_gen "$e2e_dir/hw-medium-in.data" 24 || { echo "hwprof (LLVM): $e2e_err" >&2; exit 1; }
prepare hwprof llvm-profgen "${e2e_args[*]}" "probs -i $e2e_dir/hw-medium-in.data --symfs $e2e_dir/symfs" 1
e2e_bolt sqlite 20000 97 || { echo "sqlite (BOLT): $e2e_err" >&2; exit 1; }
prepare sqlite perf2bolt 1500000 50000 1
e2e_bolt lua 20000 97 || { echo "lua (BOLT): $e2e_err" >&2; exit 1; }
prepare lua perf2bolt 400000 30000 5

# how the two profiles compare
d=$e2e_dir
if cmp -s "$d/hwprof.hw.prof" "$d/hwprof.pg.prof"; then
	echo "hwprof (LLVM): hwprof's profile and llvm-profgen-19's are byte for byte equal" \
		"($(grep -c '^[^ ]' "$d/hwprof.hw.prof") functions)"
else
	echo "hwprof (LLVM): the profiles differ; llvm-profdata-19 overlap:"
	"$e2e_profdata" overlap --sample "$d/hwprof.pg.prof" "$d/hwprof.hw.prof" 2>&1 | sed -n '3,4p;10p'
fi
cmp -s "${bin[hwprof,1]}" "${bin[hwprof,2]}" && echo "  (so the two PGO builds of hwprof are the same binary)"
for n in sqlite lua; do
	echo "$n (BOLT): fdata: $(python3 "$root/tests/e2e/fdata_compare.py" "$d/$n.p2b.fdata" "$d/$n.hw.fdata" \
		--allow-call-ft "$d/$n" 2>/dev/null)"
	for v in hw p2b; do
		printf '  llvm-bolt with the %-9s fdata: %s; taken branches %s\n' "$v" \
			"$(grep -m1 -o '[0-9]* out of [0-9]* functions' "$d/$n.bolt.$v.log") profiled" \
			"$(grep ': taken branches (' "$d/$n.bolt.$v.log" | head -1 | sed 's/.*(\(.*\))/\1/')"
	done
done

# taken branches executed, emulated: NAME VARIANT COUNT per line
emu=$e2e_dir/taken.tsv
: >"$emu"
for n in "${names[@]}"; do
	for ((r = 0; r < ${reps[$n]}; r++)); do
		for v in 0 1 2; do
			# shellcheck disable=SC2086 # the arguments are words
			c=$(e2e_taken "${bin[$n,$v]}" ${margs[$n]})
			echo "$n $v ${c:?emulated count of $n variant $v}" >>"$emu"
		done
	done
done

# the timed runs: ROUND NAME VARIANT WALL CPU per line
raw=$e2e_dir/times.tsv
: >"$raw"
for ((r = 0; r < RUNS; r++)); do
	for n in "${names[@]}"; do
		for ((k = 0; k < 3; k++)); do
			v=$(((k + r) % 3))
			# shellcheck disable=SC2086 # the arguments are words
			/usr/bin/time -f "%e %U %S" -o "$e2e_dir/.t" "${bin[$n,$v]}" ${args[$n]} >/dev/null 2>&1 ||
				{ echo "$n variant $v failed" >&2; exit 1; }
			read -r w u s <"$e2e_dir/.t"
			echo "$r $n $v $w $(echo "$u + $s" | bc -l)" >>"$raw"
		done
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 - "$raw" "${names[*]}" "${labels[*]}" "$RUNS" "$emu" <<'EOF'
import statistics, sys
raw, names, labels, runs, emu = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4], sys.argv[5]
t = {}
for line in open(raw):
    r, n, v, w, c = line.split()
    t.setdefault((n, int(v)), []).append((float(w), float(c)))
def stat(n, v, i):
    xs = [x[i] for x in t[(n, v)]]
    return statistics.median(xs), min(xs), max(xs)
print(f"medians of {runs} interleaved runs each; CPU = user + system; speedup = baseline / variant")
print(f"{'program':16} {'variant':22} {'CPU s (min-max)':>20} {'wall s (min-max)':>20} {'speedup CPU':>12} {'wall':>6}")
for n, lab in zip(names, labels):
    kind = 'LLVM' if lab == 'llvm-profgen' else 'BOLT'
    base_c, base_w = stat(n, 0, 1)[0], stat(n, 0, 0)[0]
    for v, vname in enumerate(['baseline', 'hwprof ' + kind, lab + ' ' + kind]):
        c, w = stat(n, v, 1), stat(n, v, 0)
        print(f"{n:16} {vname:22} {c[0]:7.3f} ({c[1]:.3f}-{c[2]:.3f}) {w[0]:7.3f} ({w[1]:.3f}-{w[2]:.3f})"
              f" {base_c / c[0]:11.3f}x {base_w / w[0]:5.3f}x")
print()
print(f"{'program':16} {'baseline CPU':>12} {'hwprof':>8} {'tool':>8} {'hwprof speedup':>15} {'tool speedup':>13}  tool")
for n, lab in zip(names, labels):
    b, h, o = (stat(n, v, 1)[0] for v in range(3))
    print(f"{n:16} {b:11.3f}s {h:7.3f}s {o:7.3f}s {b / h:14.3f}x {b / o:12.3f}x  {lab}")
e = {}
for line in open(emu):
    n, v, c = line.split()
    e.setdefault((n, int(v)), []).append(int(c))
print()
print("taken branches executed on a medium input (emulated; median of the repeats), change from the baseline")
print(f"{'program':16} {'baseline':>14} {'hwprof':>14} {'change':>7} {'tool':>14} {'change':>7}  tool")
for n, lab in zip(names, labels):
    b, h, o = (statistics.median(e[(n, v)]) for v in range(3))
    print(f"{n:16} {b:14.0f} {h:14.0f} {100 * (h - b) / b:+6.1f}% {o:14.0f} {100 * (o - b) / b:+6.1f}%  {lab}")
EOF
