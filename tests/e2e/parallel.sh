#!/bin/bash
# The parallel pass (-j N): every report built on the branch collector (and
# the paths, block timing, call graph and memory report) prints
# the same bytes (stdout, stderr, exit code) with -j 1, 2, 3 and 8 (where
# the call graph's samples go to the threads by IP), on
# every corpus perf.data, on a generated recording of ~50 MB and on emulated
# recordings whose address spaces change while samples come (processes
# forking, threads starting, libraries loaded and unloaded: MMAP, FORK, COMM
# and EXIT records between samples). -j 1 is the sequential pass; the log
# says the others ran in parallel where they may.
. "$(dirname "$0")/../tools/emu_lib.sh"
corpus=${HWPROF_CORPUS:-$root/../shared/corpus}

# Every report over the branch collector, with options that reach each of
# its tables (branches, blocks, ranges, sample addresses, IP samples).
REPORTS=(
	"branches"
	"branches -s sym,dso --limit 50"
	"branches -s mispredict,cycles,type,srcline_from,addr_to,in_tx,abort --limit 50"
	"branches -s symbol_to,ipc_lbr --json"
	"mispredicts"
	"mispredicts --csv --min-samples 2"
	"probs"
	"probs --indirect"
	"blocks"
	"ranges"
	"ranges --stats"
	"pgo --format llvm"
	"pgo --format bolt"
	"pgo --format autofdo"
	"pgo --format llvm --ip-samples"
	"export --host h --window 1,2"
	"paths"
	"paths --json --limit 20"
	"timing --loops"
	"timing --histograms --json --limit 5"
	"advise --kind mispredict,latency"
	"callgraph"
	"callgraph --json --limit 30"
	"flame --folded"
	"report --html -"
	"mem"
	"mem -s addr --json"
	"mem -s cacheline"
	"c2c"
	"skid"
)

# logged NAME PATTERN WHY ARGS...: hwprof ARGS -v logs PATTERN, else WHY
logged() {
	local name=$1 want=$2 why=$3
	shift 3
	"$HWPROF" "$@" -v >/dev/null 2>"$tmp/v.err"
	if grep -q "$want" "$tmp/v.err"; then
		pass "$name (the log says it)"
	else
		fail "$name: $why: $(grep pass "$tmp/v.err")"
	fi
}

# same NAME FILE [symfs]: each report of FILE alike on 1, 2, 3 and 8 threads
same() {
	local name=$1 f=$2 bad="" n=0 j
	shift 2
	for r in "${REPORTS[@]}"; do
		for j in 1 2 3 8; do
			# shellcheck disable=SC2086
			(cd "$tmp" && "$HWPROF" $r -i "$f" -j $j "$@" >"$tmp/o$j" 2>"$tmp/e$j"; echo "exit $?" >>"$tmp/o$j")
		done
		n=$((n + 1))
		for j in 2 3 8; do
			cmp -s "$tmp/o1" "$tmp/o$j" && cmp -s "$tmp/e1" "$tmp/e$j" ||
				bad="$bad '$r' -j $j ($(cmp "$tmp/o1" "$tmp/o$j" 2>&1 | head -1))"
		done
	done
	if [ -z "$bad" ]; then pass "$name ($n reports, -j 1/2/3/8 alike)"; else fail "$name:$bad"; fi
}

files=()
if [ -d "$corpus" ]; then
	while IFS= read -r f; do
		[ "$(head -c 8 "$f" | tr -d '\0')" = PERFILE2 ] && files+=("$f")
	done < <(find "$corpus" -type f | sort)
fi
echo "PLAN $(( ${#files[@]} + 9 ))"
[ -d "$corpus" ] || skip "corpus: no corpus at $corpus"
[ -d "$corpus" ] && pass "corpus (${#files[@]} perf.data files)"
for f in "${files[@]}"; do
	same "corpus_${f#"$corpus"/}" "$f"
done

# A generated recording: many rounds, thousands of batches.
gen=$build/bench/gen_branch_perfdata
if [ -x "$gen" ] && "$gen" "$tmp/gen.data" 50 >/dev/null 2>"$tmp/gen.err"; then
	same generated_50mb "$tmp/gen.data"
	logged parallel_used "parallel pass on 2 threads" "-j 2 did not run the parallel pass" \
		branches -i "$tmp/gen.data" -j 2
else
	skip "generated_50mb: no generator $gen (make all) or it failed: $(head -1 "$tmp/gen.err" 2>/dev/null)"
	skip "parallel_used: no generated recording"
fi

# A generated callchain recording: 4,096 call paths, thousands of distinct
# leaves, which -j 8 sends to the threads by IP.
if [ -x "$gen" ] && "$gen" "$tmp/cc.data" 20 --callchain >/dev/null 2>"$tmp/gen.err"; then
	all_reports=("${REPORTS[@]}")
	REPORTS=("callgraph" "callgraph --json --limit 30" "flame --folded" "report --html -")
	same generated_callchain_20mb "$tmp/cc.data"
	REPORTS=("${all_reports[@]}")
	logged routed_by_ip "samples go to the threads by their IP" "-j 8 did not route the call graph's samples" \
		callgraph -i "$tmp/cc.data" -j 8
else
	skip "generated_callchain_20mb: no generator $gen (make all) or it failed: $(head -1 "$tmp/gen.err" 2>/dev/null)"
	skip "routed_by_ip: no generated recording"
fi

# A sample whose branch stack overruns its record, in the middle of the
# generated recording: a sample of variable length is checked where it is
# parsed (the parallel pass's threads), and every thread count stops with
# the same one-line error naming that record's offset.
corrupt_check() {
	local bad="" n=0 j r off
	off=$(python3 - "$tmp/gen.data" "$tmp/bad.data" "$root/tests/tools" <<'PY'
import sys
sys.path.insert(0, sys.argv[3])
import perfdata as pd
buf = bytearray(open(sys.argv[1], "rb").read())
lay = pd.layout(buf)
samples = [r for r in lay["records"] if r["type"] == 9]
rec = samples[len(samples) * 3 // 5]
f = pd.sample_fields(buf, rec["off"], lay["attrs"][0]["sample_type"])
buf[f["branch_nr"]:f["branch_nr"] + 8] = (1000).to_bytes(8, "little")
open(sys.argv[2], "wb").write(buf)
print("0x%x" % rec["off"])
PY
	) || { fail "corrupt_sample: could not make the recording"; return; }
	for r in "branches" "timing" "paths" "report --html -"; do
		for j in 1 2 3 8; do
			# shellcheck disable=SC2086
			"$HWPROF" $r -i "$tmp/bad.data" -j $j >/dev/null 2>"$tmp/ce$j"
			echo "exit $?" >>"$tmp/ce$j"
		done
		n=$((n + 1))
		cmp -s "$tmp/ce1" "$tmp/ce2" && cmp -s "$tmp/ce1" "$tmp/ce3" && cmp -s "$tmp/ce1" "$tmp/ce8" ||
			bad="$bad '$r': -j 1/2/3/8 differ;"
		[ "$(wc -l <"$tmp/ce1")" = 2 ] && grep -q "offset $off" "$tmp/ce1" && ! grep -qx "exit 0" "$tmp/ce1" ||
			bad="$bad '$r': not one error naming offset $off: $(head -2 "$tmp/ce1" | tr '\n' ' ');"
	done
	if [ -z "$bad" ]; then pass "corrupt_sample ($n reports stop alike at the record at $off)"; else fail "corrupt_sample:$bad"; fi
}
if [ -f "$tmp/gen.data" ] && command -v python3 >/dev/null; then
	corrupt_check
else
	skip "corrupt_sample: no generated recording or no python3"
fi

# What does not stay mapped is read by one thread, and the log says why.
pipe=$corpus/perf_data_converter/perf.data.piped.header_features_aligned-6.12
zst=$corpus/linux-perf-data/sleep.compressed.data
if [ -f "$pipe" ] && [ -f "$zst" ]; then
	"$HWPROF" branches -i "$pipe" -j 2 -v >/dev/null 2>"$tmp/p.err"
	"$HWPROF" branches -i "$zst" -j 2 -v >/dev/null 2>"$tmp/z.err"
	if grep -q "sequential pass (pipe mode)" "$tmp/p.err" && grep -q "sequential pass (compressed records)" "$tmp/z.err"; then
		pass "sequential_when (pipe mode, compressed records)"
	else
		fail "sequential_when: $(grep pass "$tmp/p.err" "$tmp/z.err" | tr '\n' ' ')"
	fi
else
	skip "sequential_when: no corpus pipe-mode and compressed recordings"
fi

# Emulated: address spaces that change between samples.
if emu_ready parallel_emulated_mmaps; then
	if gcc -O1 -g -fno-inline -o "$tmp/mmaps" "$root/tests/fixtures/emu_mmaps.c" -ldl -lpthread 2>"$tmp/cc.err" &&
		emu_record mm -b -c 11 -- "$tmp/mmaps"; then
		same emulated_mmaps "$tmp/mm.data"
	else
		fail "emulated_mmaps: $(head -1 "$tmp/cc.err" "$tmp/mm.err" 2>/dev/null | grep -v '^==' | head -1)"
	fi
	if emu_build fork && emu_record fk -b -c 7 -- "$tmp/fork"; then
		same emulated_fork "$tmp/fk.data"
	else
		fail "emulated_fork: $(head -1 "$tmp/fk.err" 2>/dev/null)"
	fi
else
	skip "emulated_fork: no emulated recording here"
fi
