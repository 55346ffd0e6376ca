#!/bin/bash
# hwprof annotate: one function's instructions with the recording's numbers.
#  - a perf cpu-clock recording of a fixture: each instruction's share of the
#    function's samples is perf 6.1's `perf annotate --stdio` percent, over
#    the same instructions;
#  - an emulated branch recording: each conditional branch shows what `hwprof
#    probs` counts at its address, each block start what `hwprof blocks` and
#    `hwprof timing` count there, and nothing else does;
#  - an emulated memory recording: each load's memory samples are `hwprof mem
#    -s ip`'s row of its address;
#  - the text view (source text, found through --prefix, jump marks) and
#    one-line errors.
. "$(dirname "$0")/../tools/emu_lib.sh"
cmp=$tools/annotate_compare.py
echo "PLAN 9"
gcc -O2 -g -o "$tmp/w" "$root/tests/fixtures/annotate_hot.c" 2>"$tmp/gcc.err" || { fail "annotate: gcc: $(head -1 "$tmp/gcc.err")"; exit 0; }

# 1. against perf annotate
if command -v perf >/dev/null && perf record -q -e cpu-clock -c 100000 -o "$tmp/cc.data" "$tmp/w" 30000000 >/dev/null 2>"$tmp/rec.err"; then
	hot=$("$HWPROF" annotate -i "$tmp/cc.data" --limit 1 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["function"])')
	"$HWPROF" annotate -i "$tmp/cc.data" --sym "$hot" --json >"$tmp/cc.json" 2>"$tmp/cc.err" &&
		perf annotate -i "$tmp/cc.data" --stdio -s "$hot" --no-source >"$tmp/cc.perf" 2>/dev/null &&
		CMP_NAME="annotate_vs_perf_$hot" python3 "$cmp" perf "$tmp/cc.json" "$tmp/cc.perf" ||
		fail "annotate_vs_perf: $(head -1 "$tmp/cc.err")"
	# --lines: samples per source line, as perf report -s srcline counts them in the function
	perf report -i "$tmp/cc.data" --stdio --symbols="$hot" -F sample,srcline 2>/dev/null |
		awk '!/^#/ && NF == 2 {print $2, $1}' | sort >"$tmp/lines.perf"
	"$HWPROF" annotate -i "$tmp/cc.data" --sym "$hot" --lines --csv 2>/dev/null |
		awk -F, 'NR > 1 && $4 > 0 {n = split($1, p, "/"); print p[n] ":" $2, $4}' | sort >"$tmp/lines.hw"
	if [ -s "$tmp/lines.perf" ] && cmp -s "$tmp/lines.perf" "$tmp/lines.hw"; then
		pass "annotate_lines_vs_perf ($(wc -l <"$tmp/lines.perf") source lines of $hot)"
	else
		fail "annotate_lines_vs_perf: $(diff "$tmp/lines.perf" "$tmp/lines.hw" | head -4 | tr '\n' '|')"
	fi
else
	skip "annotate_vs_perf: perf cannot record cpu-clock here: $(head -1 "$tmp/rec.err" 2>/dev/null)"
	skip "annotate_lines_vs_perf: perf cannot record here"
fi

# 2. branches and blocks of an emulated recording
if ready=$(emu_ready annotate_emulated); then
	emu_record br -- "$tmp/w"
	hot=$("$HWPROF" annotate -i "$tmp/br.data" --limit 1 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["function"])')
	"$HWPROF" annotate -i "$tmp/br.data" --sym "$hot" --json >"$tmp/a.json" 2>"$tmp/a.err"
	for r in probs blocks timing; do "$HWPROF" $r -i "$tmp/br.data" --json >"$tmp/$r.json" 2>/dev/null; done
	CMP_NAME="annotate_branches_$hot" python3 "$cmp" probs "$tmp/a.json" "$tmp/probs.json" "$tmp/blocks.json" "$tmp/timing.json"
	# 3. memory
	gcc $EMU_CFLAGS -o "$tmp/walk" "$root/tests/fixtures/mem_walk.c" &&
		"$HWPROF" record --emulate --mem -c 101 -o "$tmp/m.data" -- "$tmp/walk" >/dev/null 2>"$tmp/m.err" &&
		"$HWPROF" annotate -i "$tmp/m.data" --limit 3 --json >"$tmp/am.json" 2>>"$tmp/m.err" &&
		"$HWPROF" mem -i "$tmp/m.data" -s ip --json >"$tmp/mm.json" 2>>"$tmp/m.err" &&
		CMP_NAME=annotate_memory python3 "$cmp" mem "$tmp/am.json" "$tmp/mm.json" ||
		fail "annotate_memory: $(head -1 "$tmp/m.err")"
	# each load's p90 latency bucket, against perf script's latencies of
	# the samples at that instruction (function + offset)
	if [ -s "$tmp/am.json" ] && command -v perf >/dev/null; then
		perf script -i "$tmp/m.data" -F ip,sym,symoff,weight 2>/dev/null >"$tmp/m.perf"
		out=$(python3 - "$tmp/am.json" "$tmp/m.perf" <<'PY'
import collections, json, sys
rows = json.load(open(sys.argv[1]))
first = {}
for r in rows:
    first.setdefault(r["function"], int(r["address"], 16))
lat = collections.defaultdict(list)
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) == 3 and "+0x" in f[2]:
        sym, off = f[2].rsplit("+", 1)
        lat[(sym, int(off, 16))].append(int(f[0]))
def bucket(v):
    b = 0
    while v > 1 and b < 19:
        v >>= 1
        b += 1
    return "0-1" if b == 0 else f"{1 << b}+" if b == 19 else f"{1 << b}-{(1 << (b + 1)) - 1}"
n = bad = 0
for r in rows:
    if not r.get("memory_samples"):
        continue
    v = sorted(lat.get((r["function"], int(r["address"], 16) - first[r["function"]]), []))
    if len(v) != r["memory_samples"]:
        print(f"FAIL {r['function']} {r['address']}: {len(v)} samples in perf script, {r['memory_samples']} here"); sys.exit()
    want = bucket(v[(len(v) * 9 + 9) // 10 - 1])
    n += 1
    if r.get("memory_p90_latency_range") != want:
        print(f"FAIL {r['function']} {r['address']}: p90 {r.get('memory_p90_latency_range')}, perf's latencies say {want}"); sys.exit()
print(f"PASS {n} loads and stores")
PY
)
		case $out in
		PASS*) pass "annotate_memory_p90 (${out#PASS })" ;;
		*) fail "annotate_memory_p90: ${out#FAIL }" ;;
		esac
	else
		skip "annotate_memory_p90: no memory recording or no perf"
	fi
	# 4. the text view: the hottest loop's source line, a jump mark and a branch's numbers
	"$HWPROF" annotate -i "$tmp/br.data" --sym "$hot" --color never >"$tmp/a.txt" 2>"$tmp/a.err"
	mkdir -p "$tmp/src/fixtures" && cp "$root/tests/fixtures/annotate_hot.c" "$tmp/src/fixtures/"
	strip=$(($(tr -cd / <<<"$root/tests/fixtures" | wc -c) - 1))
	"$HWPROF" annotate -i "$tmp/br.data" --sym "$hot" --color never --prefix "$tmp/src" --prefix-strip "$strip" \
		>"$tmp/p.txt" 2>"$tmp/p.err"
	if grep -q "annotate_hot.c:[0-9]* .*taken a third of the time" "$tmp/a.txt" &&
		grep -q "taken a third of the time" "$tmp/p.txt" && ! grep -q warning "$tmp/p.err" &&
		grep -q "^ *[0-9]* *[0-9.]*% *>\| >  *[0-9a-f]*:" "$tmp/a.txt" &&
		grep -q "exec, taken [0-9.]*% \[" "$tmp/a.txt" && ! grep -q $'\033' "$tmp/a.txt"; then
		pass "annotate_text (source text, also through --prefix/--prefix-strip, jump targets, branch numbers, no colour when asked)"
	else
		fail "annotate_text: $(head -5 "$tmp/a.txt" | tr '\n' '|')"
	fi
else
	echo "$ready"
	skip "annotate_memory: no emulation"
	skip "annotate_memory_p90: no emulation"
	skip "annotate_text: no emulation"
fi

# 5. errors: one line, non-zero
in=$tmp/cc.data
[ -f "$in" ] || in=$tmp/br.data
if [ -f "$in" ]; then
	"$HWPROF" annotate -i "$in" --sym no_such_function >/dev/null 2>"$tmp/e1"
	rc1=$?
	"$HWPROF" annotate -i "$in" --addr 0x1 >/dev/null 2>"$tmp/e2"
	rc2=$?
	"$HWPROF" annotate -i "$in" --addr zz >/dev/null 2>"$tmp/e3"
	rc3=$?
	if [ $rc1 -ne 0 ] && [ $rc2 -ne 0 ] && [ $rc3 -ne 0 ] && [ "$(cat "$tmp/e1" "$tmp/e2" "$tmp/e3" | wc -l)" -eq 3 ] &&
		grep -q "no sample in a function named 'no_such_function'" "$tmp/e1" && grep -q "0x1" "$tmp/e2"; then
		pass "annotate_errors ($(head -1 "$tmp/e1"))"
	else
		fail "annotate_errors: rc $rc1/$rc2/$rc3: $(cat "$tmp/e1" "$tmp/e2" "$tmp/e3" | tr '\n' '|')"
	fi
	# the function by an address inside it
	addr=$("$HWPROF" annotate -i "$in" --limit 1 --json 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r[len(r)//2]["address"], r[0]["function"])')
	got=$("$HWPROF" annotate -i "$in" --addr "${addr% *}" --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["function"])')
	if [ -n "$got" ] && [ "$got" = "${addr#* }" ]; then
		pass "annotate_addr (${addr% *} is in $got)"
	else
		fail "annotate_addr: ${addr% *} gave '$got', want ${addr#* }"
	fi
else
	skip "annotate_errors: no recording"
	skip "annotate_addr: no recording"
fi

# 6. two events (cpu-clock and task-clock): a samples column each, equal per
# instruction to perf script's samples of that event at that address
if command -v perf >/dev/null && gcc -O2 -g -no-pie -o "$tmp/wn" "$root/tests/fixtures/annotate_hot.c" &&
	perf record -q -e cpu-clock,task-clock -c 100000 -o "$tmp/two.data" "$tmp/wn" 30000000 >/dev/null 2>"$tmp/two.err"; then
	hot=$("$HWPROF" annotate -i "$tmp/two.data" --limit 1 --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["function"])')
	"$HWPROF" annotate -i "$tmp/two.data" --sym "$hot" --json >"$tmp/two.json" 2>"$tmp/two.aerr"
	"$HWPROF" annotate -i "$tmp/two.data" --sym "$hot" --color never >"$tmp/two.txt" 2>/dev/null
	perf script -i "$tmp/two.data" -F event,ip,sym 2>/dev/null >"$tmp/two.perf"
	out=$(python3 - "$tmp/two.json" "$tmp/two.perf" "$hot" "$tmp/two.txt" <<'PY'
import collections, json, sys
rows = json.load(open(sys.argv[1]))
want = collections.Counter()
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) >= 3 and f[-1] == sys.argv[3]:
        want[(f[0].rstrip(":"), int(f[1], 16))] += 1
got = collections.Counter()
for r in rows:
    for ev, key in (("cpu-clock", "samples_cpu_clock"), ("task-clock", "samples_task_clock")):
        if r.get(key):
            got[(ev, int(r["address"], 16))] = r[key]
    if sum(r.get(k) or 0 for k in ("samples_cpu_clock", "samples_task_clock")) != (r.get("samples") or 0):
        print("FAIL the events' samples at %s do not add up to its samples" % r["address"]); sys.exit()
text = open(sys.argv[4]).read()
if "[1] cpu-clock:" not in text or "[2] task-clock:" not in text:
    print("FAIL the text view names no events: " + text[:200].replace("\n", "|")); sys.exit()
if not want or got != want:
    diff = [(k, want[k], got[k]) for k in set(want) | set(got) if want[k] != got[k]]
    print("FAIL %d differences, e.g. %s" % (len(diff), diff[:3])); sys.exit()
print("PASS %d instructions, %d samples of 2 events" % (len({a for _, a in want}), sum(want.values())))
PY
)
	case $out in
	PASS*) pass "annotate_events_vs_perf (${out#PASS })" ;;
	*) fail "annotate_events_vs_perf: ${out#FAIL } $(head -1 "$tmp/two.aerr")" ;;
	esac
else
	skip "annotate_events_vs_perf: perf cannot record cpu-clock,task-clock here"
fi
