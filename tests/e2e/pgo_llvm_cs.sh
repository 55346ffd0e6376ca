#!/bin/bash
# hwprof pgo --format llvm-cs (CSSPGO's probe-based sample profile) against
# llvm-profgen-19 on emulated recordings of four programs built with clang-19
# -O2 -g -fpseudo-probe-for-profiling: two fixtures (pgo_llvm.c: inlined
# helpers, direct and indirect calls; pgo_switch.c: a jump table, a tail
# call) and two drivers linked against Debian's static libraries (SQLite +
# zlib, zlib alone; the libraries' code has no probes):
#   - the text profile byte for byte llvm-profgen-19 --perfdata's;
#   - clang-19 -fprofile-sample-use= -fpseudo-probe-for-profiling builds the
#     program with it, with no warning.
# With SQLITE_AMALGAMATION set (a directory with sqlite3.c and sqlite3.h,
# as bench/inputs.sh takes it), all of SQLite built with probes too (its
# 2.5 min compile): the same two checks; else those two SKIP.
# Skips without clang-19, llvm-profgen-19 or qemu (emulated recording); a
# driver skips without its static library.
. "$(dirname "$0")/../tools/emu_lib.sh"
echo "PLAN 10"
progs="pgo_llvm pgo_switch sqlite zlib sqlite_full"
ready=$(emu_ready pgo_llvm_cs) || {
	for p in $progs; do echo "$ready" | sed "s/pgo_llvm_cs/pgo_llvm_cs_$p/"; echo "$ready" | sed "s/pgo_llvm_cs/pgo_llvm_cs_build_$p/"; done
	exit 0
}
if ! command -v clang-19 >/dev/null || ! command -v llvm-profgen-19 >/dev/null; then
	for p in $progs; do
		skip "pgo_llvm_cs_$p: clang-19 or llvm-profgen-19 not installed (apt-get install clang-19 llvm-19)"
		skip "pgo_llvm_cs_build_$p: clang-19 or llvm-profgen-19 not installed"
	done
	exit 0
fi
fx=$root/tests/fixtures
lib=/usr/lib/x86_64-linux-gnu
cd "$tmp" || exit 1

# one_case NAME SOURCE 'ARGS' [MORE SOURCES, -I, LIBS...]; $use_src: what the
# build check compiles (default SOURCE)
one_case() {
	local name=$1 src=$2 args=$3
	shift 3
	for l in "$@"; do
		if [ "${l#-l:}" != "$l" ] && [ ! -f "$lib/${l#-l:}" ]; then
			skip "pgo_llvm_cs_$name: no ${l#-l:} (apt-get install libsqlite3-dev zlib1g-dev)"
			skip "pgo_llvm_cs_build_$name: no ${l#-l:}"
			return
		fi
	done
	local flags="-O2 -g -fpseudo-probe-for-profiling"
	# shellcheck disable=SC2086
	if ! clang-19 $flags -o "$name" "$src" "$@" -lm 2>"$name.cc" ||
		! emu_record "$name" -c 1000 -- "./$name" $args; then
		fail "pgo_llvm_cs_$name: build or record failed: $(head -1 "$name.cc") $(head -1 "$name.err")"
		fail "pgo_llvm_cs_build_$name: not built"
		return
	fi
	llvm-profgen-19 --perfdata "$name.data" --binary "$name" --format=text -o "$name.pg.prof" >"$name.pg.out" 2>&1
	if ! "$HWPROF" pgo -i "$name.data" --format llvm-cs --binary "$name" -o "$name.hw.prof" 2>"$name.hw.err"; then
		fail "pgo_llvm_cs_$name: $(head -1 "$name.hw.err")"
	elif [ -s "$name.pg.prof" ] && cmp -s "$name.pg.prof" "$name.hw.prof"; then
		pass "pgo_llvm_cs_$name (byte for byte llvm-profgen-19's: $(grep -c '^[^ ]' "$name.hw.prof") functions, $(grep -c 'CFGChecksum' "$name.hw.prof") checksums, $(wc -l <"$name.hw.prof") lines)"
	else
		fail "pgo_llvm_cs_$name: $(diff "$name.pg.prof" "$name.hw.prof" | head -4 | tr '\n' ' ')"
	fi
	# shellcheck disable=SC2086
	if clang-19 $flags -fprofile-sample-use="$name.hw.prof" -c -o "$name.o" ${use_src:-$src} 2>"$name.use.err" &&
		! grep -q . "$name.use.err"; then
		pass "pgo_llvm_cs_build_$name (clang-19 -fprofile-sample-use builds it, no warning)"
	else
		fail "pgo_llvm_cs_build_$name: $(head -2 "$name.use.err" | tr '\n' ' ')"
	fi
}

one_case pgo_llvm "$fx/pgo_llvm.c" ""
one_case pgo_switch "$fx/pgo_switch.c" ""
one_case sqlite "$fx/realworld_sqlite.c" "2000" -l:libsqlite3.a -l:libz.a
one_case zlib "$fx/flow_zlib.c" "512" -l:libz.a
amal=${SQLITE_AMALGAMATION:-}
if [ -n "$amal" ] && [ -f "$amal/sqlite3.c" ] && [ -f "$amal/sqlite3.h" ]; then
	cp "$amal/sqlite3.c" "$amal/sqlite3.h" . &&
		use_src="-I. sqlite3.c" one_case sqlite_full "$fx/realworld_sqlite.c" "3000" -I. sqlite3.c -l:libz.a
else
	skip "pgo_llvm_cs_sqlite_full: SQLITE_AMALGAMATION (sqlite3.c, sqlite3.h) not set"
	skip "pgo_llvm_cs_build_sqlite_full: SQLITE_AMALGAMATION not set"
fi
