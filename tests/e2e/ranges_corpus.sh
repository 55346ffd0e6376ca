#!/bin/bash
# hwprof ranges on every corpus recording with branch stacks, against an
# independent checker (tests/tools/ranges_check.py) that classifies every
# pair of consecutive entries from perf 6.1's own text ('perf script' with
# the mmap and task events; perf's oracle dump where perf cannot open the
# file): the same number of candidate ranges, the same count for every
# reason the checker decides without the binary, and the accepted ranges
# the same (module and length, with counts). So no range the rules call
# impossible is accepted. The corpus has no binaries: hwprof cannot decode
# these ranges (they are "not_decoded"), so the crossing check is tested on
# emulated recordings (ranges_profgen.sh, test_code_cache).
# Recordings in LBR call-stack mode must be refused. Each PASS line carries
# the per-file counts by reason.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
corpus=${HWPROF_CORPUS:-../shared/corpus}
if [ ! -d "$corpus/oracles" ]; then
	echo "PLAN 1"
	echo "SKIP ranges_corpus: no corpus at $corpus"
	exit 0
fi
if ! command -v perf >/dev/null || ! command -v python3 >/dev/null; then
	echo "PLAN 1"
	echo "SKIP ranges_corpus: perf or python3 not installed"
	exit 0
fi
# PLAN: one check per branch-stack oracle dump
echo "PLAN $(find "$corpus/oracles" -maxdepth 1 -name '*.perf61.ip-brstack.txt.gz' | wc -l)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check=$root/tests/tools/ranges_check.py

for oracle in "$corpus"/oracles/*.perf61.ip-brstack.txt.gz; do
	base=$(basename "$oracle" .perf61.ip-brstack.txt.gz)
	case $base in
	autofdo_*) src=$corpus/autofdo/${base#autofdo_} ;;
	perf_data_converter_*) src=$corpus/perf_data_converter/${base#perf_data_converter_} ;;
	simpleperf_lbr_*) src=$corpus/simpleperf/lbr/${base#simpleperf_lbr_} ;;
	simpleperf_*) src=$corpus/simpleperf/${base#simpleperf_} ;;
	perfparser_vector_static_gcc_*) src=$corpus/perfparser/vector_static_gcc/${base#perfparser_vector_static_gcc_} ;;
	*) echo "FAIL ranges_corpus_$base: no rule maps it to its perf.data"; continue ;;
	esac
	name=ranges_corpus_$base
	bst=$(perf evlist -v -i "$src" 2>/dev/null | grep -o 'branch_sample_type: [A-Z_|]*' | sort -u)
	if [[ $bst == *CALL_STACK* ]]; then
		if "$HWPROF" ranges -i "$src" >/dev/null 2>"$tmp/err"; then
			echo "FAIL $name: a call-stack mode recording was not refused"
		elif grep -q "call-stack mode" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
			echo "PASS $name (refused: $(cut -c1-80 "$tmp/err")...)"
		else
			echo "FAIL $name: refused with: $(head -2 "$tmp/err")"
		fi
		continue
	fi
	filt=
	if [ -n "$bst" ] && [[ $bst != *ANY* ]] && [[ $bst != "branch_sample_type: HW_INDEX" ]]; then
		filt=--filtered
	fi
	# the checker's input: perf's text with maps, else the oracle dump
	if perf script --show-mmap-events --show-task-events -F pid,tid,brstack -i "$src" \
		>"$tmp/perf.txt" 2>/dev/null && [ -s "$tmp/perf.txt" ]; then
		python3 "$check" $filt "$tmp/perf.txt" >"$tmp/check.json"
		mode=maps
	else
		gzip -dc "$oracle" | python3 "$check" $filt --no-dso - >"$tmp/check.json"
		mode=addresses
	fi
	if ! "$HWPROF" ranges --stats --csv -i "$src" >"$tmp/stats.csv" 2>"$tmp/err" ||
		! "$HWPROF" ranges --csv -i "$src" >"$tmp/ranges.csv" 2>>"$tmp/err"; then
		echo "FAIL $name: hwprof ranges failed: $(grep -v warning "$tmp/err" | head -1)"
		continue
	fi
	python3 - "$tmp/check.json" "$tmp/stats.csv" "$tmp/ranges.csv" "$mode" "$name" <<'PY'
import csv, json, os, sys
chk = json.load(open(sys.argv[1]))
mode, name = sys.argv[4], sys.argv[5]
st = {}
for r in csv.DictReader(open(sys.argv[2])):
    st[(r["outcome"], r["reason"])] = int(r["ranges"])
hw = {k[1]: v for k, v in st.items() if k[0] == "rejected"}
acc = st[("accepted", "")]
decoded_out = hw["crosses_branch"] + hw["misaligned"] + hw["not_code"]
bad = []
if st[("all", "")] != chk["pairs"]:
    bad.append(f"pairs {st[('all', '')]} != {chk['pairs']}")
bylen = {}
for r in csv.DictReader(open(sys.argv[3])):
    mod = r["start_module"]
    mod = "[kernel]" if mod == "[kernel.kallsyms]" else os.path.basename(mod)
    k = f"{mod if mode == 'maps' else '?'}:{r['bytes']}"
    bylen[k] = bylen.get(k, 0) + int(r["count"])
if mode == "maps":
    for r, n in chk["rejected"].items():
        if hw[r] != n:
            bad.append(f"{r}: hwprof {hw[r]}, checker {n}")
    if acc + decoded_out != chk["accepted"]:
        bad.append(f"accepted: hwprof {acc} (+{decoded_out} rejected by decoding), checker {chk['accepted']}")
    if acc and not decoded_out and bylen != chk["by_len"]:
        diff = [k for k in set(bylen) | set(chk["by_len"]) if bylen.get(k) != chk["by_len"].get(k)]
        bad.append(f"{len(diff)} (module, length) rows differ, e.g. {sorted(diff)[:3]}")
else:
    # without modules the checker decides zeroed, duplicate and filtered
    # exactly, and backward/too_long by address: hwprof may reject more
    # (unmapped, modules first), never accept what the checker rejects
    for r in ("zeroed", "duplicate", "filtered"):
        if hw[r] != chk["rejected"][r]:
            bad.append(f"{r}: hwprof {hw[r]}, checker {chk['rejected'][r]}")
    addr_rej = chk["rejected"]["backward"] + chk["rejected"]["too_long"]
    if hw["unmapped"] + hw["modules"] + hw["backward"] + hw["too_long"] < addr_rej:
        bad.append("hwprof accepted ranges the checker rejects by address")
    for k, n in bylen.items():
        if n > chk["by_len"].get(k, 0):
            bad.append(f"length {k}: hwprof accepted {n}, checker at most {chk['by_len'].get(k, 0)}")
counts = " ".join(f"{r}={n}" for r, n in hw.items() if n)
line = (f"{chk['pairs']} pairs, accepted {acc} (not decoded {st[('accepted', 'not_decoded')]})"
        f"{', rejected ' + counts if counts else ', none rejected'}; checker on {mode}")
print((f"FAIL {name}: " + "; ".join(bad) + " -- " if bad else f"PASS {name} (") + line + ("" if bad else ")"))
PY
done
