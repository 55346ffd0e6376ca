#!/bin/bash
# SPDX-License-Identifier: MIT
# Propeller end to end on a real program with its source at hand: hwprof
# itself, built by clang-19 -O2 -g -fbasic-block-address-map
# -ffunction-sections and linked by lld with --emit-relocs (the Makefile's
# -Wall -Wextra -Werror), trained on 'hwprof probs' of a 2 MB generated
# recording (recorded with 'hwprof record --emulate -b -c 2003'), then
#   - rebuilt with -fbasic-block-sections=list= the cluster file of 'hwprof
#     pgo --format propeller' and linked with --symbol-ordering-file= its
#     --symbol-order: no warning from clang or lld;
#   - the baseline rewritten by llvm-bolt-19 (ext-tsp, cdsort, hot/cold
#     splitting) with 'hwprof pgo --format bolt' from the same recording;
#   - both print what the baseline prints for 'probs' of a 24 MB recording;
#   - the Propeller build takes fewer branches in its own code than the
#     baseline on the training input (exact counts of 'record --emulate
#     --exact', tests/tools/taken_count.py), and no more than 1.25 times
#     BOLT's (they cut about as many: docs/performance.md, "Propeller").
# The correctness half of bench/pgo_propeller.sh, on hwprof instead of
# SQLite (whose source is not in the tree). Run by 'make test-long'
# (tests/run.sh long/pgo_propeller). Skips when the tools are absent.
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
command -v ld.lld >/dev/null || missing+=" lld"
if [ -n "${missing# }" ]; then
	echo "PLAN 1"
	skip "pgo_propeller: not installed: ${missing# }"
	exit 0
fi
if ! "$HWPROF" record --emulate -o "$e2e_dir/probe.data" -- /bin/true >/dev/null 2>"$e2e_dir/probe.err"; then
	echo "PLAN 1"
	skip "pgo_propeller: record --emulate does not run here: $(head -1 "$e2e_dir/probe.err")"
	exit 0
fi
echo "PLAN 4"
d=$e2e_dir
flags=(-O2 -g -ffunction-sections)

# make_hwprof DIR CFLAGS LDFLAGS: hwprof built by clang-19 into DIR; a warning fails
make_hwprof() {
	local out=$1 log=$d/make.$(basename "$1").log
	if ! make -C "$root" -j2 SAN= BUILD="$out" CC="$e2e_cc" CFLAGS="$2" LDFLAGS="$3" "$out/hwprof" >"$log" 2>&1; then
		e2e_err="$(basename "$out"): $(grep -m1 -iE 'error' "$log" || tail -1 "$log")"
		return 1
	fi
	if grep -qi 'warning' "$log"; then
		e2e_err="$(basename "$out"): $(grep -m1 -i warning "$log")"
		return 1
	fi
}

built() {
	e2e_gen "$d/train-in.data" 2 && e2e_gen "$d/eval-in.data" 24 || return 1
	make_hwprof "$d/base" "${flags[*]} -fbasic-block-address-map" "-fuse-ld=lld -Wl,--emit-relocs" || return 1
	e2e_record hwprof 2003 -- "$d/base/hwprof" probs -i "$d/train-in.data" --symfs "$d/symfs" || return 1
	e2e_step propeller.pgo "$HWPROF" pgo -v --format propeller -i "$d/hwprof.train.data" --binary "$d/base/hwprof" \
		-o "$d/clusters.txt" --symbol-order "$d/order.txt" || return 1
	make_hwprof "$d/prop" "${flags[*]} -fbasic-block-sections=list=$d/clusters.txt" \
		"-fuse-ld=lld -Wl,--symbol-ordering-file=$d/order.txt" || return 1
	e2e_step bolt.pgo "$HWPROF" pgo -q --format bolt -i "$d/hwprof.train.data" --binary "$d/base/hwprof" \
		-o "$d/hwprof.fdata" || return 1
	e2e_step bolt "$e2e_bolt" "$d/base/hwprof" -o "$d/hwprof.bolt" -data="$d/hwprof.fdata" "${e2e_bolt_opts[@]}" ||
		return 1
	if grep -q 'BOLT-ERROR' "$d/bolt.log"; then
		e2e_err="bolt: $(grep -m1 BOLT-ERROR "$d/bolt.log")"
		return 1
	fi
}

if ! built; then
	for c in build output fewer_taken against_bolt; do
		fail "pgo_propeller_$c: $e2e_err"
	done
	exit 0
fi
pass "pgo_propeller_build (clang-19 and lld with the cluster file and symbol order: no warning;" \
	"$(grep -m1 -o 'propeller: .*' "$d/propeller.pgo.log" | cut -c12-))"

args=(probs -i "$d/eval-in.data" --symfs "$d/symfs")
"$d/base/hwprof" "${args[@]}" >"$d/base.out" 2>&1
"$d/prop/hwprof" "${args[@]}" >"$d/prop.out" 2>&1
"$d/hwprof.bolt" "${args[@]}" >"$d/bolt.out" 2>&1
if [ -s "$d/base.out" ] && cmp -s "$d/base.out" "$d/prop.out" && cmp -s "$d/base.out" "$d/bolt.out"; then
	pass "pgo_propeller_output (baseline, Propeller and BOLT print the same $(wc -l <"$d/base.out") lines)"
else
	fail "pgo_propeller_output: $(diff "$d/base.out" "$d/prop.out" | head -3 | tr '\n' ' ')" \
		"$(diff "$d/base.out" "$d/bolt.out" | head -3 | tr '\n' ' ')"
fi

taken() {
	"$HWPROF" record -q --emulate --exact "$d/$1.sites" -o "$d/$1.exact.data" -- "$2" probs -i "$d/train-in.data" \
		--symfs "$d/symfs" >/dev/null 2>&1 && python3 "$root/tests/tools/taken_count.py" "$d/$1.sites" "$2"
}
tb=$(taken base "$d/base/hwprof")
tp=$(taken prop "$d/prop/hwprof")
tt=$(taken bolt "$d/hwprof.bolt")
if [ -n "$tb" ] && [ -n "$tp" ] && [ "${tp%% *}" -lt "${tb%% *}" ]; then
	pass "pgo_propeller_fewer_taken (taken branches: baseline $tb; Propeller $tp)"
else
	fail "pgo_propeller_fewer_taken: baseline '$tb', Propeller '$tp'"
fi
if [ -n "$tp" ] && [ -n "$tt" ] && [ "$((${tp%% *} * 4))" -le "$((${tt%% *} * 5))" ]; then
	pass "pgo_propeller_against_bolt (Propeller ${tp%% *}, BOLT ${tt%% *} taken branches)"
else
	fail "pgo_propeller_against_bolt: Propeller '$tp', BOLT '$tt'"
fi
