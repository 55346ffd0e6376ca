#!/bin/bash
# The pseudo probe reader (src/export/pseudo_probe.c) against
# llvm-profgen-19 --show-pseudo-probe, on two programs built with clang-19
# -O2 -fpseudo-probe-for-profiling (tests/fixtures/pgo_llvm.c and
# pgo_switch.c: inlined static functions, loops, direct and indirect calls):
# every function descriptor (GUID, hash, name) and every probe (address,
# function, index, type, discriminator, inline context) equal, in order.
# Skips without clang-19 or llvm-profgen-19 (Debian clang-19, llvm-19).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$root/${BUILD:-build}
dump=$build/tests/tools/probe_dump
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
progs="pgo_llvm pgo_switch"
echo "PLAN 2"
if ! command -v clang-19 >/dev/null || ! command -v llvm-profgen-19 >/dev/null || [ ! -x "$dump" ]; then
	for p in $progs; do echo "SKIP pseudo_probe_$p: clang-19, llvm-profgen-19 or $dump missing"; done
	exit 0
fi
for p in $progs; do
	if ! clang-19 -O2 -g -fpseudo-probe-for-profiling -o "$tmp/$p" "$root/tests/fixtures/$p.c" 2>"$tmp/$p.cc"; then
		echo "FAIL pseudo_probe_$p: $(head -1 "$tmp/$p.cc")"
		continue
	fi
	"$dump" "$tmp/$p" >"$tmp/$p.hw" 2>"$tmp/$p.err"
	llvm-profgen-19 --binary "$tmp/$p" --show-disassembly-only --show-pseudo-probe -o /dev/null 2>&1 |
		python3 "$root/tests/tools/probe_profgen.py" >"$tmp/$p.pg"
	n=$(grep -vc '^desc' "$tmp/$p.pg")
	if [ "$n" -gt 0 ] && cmp -s "$tmp/$p.hw" "$tmp/$p.pg"; then
		echo "PASS pseudo_probe_$p ($(grep -c '^desc' "$tmp/$p.hw") functions, $n probes, $(grep -vc ' -$' "$tmp/$p.hw") inlined, as llvm-profgen-19)"
	else
		echo "FAIL pseudo_probe_$p: $(head -1 "$tmp/$p.err") $(diff "$tmp/$p.pg" "$tmp/$p.hw" | head -4 | tr '\n' ' ')"
	fi
done
