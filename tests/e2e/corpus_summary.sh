#!/bin/bash
# hwprof info --json must agree with the independent walker's summary.jsonl
# (records per type, samples per event, depth histogram, branch-flag counts,
# build-ids, event names) on every corpus perf.data, including the files
# perf 6.1 cannot read (compressed, VER8 attrs, newer pipe format).
set -u
corpus=${HWPROF_CORPUS:-../shared/corpus}
if [ ! -f "$corpus/summary.jsonl" ]; then
	echo "PLAN 1"
	echo "SKIP corpus_summary: no corpus at $corpus"
	exit 0
fi
echo "PLAN $(grep -c . "$corpus/summary.jsonl")" # one check per file summarized
exec python3 "$(dirname "$0")/corpus_summary.py" "$corpus" "$HWPROF"
