#!/bin/bash
# Emulated recordings that llvm-profgen and perf2bolt read: a PIE with a hot
# function and a shared library with one (called from a driver), each
# recorded with --emulate; then
#   - the MMAP2 records are the kernel's: one per executable PT_LOAD segment
#     at its file offset (tests/tools/mmap_segments.py, against readelf -lW);
#   - hwprof and perf report the same top branch (by module offset);
#   - llvm-profgen-19 (--perfdata, and --perfscript on perf script's output)
#     and perf2bolt each write a non-empty profile naming the hot function
#     (profgen with --binary the .so, perf2bolt on the .so for the library).
# Skips when llvm-profgen-19 / perf2bolt are absent (Debian llvm-19, bolt-19).
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where a tool is missing
ready=$(emu_ready profgen_bolt) || { echo "PLAN 1"; echo "$ready"; exit 0; }
if ! command -v perf >/dev/null || ! command -v readelf >/dev/null; then
	echo "PLAN 1"
	skip "profgen_bolt: perf or readelf not installed"
	exit 0
fi
profgen=$(command -v llvm-profgen-19 || echo /usr/lib/llvm-19/bin/llvm-profgen)
# perf2bolt-19 starts llvm-bolt (the tool looks at its own name): use the
# unsuffixed name in llvm-19's bin directory.
perf2bolt=$(command -v perf2bolt || echo /usr/lib/llvm-19/bin/perf2bolt)
[ -x "$profgen" ] || profgen=
[ -x "$perf2bolt" ] || perf2bolt=
echo "PLAN 10"

fx=$root/tests/fixtures
# -Wl,--emit-relocs: BOLT rewrites only binaries that keep their relocations
if ! gcc -O2 -g -fPIE -pie -Wl,--emit-relocs -o "$tmp/pgo_hot" "$fx/pgo_hot.c" 2>"$tmp/gcc.err" ||
	! gcc -O2 -g -fPIC -shared -Wl,--emit-relocs -o "$tmp/libpgo.so" "$fx/pgo_lib.c" 2>>"$tmp/gcc.err" ||
	! gcc -O2 -g -o "$tmp/pgo_driver" "$fx/pgo_driver.c" -L"$tmp" -lpgo -Wl,-rpath,"$tmp" \
		2>>"$tmp/gcc.err"; then
	fail "profgen_bolt_build: $(head -1 "$tmp/gcc.err")"
	exit 0
fi

# Tools that leave temporary files in the current directory run in $tmp.
cd "$tmp" || exit 1

# one_case NAME PROG BINARY FUNC: records PROG, checks the mappings, the
# reports and the profiles of BINARY (FUNC: its hot function).
one_case() {
	local name=$1 prog=$2 bin=$3 func=$4 out
	if ! emu_record "$name" -c 2003 -- "$prog"; then
		fail "profgen_bolt_record_$name: $(head -1 "$tmp/$name.err")"
		return
	fi
	local data=$tmp/$name.data

	# the MMAP2 records against the program headers (and the build-ids)
	perf script --show-mmap-events -i "$data" >"$tmp/$name.mmap" 2>/dev/null
	if out=$(python3 "$tools/mmap_segments.py" --build-id "$tmp/$name.mmap" "$prog" "$bin"); then
		pass "profgen_bolt_mmap_$name ($out)"
	else
		fail "profgen_bolt_mmap_$name: $out"
	fi

	# hwprof and perf: the same top branch (symbols through the new maps),
	# from the text tables: samples, then the four key columns
	local h p
	h=$("$HWPROF" branches -i "$data" 2>/dev/null | grep -v '^#' | grep . | head -1 |
		awk '{ print $2","$3","$4" "$5","$6","$7" "$8 }')
	p=$(perf report -b --stdio -F sample,dso_from,symbol_from,dso_to,symbol_to -i "$data" \
		2>/dev/null | grep -v '^#' | grep . | head -1 | awk '{ print $1","$2","$3" "$4","$5","$6" "$7 }')
	if [ -n "$h" ] && [ "$h" = "$p" ] && [[ $h == *"[.] $func,"* ]]; then
		pass "profgen_bolt_top_branch_$name ($h)"
	else
		fail "profgen_bolt_top_branch_$name: hwprof '$h', perf '$p' (want $func)"
	fi

	if [ -z "$profgen" ]; then
		skip "profgen_bolt_profgen_perfdata_$name: llvm-profgen-19 not installed (apt-get install llvm-19)"
		skip "profgen_bolt_profgen_perfscript_$name: llvm-profgen-19 not installed (apt-get install llvm-19)"
	else
		# a text profile's function line: NAME:TOTAL:HEAD
		"$profgen" --perfdata "$data" --binary "$bin" --format=text --output "$tmp/$name.prof" \
			>"$tmp/$name.pg.out" 2>&1
		if [ $? -eq 0 ] && grep -Eq "^$func:[1-9][0-9]*:" "$tmp/$name.prof"; then
			pass "profgen_bolt_profgen_perfdata_$name ($(grep -E "^$func:" "$tmp/$name.prof"))"
		else
			fail "profgen_bolt_profgen_perfdata_$name: $(grep -m1 -i error "$tmp/$name.pg.out" ||
				echo "no $func line in the profile")"
		fi
		perf script -F ip,brstack --show-mmap-events -i "$data" >"$tmp/$name.script" 2>/dev/null
		"$profgen" --perfscript "$tmp/$name.script" --binary "$bin" --format=text \
			--output "$tmp/$name.prof2" >"$tmp/$name.pg2.out" 2>&1
		if [ $? -eq 0 ] && grep -Eq "^$func:[1-9][0-9]*:" "$tmp/$name.prof2"; then
			pass "profgen_bolt_profgen_perfscript_$name ($(grep -E "^$func:" "$tmp/$name.prof2"))"
		else
			fail "profgen_bolt_profgen_perfscript_$name: $(grep -m1 -i error "$tmp/$name.pg2.out" ||
				echo "no $func line in the profile")"
		fi
	fi

	if [ -z "$perf2bolt" ]; then
		skip "profgen_bolt_perf2bolt_$name: perf2bolt not installed (apt-get install bolt-19)"
	else
		# an fdata branch line: 1 FROM_FUNC OFF 1 TO_FUNC OFF MISPREDS COUNT
		"$perf2bolt" -p "$data" -o "$tmp/$name.fdata" "$bin" >"$tmp/$name.pb.out" 2>&1
		if [ $? -eq 0 ] && awk -v f="$func" '$1 == 1 && $2 == f && $8 > 0 { ok = 1 } END { exit !ok }' \
			"$tmp/$name.fdata"; then
			pass "profgen_bolt_perf2bolt_$name ($(grep -c . "$tmp/$name.fdata") fdata lines, $func in them)"
		else
			fail "profgen_bolt_perf2bolt_$name: $(grep -m1 -E 'ERROR|WARNING' "$tmp/$name.pb.out" ||
				echo "no branch from $func in the fdata")"
		fi
	fi
}

one_case pie "$tmp/pgo_hot" "$tmp/pgo_hot" hot_loop
one_case shlib "$tmp/pgo_driver" "$tmp/libpgo.so" lib_hot
