#!/bin/bash
# Runs every unit test binary and e2e script; each prints PASS/FAIL/SKIP lines.
# Ends with the summary line "N passed, N failed, N skipped".
#   tests/run.sh                 every test
#   tests/run.sh NAME...         only these: a unit test (test_maps), an e2e
#                                script (reports.sh or reports) or a long one
#                                (long/pgo_e2e: tests/long/, not run by default)
# $BUILD (default build) holds the binaries; $HWPROF_CORPUS the shared corpus
# (default ../shared/corpus; tests that need it skip when it is absent).
set -u
BUILD=${BUILD:-build}
export BUILD HWPROF="$PWD/$BUILD/hwprof" HWPROF_ROOT="$PWD"
export HWPROF_CORPUS=${HWPROF_CORPUS:-$PWD/../shared/corpus}
log=$(mktemp -d)
pass=0 fail=0 skip=0
run_one() { # name, command...
	local name=$1; shift
	local out="$log/$(basename "$name").out"
	"$@" >"$out" 2>"$out.err"
	local rc=$?
	local p f s
	p=$(grep -c '^PASS ' "$out"); f=$(grep -c '^FAIL ' "$out"); s=$(grep -c '^SKIP ' "$out")
	grep -E '^(FAIL|SKIP) ' "$out"
	if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: exited $rc"; f=1
	fi
	if [ "$f" -gt 0 ] || [ $rc -ne 0 ]; then sed 's/^/    /' "$out.err" | tail -20; fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	echo "  $name: $p passed, $f failed, $s skipped"
}
run_named() { # NAME: a unit test binary or an e2e script
	local n=${1%.sh}
	if [ -x "$BUILD/tests/unit/$n" ]; then
		run_one "$n" "$BUILD/tests/unit/$n"
	elif [ -f "tests/e2e/$n.sh" ]; then
		run_one "$n.sh" bash "tests/e2e/$n.sh"
	elif [ -f "tests/$n.sh" ]; then # long/NAME: tests/long/NAME.sh (make test-long)
		run_one "$n.sh" bash "tests/$n.sh"
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
		run_one "$(basename "$t")" "$t"
	done
	for t in tests/e2e/*.sh; do
		[ -f "$t" ] || continue
		run_one "$(basename "$t")" bash "$t"
	done
fi
rm -rf "$log"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
