#!/bin/bash
# tests/run.sh itself: a test that stops before its declared number of checks,
# prints more, declares none, or declares it late fails, so a script that
# dies halfway cannot pass on the checks it printed first. Each case runs the
# runner on throwaway scripts (and a throwaway unit test) in a scratch tree.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
echo "PLAN 10"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests/e2e" "$tmp/tests/unit" "$tmp/tests/long" "$tmp/build/tests/unit"

# script NAME BODY: a scratch e2e script printing BODY
script() { printf '%s\n' "$2" >"$tmp/tests/e2e/$1.sh"; }
# expect NAME WANT_RC WANT_LINE TEST...: run the runner on TEST...; PASS when
# it exits WANT_RC (0 or 1) and prints a line matching WANT_LINE
expect() {
	local name=$1 want_rc=$2 want=$3 out rc
	shift 3
	out=$(cd "$tmp" && HWPROF_CORPUS=/nonexistent BUILD=build bash "$root/tests/run.sh" "$@" 2>&1)
	rc=$?
	[ $rc -ne 0 ] && rc=1
	if [ $rc -eq "$want_rc" ] && grep -qE "$want" <<<"$out"; then
		echo "PASS runner_$name"
	else
		echo "FAIL runner_$name: exit $rc (want $want_rc), no line /$want/ in: $(tr '\n' '|' <<<"$out")"
	fi
}

script complete $'echo "PLAN 3"\necho "PASS a"\necho "SKIP b: absent"\necho "PASS c"'
expect keeps_plan 0 '^2 passed, 0 failed, 1 skipped$' complete
script early $'echo "PLAN 3"\necho "PASS a"\nexit 0\necho "PASS b"'
expect stops_early 1 '^FAIL early.sh: stopped after 1 of 3 checks$' early
# dies halfway with a non-zero status after passing checks
script dies $'set -e\necho "PLAN 2"\necho "PASS a"\nfalse\necho "PASS b"'
expect dies_halfway 1 '^FAIL dies.sh: stopped after 1 of 2 checks$' dies
script extra $'echo "PLAN 1"\necho "PASS a"\necho "PASS b"'
expect too_many 1 '^FAIL extra.sh: ran 2 checks, its plan says 1$' extra
script noplan $'echo "PASS a"'
expect no_plan 1 '^FAIL noplan.sh: no PLAN line' noplan
script late $'echo "PASS a"\necho "PLAN 1"'
expect late_plan 1 '^FAIL late.sh: PLAN line after the first check$' late
script twice $'echo "PLAN 1"\necho "PLAN 1"\necho "PASS a"'
expect two_plans 1 '^FAIL twice.sh: 2 PLAN lines$' twice
# a long test (tests/long/NAME.sh) keeps the same rule
printf '%s\n' 'echo "PLAN 2"' 'echo "PASS a"' >"$tmp/tests/long/short.sh"
expect long_stops_early 1 '^FAIL long/short.sh: stopped after 1 of 2 checks$' long/short
# a unit test's plan is the number of RUN(fn) statements in its source
printf '%s\n' 'int main(void)' '{' '	RUN(test_one);' '	RUN(test_two);' '	TL_EXIT();' '}' \
	>"$tmp/tests/unit/test_fake.c"
printf '%s\n' '#!/bin/sh' 'echo "PASS test_one"' >"$tmp/build/tests/unit/test_fake"
chmod +x "$tmp/build/tests/unit/test_fake"
expect unit_stops_early 1 '^FAIL test_fake: stopped after 1 of 2 checks$' test_fake
# ... and one failing script fails the whole run, whatever the others print
expect one_of_several 1 '^3 passed, 1 failed, 1 skipped$' complete early
