#!/bin/bash
# Flow-consistent counts by default where they help (branch stacks of 16
# entries or fewer; hwprof-blocks(1)), the same in every report that shows
# execution counts: an emulated recording of tests/fixtures/advise_patterns.c
# with 8-entry stacks, read on two threads.
#   - probs: without a flag as --infer, not as --no-infer; one line says
#     so on stderr, none under -q nor with --infer;
#   - mispredicts, annotate and advise: without a flag as --infer, and
#     mispredicts' executions of each conditional branch are probs' (both
#     with the default, both with --no-infer);
#   - -j 2 as -j 1 (probs, blocks) with the default on;
#   - examples/pipeline.c (the pipeline's NULL flow options) prints the
#     hottest branch as `hwprof probs` gives it by default.
. "$(dirname "$0")/../tools/emu_lib.sh"
NAMES=(infer_default_probs infer_default_mispredicts infer_default_annotate infer_default_advise
	infer_default_jobs infer_default_pipeline)
echo "PLAN ${#NAMES[@]}"
if ! ready=$(emu_ready infer_default); then
	for n in "${NAMES[@]}"; do skip "$n: ${ready#SKIP infer_default: }"; done
	exit 0
fi
cd "$tmp" || exit 1
if ! gcc -O2 -g -o ap "$root/tests/fixtures/advise_patterns.c" 2>gcc.err ||
	! emu_record ap8 -b --depth 8 -c 97 -- ./ap; then
	for n in "${NAMES[@]}"; do fail "$n: $(head -1 gcc.err ap8.err 2>/dev/null | tr '\n' ' ')"; done
	exit 0
fi
note="branch stacks of at most 8 entries: flow-consistent counts (as --infer; --no-infer for the sampled ones)"

# each command's JSON without a flag, with --infer and with --no-infer
for c in probs mispredicts annotate advise blocks; do
	"$HWPROF" $c --json -j 2 -i ap8.data >$c.def 2>$c.err
	"$HWPROF" $c --json -j 2 --infer -i ap8.data >$c.inf 2>$c.inf.err
	"$HWPROF" $c --json -j 2 --no-infer -i ap8.data >$c.no 2>$c.no.err
done
"$HWPROF" probs -q --json -i ap8.data >probs.q 2>probs.q.err
if [ ! -s probs.def ] || ! cmp -s probs.def probs.inf || cmp -s probs.def probs.no; then
	fail "infer_default_probs: default $(wc -c <probs.def) bytes, as --infer: $(cmp -s probs.def probs.inf && echo yes || echo no), as --no-infer: $(cmp -s probs.def probs.no && echo yes || echo no)"
elif [ "$(grep -c . probs.err)" != 1 ] || ! grep -qF "$note" probs.err || [ -s probs.q.err ] ||
	grep -qF "flow-consistent" probs.inf.err probs.no.err; then
	fail "infer_default_probs: the note: $(head -2 probs.err | tr '\n' ' ') | -q: $(head -1 probs.q.err)"
else
	pass "infer_default_probs (as --infer; one line says so; none under -q or with --infer)"
fi
# mispredicts: as --infer, and the executions are probs' in both modes
cat >execs.py <<'PY'
import json, sys
def execs(path, key):
    return {r["offset"]: r["executions"] for r in json.load(open(path)) if r.get(key, "execution") == "execution"}
bad, n = [], 0
for p, m in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    probs = execs(p, None)
    for off, e in execs(m, "rate_basis").items():
        if off in probs:
            n += 1
            if probs[off] != e:
                bad.append("%s: %s vs %s" % (off, e, probs[off]))
print("%d branches" % n if n and not bad else "differ: %s (%d compared)" % ("; ".join(bad[:3]), n))
sys.exit(1 if bad or not n else 0)
PY
if [ -s mispredicts.def ] && cmp -s mispredicts.def mispredicts.inf && ! cmp -s mispredicts.def mispredicts.no &&
	out=$(python3 execs.py probs.def mispredicts.def probs.no mispredicts.no); then
	pass "infer_default_mispredicts (as --infer; executions as probs', $out)"
else
	fail "infer_default_mispredicts: ${out:-the default differs from the output with --infer}"
fi
for c in annotate advise; do
	if [ -s $c.def ] && cmp -s $c.def $c.inf && grep -qF "$note" $c.err; then
		pass "infer_default_$c (as --infer, said$(cmp -s $c.def $c.no || echo '; --no-infer differs'))"
	else
		fail "infer_default_$c: $(cmp $c.def $c.inf 2>&1 | head -1) $(head -1 $c.err)"
	fi
done
# two threads as one, with inference on by default
ok=1
for c in probs blocks; do
	"$HWPROF" $c -q --json -j 1 -i ap8.data >$c.j1 2>/dev/null
	cmp -s $c.def $c.j1 || ok=0
done
if [ $ok = 1 ] && "$HWPROF" probs -v -j 2 -i ap8.data 2>&1 >/dev/null | grep -q "parallel pass on 2 threads"; then
	pass "infer_default_jobs (probs and blocks: -j 2 as -j 1)"
else
	fail "infer_default_jobs: -j 2 differs from -j 1 or did not run on two threads"
fi
# the library's pipeline with NULL flow options: the same counts as probs
if cc -std=c11 ${SAN:+-fsanitize=address,undefined} -I"$root/include" -o pipeline "$root/examples/pipeline.c" \
	-L"$build" -lhwprof -Wl,-rpath,"$build" 2>cc.err && ./pipeline ap8.data >ex.out 2>ex.err &&
	want=$(python3 -c '
import json, sys
c = json.load(open("probs.def"))[0]
print("hottest branch: %s+%#x (line %d) taken %.2f%% of %d executions" % (
    c["symbol"], c["sym_offset"], c["line"], c["taken_percent"], c["executions"]))') &&
	[ "$(sed -n 2p ex.out)" = "$want" ]; then
	pass "infer_default_pipeline ($want)"
else
	fail "infer_default_pipeline: $(sed -n 2p ex.out 2>/dev/null) vs ${want:-?} $(head -1 cc.err ex.err 2>/dev/null)"
fi
