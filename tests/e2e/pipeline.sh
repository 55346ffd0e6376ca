#!/bin/bash
# The pipeline in the library and several inputs: examples/pipeline.c (the
# README's second example) built against the library prints the top finding
# of `hwprof advise` and the hottest branch of `hwprof probs` over two
# recordings, equal to the commands'; the commands merge repeated -i and
# positional inputs (the same binary is one module: counts add up) and never
# drop one silently.
. "$(dirname "$0")/../tools/emu_lib.sh"
echo "PLAN 9"
if ! emu_ready pipeline; then
	for c in example_build example_finding example_branch merge_counts merge_one_module positional \
		several_everywhere stdin_twice missing_second; do skip "$c: no emulated recording here"; done
	exit 0
fi
cd "$tmp" || exit 1
gcc -O2 -g -o ap "$root/tests/fixtures/advise_patterns.c" || { fail "build: gcc"; exit 0; }
"$HWPROF" record --emulate -b -c 1009 -o a.data -- ./ap >/dev/null 2>rec.err &&
	"$HWPROF" record --emulate -b -c 1013 -o b.data -- ./ap >/dev/null 2>>rec.err || { fail "record: $(head -1 rec.err)"; exit 0; }

# The example, against the public headers and the shared library only.
# (a sanitized library needs its runtime linked into the program too)
if cc -std=c11 -Wall -Wextra -Werror ${SAN:+-fsanitize=address,undefined} -I"$root/include" -o pipeline "$root/examples/pipeline.c" \
	-L"$build" -lhwprof -Wl,-rpath,"$build" 2>cc.err && [ "$(wc -l <"$root/examples/pipeline.c")" -le 60 ]; then
	pass "example_build ($(wc -l <"$root/examples/pipeline.c") lines)"
else
	fail "example_build: $(head -1 cc.err)"
fi
./pipeline a.data b.data >ex.out 2>ex.err || echo "(example failed: $(head -1 ex.err))" >>ex.out
"$HWPROF" advise --json -i a.data -i b.data >advise.json 2>/dev/null
"$HWPROF" probs --json -i a.data -i b.data >probs.json 2>/dev/null
"$HWPROF" probs --json -i a.data >probs_a.json 2>/dev/null
"$HWPROF" probs --json -i b.data >probs_b.json 2>/dev/null
python3 - ex.out advise.json probs.json <<'PY'
import json, sys
out = open(sys.argv[1]).read().splitlines()
f, c = json.load(open(sys.argv[2]))[0], json.load(open(sys.argv[3]))[0]
want = "top finding: %s at %s+%#x (line %d), est. %.1f%% of the work" % (
    f["kind"], f["symbol"], f["sym_offset"], f["line"], f["share_percent"])
print("PASS example_finding (%s)" % want if out[:1] == [want] else "FAIL example_finding: %r, advise: %r" % (out[:1], want))
want = "hottest branch: %s+%#x (line %d) taken %.2f%% of %d executions" % (
    c["symbol"], c["sym_offset"], c["line"], c["taken_percent"], c["executions"])
print("PASS example_branch (%s)" % want if out[1:2] == [want] else "FAIL example_branch: %r, probs: %r" % (out[1:2], want))
PY
# Merged counts: every branch site's executions over both = the sum of each's.
python3 - probs.json probs_a.json probs_b.json <<'PY'
import json, sys
from collections import Counter
both, a, b = (json.load(open(p)) for p in sys.argv[1:4])
key = lambda r: (r["build_id"], r["offset"])
got = Counter({key(r): r["executions"] for r in both})
want = Counter({key(r): r["executions"] for r in a}) + Counter({key(r): r["executions"] for r in b})
bad = [k for k in set(got) | set(want) if got[k] != want[k]]
print("PASS merge_counts (%d sites)" % len(got) if got and not bad else "FAIL merge_counts: %d sites differ, e.g. %r" % (len(bad), bad[:2]))
# one row per site: each binary is one module in both recordings
keys = [key(r) for r in both]
mods = {(r["module"], r["build_id"]) for r in both}
ok = len(keys) == len(set(keys)) and len(mods) == len({m for m, _ in mods})
print("PASS merge_one_module (%d modules)" % len(mods) if ok else "FAIL merge_one_module: %d rows, %d sites, %r" % (len(keys), len(set(keys)), mods))
PY
"$HWPROF" branches --csv a.data b.data >pos.csv 2>/dev/null
"$HWPROF" branches --csv -i a.data -i b.data >rep.csv 2>/dev/null
if [ -s pos.csv ] && cmp -s pos.csv rep.csv; then pass positional; else fail "positional: 'branches a b' differs from 'branches -i a -i b'"; fi
# Every report that reads branch stacks takes both, and says nothing is wrong.
bad=""
for c in branches mispredicts probs blocks paths timing ranges advise callgraph export; do
	"$HWPROF" $c -i a.data -i b.data >/dev/null 2>"$c.err" || bad="$bad $c($(head -1 "$c.err"))"
done
if [ -z "$bad" ]; then pass several_everywhere; else fail "several_everywhere:$bad"; fi
if ! "$HWPROF" branches -i - -i - </dev/null >/dev/null 2>stdin.err && [ "$(wc -l <stdin.err)" = 1 ] &&
	grep -q "standard input" stdin.err; then
	pass stdin_twice
else
	fail "stdin_twice: $(cat stdin.err)"
fi
if ! "$HWPROF" branches -i a.data -i missing.data >/dev/null 2>miss.err && grep -q "missing.data" miss.err; then
	pass missing_second
else
	fail "missing_second: $(cat miss.err)"
fi
