#!/bin/bash
# Runs every unit test binary and e2e script; each prints PASS/FAIL/SKIP lines.
# Ends with the summary line "N passed, N failed, N skipped".
#   tests/run.sh                 every test
#   tests/run.sh NAME...         only these: a unit test (test_maps), an e2e
#                                script (reports.sh or reports) or a long one
#                                (long/pgo_e2e: tests/long/, not run by default)
# $BUILD (default build) holds the binaries; $HWPROF_CORPUS the shared corpus
# (default ../shared/corpus; tests that need it skip when it is absent).
#
# Every test declares how many checks it runs, so one that dies or stops
# halfway cannot pass on the checks it printed before stopping:
# - a script (tests/e2e/*.sh, tests/long/*.sh) prints "PLAN N" before its
#   first check; N may be computed (from the corpus files present, from the
#   tools installed) but must equal the number of PASS/FAIL/SKIP lines the
#   script then prints: a check it cannot run prints SKIP, it is not left out.
# - a unit test (tests/unit/test_X.c) runs one check per RUN(fn) statement of
#   its source: the runner counts them there (testlib.h).
# A test with no plan, a plan after its first check, two plans, or a count
# other than its plan fails ("stopped after K of N checks").
set -u
BUILD=${BUILD:-build}
export BUILD HWPROF="$PWD/$BUILD/hwprof" HWPROF_ROOT="$PWD"
export HWPROF_CORPUS=${HWPROF_CORPUS:-$PWD/../shared/corpus}
log=$(mktemp -d)
pass=0 fail=0 skip=0
# plan_error OUT [N]: why the checks printed in OUT do not keep the plan (the
# script's "PLAN N" line, or N when given: a unit test's); nothing if they do
plan_error() {
	local out=$1 plan=${2:-} plans first_check k
	if [ -z "$plan" ]; then
		plans=$(grep -cE '^PLAN [0-9]+$' "$out")
		[ "$plans" -eq 0 ] && { echo "no PLAN line (a script must print \"PLAN N\" before its first check)"; return; }
		[ "$plans" -gt 1 ] && { echo "$plans PLAN lines"; return; }
		first_check=$(grep -nE '^(PASS|FAIL|SKIP) ' "$out" | head -1 | cut -d: -f1)
		if [ -n "$first_check" ] && [ "$(grep -nE '^PLAN [0-9]+$' "$out" | cut -d: -f1)" -gt "$first_check" ]; then
			echo "PLAN line after the first check"; return
		fi
		plan=$(sed -n 's/^PLAN \([0-9][0-9]*\)$/\1/p' "$out")
	fi
	k=$(grep -cE '^(PASS|FAIL|SKIP) ' "$out")
	if [ "$k" -lt "$plan" ]; then
		echo "stopped after $k of $plan checks"
	elif [ "$k" -gt "$plan" ]; then
		echo "ran $k checks, its plan says $plan"
	fi
}
run_one() { # name, plan (a unit test's count; "": the script's PLAN line), command...
	local name=$1 plan=$2; shift 2
	local out="$log/$(basename "$name").out"
	"$@" >"$out" 2>"$out.err"
	local rc=$?
	local p f s why
	p=$(grep -c '^PASS ' "$out"); f=$(grep -c '^FAIL ' "$out"); s=$(grep -c '^SKIP ' "$out")
	grep -E '^(FAIL|SKIP) ' "$out"
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited $rc"; f=1
	fi
	why=$(plan_error "$out" "$plan")
	if [ -n "$why" ]; then
		echo "FAIL $name: $why"; f=$((f + 1)); rc=1
	fi
	if [ "$f" -gt 0 ] || [ $rc -ne 0 ]; then sed 's/^/    /' "$out.err" | tail -20; fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	echo "  $name: $p passed, $f failed, $s skipped"
}
# unit_plan NAME: the number of RUN(fn) statements in tests/unit/NAME.c
# (testlib.h prints one PASS/FAIL/SKIP line for each); 0 without a source,
# which fails any binary that prints a check.
unit_plan() {
	if [ -f "tests/unit/$1.c" ]; then
		grep -cE '^[[:space:]]*RUN\([A-Za-z_0-9]+\);' "tests/unit/$1.c"
	else
		echo 0
	fi
}
run_unit() { # binary
	local n
	n=$(basename "$1")
	run_one "$n" "$(unit_plan "$n")" "$1"
}
run_named() { # NAME: a unit test binary or an e2e script
	local n=${1%.sh}
	if [ -x "$BUILD/tests/unit/$n" ]; then
		run_unit "$BUILD/tests/unit/$n"
	elif [ -f "tests/e2e/$n.sh" ]; then
		run_one "$n.sh" "" bash "tests/e2e/$n.sh"
	elif [ -f "tests/$n.sh" ]; then # long/NAME: tests/long/NAME.sh (make test-long)
		run_one "$n.sh" "" bash "tests/$n.sh"
	else
		echo "FAIL $1: no unit test $BUILD/tests/unit/$n and no tests/e2e/$n.sh"
		fail=$((fail + 1))
	fi
}
if [ $# -gt 0 ]; then
	for name in "$@"; do run_named "$name"; done
else
	for t in "$BUILD"/tests/unit/test_*; do
		[ -x "$t" ] || continue
		run_unit "$t"
	done
	for t in tests/e2e/*.sh; do
		[ -f "$t" ] || continue
		run_one "$(basename "$t")" "" bash "$t"
	done
fi
rm -rf "$log"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
