#!/bin/bash
# make demo: builds a small branch-stack recording with hwprof's own perf.data
# writer (no PMU needed) and shows hwprof's reports on it.
set -euo pipefail
BUILD=$(dirname "$1")
HWPROF=$1
example=$BUILD/example.perf.data
"$BUILD/bench/gen_branch_perfdata" "$example" 2 >/dev/null
echo "== hwprof info -i $example"
"$HWPROF" info -i "$example"
echo
echo "== hwprof script -i $example | head -3   (perf script -F ip,brstack format)"
"$HWPROF" script -i "$example" | head -3 | cut -c1-200
echo
echo "== perf 6.1 reads the same file:"
if command -v perf >/dev/null; then
	perf script -F ip,brstack -i "$example" 2>/dev/null | head -3 | cut -c1-200
fi
