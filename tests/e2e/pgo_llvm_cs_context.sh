#!/bin/bash
# Emulated recordings with call chains (record --emulate -g) as CSSPGO's
# input: llvm-profgen-19 builds a context-sensitive profile from them and
# clang-19 builds the program with it. tests/fixtures/pgo_llvm.c (main ->
# run -> step -> mix, run -> twice/thrice through a pointer), clang-19 -O2
# -g -fpseudo-probe-for-profiling, PIE and not:
#   - llvm-profgen-19 --perfscript on perf script -F ip,brstack, with the
#     callchain addresses made absolute (tests/tools/abs_callchain.py: perf
#     6.1 prints them relative to their mapping, which llvm-profgen reads
#     as addresses), pre-inliner and nesting off: the contexts are the
#     fixture's call paths ([main:N @ run:N @ step], [... @ step:N @ mix]);
#   - hwprof's virtual unwinder (ranges --format profgen-cs) equals
#     llvm-profgen-19 --skip-symbolization byte for byte: the address
#     contexts with their range and branch counts;
#   - pgo --format llvm-cs --cs-flat (the flat CS probe profile) equals
#     llvm-profgen-19 with --csspgo-preinliner=0 --gen-cs-nested-profile=0
#     --csprof-merge-cold-context=0 byte for byte, and clang-19 builds the
#     fixture with it, no warning;
#   - pgo --format llvm-cs --cs-no-preinliner (cold contexts merged, the
#     profile nested) equals llvm-profgen-19 with --csspgo-preinliner=0 byte
#     for byte, and clang-19 builds with it, no warning;
#   - pgo --format llvm-cs (the pre-inliner's contexts, nested) equals
#     llvm-profgen-19's default output byte for byte, and clang-19 builds
#     with it, no warning;
#   - with llvm-profgen's defaults (pre-inliner, nested profile), clang-19
#     -fprofile-sample-use= builds the fixture with its profile, no warning.
# With SQLITE_AMALGAMATION set (a directory with sqlite3.c and sqlite3.h, as
# bench/inputs.sh takes it), SQLite built with probes and driven by
# tests/fixtures/realworld_sqlite.c (a few minutes' compile): the unwinder's
# output, the flat, the nested (--csspgo-preinliner=0, cold contexts merged)
# and the default (pre-inlined) profile against llvm-profgen-19's, tail calls
# and all (llvm-profgen infers their missing frames), and clang-19 compiles
# sqlite3.c with the default one, no warning; else those six SKIP. tests/long/pgo_cs.sh (make test-long) runs
# this script with the amalgamation.
# Skips without clang-19, llvm-profgen-19, perf or qemu.
. "$(dirname "$0")/../tools/emu_lib.sh"
echo "PLAN 24"
names="pgo_llvm_cs_context_pie pgo_llvm_cs_context_nopie pgo_llvm_cs_unwind_pie pgo_llvm_cs_unwind_nopie pgo_llvm_cs_flat_pie pgo_llvm_cs_flat_nopie pgo_llvm_cs_flat_build_pie pgo_llvm_cs_flat_build_nopie pgo_llvm_cs_context_build_pie pgo_llvm_cs_context_build_nopie pgo_llvm_cs_nested_pie pgo_llvm_cs_nested_nopie pgo_llvm_cs_nested_build_pie pgo_llvm_cs_nested_build_nopie pgo_llvm_cs_default_pie pgo_llvm_cs_default_nopie pgo_llvm_cs_default_build_pie pgo_llvm_cs_default_build_nopie pgo_llvm_cs_unwind_sqlite pgo_llvm_cs_flat_sqlite pgo_llvm_cs_nested_sqlite pgo_llvm_cs_default_sqlite pgo_llvm_cs_default_build_sqlite pgo_llvm_cs_default_sqlite_rows"
skip_all() { for n in $names; do skip "$n: $1"; done; exit 0; }
ready=$(emu_ready pgo_llvm_cs_context) || skip_all "${ready#SKIP pgo_llvm_cs_context: }"
for t in clang-19 llvm-profgen-19 perf; do
	command -v $t >/dev/null || skip_all "$t not installed (apt-get install clang-19 llvm-19 linux-perf)"
done
cd "$tmp" || exit 1
src=$root/tests/fixtures/pgo_llvm.c
# the same binaries wherever the checkout is (the .__uniq. suffixes of
# static functions hash the source's path)
flags="-O2 -g -fpseudo-probe-for-profiling -ffile-prefix-map=$root/="

# one_case NAME EXTRA-FLAGS [LINK-FLAGS]
one_case() {
	local name=$1 extra=$2 link=${3:-}
	# shellcheck disable=SC2086
	if ! clang-19 $flags $extra $link -o "$name" "$src" -lm 2>"$name.cc" || ! emu_record "$name" -g -c 1000 -- "./$name"; then
		fail "pgo_llvm_cs_context_$name: build or record failed: $(head -1 "$name.cc") $(head -1 "$name.err")"
		fail "pgo_llvm_cs_unwind_$name: not built"
		fail "pgo_llvm_cs_flat_$name: not built"
		fail "pgo_llvm_cs_flat_build_$name: not built"
		fail "pgo_llvm_cs_context_build_$name: not built"
		fail "pgo_llvm_cs_nested_$name: not built"
		fail "pgo_llvm_cs_nested_build_$name: not built"
		fail "pgo_llvm_cs_default_$name: not built"
		fail "pgo_llvm_cs_default_build_$name: not built"
		return
	fi
	perf script --show-mmap-events -F ip,dso,brstack -i "$name.data" 2>/dev/null |
		python3 "$tools/abs_callchain.py" >"$name.script"
	llvm-profgen-19 --perfscript "$name.script" --binary "$name" --format=text --csspgo-preinliner=0 \
		--gen-cs-nested-profile=0 -o "$name.flat.prof" >"$name.pg.out" 2>&1
	local step mix
	step=$(grep -c '^\[main:[0-9]* @ run:[0-9]* @ step\]:' "$name.flat.prof")
	mix=$(grep -c '^\[main:[0-9]* @ run:[0-9]* @ step:[0-9]* @ _ZL3mix[^]]*\]:' "$name.flat.prof")
	if [ "$step" = 1 ] && [ "$mix" -ge 1 ] && ! grep -q '^\[.*@ main' "$name.flat.prof"; then
		pass "pgo_llvm_cs_context_$name (llvm-profgen-19: $(grep -c '^\[' "$name.flat.prof") contexts, main -> run -> step -> mix among them)"
	else
		fail "pgo_llvm_cs_context_$name: contexts $(grep '^\[' "$name.flat.prof" | cut -d: -f1-3 | head -4 | tr '\n' ' ') $(grep -v '^warning: [0-9.]*%' "$name.pg.out" | head -1)"
	fi
	llvm-profgen-19 --perfscript "$name.script" --binary "$name" --skip-symbolization -o "$name.unsym" \
		>>"$name.pg.out" 2>&1
	"$HWPROF" ranges --format profgen-cs --binary "$name" -o "$name.hw.unsym" "$name.data" 2>"$name.hw.err"
	if [ -s "$name.unsym" ] && cmp -s "$name.unsym" "$name.hw.unsym"; then
		pass "pgo_llvm_cs_unwind_$name (ranges --format profgen-cs = llvm-profgen-19 --skip-symbolization: $(grep -c '^\[' "$name.unsym") address contexts)"
	else
		fail "pgo_llvm_cs_unwind_$name: differs from llvm-profgen-19's: $(head -1 "$name.hw.err") $(diff "$name.unsym" "$name.hw.unsym" 2>&1 | head -3 | tr '\n' ' ')"
	fi
	llvm-profgen-19 --perfscript "$name.script" --binary "$name" --format=text --csspgo-preinliner=0 \
		--gen-cs-nested-profile=0 --csprof-merge-cold-context=0 -o "$name.flat0.prof" >>"$name.pg.out" 2>&1
	"$HWPROF" pgo --format llvm-cs --cs-flat --binary "$name" -o "$name.hw.prof" "$name.data" 2>"$name.hwp.err"
	if [ -s "$name.flat0.prof" ] && cmp -s "$name.flat0.prof" "$name.hw.prof"; then
		pass "pgo_llvm_cs_flat_$name (pgo --format llvm-cs --cs-flat = llvm-profgen-19 without pre-inliner, nesting, cold merge: $(grep -c '^\[' "$name.hw.prof") contexts)"
	else
		fail "pgo_llvm_cs_flat_$name: differs from llvm-profgen-19's: $(head -1 "$name.hwp.err") $(diff "$name.flat0.prof" "$name.hw.prof" 2>&1 | head -3 | tr '\n' ' ')"
	fi
	# shellcheck disable=SC2086
	if [ -s "$name.hw.prof" ] && clang-19 $flags $extra -fprofile-sample-use="$name.hw.prof" -c -o "$name.hw.o" "$src" \
		2>"$name.hw.use.err" && ! grep -q . "$name.hw.use.err"; then
		pass "pgo_llvm_cs_flat_build_$name (clang-19 -fprofile-sample-use builds with hwprof's CS profile, no warning)"
	else
		fail "pgo_llvm_cs_flat_build_$name: $(head -2 "$name.hw.use.err" | tr '\n' ' ')"
	fi
	llvm-profgen-19 --perfscript "$name.script" --binary "$name" --format=text -o "$name.prof" >>"$name.pg.out" 2>&1
	# shellcheck disable=SC2086
	if [ -s "$name.prof" ] && clang-19 $flags $extra -fprofile-sample-use="$name.prof" -c -o "$name.o" "$src" 2>"$name.use.err" &&
		! grep -q . "$name.use.err"; then
		pass "pgo_llvm_cs_context_build_$name (clang-19 -fprofile-sample-use builds with the CS profile, no warning)"
	else
		fail "pgo_llvm_cs_context_build_$name: $(head -2 "$name.use.err" | tr '\n' ' ')"
	fi
	llvm-profgen-19 --perfscript "$name.script" --binary "$name" --format=text --csspgo-preinliner=0 \
		-o "$name.nested.prof" >>"$name.pg.out" 2>&1
	"$HWPROF" pgo --format llvm-cs --cs-no-preinliner --binary "$name" -o "$name.hw.nested" "$name.data" 2>"$name.hwn.err"
	if [ -s "$name.nested.prof" ] && cmp -s "$name.nested.prof" "$name.hw.nested"; then
		pass "pgo_llvm_cs_nested_$name (pgo --format llvm-cs --cs-no-preinliner = llvm-profgen-19 --csspgo-preinliner=0: $(grep -c '^[^ ]' "$name.hw.nested") top-level profiles)"
	else
		fail "pgo_llvm_cs_nested_$name: differs from llvm-profgen-19's: $(head -1 "$name.hwn.err") $(diff "$name.nested.prof" "$name.hw.nested" 2>&1 | head -3 | tr '\n' ' ')"
	fi
	# shellcheck disable=SC2086
	if [ -s "$name.hw.nested" ] && clang-19 $flags $extra -fprofile-sample-use="$name.hw.nested" -c -o "$name.hwn.o" "$src" \
		2>"$name.hwn.use.err" && ! grep -q . "$name.hwn.use.err"; then
		pass "pgo_llvm_cs_nested_build_$name (clang-19 -fprofile-sample-use builds with hwprof's nested CS profile, no warning)"
	else
		fail "pgo_llvm_cs_nested_build_$name: $(head -2 "$name.hwn.use.err" | tr '\n' ' ')"
	fi
	"$HWPROF" pgo --format llvm-cs --binary "$name" -o "$name.hw.default" "$name.data" 2>"$name.hwd.err"
	if [ -s "$name.prof" ] && cmp -s "$name.prof" "$name.hw.default"; then
		pass "pgo_llvm_cs_default_$name (pgo --format llvm-cs = llvm-profgen-19's default: $(grep -c '!Attributes: [23]' "$name.hw.default") contexts to inline)"
	else
		fail "pgo_llvm_cs_default_$name: differs from llvm-profgen-19's: $(head -1 "$name.hwd.err") $(diff "$name.prof" "$name.hw.default" 2>&1 | head -3 | tr '\n' ' ')"
	fi
	# shellcheck disable=SC2086
	if [ -s "$name.hw.default" ] && clang-19 $flags $extra -fprofile-sample-use="$name.hw.default" -c -o "$name.hwd.o" "$src" \
		2>"$name.hwd.use.err" && ! grep -q . "$name.hwd.use.err"; then
		pass "pgo_llvm_cs_default_build_$name (clang-19 -fprofile-sample-use builds with hwprof's pre-inlined CS profile, no warning)"
	else
		fail "pgo_llvm_cs_default_build_$name: $(head -2 "$name.hwd.use.err" | tr '\n' ' ')"
	fi
}

one_case pie ""
one_case nopie -fno-pie -no-pie

# sqlite_record NAME ROWS: an emulated recording of ./sqlite ROWS into NAME.data
# in an environment of fixed size (the program inherits it; its size moves
# the guest's stack): $HWPROF_QEMU names qemu where it is not in /usr/bin
sqlite_record() {
	env -i PATH=/usr/local/bin:/usr/bin:/bin HWPROF_EMU_PLUGIN="${HWPROF_EMU_PLUGIN:-}" \
		HWPROF_QEMU="${HWPROF_QEMU:-}" "$HWPROF" record --emulate -o "$1.data" -g -c 211 -- ./sqlite "$2" \
		>"$1.out" 2>"$1.err"
}

# default_differs NAME: llvm-profgen-19's default CS profile of NAME.data
# against hwprof's; prints the first difference, nothing when equal
default_differs() {
	perf script --show-mmap-events -F ip,dso,brstack -i "$1.data" 2>/dev/null | python3 "$tools/abs_callchain.py" >"$1.script"
	llvm-profgen-19 --perfscript "$1.script" --binary sqlite --format=text -o "$1.default" >/dev/null 2>&1
	"$HWPROF" pgo --format llvm-cs --binary sqlite -o "$1.hw.default" "$1.data" 2>"$1.hwd.err"
	if [ ! -s "$1.default" ] || ! cmp -s "$1.default" "$1.hw.default"; then
		echo "$(head -1 "$1.hwd.err") $(diff "$1.default" "$1.hw.default" 2>&1 | head -3 | tr '\n' ' ')"
	fi
}

# The pre-inliner's decisions at the edge of a budget or of a threshold
# show on some recordings only: of 121 row counts between 860 and 1100, 12
# made an earlier hwprof differ from llvm-profgen-19 (an inlinee all of
# whose code became its own inlinee's, sized as the function out of line;
# a cold call site of size 0 inlined); four of them. A few seconds each.
SQLITE_EDGE_ROWS="874 908 972 988"

# sqlite_case: the unwinder and the flat profile of SQLite against llvm-profgen-19's
sqlite_case() {
	local amal=${SQLITE_AMALGAMATION:-}
	if [ -z "$amal" ] || [ ! -f "$amal/sqlite3.c" ] || [ ! -f "$amal/sqlite3.h" ]; then
		skip "pgo_llvm_cs_unwind_sqlite: SQLITE_AMALGAMATION (sqlite3.c, sqlite3.h) not set"
		skip "pgo_llvm_cs_flat_sqlite: SQLITE_AMALGAMATION not set"
		skip "pgo_llvm_cs_nested_sqlite: SQLITE_AMALGAMATION not set"
		skip "pgo_llvm_cs_default_sqlite: SQLITE_AMALGAMATION not set"
		skip "pgo_llvm_cs_default_build_sqlite: SQLITE_AMALGAMATION not set"
		skip "pgo_llvm_cs_default_sqlite_rows: SQLITE_AMALGAMATION not set"
		return
	fi
	# The same binary wherever the sources are and the same recording in any
	# environment (its size moves the stack): its edge cases show everywhere.
	local sqflags="$flags -ffile-prefix-map=$amal/= -I$amal"
	# shellcheck disable=SC2086
	if ! clang-19 $sqflags -o sqlite \
		"$root/tests/fixtures/realworld_sqlite.c" "$amal/sqlite3.c" -l:libz.a -lm -lpthread 2>sqlite.cc ||
		! sqlite_record sqlite 1000; then
		fail "pgo_llvm_cs_unwind_sqlite: build or record failed: $(head -1 sqlite.cc) $(head -1 sqlite.err)"
		fail "pgo_llvm_cs_flat_sqlite: not built"
		fail "pgo_llvm_cs_nested_sqlite: not built"
		fail "pgo_llvm_cs_default_sqlite: not built"
		fail "pgo_llvm_cs_default_build_sqlite: not built"
		fail "pgo_llvm_cs_default_sqlite_rows: not built"
		return
	fi
	perf script --show-mmap-events -F ip,dso,brstack -i sqlite.data 2>/dev/null | python3 "$tools/abs_callchain.py" >sqlite.script
	llvm-profgen-19 --perfscript sqlite.script --binary sqlite --skip-symbolization -o sqlite.unsym >/dev/null 2>&1
	"$HWPROF" ranges --format profgen-cs --binary sqlite -o sqlite.hw.unsym sqlite.data 2>sqlite.hw.err
	if [ -s sqlite.unsym ] && cmp -s sqlite.unsym sqlite.hw.unsym; then
		pass "pgo_llvm_cs_unwind_sqlite ($(grep -c '^\[' sqlite.unsym) address contexts, as llvm-profgen-19's)"
	else
		fail "pgo_llvm_cs_unwind_sqlite: $(head -1 sqlite.hw.err) $(diff sqlite.unsym sqlite.hw.unsym 2>&1 | head -3 | tr '\n' ' ')"
	fi
	llvm-profgen-19 --perfscript sqlite.script --binary sqlite --format=text --csspgo-preinliner=0 \
		--gen-cs-nested-profile=0 --csprof-merge-cold-context=0 -o sqlite.flat >/dev/null 2>&1
	"$HWPROF" pgo --format llvm-cs --cs-flat --binary sqlite -o sqlite.hw.flat sqlite.data 2>sqlite.hwp.err
	if [ -s sqlite.flat ] && cmp -s sqlite.flat sqlite.hw.flat; then
		pass "pgo_llvm_cs_flat_sqlite ($(grep -c '^\[' sqlite.flat) contexts, as llvm-profgen-19's)"
	else
		fail "pgo_llvm_cs_flat_sqlite: $(head -1 sqlite.hwp.err) $(diff sqlite.flat sqlite.hw.flat 2>&1 | head -3 | tr '\n' ' ')"
	fi
	llvm-profgen-19 --perfscript sqlite.script --binary sqlite --format=text --csspgo-preinliner=0 \
		-o sqlite.nested >/dev/null 2>&1
	"$HWPROF" pgo --format llvm-cs --cs-no-preinliner --binary sqlite -o sqlite.hw.nested sqlite.data 2>sqlite.hwn.err
	if [ -s sqlite.nested ] && cmp -s sqlite.nested sqlite.hw.nested; then
		pass "pgo_llvm_cs_nested_sqlite ($(grep -c '^[^ ]' sqlite.nested) top-level profiles, cold contexts merged, as llvm-profgen-19 --csspgo-preinliner=0)"
	else
		fail "pgo_llvm_cs_nested_sqlite: $(head -1 sqlite.hwn.err) $(diff sqlite.nested sqlite.hw.nested 2>&1 | head -3 | tr '\n' ' ')"
	fi
	local rows why bad=""
	why=$(default_differs sqlite)
	if [ -z "$why" ]; then
		pass "pgo_llvm_cs_default_sqlite ($(grep -c '!Attributes: [23]' sqlite.default) contexts to inline, as llvm-profgen-19's default)"
	else
		fail "pgo_llvm_cs_default_sqlite: $why"
	fi
	# (the same flags as the binary's: the profile's names carry its .__uniq. suffixes)
	# shellcheck disable=SC2086
	if [ -s sqlite.hw.default ] && clang-19 $sqflags -fprofile-sample-use=sqlite.hw.default -c -o sqlite.hwd.o \
		"$amal/sqlite3.c" 2>sqlite.hwd.use.err && ! grep -q . sqlite.hwd.use.err; then
		pass "pgo_llvm_cs_default_build_sqlite (clang-19 compiles sqlite3.c with hwprof's default CS profile, no warning)"
	else
		fail "pgo_llvm_cs_default_build_sqlite: $(head -2 sqlite.hwd.use.err | tr '\n' ' ')"
	fi
	for rows in $SQLITE_EDGE_ROWS; do
		if ! sqlite_record "sqlite$rows" "$rows"; then
			bad="$bad $rows: record failed: $(head -1 "sqlite$rows.err")"
		elif why=$(default_differs "sqlite$rows") && [ -n "$why" ]; then
			bad="$bad $rows: $why"
		fi
	done
	if [ -z "$bad" ]; then
		pass "pgo_llvm_cs_default_sqlite_rows (the default profile as llvm-profgen-19's on recordings of $SQLITE_EDGE_ROWS rows)"
	else
		fail "pgo_llvm_cs_default_sqlite_rows:$bad"
	fi
}
sqlite_case
