#!/bin/bash
# -v and -q on every command: -q leaves errors only, -v says what the
# library did (the one log channel), the default shows warnings once.
set -u
echo "PLAN 9"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=${HWPROF_ROOT:-.}
gen=$root/${BUILD:-build}/tests/tools/gen_fixture_branches
gcc -g -O1 -o "$tmp/branchy" "$root/tests/fixtures/branchy.c"
"$gen" "$tmp/branchy" "$tmp/b.data" --samples 50 --seed 1 >/dev/null
rm "$tmp/branchy" # its symbols are now missing: a warning to show or hide

for cmd in script info branches mispredicts check record; do
	h=$("$HWPROF" "$cmd" --help)
	if grep -q -- '-v, --verbose' <<<"$h" && grep -q -- '-q, --quiet' <<<"$h"; then
		echo "PASS help_mentions_v_q_$cmd"
	else
		echo "FAIL help_mentions_v_q_$cmd"
	fi
done

"$HWPROF" branches -i "$tmp/b.data" >/dev/null 2>"$tmp/default"
"$HWPROF" branches -q -i "$tmp/b.data" >"$tmp/q.out" 2>"$tmp/quiet"
"$HWPROF" branches -v -i "$tmp/b.data" >"$tmp/v.out" 2>"$tmp/verbose"
n_warn=$(grep -c 'warning: no symbols' "$tmp/default")
if [ "$n_warn" = 1 ] && [ ! -s "$tmp/quiet" ]; then
	echo "PASS quiet_hides_warning"
else
	echo "FAIL quiet_hides_warning: default said it $n_warn times; -q said: $(head -2 "$tmp/quiet")"
fi
if grep -q 'records (50 samples) in perf.s order' "$tmp/verbose" &&
	grep -q 'no symbols: ' "$tmp/verbose" && cmp -s "$tmp/q.out" "$tmp/v.out"; then
	echo "PASS verbose_says_what_was_done"
else
	echo "FAIL verbose_says_what_was_done: $(head -3 "$tmp/verbose")"
fi
# -q does not hide errors
if "$HWPROF" branches -q -i "$tmp/none.data" 2>"$tmp/err" >/dev/null; then
	echo "FAIL quiet_keeps_errors: succeeded"
elif grep -q 'none.data' "$tmp/err"; then
	echo "PASS quiet_keeps_errors"
else
	echo "FAIL quiet_keeps_errors: $(cat "$tmp/err")"
fi
