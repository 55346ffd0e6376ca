#!/bin/bash
# SPDX-License-Identifier: MIT
# The PGO flows of issue 10 end to end (tests/tools/pgo_e2e_lib.sh), the
# correctness half of bench/pgo_e2e.sh, with small inputs (a few minutes on
# 2 cores). For each program, from one training run recorded with
# 'hwprof record --emulate -b':
#   - hwprof itself rebuilt by clang-19 -fprofile-sample-use with the
#     profile of 'hwprof pgo --format llvm' and with llvm-profgen-19's: both
#     builds without a warning (-Wall -Wextra of the Makefile), the profile
#     changed the code (the binary differs from the baseline's), and both
#     print what the baseline prints for 'hwprof probs' of another recording;
#     hwprof's profile is the same as profgen's (llvm-profdata-19 overlap);
#   - drivers linked with --emit-relocs against Debian's static SQLite and
#     Lua, rewritten by llvm-bolt-19 (ext-tsp, cdsort, hot/cold splitting)
#     with the fdata of 'hwprof pgo --format bolt' and perf2bolt's (equal
#     edge by edge but for the call fall-through rule of docs/hwprof-pgo.md; Lua's
#     lexer dispatches through a jump table whose base register is not the
#     last one a lea loaded before the jump): no
#     BOLT-ERROR, no BOLT-WARNING that perf2bolt's fdata does not give too,
#     BOLT rewrote as many functions with both, and both rewritten programs
#     print what the baseline prints for a larger input than the training
#     one; both execute fewer taken branches than the baseline (counted by
#     the emulator) and hwprof's within 1% of perf2bolt's (SQLite; Lua, which
#     seeds its string hashes with the time, varies by 1-2% from run to
#     run: within 5%).
# Run by 'make test-long' (tests/run.sh long/pgo_e2e). Skips when the tools
# are absent.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
e2e_build=$(realpath "$root/${BUILD:-build}")
HWPROF=${HWPROF:-$e2e_build/hwprof}
e2e_dir=$(mktemp -d)
trap 'rm -rf "$e2e_dir"' EXIT
. "$root/tests/tools/pgo_e2e_lib.sh"
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }
skip() { echo "SKIP $*"; }

missing=$(e2e_missing)
if [ -n "$missing" ]; then
	skip "pgo_e2e: not installed: $missing"
	exit 0
fi
if ! "$HWPROF" record --emulate -o "$e2e_dir/probe.data" -- /bin/true >/dev/null 2>"$e2e_dir/probe.err"; then
	skip "pgo_e2e: record --emulate does not run here: $(head -1 "$e2e_dir/probe.err")"
	exit 0
fi

# same_output NAME ARGS...: the optimized programs print what the baseline
# prints ($e2e_bins: baseline, hwprof's, the established tool's)
same_output() {
	local name=$1 v out
	shift
	"${e2e_bins[0]}" "$@" >"$e2e_dir/$name.base.out" 2>&1
	for v in 1 2; do
		"${e2e_bins[$v]}" "$@" >"$e2e_dir/$name.$v.out" 2>&1
	done
	if cmp -s "$e2e_dir/$name.base.out" "$e2e_dir/$name.1.out" &&
		cmp -s "$e2e_dir/$name.base.out" "$e2e_dir/$name.2.out" && [ -s "$e2e_dir/$name.base.out" ]; then
		pass "pgo_e2e_${name}_output (baseline and both optimized programs print the same" \
			"$(wc -l <"$e2e_dir/$name.base.out") lines)"
	else
		fail "pgo_e2e_${name}_output: $(diff "$e2e_dir/$name.base.out" "$e2e_dir/$name.1.out" | head -3 | tr '\n' ' ')" \
			"$(diff "$e2e_dir/$name.base.out" "$e2e_dir/$name.2.out" | head -3 | tr '\n' ' ')"
	fi
}

# LLVM: hwprof trained on probs of a 2 MB recording, checked on 24 MB
if e2e_llvm_hwprof 2 24 2003; then
	pass "pgo_e2e_hwprof_build (clang-19 -fprofile-sample-use with both profiles: no warnings)"
	if cmp -s "${e2e_bins[0]}" "${e2e_bins[1]}"; then
		fail "pgo_e2e_hwprof_applied: the build with hwprof's profile is the baseline's binary"
	else
		pass "pgo_e2e_hwprof_applied (the profile changed the code)"
	fi
	sim=$("$e2e_profdata" overlap --sample "$e2e_dir/hwprof.pg.prof" "$e2e_dir/hwprof.hw.prof" 2>&1 |
		grep -m1 'Whole program profile similarity' | sed 's/.*: *//')
	if [ "$sim" = "100.000%" ]; then
		pass "pgo_e2e_hwprof_profile (llvm-profdata overlap with profgen's: similarity $sim)"
	else
		fail "pgo_e2e_hwprof_profile: llvm-profdata overlap with profgen's: similarity ${sim:-?}"
	fi
	same_output hwprof "${e2e_args[@]}"
else
	fail "pgo_e2e_hwprof: $e2e_err"
fi

# BOLT: NAME TRAIN_ARG PERIOD CHECK_ARG TOLERANCE_PERCENT
bolt_case() {
	local name=$1
	if ! e2e_bolt "$name" "$2" "$3"; then
		fail "pgo_e2e_${name}_bolt: $e2e_err"
		return
	fi
	local hw p2b w1 w2 out
	# the profiles: perf2bolt's edge by edge, but for the call fall-through
	# rule (docs/hwprof-pgo.md)
	if out=$(python3 "$root/tests/e2e/fdata_compare.py" "$e2e_dir/$name.p2b.fdata" "$e2e_dir/$name.hw.fdata" \
		--allow-call-ft "${e2e_bins[0]}" 2>&1); then
		pass "pgo_e2e_${name}_fdata ($out)"
	else
		fail "pgo_e2e_${name}_fdata: $(echo "$out" | tr '\n' ' ')"
	fi
	hw=$(grep -m1 'have non-empty execution profile' "$e2e_dir/$name.bolt.hw.log")
	p2b=$(grep -m1 'have non-empty execution profile' "$e2e_dir/$name.bolt.p2b.log")
	w1=$(grep 'BOLT-WARNING' "$e2e_dir/$name.bolt.hw.log" | sort -u)
	w2=$(grep 'BOLT-WARNING' "$e2e_dir/$name.bolt.p2b.log" | sort -u)
	if [ -n "$hw" ] && [ "$hw" = "$p2b" ] && [ "$w1" = "$w2" ]; then
		pass "pgo_e2e_${name}_bolt (${hw#BOLT-INFO: }, as with perf2bolt's fdata;" \
			"$(echo "$w1" | grep -c .) BOLT-WARNINGs about the binary, the same with both)"
	else
		fail "pgo_e2e_${name}_bolt: hwprof's: '$hw'; perf2bolt's: '$p2b';" \
			"warnings only with hwprof's: $(comm -23 <(echo "$w1") <(echo "$w2") | head -2 | tr '\n' ' ')"
	fi
	same_output "$name" "$4"
	# the layouts' effect: taken branches on the check input
	local b h p
	b=$(e2e_taken "${e2e_bins[0]}" "$4") h=$(e2e_taken "${e2e_bins[1]}" "$4") p=$(e2e_taken "${e2e_bins[2]}" "$4")
	if [ -n "$b" ] && [ -n "$h" ] && [ -n "$p" ] && [ "$h" -lt "$b" ] && [ "$p" -lt "$b" ] &&
		[ $((100 * (h > p ? h - p : p - h))) -le $(($5 * p)) ]; then
		pass "pgo_e2e_${name}_taken (taken branches: baseline $b, with hwprof's fdata $h," \
			"with perf2bolt's $p)"
	else
		fail "pgo_e2e_${name}_taken: taken branches: baseline $b, with hwprof's fdata $h," \
			"with perf2bolt's $p (hwprof's must be within $5% of perf2bolt's)"
	fi
}
bolt_case sqlite 3000 97 60000 1
bolt_case lua 5000 97 40000 5
