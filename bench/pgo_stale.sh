#!/bin/bash
# SPDX-License-Identifier: MIT
# Stale profiles (docs/hwprof-pgo.md, "Stale profiles"; tests/e2e/pgo_stale.sh
# checks the matches): a recording of build N applied to build N+1 with
# 'hwprof pgo --matched-from', against the same profile as is, a fresh
# profile of N+1 and none, NEW rewritten by llvm-bolt-19 (ext-tsp, hfsort,
# hot/cold splitting) with each. Programs:
#   gcc, clang   tests/fixtures/stale_prog.c built by gcc -O2 / clang-19 -O2
#                (N+1: -DV2: a function inserted at the top, tokenize
#                edited, bucket_of renamed), 200000 words;
#   hwprof       hwprof at $STALE_COMMIT (default 480efbe) as N, and the same
#                with a function inserted at the top of branch_table.c, a test
#                added to hwp__branch_collector_classify and collect_stack
#                renamed as N+1 (skipped when the edit no longer applies),
#                running 'pgo --format bolt' on the gcc recording.
# Recordings: 'record --emulate -b -c 997'. Prints per program and variant
# the taken branches in NEW's own code (exact counts of 'record --emulate
# --exact', tests/tools/taken_count.py) and the share of the fresh
# profile's gain over none. Not a test.
# Usage: bench/pgo_stale.sh BUILD_DIR
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-build}")
HWPROF=$build/hwprof
dir=$(realpath -m "${BENCH_DIR:-$build/bench-data}/stale")
bolt=/usr/lib/llvm-19/bin/llvm-bolt
commit=${STALE_COMMIT:-480efbe}
for t in gcc clang-19 "$bolt" qemu-x86_64; do
	command -v "$t" >/dev/null || { echo "bench/pgo_stale.sh: skipped ($t not installed)"; exit 0; }
done
mkdir -p "$dir"
say() { echo "bench: $*" >&2; }
taken() { # taken BINARY ARGS...
	"$HWPROF" record -q --emulate --exact "$1.sites" -o /dev/null -- "./$1" "${@:2}" >/dev/null 2>&1
	python3 "$root/tests/tools/taken_count.py" "$1.sites" "$1" | cut -d' ' -f1
}

# one NAME ARGS...: in $dir/NAME, binaries old and new
one() {
	local name=$1
	shift
	cd "$dir/$name"
	"$HWPROF" record -q --emulate -b -c 997 -o old.data -- ./old "$@" >/dev/null
	"$HWPROF" record -q --emulate -b -c 997 -o new.data -- ./new "$@" >/dev/null
	"$HWPROF" pgo --format bolt -i old.data --binary new --matched-from old -o matched.fdata 2>&1 |
		grep 'stale profile' >&2
	"$HWPROF" pgo -q --format bolt -i old.data --binary old -o asis.fdata
	"$HWPROF" pgo -q --format bolt -i new.data --binary new -o fresh.fdata
	cp new new.none
	for v in asis matched fresh; do
		"$bolt" new -o "new.$v" -data="$v.fdata" -reorder-blocks=ext-tsp -reorder-functions=hfsort \
			-split-functions -split-all-cold >"bolt.$v.log" 2>&1
	done
	local none fresh t
	none=$(taken new.none "$@")
	fresh=$(taken new.fresh "$@")
	echo "$name: taken branches in NEW's own code (exact, emulated); share of the fresh profile's gain"
	for v in none asis matched fresh; do
		case $v in
		none) t=$none ;;
		fresh) t=$fresh ;;
		*) t=$(taken "new.$v" "$@") ;;
		esac
		printf '  %-8s %12s  %s\n' "$v" "$t" \
			"$(python3 -c "n,f,t=$none,$fresh,$t; print(f'{100*(n-t)/(n-f):.1f}%' if n!=f else '-')")"
	done
}

src=$root/tests/fixtures/stale_prog.c
mkdir -p "$dir/gcc" "$dir/clang"
gcc -O2 -g -no-pie -Wl,-q -o "$dir/gcc/old" "$src" && gcc -O2 -g -no-pie -Wl,-q -DV2 -o "$dir/gcc/new" "$src"
clang-19 -O2 -g -Wl,-q -o "$dir/clang/old" "$src" && clang-19 -O2 -g -Wl,-q -DV2 -o "$dir/clang/new" "$src"
one gcc 200000
one clang 200000

# hwprof itself: N at $commit, N+1 the scripted edit
hw=$dir/hwprof
if [ ! -x "$hw/new" ]; then
	rm -rf "$hw" && mkdir -p "$hw/n" && git -C "$root" archive "$commit" | tar -x -C "$hw/n"
	cp -a "$hw/n" "$hw/n1"
	if ! python3 - "$hw/n1" <<'PY'; then
import sys
d = sys.argv[1]
p = d + "/src/analysis/branch_collect.c"
s = open(p).read()
a = "\tif (!raw_start || !raw_end)\n\t\treturn HWP_RANGE_ZEROED;\n"
if a not in s or "collect_stack(" not in s:
    sys.exit("bench/pgo_stale.sh: the hwprof edit no longer applies at this commit")
s = s.replace(a, a + "\tif (raw_start == UINT64_MAX || raw_end == UINT64_MAX)\n\t\treturn HWP_RANGE_ZEROED;\n", 1)
open(p, "w").write(s.replace("collect_stack(", "collect_entries("))
p = d + "/src/analysis/branch_table.c"
s = open(p).read()
j = s.index("\n", s.rindex("\n#include")) + 1
open(p, "w").write(s[:j] + """
uint64_t hwp__branch_table_checksum(const uint64_t *v, size_t n);
uint64_t hwp__branch_table_checksum(const uint64_t *v, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		h ^= v[i] + (i & 1 ? 0x9e3779b97f4a7c15ull : 7);
		h *= 1099511628211ull;
		if (h % 13 == 0)
			h += v[i] >> 3;
	}
	return h;
}
""" + s[j:])
PY
		echo "bench/pgo_stale.sh: hwprof part skipped"
		exit 0
	fi
	say "building hwprof at $commit twice (a few minutes)"
	make -C "$hw/n" -j2 LDFLAGS=-Wl,-q build/hwprof >"$hw/n.log" 2>&1
	make -C "$hw/n1" -j2 LDFLAGS=-Wl,-q build/hwprof >"$hw/n1.log" 2>&1
	cp "$hw/n/build/hwprof" "$hw/old" && cp "$hw/n1/build/hwprof" "$hw/new"
fi
one hwprof pgo -q -j 1 --format bolt -i "$dir/gcc/old.data" --binary "$dir/gcc/old" -o /dev/null
