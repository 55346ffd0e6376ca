#!/bin/bash
# A kernel module's symbols from its own .ko, as perf 6.1 reads them: a
# stand-in module (tests/fixtures/kmod_hwptest.c built with gcc -c and
# ld -r --build-id, a relocatable file like a .ko) and a recording whose
# MMAP places it at 0xffffffffc0a00000 (or past this machine's own modules:
# perf report maps those too, from /proc/modules) with branch entries every 7 bytes of
# its map, two pages and more (tests/tools/gen_kmod_perfdata.py): the
# last symbol, a zero-size label, ends where perf ends it. Branch rows per module and
# symbol equal perf report -b's: with the .ko under --symfs (.text's
# symbols at the load address; addresses no symbol covers print as perf's
# offset in the module's map), without it, and with a .ko of another
# build-id (not used, by either). Compressed: a .ko.xz as perf reads it;
# a .ko.zst (which perf 6.1 does not read) gives the rows the .ko gives;
# corrupt ones are said (-v) and give the rows of no .ko, exit status 0.
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
echo "PLAN 8"
names="ko_symbols_vs_perf ko_names_text ko_absent_vs_perf ko_stale_vs_perf ko_said ko_xz_vs_perf ko_zst_as_ko
ko_compressed_corrupt"
if ! command -v perf >/dev/null || ! command -v gcc >/dev/null || ! command -v ld >/dev/null ||
	! command -v readelf >/dev/null; then
	for n in $names; do skip "$n: needs perf, gcc, ld and readelf"; done
	exit 0
fi
mod=/lib/modules/6.1.0-hwptest/kernel/drivers/misc/hwptest.ko
# the load address: clear of the modules this machine has loaded, which perf
# report maps from /proc/modules whatever the recording says
base=$(python3 - <<'PY'
end = 0xffffffffc0a00000
try:
    for line in open("/proc/modules"):
        f = line.split()
        if len(f) >= 6 and f[-1].startswith("0x") and int(f[-1], 16):
            end = max(end, int(f[-1], 16) + int(f[1]) + (16 << 20))
except OSError:
    pass
print(hex(end & ~0x1fffff))
PY
)
keys=dso_from,symbol_from,dso_to,symbol_to
build_ko() { # out.ko [extra cflags]
	gcc -O2 -c -fno-pic -fno-asynchronous-unwind-tables -fno-toplevel-reorder ${2:-} "$root/tests/fixtures/kmod_hwptest.c" \
		-o "$tmp/ko.o" && ld -r --build-id=sha1 -o "$1" "$tmp/ko.o"
}
mkdir -p "$tmp/symfs${mod%/*}" "$tmp/stale${mod%/*}" "$tmp/home"
if ! build_ko "$tmp/symfs$mod" || ! build_ko "$tmp/stale$mod" -O1 ||
	! python3 "$tools/gen_kmod_perfdata.py" "$tmp/k.data" "$tmp/symfs$mod" "$mod" "$base" 0x2400; then
	for n in $names; do fail "$n: could not build the module or the recording"; done
	exit 0
fi
# compare NAME [hwprof and perf options]: rows of both equal (on $data)
data=$tmp/k.data
compare() {
	local name=$1
	shift
	HOME=$tmp/home perf report -b -i "$data" "$@" --stdio -F "overhead,sample,$keys" \
		>"$tmp/$name.perf" 2>/dev/null
	HOME=$tmp/home "$HWPROF" branches -i "$data" "$@" --sort "$keys" >"$tmp/$name.txt" \
		2>"$tmp/$name.err"
	if out=$(python3 "$root/tests/e2e/branches_compare.py" --unique "$tmp/$name.perf" "$tmp/$name.txt" "$keys" 2>&1)
	then
		pass "$name ($out)"
	else
		fail "$name: $out"
	fi
}
compare ko_symbols_vs_perf --symfs "$tmp/symfs"
# .text's three functions and its end label named (the comparison alone would pass if neither
# side read the .ko); the cold function of .text.unlikely never is
got=$(awk '!/^#/ {print $5}' "$tmp/ko_symbols_vs_perf.txt" | sort -u | grep -v '^0' | tr '\n' ' ')
if [ "$got" = "helper hwptest_end hwptest_init hwptest_work " ]; then
	pass "ko_names_text ($got)"
else
	fail "ko_names_text: symbols named: '$got', want helper hwptest_end hwptest_init hwptest_work"
fi
compare ko_absent_vs_perf
compare ko_stale_vs_perf --symfs "$tmp/stale"
HOME=$tmp/home "$HWPROF" branches -v -i "$tmp/k.data" --symfs "$tmp/symfs" >/dev/null 2>"$tmp/said.err"
HOME=$tmp/home "$HWPROF" branches -v -i "$tmp/k.data" --symfs "$tmp/stale" >/dev/null 2>"$tmp/stale.err"
if grep -q "hwptest.ko: symbols from $tmp/symfs$mod (4 in .text, loaded at $base)" "$tmp/said.err" &&
	grep -q "hwptest.ko: no usable .ko (.*build-id.*): symbols from kallsyms" "$tmp/stale.err"; then
	pass "ko_said (-v names the .ko read, and why another is not)"
else
	fail "ko_said: $(grep hwptest "$tmp/said.err" "$tmp/stale.err" | head -3 | tr '\n' '|')"
fi

# compressed modules: the recording names the .ko.xz / .ko.zst perf record found
gen() { python3 "$tools/gen_kmod_perfdata.py" "$1" "$tmp/symfs$mod" "$2" "$base" 0x2400; }
mkdir -p "$tmp/cz${mod%/*}" "$tmp/bad${mod%/*}"
xz -c "$tmp/symfs$mod" >"$tmp/cz$mod.xz" 2>/dev/null
zstd -q -c "$tmp/symfs$mod" >"$tmp/cz$mod.zst" 2>/dev/null
# compressed NAME EXT PROGRAM: the recording of the module as a .ko.EXT (compressed
# by PROGRAM) into $tmp/kEXT.data and hwprof's rows of it into $tmp/EXT.txt;
# 1 (NAME skipped or failed) when the program or the recording is missing
compressed() {
	local name=$1 ext=$2 program=$3
	if ! command -v "$program" >/dev/null; then
		skip "$name: no $program program"
		return 1
	fi
	if [ ! -s "$tmp/cz$mod.$ext" ] || ! gen "$tmp/k$ext.data" "$mod.$ext"; then
		fail "$name: could not compress the module ($program) or write the recording"
		return 1
	fi
	HOME=$tmp/home "$HWPROF" branches -i "$tmp/k$ext.data" --symfs "$tmp/cz" --sort "$keys" >"$tmp/$ext.txt" 2>&1
}
if ! grep -q -- -DHAVE_LZMA "$build/config.stamp" 2>/dev/null; then
	skip "ko_xz_vs_perf: built without liblzma"
elif compressed ko_xz_vs_perf xz xz; then
	if grep -q " helper" "$tmp/xz.txt"; then
		data=$tmp/kxz.data compare ko_xz_vs_perf --symfs "$tmp/cz"
	else
		fail "ko_xz_vs_perf: no symbol of the module named: $(grep -v '^#' "$tmp/xz.txt" | head -2 | tr '\n' '|')"
	fi
fi
if compressed ko_zst_as_ko zst zstd; then
	if cmp -s "$tmp/zst.txt" "$tmp/ko_symbols_vs_perf.txt"; then
		pass "ko_zst_as_ko ($(grep -vc '^#' "$tmp/zst.txt") rows, as the .ko's)"
	else
		fail "ko_zst_as_ko: $(diff "$tmp/ko_symbols_vs_perf.txt" "$tmp/zst.txt" | head -3 | tr '\n' '|')"
	fi
fi
# corrupt: truncated xz and zstd, and bytes that are no compressed file
bad=
head -c 300 "$tmp/cz$mod.zst" >"$tmp/bad$mod.zst"
for kind in zst xz junk; do
	case $kind in
	zst) gen "$tmp/kbad.data" "$mod.zst" ;;
	xz) head -c 300 "$tmp/cz$mod.xz" >"$tmp/bad$mod.xz"; gen "$tmp/kbad.data" "$mod.xz" ;;
	junk) head -c 4000 /dev/urandom >"$tmp/bad$mod.xz"; gen "$tmp/kbad.data" "$mod.xz" ;;
	esac
	HOME=$tmp/home "$HWPROF" branches -v -i "$tmp/kbad.data" --symfs "$tmp/bad" --sort "$keys" \
		>"$tmp/bad.txt" 2>"$tmp/bad.err"
	rc=$?
	said=$(grep -c "hwptest.ko.*: no usable .ko (.*bad.*hwptest.ko.*): symbols from kallsyms" "$tmp/bad.err")
	rows=$(grep -vc '^#' "$tmp/bad.txt")
	named=$(grep -c " helper" "$tmp/bad.txt")
	[ "$rc" = 0 ] && [ "$said" = 1 ] && [ "$rows" -gt 100 ] && [ "$named" = 0 ] ||
		bad="$bad $kind(exit $rc, said $said, $rows rows, $named named: $(grep hwptest "$tmp/bad.err" | head -1))"
done
if [ -z "$bad" ]; then
	pass "ko_compressed_corrupt (truncated xz, zstd and junk: said, rows without the module's names)"
else
	fail "ko_compressed_corrupt:$bad"
fi
