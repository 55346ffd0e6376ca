#!/bin/bash
# Emulated branch-stack capture vs native and vs plain qemu-x86_64, on the
# CPU-bound fixture tests/fixtures/emu_cpu.c (two workloads: "branchy", about
# 15 instructions per taken branch, and "mixed", closer to ordinary code).
# Prints the best-of-3 wall and cpu (user+sys) time of each run and the ratios
# (target: emulated capture at the default period <= 10x native). Not a test:
# numbers depend on the machine; on a loaded machine trust the cpu column.
# Usage: bench/emulate.sh BUILD_DIR [SCALE]   (SCALE 1 = about 1 s native)
set -euo pipefail
BUILD=${1:-build}
SCALE=${2:-1}
HWPROF=$BUILD/hwprof
PLUGIN=$BUILD/hwprof-emu.so
dir=${BENCH_DIR:-$BUILD/bench-data}
mkdir -p "$dir"
command -v qemu-x86_64 >/dev/null || { echo "bench/emulate.sh: qemu-x86_64 not found: install qemu-user" >&2; exit 1; }
[ -f "$PLUGIN" ] || { echo "bench/emulate.sh: $PLUGIN not built (make $PLUGIN)" >&2; exit 1; }
gcc -O2 -o "$dir/emu_cpu" "$(dirname "$0")/../tests/fixtures/emu_cpu.c"

# The full command when `hwprof record --emulate` works here; else the plugin
# under qemu directly (the recording without the conversion to perf.data).
if "$HWPROF" record --emulate -o "$dir/probe.data" -- /bin/true >/dev/null 2>&1; then
	record() { "$HWPROF" record --emulate -o "$dir/emu.data" "$@" -- "$dir/emu_cpu" "${args[@]}"; }
	how="hwprof record --emulate"
else
	record() {
		local extra=
		[ "${1:-}" = --exact ] && extra=,exact=1
		rm -rf "$dir/emu-raw" && mkdir -p "$dir/emu-raw"
		qemu-x86_64 -plugin "$PLUGIN,out=$dir/emu-raw$extra" "$dir/emu_cpu" "${args[@]}"
	}
	how="qemu-x86_64 -plugin hwprof-emu.so (hwprof record --emulate not available: no conversion)"
fi
rm -f "$dir/probe.data"

best() { # best-of-3 "wall cpu" seconds of CMD... (a command or a shell function)
	local bw= bc= w c TIMEFORMAT='%R %U %S'
	for _ in 1 2 3; do
		{ time "$@" >/dev/null 2>"$dir/.err"; } 2>"$dir/.t" || {
			echo "failed: $* : $(tail -1 "$dir/.err")" >&2; return 1; }
		read -r w c < <(tail -1 "$dir/.t" | awk '{ print $1, $2 + $3 }')
		if [ -z "$bw" ] || awk -v t="$w" -v b="$bw" 'BEGIN { exit !(t < b) }'; then bw=$w; fi
		if [ -z "$bc" ] || awk -v t="$c" -v b="$bc" 'BEGIN { exit !(t < b) }'; then bc=$c; fi
	done
	echo "$bw $bc"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 0.001) }'; }

echo "emulated capture: $how"
echo "default period: every 20011 taken branches, 32-entry stacks"
for mode in branchy mixed; do
	case $mode in
	branchy) n=$((1000 * SCALE)) ;;
	mixed) n=$((1500 * SCALE)) ;;
	esac
	args=("$mode" "$n")
	read -r native native_cpu < <(best "$dir/emu_cpu" "${args[@]}")
	read -r qemu qemu_cpu < <(best qemu-x86_64 "$dir/emu_cpu" "${args[@]}")
	read -r emu emu_cpu < <(best record)
	read -r exact exact_cpu < <(best record --exact "$dir/emu.exact")
	taken=
	if [ -f "$dir/emu.data" ] && command -v perf >/dev/null; then
		taken=$(perf script -F period -i "$dir/emu.data" 2>/dev/null | awk '{s+=$1} END {print s}')
	fi
	echo
	echo "$mode ($n):                           wall       cpu (user+sys)"
	printf '  %-34s %7.2f s  %7.2f s\n' native "$native" "$native_cpu" \
		"qemu-x86_64 (no plugin)" "$qemu" "$qemu_cpu" \
		"emulated capture" "$emu" "$emu_cpu" "emulated capture + --exact" "$exact" "$exact_cpu"
	printf '  emulated / native: %sx wall, %sx cpu (target <= 10x)\n' \
		"$(ratio "$emu" "$native")" "$(ratio "$emu_cpu" "$native_cpu")"
	printf '  emulated / qemu: %sx wall; qemu / native: %sx wall; with --exact: %sx native wall\n' \
		"$(ratio "$emu" "$qemu")" "$(ratio "$qemu" "$native")" "$(ratio "$exact" "$native")"
	if [ -n "$taken" ]; then
		printf '  about %s taken branches sampled, %.0f M/s emulated (cpu time)\n' "$taken" \
			"$(awk -v t="$taken" -v s="$emu_cpu" 'BEGIN { print t / s / 1e6 }')"
	fi
done
rm -rf "$dir/emu-raw" "$dir/emu.data" "$dir/emu.exact" "$dir/.t" "$dir/.err"
