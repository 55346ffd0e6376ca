#!/bin/bash
# `hwprof script` against perf 6.1's `perf script -F ip,brstack`, live, on every
# corpus file whose samples have callchains (without -G, so user-space
# callchain addresses are printed relative to their mapping, as perf does).
# Prints PASS name / FAIL name / SKIP name: reason.
set -u
HWPROF=${HWPROF:-$PWD/build/hwprof}
CORPUS=${HWPROF_CORPUS:-$PWD/../shared/corpus}
PERF=/usr/bin/perf

if [ ! -d "$CORPUS" ]; then
	echo "PLAN 1"
	echo "SKIP script_callchain: no corpus at $CORPUS"
	exit 0
fi
if [ ! -x "$PERF" ]; then
	echo "PLAN 1"
	echo "SKIP script_callchain: $PERF not installed"
	exit 0
fi
if [ ! -x "$HWPROF" ]; then
	echo "PLAN 1"
	echo "FAIL script_callchain: $HWPROF not built"
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0

# Keeps the samples whose 0-based index is listed in file $1 (one per line)
# from perf-script-with-callchain text on stdin. Each sample is an empty line,
# its callchain lines (tab first), then one line that is not a callchain
# line (the branch stack, or empty).
keep_samples() {
	awk -v keep="$1" '
		BEGIN { while ((getline l < keep) > 0) want[l] = 1; n = -1; in_chain = 0 }
		!in_chain { n++; in_chain = 1; if (n in want) print; next }
		/^\t/ { if (n in want) print; next }
		{ in_chain = 0; if (n in want) print }
	'
}

count_samples() {
	awk '!c { n++; c = 1; next } /^\t/ { next } { c = 0 } END { print n + 0 }'
}

# The files first, so the plan is one check for each (1 SKIP when none)
files=()
while IFS= read -r -d '' f; do
	rel=${f#"$CORPUS"/}
	case $rel in
	oracles/* | *.buildids | *.md | *.jsonl | *.txt | *.gz) continue ;;
	esac
	# callchains recorded? (hwprof's JSON names them per sample)
	if "$HWPROF" script --json -i "$f" 2>/dev/null | grep -q -m1 '"callchain":'; then
		files+=("$f")
	fi
done < <(find "$CORPUS" -type f -print0 | sort -z)
if [ ${#files[@]} -eq 0 ]; then
	echo "PLAN 1"
	echo "SKIP script_callchain: no corpus file with callchains in $CORPUS"
	exit 0
fi
echo "PLAN ${#files[@]}"
for f in "${files[@]}"; do
	rel=${f#"$CORPUS"/}
	if ! "$PERF" script -F ip,brstack -i "$f" >"$tmp/perf.txt" 2>"$tmp/perf.err"; then
		echo "SKIP $rel: perf 6.1 cannot read it ($(head -1 "$tmp/perf.err"))"
		continue
	fi
	if ! "$HWPROF" script -i "$f" >"$tmp/hwprof.txt" 2>"$tmp/hwprof.err"; then
		echo "FAIL $rel: hwprof script failed: $(head -1 "$tmp/hwprof.err")"
		failed=1
		continue
	fi
	note=
	if "$PERF" evlist -v -i "$f" 2>/dev/null | grep -q 'branch_sample_type:.*CALL_STACK'; then
		# LBR call-stack mode. With an empty branch stack (nr = 0) perf 6.1
		# still prints entries[0].to, read past the end of the sample (bytes
		# of the next record); hwprof prints nothing there. Those samples
		# are left out of both sides, chosen from hwprof's JSON (same
		# samples, same order): only samples with a non-empty branch_stack
		# are compared. The sample counts must still agree.
		np=$(count_samples <"$tmp/perf.txt")
		nh=$(count_samples <"$tmp/hwprof.txt")
		if [ "$np" != "$nh" ]; then
			echo "FAIL $rel: perf printed $np samples, hwprof $nh"
			failed=1
			continue
		fi
		"$HWPROF" script --json -i "$f" |
			awk '!/"branch_stack":\{"entries":\[\]/ { print NR - 1 }' >"$tmp/keep"
		keep_samples "$tmp/keep" <"$tmp/perf.txt" >"$tmp/perf.k"
		keep_samples "$tmp/keep" <"$tmp/hwprof.txt" >"$tmp/hwprof.k"
		mv "$tmp/perf.k" "$tmp/perf.txt"
		mv "$tmp/hwprof.k" "$tmp/hwprof.txt"
		skipped=$((np - $(wc -l <"$tmp/keep")))
		note=" ($skipped of $np samples with an empty LBR call stack not compared)"
	fi
	if cmp -s "$tmp/perf.txt" "$tmp/hwprof.txt"; then
		echo "PASS $rel$note"
	else
		echo "FAIL $rel$note"
		diff "$tmp/perf.txt" "$tmp/hwprof.txt" | head -20 >&2
		failed=1
	fi
done
exit $failed
