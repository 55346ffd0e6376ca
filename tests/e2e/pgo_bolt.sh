#!/bin/bash
# hwprof pgo --format bolt / bolt-pa / autofdo on emulated recordings of
# fixtures (tests/fixtures/pgo_hot.c, a PIE; tests/fixtures/pgo_switch.c,
# jump tables with cases falling into each other, static functions and a
# tail call, as a PIE and not; tests/fixtures/pgo_lib.c, a shared library)
# and of a driver linked against
# Debian's static SQLite and zlib (tests/fixtures/realworld_sqlite.c), both
# linked with --emit-relocs (BOLT rewrites only binaries that keep them):
#   - hwprof's fdata equals perf2bolt's (LLVM 19) edge by edge, order aside
#     (tests/e2e/fdata_compare.py); the one rule difference tolerated: a
#     call's fall-through edge into a block that perf2bolt counts for ranges
#     that began with a return (hwprof splits the ranges starting at a
#     block by the shares of the branches into it from outside and inside
#     its function);
#   - perf2bolt --pa reads hwprof's pre-aggregated file into exactly
#     hwprof's fdata;
#   - llvm-bolt-19 -reorder-blocks=ext-tsp -reorder-functions=cdsort accepts
#     the fdata (exit 0), reports as many profiled functions as with
#     perf2bolt's own fdata, and the optimized program prints the same;
#   - --format autofdo is 'hwprof ranges --format autofdo';
#   - --binary with another build of the program fails naming the build-ids.
# Skips when bolt-19 is absent.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where a tool is missing
ready=$(emu_ready pgo_bolt) || { echo "PLAN 1"; echo "$ready"; exit 0; }
perf2bolt=/usr/lib/llvm-19/bin/perf2bolt # perf2bolt-19 starts llvm-bolt (it looks at its name)
bolt=$(command -v llvm-bolt-19 || echo /usr/lib/llvm-19/bin/llvm-bolt)
if [ ! -x "$perf2bolt" ] || [ ! -x "$bolt" ] || ! command -v perf >/dev/null || ! command -v objdump >/dev/null; then
	echo "PLAN 1"
	skip "pgo_bolt: perf2bolt / llvm-bolt 19, perf or objdump not installed (apt-get install bolt-19 linux-perf binutils)"
	exit 0
fi
echo "PLAN 23"
cmp_py=$root/tests/e2e/fdata_compare.py
cd "$tmp" || exit 1 # perf2bolt and llvm-bolt leave files in the current directory

# one_case NAME BINARY [PROG ARGS]: records (every $period-th taken branch
# samples, default 1000), then every check on BINARY
one_case() {
	local name=$1 bin=$2 out
	shift 2
	if ! emu_record "$name" -c "${period:-1000}" -- "$bin" "$@"; then
		fail "pgo_bolt_record_$name: $(head -1 "$tmp/$name.err")"
		return
	fi
	local data=$tmp/$name.data
	if ! "$perf2bolt" -p "$data" -o "$tmp/$name.p2b.fdata" "$bin" >"$tmp/$name.p2b.out" 2>&1; then
		fail "pgo_bolt_perf2bolt_$name: $(grep -m1 -E 'ERROR|error' "$tmp/$name.p2b.out")"
		return
	fi
	if ! "$HWPROF" pgo -q -i "$data" --format bolt --binary "$bin" -o "$tmp/$name.fdata" 2>"$tmp/$name.pgo.err"; then
		fail "pgo_bolt_fdata_$name: $(head -1 "$tmp/$name.pgo.err")"
		return
	fi
	if out=$(python3 "$cmp_py" "$tmp/$name.p2b.fdata" "$tmp/$name.fdata" --allow-call-ft "$bin" 2>&1); then
		pass "pgo_bolt_vs_perf2bolt_$name ($out)"
	else
		fail "pgo_bolt_vs_perf2bolt_$name: $out"
	fi

	# the pre-aggregated text through perf2bolt --pa: hwprof's fdata exactly
	if "$HWPROF" pgo -q -i "$data" --format bolt-pa -o "$tmp/$name.pa" 2>"$tmp/$name.pa.err" &&
		"$perf2bolt" --pa -p "$tmp/$name.pa" -o "$tmp/$name.pa.fdata" "$bin" >"$tmp/$name.pa.out" 2>&1 &&
		out=$(python3 "$cmp_py" "$tmp/$name.fdata" "$tmp/$name.pa.fdata" 2>&1); then
		pass "pgo_bolt_pa_$name ($(grep -c '^B' "$tmp/$name.pa") B and $(grep -c '^[Ff]' "$tmp/$name.pa") F/f lines; $out)"
	else
		fail "pgo_bolt_pa_$name: $(head -1 "$tmp/$name.pa.err") $(grep -m1 -E 'ERROR|error' "$tmp/$name.pa.out") ${out:-}"
	fi

	# llvm-bolt uses the profile as it uses perf2bolt's
	local opt=(-reorder-blocks=ext-tsp -reorder-functions=cdsort)
	"$bolt" "$bin" -o "$tmp/$name.bolt" -data="$tmp/$name.fdata" "${opt[@]}" >"$tmp/$name.bolt.out" 2>&1
	local rc=$?
	"$bolt" "$bin" -o "$tmp/$name.bolt2" -data="$tmp/$name.p2b.fdata" "${opt[@]}" >"$tmp/$name.bolt2.out" 2>&1
	local h p
	h=$(grep -m1 'have non-empty execution profile' "$tmp/$name.bolt.out")
	p=$(grep -m1 'have non-empty execution profile' "$tmp/$name.bolt2.out")
	if [ $rc -eq 0 ] && [ -n "$h" ] && [ "$h" = "$p" ] && ! grep -q '^BOLT-INFO: 0 out of' <<<"$h" &&
		[ "$("$tmp/$name.bolt" "$@")" = "$("$bin" "$@")" ]; then
		pass "pgo_bolt_llvm_bolt_$name (${h#BOLT-INFO: }; the optimized program prints the same)"
	else
		fail "pgo_bolt_llvm_bolt_$name: exit $rc; hwprof: '$h'; perf2bolt: '$p'"
	fi

	# autofdo: the ranges command's text
	if "$HWPROF" pgo -q -i "$data" --format autofdo -o "$tmp/$name.afdo" 2>/dev/null &&
		"$HWPROF" ranges -q -i "$data" --format autofdo -o "$tmp/$name.afdo2" 2>/dev/null &&
		[ -s "$tmp/$name.afdo" ] && cmp -s "$tmp/$name.afdo" "$tmp/$name.afdo2"; then
		pass "pgo_bolt_autofdo_$name ($(wc -l <"$tmp/$name.afdo") lines, as hwprof ranges)"
	else
		fail "pgo_bolt_autofdo_$name: differs from hwprof ranges --format autofdo"
	fi
}

fx=$root/tests/fixtures
mkdir -p "$tmp/other"
if gcc -O2 -g -fPIE -pie -Wl,--emit-relocs -o "$tmp/pgo_hot" "$fx/pgo_hot.c" 2>"$tmp/gcc.err" &&
	gcc -O1 -g -fPIE -pie -Wl,--emit-relocs -o "$tmp/other/pgo_hot" "$fx/pgo_hot.c" 2>>"$tmp/gcc.err"; then
	one_case hot "$tmp/pgo_hot" 100000
	# another build of the same program: refused, naming both build-ids
	if "$HWPROF" pgo -q -i "$tmp/hot.data" --format bolt --binary "$tmp/other/pgo_hot" >/dev/null 2>"$tmp/other.err"; then
		fail "pgo_bolt_build_id: another build was accepted"
	elif [ "$(wc -l <"$tmp/other.err")" -eq 1 ] && grep -q 'build-id .* differs from the recorded' "$tmp/other.err"; then
		pass "pgo_bolt_build_id ($(cat "$tmp/other.err"))"
	else
		fail "pgo_bolt_build_id: $(head -2 "$tmp/other.err")"
	fi
	# one clear line for each mistake
	errs() { # NAME PATTERN hwprof-args...
		local n=$1 pat=$2
		shift 2
		if "$HWPROF" pgo -q -i "$tmp/hot.data" "$@" >/dev/null 2>"$tmp/$n.err"; then
			fail "pgo_bolt_error_$n: accepted"
		elif [ "$(wc -l <"$tmp/$n.err")" -eq 1 ] && grep -Eq "$pat" "$tmp/$n.err"; then
			pass "pgo_bolt_error_$n ($(cat "$tmp/$n.err"))"
		else
			fail "pgo_bolt_error_$n: $(head -2 "$tmp/$n.err")"
		fi
	}
	errs no_format 'which profile' --binary "$tmp/pgo_hot"
	errs bad_format "the formats are" --format gcov
	errs missing "cannot read it" --format bolt --binary "$tmp/nonexistent"
	errs not_elf "not an ELF file" --format bolt --binary "$fx/pgo_hot.c"
	errs not_recorded "no branch in .* ran in this binary" --format bolt-pa --binary /bin/true
else
	fail "pgo_bolt_build_hot: $(head -1 "$tmp/gcc.err")"
fi

# jump tables: PIC (32-bit entries relative to the table) and absolute
if gcc -O2 -g -fPIE -pie -Wl,--emit-relocs -o "$tmp/pgo_switch" "$fx/pgo_switch.c" 2>"$tmp/gcc.err" &&
	gcc -O2 -g -fno-pie -no-pie -Wl,--emit-relocs -o "$tmp/pgo_switch_nopie" "$fx/pgo_switch.c" 2>>"$tmp/gcc.err"; then
	one_case switch "$tmp/pgo_switch"
	if objdump -d "$tmp/pgo_switch_nopie" | grep -Eq 'jmp +\*0x[0-9a-f]+\(,%r'; then
		one_case switch_nopie "$tmp/pgo_switch_nopie"
	else
		fail "pgo_bolt_build_switch_nopie: gcc made no absolute jump table (jmp *T(,%reg,8))"
	fi
else
	fail "pgo_bolt_build_switch: $(head -1 "$tmp/gcc.err")"
fi

# a shared library (--binary names it; perf2bolt is given the .so)
if gcc -O2 -g -fPIC -shared -Wl,--emit-relocs -o "$tmp/libpgo.so" "$fx/pgo_lib.c" 2>"$tmp/gcc.err" &&
	gcc -O2 -g -o "$tmp/pgo_driver" "$fx/pgo_driver.c" -L"$tmp" -lpgo -Wl,-rpath,"$tmp" 2>>"$tmp/gcc.err"; then
	if emu_record shlib -c 1000 -- "$tmp/pgo_driver" &&
		"$perf2bolt" -p "$tmp/shlib.data" -o "$tmp/shlib.p2b.fdata" "$tmp/libpgo.so" >"$tmp/shlib.p2b.out" 2>&1 &&
		"$HWPROF" pgo -q -i "$tmp/shlib.data" --format bolt --binary "$tmp/libpgo.so" -o "$tmp/shlib.fdata" \
			2>"$tmp/shlib.pgo.err" &&
		out=$(python3 "$cmp_py" "$tmp/shlib.p2b.fdata" "$tmp/shlib.fdata" --allow-call-ft "$tmp/libpgo.so" 2>&1); then
		pass "pgo_bolt_vs_perf2bolt_shlib ($out)"
	else
		fail "pgo_bolt_vs_perf2bolt_shlib: $(head -1 "$tmp/shlib.err") $(head -1 "$tmp/shlib.pgo.err") ${out:-}"
	fi
else
	fail "pgo_bolt_build_shlib: $(head -1 "$tmp/gcc.err")"
fi

lib=/usr/lib/x86_64-linux-gnu
if [ ! -f $lib/libsqlite3.a ] || [ ! -f $lib/libz.a ] || [ ! -f /usr/include/sqlite3.h ]; then
	for c in vs_perf2bolt pa llvm_bolt autofdo; do # one_case's 4 checks, skipped
		skip "pgo_bolt_${c}_sqlite: no static SQLite/zlib (apt-get install libsqlite3-dev zlib1g-dev)"
	done
elif gcc -O2 -g -Wl,--emit-relocs -o "$tmp/sqlite" "$fx/realworld_sqlite.c" -l:libsqlite3.a -l:libz.a -lm \
	2>"$tmp/gcc.err"; then
	# a dense sample: the exit path too (crtstuff's functions without a
	# size, _fini, the PLT's .plt.got entry)
	period=97 one_case sqlite "$tmp/sqlite" 4000
else
	fail "pgo_bolt_build_sqlite: $(head -1 "$tmp/gcc.err")"
fi
