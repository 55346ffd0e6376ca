#!/bin/bash
# record --mem: the events `perf mem record` would open, per vendor, chosen
# from sysfs. This machine has no such PMU, so fake sysfs trees
# ($HWPROF_SYSFS) stand for an Intel and an AMD one; perf 6.1 is the oracle
# for the attr: `perf record -vv -W -d -e rCONFIG:P` (what perf mem record
# asks for, the event given by its raw code), compared field by field with
# `hwprof record --mem --print-attr`, except the fields the PMU event adds:
# config1 (ldlat, from the PMU's format files) on Intel; type and RAW on AMD.
set -u
HWPROF=${HWPROF:-build/hwprof}
tmp=$(mktemp -d)
chmod 1777 "$tmp"
trap 'rm -rf "$tmp"' EXIT
attr() { awk '/^perf_event_attr:/ { f = 1; next } f && /^-----/ { exit } f'; }

# Intel: cpu PMU (type 4) with mem-loads/mem-stores and their formats; the
# event format is split over two ranges to check the bit placement.
cpu=$tmp/intel/bus/event_source/devices/cpu
mkdir -p "$cpu/events" "$cpu/format"
echo 4 >"$cpu/type"
echo "event=0xcd,umask=0x1,ldlat=3" >"$cpu/events/mem-loads"
echo "event=0xd0,umask=0x82" >"$cpu/events/mem-stores"
echo "config:0-7" >"$cpu/format/event"
echo "config:8-15" >"$cpu/format/umask"
echo "config1:0-15" >"$cpu/format/ldlat"

# PLAN: the PMU check, 3 Intel rows and AMD's with perf; without perf, its
# SKIP stands for them
if command -v perf >/dev/null; then echo "PLAN 5"; else echo "PLAN 2"; fi
# No PMU here: one line, non-zero exit.
if [ -d /sys/bus/event_source/devices/cpu ] || [ -d /sys/bus/event_source/devices/ibs_op ]; then
	echo "SKIP record_mem_no_pmu: this machine has a PMU"
elif "$HWPROF" record --mem --print-attr -- true >/dev/null 2>"$tmp/err"; then
	echo "FAIL record_mem_no_pmu: exit 0"
elif [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q 'emulate --mem' "$tmp/err"; then
	echo "PASS record_mem_no_pmu"
else
	echo "FAIL record_mem_no_pmu: $(cat "$tmp/err")"
fi

if ! command -v perf >/dev/null; then
	echo "SKIP record_mem_intel: perf not installed"
	exit 0
fi
for case in "|30" "--ldlat 64|64" "-c 20011 --ldlat 100|100"; do
	args=${case%|*} ldlat=${case#*|}
	HWPROF_SYSFS=$tmp/intel "$HWPROF" record --mem --print-attr $args -- true 2>/dev/null | attr >"$tmp/h"
	pargs=$(echo "$args" | sed 's/--ldlat [0-9]*//')
	(cd "$tmp" && perf record -vv -W -d -e r1cd:P $pargs -o "$tmp/p.data" -- true 2>&1) | attr >"$tmp/p"
	want=$(printf '0x%x' "$ldlat")
	got=$(grep 'config1 }' "$tmp/h" | awk '{print $NF}')
	if [ ! -s "$tmp/p" ]; then
		echo "FAIL record_mem_intel[$args]: perf printed no attr"
	elif ! diff <(grep -v 'config1 }' "$tmp/h") "$tmp/p" >"$tmp/d"; then
		echo "FAIL record_mem_intel[$args]: differs from perf -W -d -e r1cd:P: $(head -3 "$tmp/d" | tr '\n' ' ')"
	elif [ "$got" != "$want" ]; then
		echo "FAIL record_mem_intel[$args]: config1 $got, want ldlat $want"
	else
		echo "PASS record_mem_intel[$args] (perf's attr, config1 $got)"
	fi
done

# AMD: ibs_op PMU (type 11), no Intel cpu events.
ibs=$tmp/amd/bus/event_source/devices/ibs_op
mkdir -p "$ibs"
echo 11 >"$ibs/type"
HWPROF_SYSFS=$tmp/amd "$HWPROF" record --mem --print-attr -c 100003 -- true 2>/dev/null | attr >"$tmp/h"
(cd "$tmp" && perf record -vv -W -d -e r0 -c 100003 -o "$tmp/p.data" -- true 2>&1) | attr >"$tmp/p"
if ! grep -qE '^  type +11$' "$tmp/h"; then
	echo "FAIL record_mem_amd: type is not ibs_op's: $(head -1 "$tmp/h")"
elif ! grep -q 'sample_type .*RAW' "$tmp/h"; then
	echo "FAIL record_mem_amd: no RAW (the IBS registers)"
elif ! diff <(grep -v '^  type \|sample_type' "$tmp/h") <(grep -v '^  type \|sample_type' "$tmp/p") >"$tmp/d"; then
	echo "FAIL record_mem_amd: differs from perf -W -d -e r0: $(head -3 "$tmp/d" | tr '\n' ' ')"
else
	echo "PASS record_mem_amd (ibs_op type 11, perf's other fields)"
fi
