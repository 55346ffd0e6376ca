#!/bin/bash
# hwprof info over several recordings (hwp_info__write_inputs, hwprof/info.h):
# each input's section is what `hwprof info` says of it alone, the merged
# summary's per-input counts are those sections', and the modules say what
# came from where: one binary (the same build-id, also at another path) is
# one module with each input's samples, as the fixtures were generated and
# as perf attributes them. Driven through a small program against the public
# header and the shared library; the command is checked too once it takes
# several inputs.
echo "PLAN 7"
set -u
root=$(cd "${HWPROF_ROOT:-$(dirname "$0")/../..}" && pwd)
build=$root/${BUILD:-build}
gen=$build/tests/tools/gen_fixture_branches
corpus=$(cd "${HWPROF_CORPUS:-$root/../shared/corpus}" 2>/dev/null && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases="driver_build sections_equal merged_counts modules_by_build_id modules_vs_perf corpus_inputs cli_several"
if ! command -v gcc >/dev/null || [ ! -x "$gen" ]; then
	for c in $cases; do echo "SKIP $c: gcc or $gen missing"; done
	exit 0
fi
cd "$tmp" || exit 1

cat >drv.c <<'EOF'
#include <stdio.h>
#include <string.h>
#include "hwprof/info.h"
int main(int argc, char **argv)
{
	int json = argc > 1 && strcmp(argv[1], "--json") == 0;
	if (hwp_info__write_inputs((const char *const *)argv + 1 + json, (size_t)(argc - 1 - json),
				   json ? HWP_TABLE_JSON : HWP_TABLE_TEXT, stdout) < 0) {
		fprintf(stderr, "info: %s\n", hwp_errmsg());
		return 1;
	}
	return 0;
}
EOF
if cc -std=c11 -Wall -Wextra -Werror ${SAN:+-fsanitize=address,undefined} -I"$root/include" -o drv drv.c -L"$build" -lhwprof \
	-Wl,-rpath,"$build" 2>cc.err; then
	echo "PASS driver_build"
else
	echo "FAIL driver_build: $(head -1 cc.err)"
	for c in $cases; do [ "$c" = driver_build ] || echo "SKIP $c: no driver"; done
	exit 0
fi

# Three recordings: a and c of one binary (c's copy at another path, so only
# the build-id makes them one module), b of a different build.
mkdir x y
gcc -g -O1 -o x/branchy "$root/tests/fixtures/branchy.c" && cp x/branchy y/branchy &&
	gcc -g -O2 -fno-inline -o branchy2 "$root/tests/fixtures/branchy.c" || { echo "FAIL build: gcc"; exit 0; }
"$gen" "$PWD/x/branchy" a.data --samples 300 --seed 1 --build-id >/dev/null &&
	"$gen" "$PWD/branchy2" b.data --samples 200 --seed 2 --processes 2 --build-id >/dev/null &&
	"$gen" "$PWD/y/branchy" c.data --samples 100 --seed 3 --build-id >/dev/null || { echo "FAIL gen_fixture_branches"; exit 0; }
bid() { readelf -n "$1" | awk '/Build ID/ {print $3}'; }
printf '%s %s\n' "$PWD/x/branchy" "$(bid x/branchy)" "$PWD/y/branchy" "$(bid y/branchy)" \
	"$PWD/branchy2" "$(bid branchy2)" >bids

for f in a b c; do
	"$HWPROF" info -i $f.data >$f.txt && "$HWPROF" info --json -i $f.data >$f.json || echo "FAIL info -i $f.data"
	if command -v perf >/dev/null; then
		perf script -F ip,dso -i $f.data 2>/dev/null | awk '{print $NF}' | tr -d '()' | sort | uniq -c >$f.perf
	fi
done
./drv a.data b.data c.data >abc.txt 2>abc.err && ./drv --json a.data b.data c.data >abc.json 2>>abc.err ||
	echo "FAIL drv: $(head -1 abc.err)"

python3 - abc.txt abc.json bids <<'PY'
import json, os, sys
txt, js = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
bids = dict(l.split() for l in open(sys.argv[3]))
names = ["a.data", "b.data", "c.data"]
want_samples = {"a.data": 300, "b.data": 200, "c.data": 100}

def sections(text):
    """Per '==> NAME <==' heading, the lines up to the next heading (its blank separator dropped)."""
    out, cur = {}, None
    for line in text.split("\n"):
        if line.startswith("==> ") and line.endswith(" <=="):
            cur = line[4:-4]
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return {k: "\n".join(v) for k, v in out.items()}

secs, bad = sections(txt), []
for i, n in enumerate(names):
    alone = open(n.replace(".data", ".txt")).read()
    if secs.get(n, "") != alone:  # the blank line after a section ends its last line
        bad.append("text of " + n)
    if js["inputs"][i] != json.load(open(n.replace(".data", ".json"))):
        bad.append("JSON of " + n)
print("FAIL sections_equal: " + ", ".join(bad) if bad else "PASS sections_equal (%d inputs, text and JSON)" % len(names))

m, bad = js["merged"], []
for i, n in enumerate(names):
    one, row = js["inputs"][i], m["inputs"][i]
    want = (n, one["samples_total"], one["brstack_samples"], sum(one["records"].values()) + one["records_unknown"])
    got = (row["file"], row["samples_total"], row["brstack_samples"], row["records_total"])
    if got != want or one["samples_total"] != want_samples[n]:
        bad.append("%s: %s, want %s" % (n, got, want))
for k in ("samples_total", "brstack_samples", "records_total"):
    if m[k] != sum(r[k] for r in m["inputs"]):
        bad.append(k + " is not the inputs' sum")
rows = [l.split() for l in txt.split("==> merged: 3 inputs <==\n")[-1].split("\n\n")[0].split("\n")[1:]]
if rows != [[r["file"], str(r["samples_total"]), str(r["brstack_samples"]), str(r["records_total"])]
            for r in m["inputs"]] + [["all", str(m["samples_total"]), str(m["brstack_samples"]), str(m["records_total"])]]:
    bad.append("text summary")
print("FAIL merged_counts: " + "; ".join(bad) if bad else "PASS merged_counts")

# One module per build-id: x/branchy's (inputs a and c) and branchy2's (b).
want = {bids[os.path.abspath("x/branchy")]: {0: 300, 2: 100}, bids[os.path.abspath("branchy2")]: {1: 200}}
got = {mod["build_id"]: {r["input"]: r["samples"] for r in mod["inputs"]} for mod in m["modules"]}
tot_ok = all(mod["samples"] == sum(r["samples"] for r in mod["inputs"]) for mod in m["modules"])
text_ok = all(("(build-id %s)" % b) in txt for b in want) and "from a.data 300, c.data 100" in txt
if got == want and tot_ok and text_ok and bids[os.path.abspath("x/branchy")] == bids[os.path.abspath("y/branchy")]:
    print("PASS modules_by_build_id (%d modules)" % len(got))
else:
    print("FAIL modules_by_build_id: %s, want %s (totals %s, text %s)" % (got, want, tot_ok, text_ok))
PY

# perf's own attribution of each sample (its dso column), by build-id.
if command -v perf >/dev/null && [ -s a.perf ]; then
	python3 - abc.json bids a.perf b.perf c.perf <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["merged"]
bids = dict(l.split() for l in open(sys.argv[2]))
want = {}
for i, f in enumerate(sys.argv[3:]):
    for line in open(f):
        n, dso = line.split()
        b = bids.get(dso, dso)
        want.setdefault(b, {})[i] = want.get(b, {}).get(i, 0) + int(n)
got = {mod["build_id"] or mod["module"]: {r["input"]: r["samples"] for r in mod["inputs"]} for mod in m["modules"]}
print("PASS modules_vs_perf" if got == want else "FAIL modules_vs_perf: %s, perf %s" % (got, want))
PY
else
	echo "SKIP modules_vs_perf: perf not installed"
fi

# Recordings from elsewhere: each section is the file's own info, and every
# sample of each input is in some module row (or the unknown one).
set -- "$corpus"/perf_data_converter/perf.data.branch_stack_hw_index "$corpus"/linux-perf-data/fibo.compressed2.pipe.data \
	"$corpus"/perf_data_converter/perf.data.lost_samples-4.4
if [ -f "$1" ] && [ -f "$2" ] && [ -f "$3" ]; then
	./drv --json "$@" >corpus.json 2>corpus.err || echo "FAIL corpus_inputs: $(head -1 corpus.err)"
	i=0
	for f in "$@"; do i=$((i + 1)); "$HWPROF" info --json -i "$f" >c$i.json 2>/dev/null; done
	python3 - corpus.json c1.json c2.json c3.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
alone = [json.load(open(f)) for f in sys.argv[2:]]
n = len(alone)
per = [sum(r["samples"] for mod in d["merged"]["modules"] for r in mod["inputs"] if r["input"] == i) for i in range(n)]
ok = d["inputs"] == alone and per == [a["samples_total"] for a in alone]
print("PASS corpus_inputs (%d inputs, %d modules)" % (n, len(d["merged"]["modules"])) if ok else
      "FAIL corpus_inputs: sections equal %s, samples by module %s vs %s" % (
          d["inputs"] == alone, per, [a["samples_total"] for a in alone]))
PY
else
	echo "SKIP corpus_inputs: corpus not at $corpus"
fi

# The command: the same output once it takes several inputs (-i repeated).
"$HWPROF" info -i a.data -i b.data -i c.data >cli.txt 2>cli.err
if head -1 cli.txt | grep -q '^==> '; then
	"$HWPROF" info --json -i a.data -i b.data -i c.data >cli.json 2>>cli.err
	if cmp -s cli.txt abc.txt && cmp -s cli.json abc.json; then
		echo "PASS cli_several"
	else
		echo "FAIL cli_several: hwprof info -i a -i b -i c differs from hwp_info__write_inputs"
	fi
else
	echo "SKIP cli_several: hwprof info takes one input here"
fi
