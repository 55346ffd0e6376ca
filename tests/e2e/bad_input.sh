#!/bin/bash
# Truncated and corrupted perf.data (every prefix of small corpus files, random
# byte flips, absurd sizes and counts) never crash or hang hwprof info/script;
# each failure is one "hwprof: FILE: ... offset 0x.." line and a non-zero exit.
# See bad_input.py for the cases and the contract.
set -u
corpus=${HWPROF_CORPUS:-../shared/corpus}
if ! command -v python3 >/dev/null; then
	echo "SKIP bad_input: python3 is not installed"
	exit 0
fi
exec python3 "$(dirname "$0")/bad_input.py" "${HWPROF:-build/hwprof}" "$corpus"
