#!/bin/bash
# hwprof ranges --format profgen against llvm-profgen-19 on emulated
# recordings: a PIE and a non-PIE fixture, a shared library (--binary) and a
# real program (SQLite + zlib, statically linked, as realworld_vs_perf.sh
# builds it):
#   - range by range and branch by branch equal to llvm-profgen-19
#     --skip-symbolization, but for the one documented rule difference that
#     tests/tools/profgen_compare.py names ('plt': llvm-profgen counts only
#     code covered by function symbols, so the PLT is "external" to it);
#   - llvm-profgen-19 --unsymbolized-profile reads hwprof's file and writes
#     the same text profile as from the recording (--perfdata);
#   - hwprof ranges --format autofdo equals tests/tools/autofdo_ref.py, the
#     AutoFDO rules ('simpleperf inject') applied to perf's own text, and
#     AutoFDO's create_llvm_prof (Debian autofdo; skipped without it) makes
#     the same profile from hwprof's text as from the recording (fixtures
#     built with DWARF 4, which autofdo 0.19 reads).
# Skips when llvm-profgen-19 is absent (Debian llvm-19).
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 4 checks for each of the 3 fixtures, 3 for SQLite (1 SKIP without
# its static library); 1 (the SKIP) where a tool is missing
ready=$(emu_ready ranges_profgen) || { echo "PLAN 1"; echo "$ready"; exit 0; }
profgen=$(command -v llvm-profgen-19 || echo /usr/lib/llvm-19/bin/llvm-profgen)
if [ ! -x "$profgen" ]; then
	echo "PLAN 1"
	skip "ranges_profgen: llvm-profgen-19 not installed (apt-get install llvm-19)"
	exit 0
fi
if ! command -v perf >/dev/null || ! command -v readelf >/dev/null; then
	echo "PLAN 1"
	skip "ranges_profgen: perf or readelf not installed"
	exit 0
fi
lib=/usr/lib/x86_64-linux-gnu
if [ ! -f $lib/libsqlite3.a ] || [ ! -f $lib/libz.a ] || [ ! -f /usr/include/sqlite3.h ]; then
	echo "PLAN 13"
else
	echo "PLAN 15"
fi
fx=$root/tests/fixtures
cd "$tmp" || exit 1

# one_case NAME BINARY [--binary NAME] -- PROG ARGS: records PROG, compares BINARY's profiles
one_case() {
	local name=$1 bin=$2 sel=()
	shift 2
	if [ "$1" = --binary ]; then sel=(--binary "$2"); shift 2; fi
	shift # --
	if ! emu_record "$name" -c 1000 -- "$@"; then
		fail "ranges_profgen_record_$name: $(head -1 "$tmp/$name.err")"
		return
	fi
	local data=$tmp/$name.data out
	if ! "$HWPROF" ranges -i "$data" --format profgen "${sel[@]}" -o "$tmp/$name.hw.txt" 2>"$tmp/$name.hw.err"; then
		fail "ranges_profgen_$name: hwprof failed: $(head -1 "$tmp/$name.hw.err")"
		return
	fi
	"$profgen" --perfdata "$data" --binary "$bin" --skip-symbolization -o "$tmp/$name.pg.txt" \
		>"$tmp/$name.pg.out" 2>&1
	if out=$(python3 "$tools/profgen_compare.py" "$bin" "$tmp/$name.hw.txt" "$tmp/$name.pg.txt"); then
		pass "ranges_profgen_$name ($out)"
	else
		fail "ranges_profgen_$name: $out"
	fi
	# llvm-profgen reads hwprof's file and makes the profile it makes from the recording
	"$profgen" --perfdata "$data" --binary "$bin" --format=text -o "$tmp/$name.from_data.prof" \
		>/dev/null 2>&1
	"$profgen" --unsymbolized-profile "$tmp/$name.hw.txt" --binary "$bin" --format=text \
		-o "$tmp/$name.from_hw.prof" >"$tmp/$name.rt.out" 2>&1
	if [ -s "$tmp/$name.from_data.prof" ] && cmp -s "$tmp/$name.from_data.prof" "$tmp/$name.from_hw.prof"; then
		pass "ranges_profgen_roundtrip_$name ($(grep -c . "$tmp/$name.from_hw.prof") profile lines)"
	else
		fail "ranges_profgen_roundtrip_$name: $(grep -m1 -i error "$tmp/$name.rt.out" ||
			diff "$tmp/$name.from_data.prof" "$tmp/$name.from_hw.prof" | head -3 | tr '\n' ' ')"
	fi
	# AutoFDO text against its rules run on perf's text
	"$HWPROF" ranges -i "$data" --format autofdo "${sel[@]}" 2>/dev/null | grep -v '^//' | grep . \
		>"$tmp/$name.afdo.txt"
	perf script --show-mmap-events --show-task-events -F pid,tid,ip,brstack -i "$data" 2>/dev/null |
		python3 "$tools/autofdo_ref.py" "$bin" >"$tmp/$name.afdo_ref.txt"
	if [ -s "$tmp/$name.afdo_ref.txt" ] && cmp -s "$tmp/$name.afdo.txt" "$tmp/$name.afdo_ref.txt"; then
		pass "ranges_autofdo_$name ($(head -1 "$tmp/$name.afdo.txt") ranges)"
	else
		fail "ranges_autofdo_$name: $(diff "$tmp/$name.afdo_ref.txt" "$tmp/$name.afdo.txt" | head -3 | tr '\n' ' ')"
	fi
	[ "$afdo_check" = yes ] || return 0
	if ! command -v create_llvm_prof >/dev/null; then
		skip "ranges_autofdo_create_llvm_prof_$name: create_llvm_prof not installed (apt-get install autofdo)"
		return
	fi
	"$HWPROF" ranges -i "$data" --format autofdo "${sel[@]}" -o "$tmp/$name.afdo_full.txt" 2>/dev/null
	create_llvm_prof --binary="$bin" --profile="$tmp/$name.afdo_full.txt" --profiler=text --format=text \
		--out="$tmp/$name.cl_hw.prof" >/dev/null 2>&1
	create_llvm_prof --binary="$bin" --profile="$data" --profiler=perf --format=text \
		--out="$tmp/$name.cl_data.prof" >/dev/null 2>&1
	if [ -s "$tmp/$name.cl_data.prof" ] && cmp -s "$tmp/$name.cl_data.prof" "$tmp/$name.cl_hw.prof"; then
		pass "ranges_autofdo_create_llvm_prof_$name ($(head -1 "$tmp/$name.cl_hw.prof"))"
	else
		fail "ranges_autofdo_create_llvm_prof_$name: $(diff "$tmp/$name.cl_data.prof" "$tmp/$name.cl_hw.prof" 2>&1 | head -3 | tr '\n' ' ')"
	fi
}

afdo_check=yes
if gcc -O2 -gdwarf-4 -fPIE -pie -o "$tmp/hot_pie" "$fx/pgo_hot.c" 2>"$tmp/gcc.err" &&
	gcc -O2 -gdwarf-4 -no-pie -o "$tmp/hot_nopie" "$fx/pgo_hot.c" 2>>"$tmp/gcc.err" &&
	gcc -O2 -gdwarf-4 -fPIC -shared -o "$tmp/libpgo.so" "$fx/pgo_lib.c" 2>>"$tmp/gcc.err" &&
	gcc -O2 -gdwarf-4 -o "$tmp/pgo_driver" "$fx/pgo_driver.c" -L"$tmp" -lpgo -Wl,-rpath,"$tmp" 2>>"$tmp/gcc.err"; then
	one_case pie "$tmp/hot_pie" -- "$tmp/hot_pie"
	one_case nopie "$tmp/hot_nopie" -- "$tmp/hot_nopie"
	one_case shlib "$tmp/libpgo.so" --binary libpgo.so -- "$tmp/pgo_driver"
else
	fail "ranges_profgen_build: $(head -1 "$tmp/gcc.err")"
fi

lib=/usr/lib/x86_64-linux-gnu
if [ ! -f $lib/libsqlite3.a ] || [ ! -f $lib/libz.a ] || [ ! -f /usr/include/sqlite3.h ]; then
	skip "ranges_profgen_sqlite: no static SQLite/zlib (apt-get install libsqlite3-dev zlib1g-dev)"
elif gcc -O2 -g -o "$tmp/sqlite" "$fx/realworld_sqlite.c" -l:libsqlite3.a -l:libz.a -lm 2>"$tmp/gcc.err"; then
	afdo_check=no # DWARF 5 in the static libraries: create_llvm_prof 0.19 writes nothing
	one_case sqlite "$tmp/sqlite" -- "$tmp/sqlite" 2000
else
	fail "ranges_profgen_build_sqlite: $(head -1 "$tmp/gcc.err")"
fi
