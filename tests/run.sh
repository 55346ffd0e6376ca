#!/bin/bash
# Runs every unit test binary and e2e script; each prints PASS/FAIL/SKIP lines.
# Ends with the summary line "N passed, N failed, N skipped".
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
for t in "$BUILD"/tests/unit/test_*; do
	[ -x "$t" ] || continue
	run_one "$(basename "$t")" "$t"
done
for t in tests/e2e/*.sh; do
	[ -f "$t" ] || continue
	run_one "$(basename "$t")" bash "$t"
done
rm -rf "$log"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
