#!/bin/bash
# hwprof check: on this machine, and on fake sysfs/procfs/dev trees given
# with --sysfs/--procfs/--dev (an Intel machine with LBR, and a VM without
# PMU). Text and --json.
set -u
echo "PLAN 6"
HWPROF=${HWPROF:-build/hwprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }

# 1. This machine: the report runs, its JSON parses, and when there is no
# core PMU it says so plainly and points at --emulate.
if "$HWPROF" check >"$tmp/out" 2>"$tmp/err" && "$HWPROF" check --json >"$tmp/json" 2>>"$tmp/err"; then
	if json_ok "$tmp/json"; then
		echo "PASS check_this_machine (text and JSON)"
	else
		echo "FAIL check_this_machine: --json does not parse"
	fi
	core=$(ls /sys/bus/event_source/devices 2>/dev/null | grep -E '^(cpu|cpu_core|cpu_atom|armv.*)$' | head -1)
	if [ -z "$core" ]; then
		if grep -q "^No hardware PMU here, so no branch records" "$tmp/out" &&
			grep -q "hwprof record --emulate" "$tmp/out" &&
			grep -q '"hardware_pmu":{"yes":false' "$tmp/json" &&
			grep -q '"branch_stacks":{"yes":false' "$tmp/json"; then
			echo "PASS check_no_pmu_says_so"
		else
			echo "FAIL check_no_pmu_says_so: $(tail -4 "$tmp/out")"
		fi
	else
		if grep -q '"hardware_pmu":{"yes":true' "$tmp/json"; then
			echo "PASS check_pmu_found ($core)"
		else
			echo "FAIL check_pmu_found: $core in sysfs, but: $(grep 'hardware PMU' "$tmp/out")"
		fi
	fi
else
	echo "FAIL check_this_machine: $(head -2 "$tmp/err")"
fi

# 2. A fake Skylake server with a 32-entry LBR, LBR format 000101b in a
# fake /dev/cpu/0/msr (a sparse file: offset 0x345 holds the MSR).
t=$tmp/intel
mkdir -p "$t/proc/sys/kernel" "$t/proc/self" "$t/dev/cpu/0" \
	"$t/sys/bus/event_source/devices/cpu/caps" "$t/sys/bus/event_source/devices/software"
printf 'vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz\nstepping\t: 4\nflags\t\t: fpu pdcm arch_perfmon\n' >"$t/proc/cpuinfo"
echo 2 >"$t/proc/sys/kernel/perf_event_paranoid"
echo 0 >"$t/proc/sys/kernel/kptr_restrict"
printf 'Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\n' >"$t/proc/self/status"
echo 4 >"$t/sys/bus/event_source/devices/cpu/type"
echo 32 >"$t/sys/bus/event_source/devices/cpu/caps/branches"
echo 3 >"$t/sys/bus/event_source/devices/cpu/caps/max_precise"
echo skylake >"$t/sys/bus/event_source/devices/cpu/caps/pmu_name"
echo 1 >"$t/sys/bus/event_source/devices/software/type"
echo '6,400,3000,-;Performance Events: PEBS fmt3+, Skylake events, 32-deep LBR, full-width counters, Intel PMU driver.' >"$t/dev/kmsg"
python3 -c 'import struct,sys; f=open(sys.argv[1],"wb"); f.seek(0x345); f.write(struct.pack("<Q",0x33c5))' "$t/dev/cpu/0/msr"
args=(--sysfs "$t/sys" --procfs "$t/proc" --dev "$t/dev")
if "$HWPROF" check "${args[@]}" >"$tmp/out" 2>"$tmp/err" &&
	grep -q "GenuineIntel family 6 (0x6) model 85 (0x55) stepping 4" "$tmp/out" &&
	grep -q "0x33c5: LBR format 000101b, 64-bit EIP+flags+TSX+LBR_INFO" "$tmp/out" &&
	grep -qE "branch stacks +yes +32-entry LBR \(cpu/caps/branches\); user-space branches only" "$tmp/out" &&
	grep -qE "kernel samples +no +perf_event_paranoid=2" "$tmp/out" &&
	grep -q "hwprof record -b -e cycles:u -- PROG ARGS" "$tmp/out"; then
	echo "PASS check_fake_intel_lbr"
else
	echo "FAIL check_fake_intel_lbr:"
	cat "$tmp/out" "$tmp/err" >&2
fi
if "$HWPROF" check --json "${args[@]}" >"$tmp/json" && json_ok "$tmp/json" &&
	grep -q '"lbr_format":5,"lbr_format_bits":"000101b","lbr_format_name":"64-bit EIP+flags+TSX+LBR_INFO"' "$tmp/json" &&
	grep -q '"branch_depth":32' "$tmp/json"; then
	echo "PASS check_fake_intel_lbr_json"
else
	echo "FAIL check_fake_intel_lbr_json: $(head -c 300 "$tmp/json")"
fi

# 3. A fake VM without PMU (this development machine's shape)
t=$tmp/vm
mkdir -p "$t/proc/sys/kernel" "$t/proc/self" "$t/dev" \
	"$t/sys/bus/event_source/devices/software" "$t/sys/bus/event_source/devices/tracepoint"
printf 'vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\nstepping\t: 1\nflags\t\t: fpu hypervisor\n' >"$t/proc/cpuinfo"
echo 2 >"$t/proc/sys/kernel/perf_event_paranoid"
echo 0 >"$t/proc/sys/kernel/kptr_restrict"
printf 'Uid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n' >"$t/proc/self/status"
echo 1 >"$t/sys/bus/event_source/devices/software/type"
echo 2 >"$t/sys/bus/event_source/devices/tracepoint/type"
echo '6,300,310186,-;Performance Events: PMU not available due to virtualization, using software events only.' >"$t/dev/kmsg"
if "$HWPROF" check --sysfs "$t/sys" --procfs "$t/proc" --dev "$t/dev" >"$tmp/out" 2>"$tmp/err" &&
	grep -qE 'hardware PMU +no +no hardware PMU: the kernel says "Performance Events: PMU not available due to virtualization' "$tmp/out" &&
	grep -qE "branch stacks +no" "$tmp/out" &&
	grep -q "^No hardware PMU here, so no branch records" "$tmp/out" &&
	grep -q "  hwprof record --emulate -- PROG ARGS" "$tmp/out" &&
	grep -q "not applicable: not an Intel CPU" "$tmp/out"; then
	echo "PASS check_fake_vm"
else
	echo "FAIL check_fake_vm:"
	cat "$tmp/out" "$tmp/err" >&2
fi

# 4. Bad usage: one line, non-zero
if ! "$HWPROF" check --bogus >/dev/null 2>"$tmp/err" && ! "$HWPROF" check extra >/dev/null 2>"$tmp/err2" &&
	grep -q "^hwprof: check: unexpected argument 'extra'" "$tmp/err2"; then
	echo "PASS check_bad_usage"
else
	echo "FAIL check_bad_usage: $(head -2 "$tmp/err2")"
fi
