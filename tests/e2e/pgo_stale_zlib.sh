#!/bin/bash
# SPDX-License-Identifier: MIT
# pgo --matched-from (stale profiles) on a real program at two versions: the
# zlib compressor (tests/fixtures/flow_zlib.c on Debian's static zlib) and a
# second version made here that adds a function before main (every zlib
# function moves) and edits main at its start and end (its offsets shift).
# The recording of version 1 applied to version 2:
#   - how much matched: at least 99% of the instructions run in the recorded
#     binary's ranges (the line hwprof prints);
#   - against a fresh recording of version 2 (fdata edge overlap,
#     llvm-profdata overlap's formula, tests/tools/fdata_overlap.py): the
#     matched profile closer than version 1's profile taken as it is (what
#     a user without matching gets), and main (edited) nearly the fresh
#     one's, where the stale one misses it entirely;
#   - llvm-bolt-19 reads the matched fdata for version 2 with no "invalid
#     (possibly stale) profile" warning, which it gives the stale one;
#   - one-line errors: no --binary, an OLD that is not the recorded binary.
. "$(dirname "$0")/../tools/emu_lib.sh"
ready=$(emu_ready pgo_stale_zlib) || { echo "PLAN 1"; echo "$ready"; exit 0; }
lib=/usr/lib/x86_64-linux-gnu
if [ ! -f $lib/libz.a ] || [ ! -f /usr/include/zlib.h ]; then
	echo "PLAN 1"
	skip "pgo_stale_zlib: no static zlib (apt-get install zlib1g-dev)"
	exit 0
fi
bolt=$(command -v llvm-bolt-19 || echo /usr/lib/llvm-19/bin/llvm-bolt)
echo "PLAN 7"

v1=$tmp/zlib_v1 v2=$tmp/zlib_v2
sed -e 's/^int main(int argc, char \*\*argv)$/static __attribute__((noinline)) unsigned sum_bytes(const char *p, size_t n)\n{\n\tunsigned s = 0;\n\tfor (size_t i = 0; i < n; i++)\n\t\ts = s * 31 + (unsigned char)p[i];\n\treturn s;\n}\n\nint main(int argc, char **argv)/' \
	-e 's/^\tif (!in || !back || !z)$/\tif (argc > 3)\n\t\tputs(argv[3]);\n\tif (!in || !back || !z)/' \
	-e 's/^\tprintf("%zu -> %lu bytes\\n", n, (unsigned long)clen);/\tprintf("%zu -> %lu bytes (sum %u)\\n", n, (unsigned long)clen, sum_bytes(in, n));/' \
	"$root/tests/fixtures/flow_zlib.c" >"$tmp/zlib_v2.c"
if ! grep -q sum_bytes "$tmp/zlib_v2.c" || ! grep -q 'puts(argv\[3\])' "$tmp/zlib_v2.c" ||
	! gcc -O2 -g -o "$v1" "$root/tests/fixtures/flow_zlib.c" -l:libz.a 2>"$tmp/gcc.err" ||
	! gcc -O2 -g -o "$v2" "$tmp/zlib_v2.c" -l:libz.a 2>>"$tmp/gcc.err"; then
	for _ in $(seq 7); do fail "pgo_stale_zlib_build: the two versions: $(head -1 "$tmp/gcc.err")"; done
	exit 0
fi
# (--seed: the same samples every run, so the overlaps below are bounds on
# one recording each, not on a new draw every time)
for v in v1 v2; do
	if ! "$HWPROF" record --emulate -c 997 --jitter 10 --seed "${v#v}" -o "$tmp/$v.data" -- "$tmp/zlib_$v" 2048 \
		>/dev/null 2>"$tmp/$v.rec"; then
		for _ in $(seq 7); do fail "pgo_stale_zlib_record: $v: $(head -1 "$tmp/$v.rec")"; done
		exit 0
	fi
done
"$HWPROF" pgo --format bolt --binary "$v2" --matched-from "$v1" -i "$tmp/v1.data" -o "$tmp/matched.fdata" \
	2>"$tmp/matched.err"
"$HWPROF" pgo --format bolt -q --binary "$v1" -i "$tmp/v1.data" -o "$tmp/stale.fdata" 2>"$tmp/stale.err"
"$HWPROF" pgo --format bolt -q --binary "$v2" -i "$tmp/v2.data" -o "$tmp/fresh.fdata" 2>"$tmp/fresh.err"
line=$(grep 'stale profile:' "$tmp/matched.err")
echo "NUMBERS pgo_stale_zlib: $line"
share=$(sed -n 's/.*, \([0-9.]*\)% of the instructions run.*/\1/p' <<<"$line")
if [ -n "$share" ] && awk -v s="$share" 'BEGIN { exit !(s >= 99) }'; then
	pass "pgo_stale_zlib_matched_share ($share% of the instructions run)"
else
	fail "pgo_stale_zlib_matched_share: ${line:-no line}$(head -1 "$tmp/matched.err")"
fi

ov() { python3 "$tools/fdata_overlap.py" "$@" 2>&1; }
m=$(ov "$tmp/matched.fdata" "$tmp/fresh.fdata") s=$(ov "$tmp/stale.fdata" "$tmp/fresh.fdata")
mm=$(ov "$tmp/matched.fdata" "$tmp/fresh.fdata" --function main)
sm=$(ov "$tmp/stale.fdata" "$tmp/fresh.fdata" --function main)
echo "NUMBERS pgo_stale_zlib: edge overlap with the fresh profile: matched $m%, stale $s%; main: matched $mm%, stale $sm%"
if awk -v m="$m" -v s="$s" 'BEGIN { exit !(m > s && m >= 95) }'; then
	pass "pgo_stale_zlib_overlap (matched $m% > stale $s%)"
else
	fail "pgo_stale_zlib_overlap: matched '$m'%, stale '$s'%"
fi
if awk -v m="$mm" -v s="$sm" 'BEGIN { exit !(m >= 90 && s < 50) }'; then
	pass "pgo_stale_zlib_edited_function (main: matched $mm%, stale $sm%)"
else
	fail "pgo_stale_zlib_edited_function: main: matched '$mm'%, stale '$sm'%"
fi
if [ -x "$bolt" ]; then
	"$bolt" "$v2" -o "$tmp/m.bolt" -data="$tmp/matched.fdata" >"$tmp/m.bolt.out" 2>&1
	"$bolt" "$v2" -o "$tmp/s.bolt" -data="$tmp/stale.fdata" >"$tmp/s.bolt.out" 2>&1
	if grep -q "non-empty execution profile" "$tmp/m.bolt.out" && ! grep -q "possibly stale" "$tmp/m.bolt.out" &&
		grep -q "possibly stale" "$tmp/s.bolt.out"; then
		pass "pgo_stale_zlib_bolt ($(grep -o '[0-9]* out of [0-9]* functions' "$tmp/m.bolt.out" | head -1) profiled, no stale warning; the unmatched profile: $(grep -o 'BOLT-WARNING: [0-9]* ([0-9.]*% of all profiled)' "$tmp/s.bolt.out" | head -1 | cut -d' ' -f2-) invalid)"
	else
		fail "pgo_stale_zlib_bolt: matched: $(grep -E 'stale|non-empty' "$tmp/m.bolt.out" | head -2 | tr '\n' ' '); stale: $(grep -c 'possibly stale' "$tmp/s.bolt.out")"
	fi
else
	skip "pgo_stale_zlib_zlib_bolt: llvm-bolt-19 not installed"
fi
# the LLVM profile of version 2 from version 1's recording
if "$HWPROF" pgo --format llvm -q --binary "$v2" --matched-from "$v1" -i "$tmp/v1.data" -o "$tmp/m.prof" \
	2>"$tmp/m.llvm.err" && grep -q '^main:' "$tmp/m.prof"; then
	pass "pgo_stale_zlib_llvm ($(grep '^main:' "$tmp/m.prof"))"
else
	fail "pgo_stale_zlib_llvm: $(head -1 "$tmp/m.llvm.err")"
fi
if ! "$HWPROF" pgo --format bolt --matched-from "$v1" -i "$tmp/v1.data" -o /dev/null 2>"$tmp/e1" &&
	[ "$(wc -l <"$tmp/e1")" = 1 ] && grep -q -- '--binary' "$tmp/e1"; then
	pass "pgo_stale_zlib_no_binary"
else
	fail "pgo_stale_zlib_no_binary: $(head -2 "$tmp/e1")"
fi
if ! "$HWPROF" pgo --format bolt --binary "$v1" --matched-from "$v2" -i "$tmp/v1.data" -o /dev/null 2>"$tmp/e2" &&
	[ "$(wc -l <"$tmp/e2")" = 1 ]; then
	pass "pgo_stale_zlib_old_not_recorded ($(cat "$tmp/e2"))"
else
	fail "pgo_stale_zlib_old_not_recorded: $(head -2 "$tmp/e2")"
fi
