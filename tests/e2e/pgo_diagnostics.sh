#!/bin/bash
# hwprof pgo's answers to what users hit with the established tools, on
# emulated recordings of tests/fixtures/pgo_hot.c (PIE and not), the
# pgo_driver/libpgo.so pair and a driver linked against Debian's static
# SQLite:
#   - no mapping for the binary (perf script text has no mmap events; a
#     recording whose mapping records are hidden, as when attached late):
#     placed at the load bias its code explains, and the profile equals the
#     one from the full recording (bolt: line for line; llvm: byte for
#     byte); another binary is refused (no bias fits), another build named
#     by the recorded build-id list is refused naming both ids, standard
#     input is refused (two passes);
#   - debug info: no DWARF at all is an error for the LLVM profile; hot
#     code without debug info and a clang binary without
#     -fdebug-info-for-profiling get one warning each saying what is lost,
#     a gcc or -fdebug-info-for-profiling binary none;
#   - a program whose ranges are nearly all in a library it calls: a
#     warning naming both.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where a tool is missing
ready=$(emu_ready pgo_diagnostics) || { echo "PLAN 1"; echo "$ready"; exit 0; }
if ! command -v perf >/dev/null || ! command -v clang-19 >/dev/null; then
	echo "PLAN 1"
	skip "pgo_diagnostics: perf or clang-19 not installed (apt-get install linux-perf clang-19)"
	exit 0
fi
echo "PLAN 33"
fx=$root/tests/fixtures
cd "$tmp" || exit 1

# expect NAME RC PATTERN CMD...: CMD exits RC (0 or "fail") and PATTERN is
# in its stderr (an empty PATTERN: stderr must not say "warning")
expect() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	if [ "$want" = fail ] && [ $rc -eq 0 ]; then
		fail "pgo_diag_$name: exit 0, expected failure"; return 1
	elif [ "$want" = 0 ] && [ $rc -ne 0 ]; then
		fail "pgo_diag_$name: exit $rc: $(head -1 "$tmp/$name.err")"; return 1
	elif [ -n "$pat" ] && ! grep -q -- "$pat" "$tmp/$name.err"; then
		fail "pgo_diag_$name: stderr lacks '$pat': $(head -2 "$tmp/$name.err" | tr '\n' ' ')"; return 1
	elif [ -z "$pat" ] && grep -q warning "$tmp/$name.err"; then
		fail "pgo_diag_$name: unexpected: $(head -1 "$tmp/$name.err")"; return 1
	elif [ "$(wc -l <"$tmp/$name.err")" -gt 2 ]; then
		fail "pgo_diag_$name: more than two lines on stderr"; return 1
	fi
	pass "pgo_diag_$name ($(head -1 "$tmp/$name.err" | cut -c1-150))"
}

# same_profiles NAME BIN DATA OTHER: bolt and llvm profiles of BIN from
# OTHER (no mapping for BIN) equal those from DATA
same_profiles() {
	local name=$1 bin=$2 data=$3 other=$4
	for f in bolt llvm; do
		"$HWPROF" pgo -q -i "$data" --format $f --binary "$bin" -o "$tmp/$name.ref.$f" 2>/dev/null
		expect "${name}_$f" 0 "no mapping for it in" "$HWPROF" pgo -i "$other" --format $f --binary "$bin" \
			-o "$tmp/$name.got.$f" || continue
		if [ ! -s "$tmp/$name.ref.$f" ]; then
			fail "pgo_diag_${name}_${f}_same: empty profile from the full recording"
		elif cmp -s <(sort "$tmp/$name.ref.$f") <(sort "$tmp/$name.got.$f"); then
			pass "pgo_diag_${name}_${f}_same ($(wc -l <"$tmp/$name.ref.$f") lines equal)"
		else
			fail "pgo_diag_${name}_${f}_same: $(diff <(sort "$tmp/$name.ref.$f") <(sort "$tmp/$name.got.$f") | head -3 | tr '\n' ' ')"
		fi
	done
}

gcc -O2 -g -no-pie -o hot "$fx/pgo_hot.c" && gcc -O2 -g -fPIE -pie -o hotpie "$fx/pgo_hot.c" &&
	clang-19 -O2 -g -o hotcl "$fx/pgo_hot.c" && clang-19 -O2 -g -fdebug-info-for-profiling -o hotclp "$fx/pgo_hot.c" &&
	gcc -O2 -o hotnd "$fx/pgo_hot.c" || { fail "pgo_diag_build: compiling pgo_hot.c failed"; exit 0; }
for b in hot hotpie hotcl hotclp hotnd; do
	emu_record $b -b -c 1009 -- ./$b || { fail "pgo_diag_record_$b: $(head -1 $b.err)"; exit 0; }
done

# no mapping: perf script text, and hidden mapping records
for b in hot hotpie; do
	perf script -i $b.data -F ip,brstack >$b.txt 2>/dev/null
	same_profiles ${b}_text ./$b $b.data $b.txt
	hid=$(python3 "$tools/hide_mmaps.py" $b.data $b.hidden.data $b)
	[ "$hid" -ge 1 ] || fail "pgo_diag_${b}_hide: no mapping record hidden"
	same_profiles ${b}_hidden ./$b $b.data $b.hidden.data
done
grep -q "load bias 0x0 " hot_text_bolt.err && pass "pgo_diag_nopie_bias0" ||
	fail "pgo_diag_nopie_bias0: $(head -1 hot_text_bolt.err)"
grep -q "load bias 0x0 " hotpie_text_bolt.err && fail "pgo_diag_pie_bias: PIE placed at 0" ||
	pass "pgo_diag_pie_bias ($(grep -o 'load bias 0x[0-9a-f]*' hotpie_text_bolt.err))"
expect other_binary fail "no load address makes" "$HWPROF" pgo -i hot.txt --format bolt --binary ./hotclp
expect other_build fail "differs from the recorded" bash -c \
	"mkdir -p o && cp hotclp o/hotpie && '$HWPROF' pgo -i hotpie.hidden.data --format bolt --binary o/hotpie"
expect stdin fail "standard input" bash -c "'$HWPROF' pgo -i - --format bolt --binary ./hot <hot.txt"

# debug info
expect no_dwarf fail "no DWARF debug info" "$HWPROF" pgo -i hotnd.data --format llvm
expect no_dwarf_bolt 0 "" "$HWPROF" pgo -i hotnd.data --format bolt
expect clang_plain 0 "no discriminators in its line table" "$HWPROF" pgo -i hotcl.data --format llvm
expect clang_profiling 0 "" "$HWPROF" pgo -i hotclp.data --format llvm
expect gcc 0 "" "$HWPROF" pgo -i hot.data --format llvm
# the hot function from an object built without -g, linked into a -g program
if gcc -O2 -c -o lib_nodebug.o "$fx/pgo_lib.c" && gcc -O2 -g -o mixed "$fx/pgo_driver.c" lib_nodebug.o &&
	emu_record mixed -b -c 1000 -- ./mixed 100000; then
	expect no_debug_code 0 "of the sampled instructions have no debug info" "$HWPROF" pgo -i mixed.data --format llvm
else
	fail "pgo_diag_no_debug_code: build or record failed"
fi

# a program whose time goes to a library
if gcc -O2 -g -fPIC -shared -o libpgo.so "$fx/pgo_lib.c" &&
	gcc -O2 -g -o pgo_driver "$fx/pgo_driver.c" -L. -lpgo -Wl,-rpath,"$tmp" &&
	emu_record drv -b -c 1000 -- ./pgo_driver; then
	expect library_time 0 "fall-through range.*libpgo.so" "$HWPROF" pgo -i drv.data --format bolt
else
	fail "pgo_diag_library_time: build or record failed"
fi

# a real program: SQLite's PIE driver from its perf script text
lib=/usr/lib/x86_64-linux-gnu
if [ -f $lib/libsqlite3.a ] && [ -f $lib/libz.a ] && [ -f /usr/include/sqlite3.h ] &&
	gcc -O2 -g -o sqlite "$fx/realworld_sqlite.c" -l:libsqlite3.a -l:libz.a -lm 2>/dev/null &&
	emu_record sqlite -b -c 997 -- ./sqlite 2000; then
	perf script -i sqlite.data -F ip,brstack >sqlite.txt 2>/dev/null
	same_profiles sqlite_text ./sqlite sqlite.data sqlite.txt
else
	for f in bolt llvm; do # same_profiles' 4 checks, skipped
		skip "pgo_diag_sqlite_text_$f: no static SQLite/zlib, or the recording failed"
		skip "pgo_diag_sqlite_text_${f}_same: no static SQLite/zlib, or the recording failed"
	done
fi

# the extensible binary form: llvm-profdata converts hwprof's text, reads
# back the same profile, and clang takes it
if command -v llvm-profdata-19 >/dev/null; then
	"$HWPROF" pgo -q -i hotclp.data --format llvm -o hot.prof &&
		llvm-profdata-19 merge --sample --extbinary hot.prof -o hot.extbin 2>ext.err &&
		llvm-profdata-19 show --sample --all-functions hot.prof >show.txt 2>&1 &&
		llvm-profdata-19 show --sample --all-functions hot.extbin >show.ext 2>&1
	if [ ! -s show.txt ]; then
		fail "pgo_diag_extbinary: conversion failed: $(head -1 ext.err)"
	elif ! cmp -s show.txt show.ext; then
		fail "pgo_diag_extbinary: llvm-profdata shows another profile: $(diff show.txt show.ext | head -3 | tr '\n' ' ')"
	elif ! clang-19 -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=hot.extbin -Werror -c \
		-o hot.o "$fx/pgo_hot.c" 2>clang.err; then
		fail "pgo_diag_extbinary_clang: $(head -1 clang.err)"
	else
		pass "pgo_diag_extbinary ($(grep -c '^Function:' show.txt) functions shown alike; clang takes it)"
	fi
else
	skip "pgo_diag_extbinary: llvm-profdata-19 not installed"
fi
