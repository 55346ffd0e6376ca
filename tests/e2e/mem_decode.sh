#!/bin/bash
# data_src decoding against perf 6.1: tests/tools/gen_mem_perfdata writes
# precise load samples whose data_src has every perf_mem_data_src bit alone
# and thousands of random combinations (op, level bits, snoop, lock, TLB,
# lvl_num, remote, snoopx, blk, hops), with WEIGHT or WEIGHT_STRUCT; hwprof
# script -F event,cpu,ip,addr,weight,data_src must print what perf script
# prints for them, byte for byte (the decoding text, its padding and its
# 99-character cut included).
set -u
build=${BUILD:-build}
gen=$build/tests/tools/gen_mem_perfdata
if ! command -v perf >/dev/null; then
	echo "SKIP mem_decode: perf not installed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fields=event,cpu,ip,addr,weight,data_src
for seed in 1 2 3; do
	ws=""
	[ $seed -ne 1 ] && ws=--weight-struct
	if ! "$gen" $seed "$tmp/m.data" $ws --random 2000 2>"$tmp/err"; then
		echo "FAIL mem_decode_$seed: generator: $(head -1 "$tmp/err")"
		continue
	fi
	perf script -F $fields -i "$tmp/m.data" >"$tmp/perf.txt" 2>/dev/null
	"$HWPROF" script -F $fields -i "$tmp/m.data" >"$tmp/hwprof.txt" 2>"$tmp/err"
	n=$(wc -l <"$tmp/perf.txt")
	if [ "$n" -lt 2000 ]; then
		echo "FAIL mem_decode_$seed: perf printed $n lines"
	elif cmp -s "$tmp/perf.txt" "$tmp/hwprof.txt"; then
		echo "PASS mem_decode_$seed ($n samples${ws:+, WEIGHT_STRUCT})"
	else
		echo "FAIL mem_decode_$seed: differs from perf script"
		diff "$tmp/perf.txt" "$tmp/hwprof.txt" | head -4 >&2
	fi
done
