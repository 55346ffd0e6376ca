#!/bin/bash
# Paths with a newline (any byte but NUL and '/' is a valid file name):
# /proc/PID/maps writes the newline as "\012", which the emulated capture
# and the recorder's synthesized maps read back to the name the kernel has:
#  - emulated recording of a fixture under a directory 'new<newline>line':
#    its build-id (readelf -n) is among the recording's build-ids, and the
#    branches report names its functions (nm) instead of addresses;
#  - hwprof itself under such a directory records a program (cpu-clock):
#    the synthesized map of the child before its exec names hwprof's path
#    with the newline (read back with perf 6.1's script --show-mmap-events).
. "$(dirname "$0")/../tools/emu_lib.sh"
ready=$(emu_ready record_newline_path) || { echo "PLAN 1"; echo "$ready"; exit 0; }
echo "PLAN 3"
emu_build basic || exit 0
d="$tmp/new
line"
mkdir -p "$d" && cp "$tmp/basic" "$d/basic"
bid=$(readelf -n "$tmp/basic" | sed -n 's/.*Build ID: *//p')
if ! "$HWPROF" record --emulate -c 1000 -o "$tmp/nl.data" -- "$d/basic" >/dev/null 2>"$tmp/rec.err"; then
	fail "record_newline_path: record: $(head -1 "$tmp/rec.err")"; exit 0
fi
# has TEXT: stdin holds the bytes of TEXT and a newline (grep would take
# TEXT's newline for two patterns)
has() { python3 -c 'import sys; sys.exit(sys.argv[1].encode() + b"\n" not in sys.stdin.buffer.read())' "$1"; }
if "$HWPROF" info -i "$tmp/nl.data" 2>/dev/null | has "#   $bid $d/basic"; then
	pass "record_newline_path_build_id: the fixture's build-id $bid is recorded for its path"
else
	fail "record_newline_path_build_id: no build-id $bid: $("$HWPROF" info -i "$tmp/nl.data" 2>&1 | grep -A4 'build ids' | tr '\n' ' ')"
fi
# the fixture's functions in the branches report: those nm names, none left as an address
"$HWPROF" branches -i "$tmp/nl.data" --sort dso_from,symbol_from 2>/dev/null |
	awk '$3 == "basic" { print $5 }' | sort -u >"$tmp/syms"
nm --defined-only "$tmp/basic" | awk '$2 ~ /[tT]/ { print $3 }' | sort -u >"$tmp/nm"
if [ -s "$tmp/syms" ] && [ -z "$(comm -23 "$tmp/syms" "$tmp/nm")" ]; then
	pass "record_newline_path_symbols: the fixture's branches are in its functions: $(tr '\n' ' ' <"$tmp/syms")"
else
	fail "record_newline_path_symbols: not nm's functions: $(comm -23 "$tmp/syms" "$tmp/nm" | head -3 | tr '\n' ' ') (of $(wc -l <"$tmp/syms"))"
fi
if ! command -v perf >/dev/null; then
	skip "record_newline_path_recorder: perf not installed"
else
	cp "$HWPROF" "$d/hwprof"
	"$d/hwprof" record -e cpu-clock -o "$tmp/rec.data" -- /bin/true >/dev/null 2>"$tmp/rec2.err"
	if perf script -i "$tmp/rec.data" --show-mmap-events 2>/dev/null | has "$d/hwprof"; then
		pass "record_newline_path_recorder: the synthesized map names $(printf %q "$d/hwprof")"
	else
		fail "record_newline_path_recorder: $(head -1 "$tmp/rec2.err") $(perf script -i "$tmp/rec.data" --show-mmap-events 2>&1 | grep -m1 -a 'hwprof' | cut -c1-160)"
	fi
fi
