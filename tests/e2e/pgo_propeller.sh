#!/bin/bash
# SPDX-License-Identifier: MIT
# hwprof pgo --format propeller end to end on tests/fixtures/propeller_layout.c
# (hot branches whose common arm the compiler was told is rare, error paths
# among the hot blocks, a switch), built by clang-19 -O2
# -fbasic-block-address-map and recorded with 'hwprof record --emulate -b':
#   - the cluster file: "v1", then "f NAME" and one "c" line per function,
#     NAME a function of the binary (nm), the entry block (ID 0) first, every
#     ID one of that function's blocks in llvm-readobj-19 --bb-addr-map and
#     none twice; the symbol order names the same functions;
#   - clang-19 -fbasic-block-sections=list= compiles with it without a
#     warning and lld (--symbol-ordering-file) links without one;
#   - the relinked program has the cold parts (NAME.cold) of the functions
#     with blocks that never ran, its hot functions in the symbol order's
#     order (nm -n), and prints what the baseline prints for another input;
#   - it takes fewer branches in its own code than the baseline (exact
#     counts of 'record --emulate --exact', tests/tools/taken_count.py);
#   - hot and cold as the exact counts have them: every block of a cluster
#     ran, and every block of a laid-out function that ran at least 1% as
#     often as the function's busiest is in its cluster (a block's count:
#     its last branch site's executions; blocks with no site are not
#     judged);
#   - errors in one line: a binary without the section (names the file and
#     the flag), a corrupt section (names the file and the offset),
#     --symbol-order without --format propeller, --ip-samples.
. "$(dirname "$0")/../tools/emu_lib.sh"
ready=$(emu_ready pgo_propeller) || { echo "PLAN 1"; echo "$ready"; exit 0; }
if ! command -v clang-19 >/dev/null || ! command -v ld.lld >/dev/null || ! command -v llvm-readobj-19 >/dev/null; then
	echo "PLAN 1"
	skip "pgo_propeller: clang-19, lld or llvm-readobj-19 not installed (apt-get install clang-19 lld-19 llvm-19)"
	exit 0
fi
echo "PLAN 11"
src=$root/tests/fixtures/propeller_layout.c
base=$tmp/pl.base
prop=$tmp/pl.prop

if ! clang-19 -O2 -fbasic-block-address-map -ffunction-sections -fuse-ld=lld -o "$base" "$src" 2>"$tmp/cc.err"; then
	for c in files order clang_accepts cold_split symbol_order output fewer_taken hot_cold no_map corrupt options; do
		fail "pgo_propeller_$c: clang-19 -fbasic-block-address-map: $(head -1 "$tmp/cc.err")"
	done
	exit 0
fi
emu_record train -b -c 997 -- "$base" 300000 || fail "pgo_propeller_record: $(head -1 "$tmp/train.err")"
"$HWPROF" pgo -q -i "$tmp/train.data" --format propeller --binary "$base" -o "$tmp/clusters.txt" \
	--symbol-order "$tmp/order.txt" 2>"$tmp/pgo.err"
rc=$?

# the cluster file against nm and llvm-readobj's block IDs
llvm-readobj-19 --bb-addr-map "$base" >"$tmp/readobj.txt"
check=$(python3 - "$tmp/clusters.txt" "$tmp/readobj.txt" "$tmp/order.txt" <<'PY' 2>&1
import re, sys
ids, fn = {}, None
for line in open(sys.argv[2]):
    m = re.match(r"\s*Name: (\S+)", line)
    if m:
        fn = m.group(1)
        ids[fn] = set()
    m = re.match(r"\s*ID: (\d+)", line)
    if m and fn:
        ids[fn].add(int(m.group(1)))
lines = open(sys.argv[1]).read().split("\n")
assert lines[0] == "v1", "first line %r" % lines[0]
body = [l for l in lines[1:] if l]
assert len(body) % 2 == 0 and body, "f/c lines unpaired or none"
names = []
for f, c in zip(body[0::2], body[1::2]):
    assert f.startswith("f ") and c.startswith("c "), (f, c)
    name = f[2:]
    assert name in ids, "%s: not a function of the bb-addr-map" % name
    got = [int(x) for x in c[2:].split()]
    assert got[0] == 0, "%s: cluster starts with %d" % (name, got[0])
    assert len(set(got)) == len(got), "%s: a block twice" % name
    assert set(got) <= ids[name], "%s: IDs %s not its blocks" % (name, sorted(set(got) - ids[name]))
    names.append(name)
order = open(sys.argv[3]).read().split()
assert sorted(order) == sorted(names), "order %s vs clusters %s" % (order, names)
print("%d functions: %s" % (len(names), " ".join(names)))
PY
)
crc=$?
if [ $rc -eq 0 ] && [ $crc -eq 0 ]; then
	pass "pgo_propeller_files ($check)"
else
	fail "pgo_propeller_files: rc $rc $(head -1 "$tmp/pgo.err") $(tail -1 <<<"$check")"
fi
for f in mix classify dispatch; do
	grep -qx "$f" "$tmp/order.txt" || missing="${missing:-} $f"
done
if [ -z "${missing:-}" ]; then
	pass "pgo_propeller_order (the hot functions mix, classify and dispatch are in the symbol order)"
else
	fail "pgo_propeller_order: missing$missing: $(tr '\n' ' ' <"$tmp/order.txt")"
fi

# rebuilt with the cluster file, relinked with the order
if clang-19 -O2 -ffunction-sections -fbasic-block-sections=list="$tmp/clusters.txt" -fuse-ld=lld \
	-Wl,--symbol-ordering-file="$tmp/order.txt" -o "$prop" "$src" >"$tmp/cc2.err" 2>&1 && [ ! -s "$tmp/cc2.err" ]; then
	pass "pgo_propeller_clang_accepts (clang-19 -fbasic-block-sections=list= and lld --symbol-ordering-file: no warning)"
else
	fail "pgo_propeller_clang_accepts: $(head -2 "$tmp/cc2.err" | tr '\n' ' ')"
fi
nm -n "$prop" >"$tmp/nm.txt" 2>/dev/null
cold=$(grep -c '\.cold$' "$tmp/nm.txt")
if [ "$cold" -ge 3 ] && grep -q ' mix\.cold$' "$tmp/nm.txt" && grep -q ' classify\.cold$' "$tmp/nm.txt"; then
	pass "pgo_propeller_cold_split ($cold cold parts: $(grep '\.cold$' "$tmp/nm.txt" | awk '{print $3}' | tr '\n' ' '))"
else
	fail "pgo_propeller_cold_split: $cold cold parts"
fi
want=$(tr '\n' ' ' <"$tmp/order.txt")
got=$(awk 'NR == FNR { o[$1] = 1; next } ($3 in o) { printf "%s ", $3 }' "$tmp/order.txt" "$tmp/nm.txt")
if [ "$got" = "$want" ]; then
	pass "pgo_propeller_symbol_order (nm -n: $got)"
else
	fail "pgo_propeller_symbol_order: nm -n '$got', order '$want'"
fi
"$base" 250000 >"$tmp/base.out" 2>&1
"$prop" 250000 >"$tmp/prop.out" 2>&1
if [ -s "$tmp/base.out" ] && cmp -s "$tmp/base.out" "$tmp/prop.out"; then
	pass "pgo_propeller_output (both print $(cat "$tmp/base.out"))"
else
	fail "pgo_propeller_output: '$(head -1 "$tmp/base.out")' vs '$(head -1 "$tmp/prop.out")'"
fi
taken() {
	"$HWPROF" record -q --emulate --exact "$tmp/$1.sites" -o "$tmp/$1.exact.data" -- "$2" 250000 >/dev/null 2>&1 &&
		python3 "$tools/taken_count.py" "$tmp/$1.sites" "$2"
}
tb=$(taken base "$base")
tp=$(taken prop "$prop")
if [ -n "$tb" ] && [ -n "$tp" ] && [ "${tp%% *}" -lt "${tb%% *}" ]; then
	pass "pgo_propeller_fewer_taken (taken branches in the program: $tb before, $tp after)"
else
	fail "pgo_propeller_fewer_taken: before '$tb', after '$tp'"
fi

# the clusters against the exact counts of the baseline's branch sites
hc=$(python3 - "$tmp/clusters.txt" "$tmp/readobj.txt" "$tmp/base.sites" "$base" <<'PY' 2>&1
import json, os, re, sys
blocks, fn, base = {}, None, 0
for line in open(sys.argv[2]):
    m = re.match(r"\s*Name: (\S+)", line)
    if m:
        fn = m.group(1)
        blocks[fn] = {}
    m = re.match(r"\s*Base Address: 0x([0-9a-fA-F]+)", line)
    if m:
        base = int(m.group(1), 16)
    m = re.match(r"\s*ID: (\d+)", line)
    if m:
        bid = int(m.group(1))
    m = re.match(r"\s*Offset: 0x([0-9a-fA-F]+)", line)
    if m:
        start = base + int(m.group(1), 16)
    m = re.match(r"\s*Size: 0x([0-9a-fA-F]+)", line)
    if m and fn:
        blocks[fn][bid] = (start, start + int(m.group(1), 16))
sites = []
for line in open(sys.argv[3]):
    d = json.loads(line)
    if os.path.realpath(d["module"]) == os.path.realpath(sys.argv[4]):
        sites.append((int(d["vaddr"], 16), d["executed"]))
sites.sort()
def count(lo, hi):
    last = [c for a, c in sites if lo <= a < hi]
    return last[-1] if last else None
body = [l for l in open(sys.argv[1]).read().split("\n")[1:] if l]
judged = bad = 0
for f, c in zip(body[0::2], body[1::2]):
    name, hot = f[2:], set(int(x) for x in c[2:].split())
    counts = {b: count(*r) for b, r in blocks[name].items()}
    top = max([v for v in counts.values() if v] or [0])
    for b, v in counts.items():
        if v is None:
            continue
        judged += 1
        if b in hot and v == 0 and b != 0:
            bad += 1
            print("%s: block %d in the cluster never ran" % (name, b))
        if b not in hot and v * 100 >= top:
            bad += 1
            print("%s: block %d ran %d times (busiest %d), left cold" % (name, b, v, top))
print("%d blocks judged, %d wrong" % (judged, bad))
sys.exit(1 if bad or not judged else 0)
PY
)
if [ $? -eq 0 ]; then
	pass "pgo_propeller_hot_cold ($(tail -1 <<<"$hc"))"
else
	fail "pgo_propeller_hot_cold: $(head -3 <<<"$hc" | tr '\n' ' ')"
fi

# errors
clang-19 -O2 -o "$tmp/plain" "$src" 2>/dev/null
# the first entry's version byte: a version hwprof does not read
off=$(python3 - "$base" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", d, 0x28)
shentsize, shnum = struct.unpack_from("<HH", d, 0x3a)
for i in range(shnum):
    _, typ, _, _, off, _ = struct.unpack_from("<IIQQQQ", d, shoff + i * shentsize)
    if typ == 0x6fff4c0a:
        print(off)
PY
)
printf '\x07' | dd of="$base" bs=1 seek="${off:-0}" conv=notrunc 2>/dev/null
emu_record plain -b -c 997 -- "$tmp/plain" 20000
e1=$("$HWPROF" pgo -q -i "$tmp/plain.data" --format propeller -o /dev/null 2>&1)
if [ "$(wc -l <<<"$e1")" = 1 ] && grep -q "plain: no .llvm_bb_addr_map section (build it with clang -fbasic-block-address-map)" <<<"$e1"; then
	pass "pgo_propeller_no_map ($e1)"
else
	fail "pgo_propeller_no_map: $e1"
fi
# the recorded binary itself, changed in a section that is not loaded (its build-id stays)
e2=$("$HWPROF" pgo -q -i "$tmp/train.data" --format propeller --binary "$base" -o /dev/null 2>&1)
if [ "$(wc -l <<<"$e2")" = 1 ] && grep -q "pl.base: .llvm_bb_addr_map at offset $(printf '0x%x' "${off:-0}"): version 7" <<<"$e2"; then
	pass "pgo_propeller_corrupt ($e2)"
else
	fail "pgo_propeller_corrupt: $e2"
fi
e3=$("$HWPROF" pgo -q -i "$tmp/train.data" --format bolt --symbol-order "$tmp/x" -o /dev/null 2>&1)
e4=$("$HWPROF" pgo -q -i "$tmp/train.data" --format propeller --ip-samples -o /dev/null 2>&1)
if [ "$(wc -l <<<"$e3")" = 1 ] && grep -q "symbol-order" <<<"$e3" && [ "$(wc -l <<<"$e4")" = 1 ] &&
	grep -q "ip-samples" <<<"$e4"; then
	pass "pgo_propeller_options ($e3 / $e4)"
else
	fail "pgo_propeller_options: $e3 / $e4"
fi
