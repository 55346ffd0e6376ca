#!/bin/bash
# Truncated and corrupted perf.data (every prefix of small corpus files, random
# byte flips, absurd sizes and counts) never crash or hang hwprof info/script;
# each failure is one "hwprof: FILE: ... offset 0x.." line and a non-zero exit.
# See bad_input.py for the cases and the contract.
set -u
corpus=${HWPROF_CORPUS:-../shared/corpus}
# PLAN: bad_input.py's 4 checks, and a SKIP for each of its corpus files
# that is absent; 1 (the SKIP) without python3
if command -v python3 >/dev/null; then
	n=4
	for rel in perf_data_converter/perf.data.branch-4.14 linux-perf-data/sleep.compressed2.data \
		perf_data_converter/perf.data.piped.header_features_aligned-6.12; do
		[ -f "$corpus/$rel" ] || n=$((n + 1))
	done
	echo "PLAN $n"
else
	echo "PLAN 1"
fi
if ! command -v python3 >/dev/null; then
	echo "SKIP bad_input: python3 is not installed"
	exit 0
fi
exec python3 "$(dirname "$0")/bad_input.py" "${HWPROF:-build/hwprof}" "$corpus"
