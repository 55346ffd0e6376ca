#!/bin/bash
# Text input and standard input:
# - `perf script -F ip,brstack` text read back by hwprof script is reproduced
#   byte for byte (perf.data -> perf text -> hwprof -> same text);
# - perf.data and text arrive through a real pipe (-i -) with the same results.
set -u
corpus=${HWPROF_CORPUS:-../shared/corpus}
if [ ! -d "$corpus/oracles" ]; then
	echo "PLAN 1"
	echo "SKIP text_and_stdin: no corpus at $corpus"
	exit 0
fi
# PLAN: 5, and llvm-profgen's perf script text where the corpus has it
if [ -f "$corpus/llvm-profgen/noinline-cs-pseudoprobe.perfscript" ]; then echo "PLAN 6"; else echo "PLAN 5"; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 bad=0
for oracle in "$corpus"/oracles/*.perf61.ip-brstack.txt.gz; do
	gzip -dc "$oracle" >"$tmp/in.txt"
	n=$((n + 1))
	if ! "$HWPROF" script -i "$tmp/in.txt" >"$tmp/out.txt" 2>"$tmp/err" || ! cmp -s "$tmp/in.txt" "$tmp/out.txt"; then
		echo "FAIL text_roundtrip_$(basename "$oracle" .txt.gz): $(head -1 "$tmp/err")"
		bad=$((bad + 1))
		continue
	fi
	# The same text through a pipe.
	if ! gzip -dc "$oracle" | "$HWPROF" script -i - | cmp -s - "$tmp/in.txt"; then
		echo "FAIL text_stdin_$(basename "$oracle" .txt.gz)"
		bad=$((bad + 1))
	fi
done
[ $bad -eq 0 ] && echo "PASS text_roundtrip ($n oracle dumps, file and pipe)"

# Text with callchain lines, as perf prints it without -G.
if command -v perf >/dev/null; then
	f=$corpus/perf_data_converter/perf.data.callgraph_and_branch-3.8
	perf script -F ip,brstack -i "$f" 2>/dev/null >"$tmp/cc.txt"
	if "$HWPROF" script -i "$tmp/cc.txt" | cmp -s - "$tmp/cc.txt"; then
		echo "PASS text_roundtrip_callchains"
	else
		echo "FAIL text_roundtrip_callchains"
	fi
else
	echo "SKIP text_roundtrip_callchains: perf not installed"
fi

# The llvm-profgen perfscript (older perf syntax, MMAP2 line, callchains).
ps=$corpus/llvm-profgen/noinline-cs-pseudoprobe.perfscript
if [ -f "$ps" ]; then
	samples=$("$HWPROF" info --json -i "$ps" | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples_total"])')
	if [ "$samples" = 3 ]; then echo "PASS text_llvm_profgen_perfscript"; else echo "FAIL text_llvm_profgen_perfscript: $samples samples, want 3"; fi
fi

# Binary perf.data through a real pipe: pipe-mode files stream; counts match the file.
for f in "$corpus/linux-perf-data/fibo.compressed2.pipe.data" \
	"$corpus/perf_data_converter/perf.data.piped.header_features_aligned-6.12"; do
	name=stdin_$(basename "$f")
	a=$("$HWPROF" info --json -i "$f" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["records"], d["samples_total"])')
	b=$(cat "$f" | "$HWPROF" info --json -i - | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["records"], d["samples_total"])')
	if [ -n "$a" ] && [ "$a" = "$b" ]; then echo "PASS $name"; else echo "FAIL $name: '$a' vs '$b'"; fi
done
# A file-mode perf.data cannot be streamed (its header points backwards): clear error.
f=$corpus/autofdo/test.lbr
if cat "$f" | "$HWPROF" script -i - >/dev/null 2>"$tmp/err"; then
	echo "FAIL stdin_file_mode: accepted"
elif grep -q "^hwprof: -: file-mode perf.data.* on a pipe" "$tmp/err" && [ "$(wc -l <"$tmp/err")" = 1 ]; then
	echo "PASS stdin_file_mode_refused"
else
	echo "FAIL stdin_file_mode: $(cat "$tmp/err")"
fi
