#!/bin/bash
# hwprof script must print, byte for byte, what perf 6.1 printed for every
# corpus perf.data that has an oracle dump (callchain files dumped with -G).
set -u
corpus=${HWPROF_CORPUS:-../shared/corpus}
if [ ! -d "$corpus/oracles" ]; then
	echo "PLAN 1"
	echo "SKIP corpus_script_oracles: no corpus at $corpus"
	exit 0
fi
# PLAN: one check per oracle dump
echo "PLAN $(find "$corpus/oracles" -maxdepth 1 \( -name '*.perf61.ip-brstack.txt.gz' -o -name '*.perf61.mem.txt.gz' \) | wc -l)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for oracle in "$corpus"/oracles/*.perf61.ip-brstack.txt.gz; do
	base=$(basename "$oracle" .perf61.ip-brstack.txt.gz)
	case $base in
	autofdo_*) src=$corpus/autofdo/${base#autofdo_} ;;
	perf_data_converter_*) src=$corpus/perf_data_converter/${base#perf_data_converter_} ;;
	simpleperf_lbr_*) src=$corpus/simpleperf/lbr/${base#simpleperf_lbr_} ;;
	simpleperf_*) src=$corpus/simpleperf/${base#simpleperf_} ;;
	perfparser_vector_static_gcc_*) src=$corpus/perfparser/vector_static_gcc/${base#perfparser_vector_static_gcc_} ;;
	*) echo "FAIL oracle_$base: no rule maps it to its perf.data"; continue ;;
	esac
	# Oracles of recordings with callchains were dumped with -G.
	flags=""
	if "$HWPROF" info --json -i "$src" | grep -q '"CALLCHAIN"'; then flags=-G; fi
	if ! "$HWPROF" script $flags -i "$src" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL oracle_$base: hwprof script failed: $(head -1 "$tmp/err")"
		continue
	fi
	if gzip -dc "$oracle" | cmp -s - "$tmp/out"; then
		echo "PASS oracle_$base ($(wc -l <"$tmp/out") samples)"
	else
		echo "FAIL oracle_$base: output differs from perf 6.1's dump"
		gzip -dc "$oracle" | diff - "$tmp/out" | head -5 >&2
	fi
done
# Precise-sample oracles (perf 6.1 `-F event,cpu,ip,addr,weight,data_src`):
# addr, weight (WEIGHT_STRUCT's latency) and data_src with perf's decoding
# of every field (op, level, snoop, TLB, lock, block), byte for byte.
for oracle in "$corpus"/oracles/*.perf61.mem.txt.gz; do
	[ -e "$oracle" ] || continue
	base=$(basename "$oracle" .perf61.mem.txt.gz)
	case $base in
	perf_data_converter_*) src=$corpus/perf_data_converter/${base#perf_data_converter_} ;;
	*) echo "FAIL oracle_mem_$base: no rule maps it to its perf.data"; continue ;;
	esac
	if ! "$HWPROF" script -F event,cpu,ip,addr,weight,data_src -i "$src" >"$tmp/out" 2>"$tmp/err"; then
		echo "FAIL oracle_mem_$base: hwprof script failed: $(head -1 "$tmp/err")"
		continue
	fi
	if gzip -dc "$oracle" | cmp -s - "$tmp/out"; then
		echo "PASS oracle_mem_$base ($(wc -l <"$tmp/out") samples)"
	else
		echo "FAIL oracle_mem_$base: output differs from perf 6.1's dump"
		gzip -dc "$oracle" | diff - "$tmp/out" | head -5 >&2
	fi
done
