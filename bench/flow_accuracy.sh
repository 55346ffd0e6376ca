#!/bin/bash
# Accuracy of hwprof probs / blocks on real programs built from source with
# debug info: zlib (a compressor), SQLite (a database) and Lua 5.4 (an
# interpreter loop), from Debian's source packages (`apt-get source`, which
# needs deb-src lines), each compiled here with -O2 -g and linked with the
# drivers of tests/e2e/flow_exact.sh (tests/fixtures/flow_zlib.c,
# realworld_sqlite.c, flow_lua.c). Each program is recorded as flow_exact.sh
# does (`hwprof record --emulate -c PERIOD --jitter 10 --exact`) and
# tests/tools/flow_check.py compares hwprof's estimates with the exact
# counts. Prints one table row per program, period and run: conditional
# branches with >= 1000 sampled executions (and how many hwprof places at a
# source line: the debug info is used), their max |dp|, how many are
# beyond the larger of 0.02 and 6 binomial sigmas (flow_exact.sh's bound for
# real programs: hundreds of branches near 1000 samples put the plain max
# above 0.02 by chance in some runs), how many exact p lie in hwprof's 95%
# interval, Spearman over blocks with >= 100 sampled executions and the
# blocks' z-score spread (1 = sampling noise). At a period below the
# program's first one, the threshold of 100 admits more (colder) blocks;
# Spearman is then also given over the blocks with >= 100 * FIRST / PERIOD
# sampled executions, about the same blocks as at the first period, so that
# the two rhos differ by the sampling rate only (for SQLite they do not:
# its rho rises at lower periods by the colder blocks, whose exact counts
# differ more, while hundreds of blocks run once per row, tied).
#
# A measurement, not a test (not part of make test): a program whose source
# cannot be had (no deb-src, no network, no tclsh for SQLite's amalgamation)
# is skipped with a message. Exits 1 only when a build, recording or
# analysis fails, whatever the numbers.
#
# Usage: bench/flow_accuracy.sh [BUILD_DIR]
#   $SRC_DIR         where source packages are looked for and fetched
#                    (default $BENCH_DIR/flow-accuracy/src; $BENCH_DIR as
#                    for the other benchmarks, BUILD_DIR/bench-data): an
#                    extracted tree (zlib-*/, sqlite3-*/, lua5.4-*/), a
#                    .dsc or an orig tarball there is used before
#                    apt-get source
#   $ZLIB_PERIODS, $SQLITE_PERIODS, $LUA_PERIODS
#                    the -c values to record with (defaults 997, "211 101 53",
#                    997; flow_exact.sh uses 997, 211, 997)
#   $RUNS            recordings per program and period (default 1; each
#                    has its own random period jitter)
#   $ONLY            e.g. "sqlite": only those programs
#   $KEEP=1          keep the recordings ($BENCH_DIR/flow-accuracy/run/*/data;
#                    up to 0.8 GB each), not only the exact counts and JSON
set -euo pipefail
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
HWPROF=$(cd "$BUILD" && pwd)/hwprof
work=${BENCH_DIR:-$BUILD/bench-data}/flow-accuracy
SRC_DIR=${SRC_DIR:-$work/src}
ZLIB_PERIODS=${ZLIB_PERIODS:-997}
SQLITE_PERIODS=${SQLITE_PERIODS:-211 101 53}
LUA_PERIODS=${LUA_PERIODS:-997}
ONLY=${ONLY:-zlib sqlite lua}
KEEP=${KEEP:-0}
RUNS=${RUNS:-1}
cflags=(-O2 -g)
mkdir -p "$work" "$SRC_DIR"
work=$(cd "$work" && pwd)
SRC_DIR=$(cd "$SRC_DIR" && pwd)

say() { echo "flow_accuracy: $*" >&2; }
for t in gcc ar qemu-x86_64 objdump python3; do
	command -v $t >/dev/null || { say "skipped: $t not installed"; exit 0; }
done
[ -x "$HWPROF" ] || { say "skipped: no $HWPROF (make first)"; exit 0; }
if ! "$HWPROF" record --emulate -o "$work/probe.data" -- /bin/true >/dev/null 2>"$work/probe.err"; then
	say "skipped: record --emulate does not run here: $(head -1 "$work/probe.err")"
	exit 0
fi

# source PKG GLOB: prints the extracted source tree of Debian source package
# PKG (directory SRC_DIR/GLOB), extracting or fetching it first; returns 1
# (with a message) when it cannot be had.
source_tree() {
	local pkg=$1 glob=$2 f
	tree_in "$glob" && return 0
	if [ -z "$(newest "$SRC_DIR/${pkg}"_*.dsc "$SRC_DIR/${pkg}"_*.orig.tar.*)" ]; then
		if ! command -v apt-get >/dev/null; then
			say "$pkg: no source in $SRC_DIR and no apt-get"
			return 1
		fi
		if ! (cd "$SRC_DIR" && apt-get source --download-only "$pkg") >"$work/$pkg.apt.log" 2>&1; then
			say "$pkg: apt-get source failed (deb-src configured?): $(grep -m1 '^E:' "$work/$pkg.apt.log" || tail -1 "$work/$pkg.apt.log")"
			return 1
		fi
	fi
	# the Debian tree (patches applied) when dpkg-source can, else the orig tarball
	f=$(newest "$SRC_DIR/${pkg}"_*.dsc)
	if [ -n "$f" ] && command -v dpkg-source >/dev/null; then
		(cd "$SRC_DIR" && dpkg-source -x "$f") >"$work/$pkg.x.log" 2>&1 ||
			say "$pkg: dpkg-source -x failed: $(tail -1 "$work/$pkg.x.log")"
	fi
	if ! tree_in "$glob" >/dev/null; then
		f=$(newest "$SRC_DIR/${pkg}"_*.orig.tar.*)
		[ -z "$f" ] || tar -C "$SRC_DIR" -xf "$f"
	fi
	tree_in "$glob" && return 0
	say "$pkg: no source tree $glob after extracting"
	return 1
}

# newest FILE...: the last existing FILE in version order (glob leftovers
# that match nothing are dropped)
newest() {
	local f
	for f in "$@"; do
		[ -e "$f" ] && echo "$f"
	done | sort -V | tail -1
}

# tree_in GLOB: prints the directory SRC_DIR/GLOB, if there is one
tree_in() {
	local d
	# shellcheck disable=SC2086 # GLOB is a pattern
	for d in "$SRC_DIR"/$1/; do
		[ -d "$d" ] && { echo "${d%/}"; return 0; }
	done
	return 1
}

# version TREE: the Debian version from debian/changelog, else the tree's name
version() {
	if [ -f "$1/debian/changelog" ]; then
		sed -n '1s/^\([^ ]*\) (\([^)]*\)).*/\1 \2/p' "$1/debian/changelog"
	else
		basename "$1"
	fi
}

# lib_objs OUT.a OBJDIR SRCS...: compiles SRCS with $cflags $extra into
# OUT.a, two at a time
extra=()
lib_objs() {
	local out=$1 objdir=$2 s
	shift 2
	mkdir -p "$objdir"
	# shellcheck disable=SC2016 # expanded by sh -c
	printf '%s\n' "$@" | xargs -P 2 -I{} sh -c 'o=$1; shift; exec gcc "$@" -c "$0" -o "$o/$(basename "$0" .c).o"' \
		{} "$objdir" "${cflags[@]}" "${extra[@]}"
	rm -f "$out"
	for s in "$@"; do echo "$objdir/$(basename "$s" .c).o"; done | xargs ar rcs "$out"
}

versions=()
rows=()
fails=0

# check NAME BINARY PERIOD FIRST RUN -- PROG ARGS: records and compares (as
# tests/e2e/flow_exact.sh); appends a table row. FIRST: the program's first
# period (the block threshold is scaled to it)
check() {
	local name=$1 bin=$2 period=$3 first=$4 run=$5 t0 t1 same=-
	shift 6
	local d=$work/run/$name-c$period-$run
	mkdir -p "$d"
	objdump -h "$bin" >"$d/sections"
	if ! grep -q '\.debug_info' "$d/sections"; then
		say "$name: $bin has no debug info"
		fails=$((fails + 1))
		return
	fi
	t0=$(date +%s)
	if ! "$HWPROF" record --emulate -c "$period" --jitter 10 --exact "$d/exact" \
		-o "$d/data" -- "$@" >"$d/out" 2>"$d/err"; then
		say "$name -c $period: record failed: $(head -1 "$d/err")"
		fails=$((fails + 1))
		return
	fi
	local cmd
	for cmd in "probs" "blocks"; do
		# shellcheck disable=SC2086
		if ! "$HWPROF" $cmd -q --json -i "$d/data" >"$d/$cmd.json" 2>"$d/cmd.err"; then
			say "$name -c $period: hwprof $cmd failed: $(head -1 "$d/cmd.err")"
			fails=$((fails + 1))
			return
		fi
	done
	t1=$(date +%s)
	[ "$KEEP" = 1 ] || rm -f "$d/data"
	# --assert --dp-noise 6 only to count the branches beyond flow_exact.sh's
	# bound for real programs (exit status 1 when there are any)
	python3 "$root/tests/tools/flow_check.py" "$name" "$d/exact" "$bin" \
		"$d/probs.json" "$d/blocks.json" --assert --dp-noise 6 --no-assert-rho >"$d/check" 2>&1 || true
	if [ -z "$(sed -n "1{/conditional branches/p}" "$d/check")" ]; then
		say "$name -c $period: flow_check failed: $(tail -1 "$d/check")"
		fails=$((fails + 1))
		return
	fi
	echo "NUMBERS $(head -1 "$d/check") [$((t1 - t0)) s]"
	if [ "$period" != "$first" ]; then
		local mb=$((100 * first / period))
		python3 "$root/tests/tools/flow_check.py" "$name" "$d/exact" "$bin" \
			"$d/probs.json" "$d/blocks.json" --min-block "$mb" >"$d/check.same" 2>&1 &&
			same=$(sed -n 's/.*Spearman \([0-9.na-]*\) over \([0-9]*\) blocks.*/\1 (\2, >= '"$mb"')/p' "$d/check.same")
	fi
	rows+=("$(python3 - "$d/check" "$period" "$((t1 - t0))" "$same" "$d/probs.json" "$bin" <<'PY'
import json, os, re, sys
line = open(sys.argv[1]).readline()
def g(pat, conv=str):
    m = re.search(pat, line)
    return conv(m.group(1)) if m else "?"
name = line.split(":")[0]
n_br = g(r": (\d+) conditional branches")
dp = g(r"max \|dp\| ([0-9.]+)")
inside = g(r"interval for (\d+/\d+)")
rho = g(r"Spearman ([0-9.na-]+) over")
n_bl = g(r"over (\d+) blocks")
z = g(r"spread of the block estimates ([0-9.na]+)")
# branches of the compared ones that hwprof places at a source line (debug info)
mine = [r for r in json.load(open(sys.argv[5])) if r.get("executions", 0) >= 1000 and
        r.get("module") and os.path.realpath(r["module"]) == os.path.realpath(sys.argv[6])]
lines = f"{sum(1 for r in mine if r.get('line'))}/{len(mine)}"
beyond = "?"
for l in open(sys.argv[1]):
    if re.match(r"(PASS|FAIL) \S+_dp ", l):
        m = re.search(r"; (\d+) beyond", l)
        beyond = m.group(1) if m else "0"
print(f"| {name} | {sys.argv[2]} | {n_br} ({lines}) | {dp} | {beyond} | {inside} | {rho} ({n_bl}) | {sys.argv[4]} | {z} | {sys.argv[3]} s |")
PY
)")
}

want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

# zlib: the library's C files, compiled directly
zlib_a=
zlib_inc=
if tree=$(source_tree zlib 'zlib-*'); then
	versions+=("$(version "$tree")")
	extra=(-D_LARGEFILE64_SOURCE=1 -DHAVE_HIDDEN -I"$tree")
	srcs=()
	for f in adler32 crc32 deflate infback inffast inflate inftrees trees zutil compress uncompr \
		gzclose gzlib gzread gzwrite; do
		srcs+=("$tree/$f.c")
	done
	if lib_objs "$work/libz.a" "$work/obj/zlib" "${srcs[@]}" 2>"$work/zlib.gcc"; then
		zlib_a=$work/libz.a
		zlib_inc=$tree
	else
		say "zlib: build failed: $(head -1 "$work/zlib.gcc")"
	fi
fi
if want zlib && [ -n "$zlib_a" ]; then
	if gcc "${cflags[@]}" -I"$zlib_inc" -o "$work/flow_zlib" "$root/tests/fixtures/flow_zlib.c" "$zlib_a" \
		2>"$work/gcc.err"; then
		read -ra periods <<<"$ZLIB_PERIODS"
		for p in "${periods[@]}"; do
			for r in $(seq "$RUNS"); do
				check zlib "$work/flow_zlib" "$p" "${periods[0]}" "$r" -- "$work/flow_zlib" 4096
			done
		done
	else
		say "zlib: driver build failed: $(head -1 "$work/gcc.err")"
	fi
elif want zlib; then
	say "zlib: skipped"
fi

# SQLite: the amalgamation (configure; make sqlite3.c needs tclsh), compiled
# with Debian's feature flags (debian/rules) and -O2 -g
if want sqlite; then
	sqlite_ok=
	if [ -z "$zlib_a" ]; then
		say "sqlite: its driver needs zlib, which is unavailable"
	elif tree=$(source_tree sqlite3 'sqlite3-*'); then
		amal=
		if [ -f "$tree/sqlite3.c" ]; then
			amal=$tree
		elif ! command -v tclsh >/dev/null; then
			say "sqlite: skipped: making the amalgamation needs tclsh (apt-get install tcl)"
		else
			amal=$work/sqlite-bld
			if [ ! -f "$amal/sqlite3.c" ]; then
				mkdir -p "$amal"
				if ! (cd "$amal" && "$tree/configure" --disable-tcl >configure.log 2>&1 &&
					make sqlite3.c >make.log 2>&1); then
					say "sqlite: making sqlite3.c failed: see $amal/make.log"
					amal=
				fi
			fi
		fi
		if [ -n "$amal" ]; then
			versions+=("$(version "$tree")")
			# debian/rules' CFLAGS (feature macros; -O2 -g here)
			extra=(-fno-strict-aliasing -DSQLITE_SECURE_DELETE -DSQLITE_ENABLE_COLUMN_METADATA
				-DSQLITE_ENABLE_FTS3 -DSQLITE_ENABLE_FTS3_PARENTHESIS -DSQLITE_ENABLE_RTREE=1
				-DSQLITE_SOUNDEX=1 -DSQLITE_ENABLE_UNLOCK_NOTIFY -DSQLITE_OMIT_LOOKASIDE=1
				-DSQLITE_ENABLE_DBSTAT_VTAB -DSQLITE_ALLOW_ROWID_IN_VIEW
				-DSQLITE_ENABLE_UPDATE_DELETE_LIMIT=1 -DSQLITE_ENABLE_LOAD_EXTENSION
				-DSQLITE_ENABLE_JSON1 -DSQLITE_LIKE_DOESNT_MATCH_BLOBS -DSQLITE_THREADSAFE=1
				-DSQLITE_ENABLE_FTS3_TOKENIZER=1 -DSQLITE_USE_URI=1 -DSQLITE_MAX_SCHEMA_RETRY=25
				-DSQLITE_ENABLE_PREUPDATE_HOOK -DSQLITE_ENABLE_SESSION -DSQLITE_ENABLE_STMTVTAB
				-DSQLITE_MAX_VARIABLE_NUMBER=250000 -DSQLITE_ENABLE_FTS4 -DSQLITE_ENABLE_FTS5)
			if [ "$work/libsqlite3.a" -nt "$amal/sqlite3.c" ] ||
				lib_objs "$work/libsqlite3.a" "$work/obj/sqlite" "$amal/sqlite3.c" 2>"$work/sqlite.gcc"; then
				sqlite_ok=$amal
			else
				say "sqlite: build failed: $(head -1 "$work/sqlite.gcc")"
			fi
		fi
	fi
	if [ -n "$sqlite_ok" ]; then
		if gcc "${cflags[@]}" -I"$sqlite_ok" -I"$zlib_inc" -o "$work/sqlite" "$root/tests/fixtures/realworld_sqlite.c" \
			"$work/libsqlite3.a" "$zlib_a" -lm -ldl -lpthread 2>"$work/gcc.err"; then
			read -ra periods <<<"$SQLITE_PERIODS"
			for p in "${periods[@]}"; do
				for r in $(seq "$RUNS"); do
					check sqlite "$work/sqlite" "$p" "${periods[0]}" "$r" -- "$work/sqlite" 50000
				done
			done
		else
			say "sqlite: driver build failed: $(head -1 "$work/gcc.err")"
		fi
	else
		say "sqlite: skipped"
	fi
fi

# Lua 5.4: src/*.c but lua.c and luac.c
if want lua; then
	if tree=$(source_tree lua5.4 'lua5.4-*'); then
		versions+=("$(version "$tree")")
		# Debian's luaconf.h includes a generated multiarch header
		mkdir -p "$work/lua-inc"
		echo '#define DEB_HOST_MULTIARCH "x86_64-linux-gnu"' >"$work/lua-inc/lua5.4-deb-multiarch.h"
		extra=(-std=gnu99 -DLUA_COMPAT_5_3 -DLUA_USE_LINUX -I"$work/lua-inc")
		srcs=()
		for f in "$tree"/src/*.c; do
			case ${f##*/} in lua.c | luac.c) ;; *) srcs+=("$f") ;; esac
		done
		if lib_objs "$work/liblua.a" "$work/obj/lua" "${srcs[@]}" 2>"$work/lua.gcc" &&
			gcc "${cflags[@]}" -I"$tree/src" -I"$work/lua-inc" -o "$work/flow_lua" "$root/tests/fixtures/flow_lua.c" \
				"$work/liblua.a" -lm -ldl 2>"$work/gcc.err"; then
			read -ra periods <<<"$LUA_PERIODS"
			for p in "${periods[@]}"; do
				for r in $(seq "$RUNS"); do
					check lua "$work/flow_lua" "$p" "${periods[0]}" "$r" -- "$work/flow_lua" 50000
				done
			done
		else
			say "lua: build failed: $(head -1 "$work/lua.gcc" "$work/gcc.err" 2>/dev/null | grep -v '^==' | head -1)"
		fi
	else
		say "lua: skipped"
	fi
fi

echo
echo "sources: ${versions[*]:-none}  (compiled with ${cflags[*]})"
if [ ${#rows[@]} -gt 0 ]; then
	echo "| program | -c | branches >= 1000 sampled (with file:line) | max \|dp\| | beyond max(0.02, 6 sigma) | exact p in 95% interval | Spearman (blocks >= 100 sampled) | Spearman, blocks of the first -c | z-score spread | record+analyse |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
fi
[ "$fails" = 0 ]
