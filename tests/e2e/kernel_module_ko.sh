#!/bin/bash
# A kernel module's symbols from its own .ko, as perf 6.1 reads them: a
# stand-in module (tests/fixtures/kmod_hwptest.c built with gcc -c and
# ld -r --build-id, a relocatable file like a .ko) and a recording whose
# MMAP places it at 0xffffffffc0a00000 with branch entries every 7 bytes of
# its map (tests/tools/gen_kmod_perfdata.py). Branch rows per module and
# symbol equal perf report -b's: with the .ko under --symfs (.text's
# symbols at the load address; addresses no symbol covers print as perf's
# offset in the module's map), without it, and with a .ko of another
# build-id (not used, by either).
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
echo "PLAN 5"
names="ko_symbols_vs_perf ko_names_text ko_absent_vs_perf ko_stale_vs_perf ko_said"
if ! command -v perf >/dev/null || ! command -v gcc >/dev/null || ! command -v ld >/dev/null ||
	! command -v readelf >/dev/null; then
	for n in $names; do skip "$n: needs perf, gcc, ld and readelf"; done
	exit 0
fi
mod=/lib/modules/6.1.0-hwptest/kernel/drivers/misc/hwptest.ko
keys=dso_from,symbol_from,dso_to,symbol_to
build_ko() { # out.ko [extra cflags]
	gcc -O2 -c -fno-pic -fno-asynchronous-unwind-tables ${2:-} "$root/tests/fixtures/kmod_hwptest.c" \
		-o "$tmp/ko.o" && ld -r --build-id=sha1 -o "$1" "$tmp/ko.o"
}
mkdir -p "$tmp/symfs${mod%/*}" "$tmp/stale${mod%/*}" "$tmp/home"
if ! build_ko "$tmp/symfs$mod" || ! build_ko "$tmp/stale$mod" -O1 ||
	! python3 "$tools/gen_kmod_perfdata.py" "$tmp/k.data" "$tmp/symfs$mod" "$mod" 0xffffffffc0a00000 0x400; then
	for n in $names; do fail "$n: could not build the module or the recording"; done
	exit 0
fi
# compare NAME [hwprof and perf options]: rows of both equal
compare() {
	local name=$1
	shift
	HOME=$tmp/home perf report -b -i "$tmp/k.data" "$@" --stdio -F "overhead,sample,$keys" \
		>"$tmp/$name.perf" 2>/dev/null
	HOME=$tmp/home "$HWPROF" branches -i "$tmp/k.data" "$@" --sort "$keys" >"$tmp/$name.txt" \
		2>"$tmp/$name.err"
	if out=$(python3 "$root/tests/e2e/branches_compare.py" --unique "$tmp/$name.perf" "$tmp/$name.txt" "$keys" 2>&1)
	then
		pass "$name ($out)"
	else
		fail "$name: $out"
	fi
}
compare ko_symbols_vs_perf --symfs "$tmp/symfs"
# .text's three functions named (the comparison alone would pass if neither
# side read the .ko); the cold function of .text.unlikely never is
got=$(awk '!/^#/ {print $5}' "$tmp/ko_symbols_vs_perf.txt" | sort -u | grep -v '^0' | tr '\n' ' ')
if [ "$got" = "helper hwptest_init hwptest_work " ]; then
	pass "ko_names_text ($got)"
else
	fail "ko_names_text: symbols named: '$got', want helper hwptest_init hwptest_work"
fi
compare ko_absent_vs_perf
compare ko_stale_vs_perf --symfs "$tmp/stale"
HOME=$tmp/home "$HWPROF" branches -v -i "$tmp/k.data" --symfs "$tmp/symfs" >/dev/null 2>"$tmp/said.err"
HOME=$tmp/home "$HWPROF" branches -v -i "$tmp/k.data" --symfs "$tmp/stale" >/dev/null 2>"$tmp/stale.err"
if grep -q "hwptest.ko: symbols from $tmp/symfs$mod (3 in .text, loaded at 0xffffffffc0a00000)" "$tmp/said.err" &&
	grep -q "hwptest.ko: no usable .ko (.*build-id.*): symbols from kallsyms" "$tmp/stale.err"; then
	pass "ko_said (-v names the .ko read, and why another is not)"
else
	fail "ko_said: $(grep hwptest "$tmp/said.err" "$tmp/stale.err" | head -3 | tr '\n' '|')"
fi
