#!/bin/bash
# shellcheck disable=SC2034,SC2154 # sourced: sets and reads the caller's variables
# Sourced by bench/run.sh: makes the recordings the table measures, each
# once (kept in $dir, named by size; delete one to make it again). Needs
# $BUILD, $HWPROF, $dir, $MB. Sets the paths below; an input that cannot be
# made leaves its variable empty (its rows print why).
#   in_branch   gen_branch_perfdata: branch stacks, $MB MB (32 entries a sample)
#   in_call     gen_branch_perfdata --callchain: call stacks, $MB MB
#   symfs, elf  the generated module as an ELF file, under a symfs: both
#               recordings name it (same seed: the same code and symbols)
#   in_sqlite   hwprof record --emulate -c 13 of SQLite built with -O2 -g
#               (a real program with a large binary: the PGO rows), about
#               350 MB at MB=1100, scaled with MB
#   sqlite_bin  that binary (9 MB, DWARF included; linked with --emit-relocs
#               for BOLT)
#   in_mem      hwprof record --emulate --mem -c 5 of the same binary:
#               precise memory samples, about 2/3 of MB (10 M samples at 1100)
#   why_sqlite  why in_sqlite and in_mem are empty
#   in_probe    hwprof record --emulate -c 13 of SQLite built by clang-19 with
#               -fpseudo-probe-for-profiling (the llvm-cs row), the size of
#               in_sqlite; probe_bin that binary; why_probe why it is empty
# SQLite's source: $SQLITE_AMALGAMATION (a directory with sqlite3.c and
# sqlite3.h), else the amalgamation that the npm package better-sqlite3
# ships (`npm pack`: downloaded, not installed or built).
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SQLITE_NPM=better-sqlite3@12.11.1 # SQLite 3.53.2

make_inputs() {
	symfs=$dir/sym
	elf=$symfs/usr/lib/hwprof-bench/libbenchfake.so # the path the generator's MMAP2 names
	mkdir -p "${elf%/*}"
	in_branch=$dir/branches-${MB}mb.perf.data
	in_call=$dir/callchain-${MB}mb.perf.data
	[ -f "$in_branch" ] && [ -f "$elf" ] ||
		"$BUILD/bench/gen_branch_perfdata" "$in_branch" "$MB" --elf "$elf" >/dev/null
	[ -f "$in_call" ] || "$BUILD/bench/gen_branch_perfdata" "$in_call" "$MB" --callchain --elf "$elf" >/dev/null
	make_sqlite_inputs || { in_sqlite='' in_mem='' sqlite_bin=''; }
	make_probe_input || { in_probe='' probe_bin=''; }
}

make_probe_input() {
	local src=${SQLITE_AMALGAMATION:-$dir/sqlite/amal} mb rows
	probe_bin=$dir/sqlite/sqlite-probe
	if ! command -v clang-19 >/dev/null; then
		why_probe="no clang-19 (apt-get install clang-19)"
		return 1
	fi
	[ -f "$src/sqlite3.c" ] || { why_probe=${why_sqlite:-no SQLite source}; return 1; }
	if [ ! -x "$probe_bin" ]; then
		echo "bench: compiling SQLite with clang-19 -fpseudo-probe-for-profiling (a few minutes) ..." >&2
		clang-19 -O2 -g -fpseudo-probe-for-profiling -I"$src" -o "$probe_bin" "$root/tests/fixtures/realworld_sqlite.c" \
			"$src/sqlite3.c" -l:libz.a -lm -lpthread || { why_probe="compiling SQLite with clang-19 failed"; return 1; }
	fi
	mb=$((MB * 350 / 1100))
	in_probe=$dir/sqlite/probe-${mb}mb.perf.data
	rows=$((mb * 20))
	[ -f "$in_probe" ] || "$HWPROF" record -q --emulate -c 13 -o "$in_probe" -- "$probe_bin" "$rows" >/dev/null ||
		{ why_probe="hwprof record --emulate failed"; return 1; }
}

make_sqlite_inputs() {
	local src=${SQLITE_AMALGAMATION:-$dir/sqlite/amal} mb rows
	sqlite_bin=$dir/sqlite/sqlite-g
	mkdir -p "$dir/sqlite"
	if [ ! -f "$src/sqlite3.c" ]; then
		if ! command -v npm >/dev/null; then
			why_sqlite="no SQLite source: set SQLITE_AMALGAMATION or install npm"
			return 1
		fi
		if ! (cd "$dir/sqlite" && npm pack -q "$SQLITE_NPM" >npm.log 2>&1 &&
			tar xzf better-sqlite3-*.tgz package/deps/sqlite3 && rm -rf amal &&
			mv package/deps/sqlite3 amal && rm -rf package better-sqlite3-*.tgz); then
			why_sqlite="npm pack $SQLITE_NPM failed: see $dir/sqlite/npm.log"
			return 1
		fi
	fi
	if [ ! -x "$sqlite_bin" ]; then
		echo "bench: compiling SQLite with -O2 -g (about a minute) ..." >&2
		gcc -O2 -g -Wl,--emit-relocs -I"$src" -o "$sqlite_bin" "$root/tests/fixtures/realworld_sqlite.c" \
			"$src/sqlite3.c" -l:libz.a -lm -lpthread || { why_sqlite="compiling SQLite failed"; return 1; }
	fi
	# rows per MB, measured: 20 at -c 13 (branch stacks), 24 at -c 5 (memory samples)
	mb=$((MB * 350 / 1100))
	in_sqlite=$dir/sqlite/sqlite-${mb}mb.perf.data
	rows=$((mb * 20))
	[ -f "$in_sqlite" ] || "$HWPROF" record -q --emulate -c 13 -o "$in_sqlite" -- "$sqlite_bin" "$rows" >/dev/null ||
		{ why_sqlite="hwprof record --emulate failed"; return 1; }
	mb=$((MB * 2 / 3))
	in_mem=$dir/sqlite/mem-${mb}mb.perf.data
	rows=$((mb * 24))
	[ -f "$in_mem" ] || "$HWPROF" record -q --emulate --mem -c 5 -o "$in_mem" -- "$sqlite_bin" "$rows" >/dev/null ||
		{ why_sqlite="hwprof record --emulate --mem failed"; return 1; }
}
