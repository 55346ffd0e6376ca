#!/bin/bash
# LLVM sample profiles ('hwprof pgo --format llvm', hwp_llvm_profile__write)
# against llvm-profgen-19 on the same emulated recording of a fixture built
# with clang -O2 -g -fdebug-info-for-profiling (tests/fixtures/pgo_llvm.c:
# an inlined helper, direct and indirect calls, a loop with discriminators):
#   - per-function totals within 5% for every function with >= 1% of
#     profgen's samples, and every line of profgen's profile equal in hwprof's
#     (count, discriminator, call targets, inline context) --
#     tests/tools/llvm_prof_compare.py parses both independently;
#   - llvm-profdata-19 show --sample reads hwprof's profile and finds the
#     same total as in profgen's;
#   - clang -O2 -fprofile-sample-use=hwprof.prof compiles the fixture without
#     a warning.
# clang-19 is used when installed, else clang (the fixture only needs DWARF
# 4/5 line tables; the profile format is the same). Skips when
# llvm-profgen-19 / llvm-profdata-19 / clang are absent.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 3 checks for each profiled program, 2 fewer for each skipped (gcc's,
# the real one's); 1 (the SKIP) where a tool is missing
ready=$(emu_ready pgo_llvm) || { echo "PLAN 1"; echo "$ready"; exit 0; }
cc=$(command -v clang-19 || command -v clang)
profgen=$(command -v llvm-profgen-19 || echo /usr/lib/llvm-19/bin/llvm-profgen)
profdata=$(command -v llvm-profdata-19 || echo /usr/lib/llvm-19/bin/llvm-profdata)
if [ -z "$cc" ] || [ ! -x "$profgen" ] || [ ! -x "$profdata" ]; then
	echo "PLAN 1"
	skip "pgo_llvm: clang, llvm-profgen-19 or llvm-profdata-19 not installed (apt-get install clang-19 llvm-19)"
	exit 0
fi
plan=11
command -v gcc >/dev/null || plan=$((plan - 2))
[ -n "${PGO_LLVM_NO_REAL:-}" ] && plan=$((plan - 2))
echo "PLAN $plan"
fx=$root/tests/fixtures/pgo_llvm.c
cd "$tmp" || exit 1

if ! "$cc" -O2 -g -fdebug-info-for-profiling -o pgo_llvm "$fx" 2>cc.err; then
	fail "pgo_llvm_build: $(head -1 cc.err)"
	exit 0
fi

# one_case NAME BINARY [record args] -- PROG ARGS: records, writes both
# profiles, compares them (extra compare options in $CMP_OPTS).
one_case() {
	local name=$1 bin=$2
	shift 2
	if ! emu_record "$name" "$@"; then
		fail "pgo_llvm_record_$name: $(head -1 "$tmp/$name.err")"
		return 1
	fi
	if ! "$HWPROF" pgo --format llvm -i "$name.data" --binary "$bin" -o "$name.hw.prof" 2>"$name.hw.err"; then
		fail "pgo_llvm_write_$name: $(head -1 "$name.hw.err")"
		return 1
	elif [ -s "$name.hw.err" ]; then
		fail "pgo_llvm_write_$name: it said: $(head -1 "$name.hw.err")"
	fi
	if ! "$profgen" --perfdata "$name.data" --binary "$bin" --format=text --output "$name.pg.prof" \
		>"$name.pg.out" 2>&1; then
		fail "pgo_llvm_profgen_$name: $(grep -m1 -i error "$name.pg.out")"
		return 1
	fi
	TEST_NAME=pgo_llvm_$name python3 "$tools/llvm_prof_compare.py" "$name.hw.prof" "$name.pg.prof" \
		${CMP_OPTS:-} 2>"$name.cmp"
	sed 's/^/    /' "$name.cmp" >&2
	# the consumer's reading: llvm-profdata's function lines ("Function:
	# NAME: TOTAL, HEAD, N sampled lines") of both files
	local hs ps
	hs=$("$profdata" show --sample "$name.hw.prof" 2>"$name.pd.err" | grep '^Function:' | sort)
	ps=$("$profdata" show --sample "$name.pg.prof" 2>/dev/null | grep '^Function:' | sort)
	if [ -n "$hs" ] && [ "$hs" = "$ps" ]; then
		pass "pgo_llvm_profdata_$name (llvm-profdata reads it: $(echo "$hs" | wc -l) functions as in profgen's)"
	elif [ -n "$hs" ] && [ -n "${PROFDATA_READ_ONLY:-}" ]; then
		pass "pgo_llvm_profdata_$name (llvm-profdata reads it: $(echo "$hs" | wc -l) functions)"
	else
		fail "pgo_llvm_profdata_$name: $(head -1 "$name.pd.err"); hwprof's and profgen's function lines differ"
	fi
}

one_case fixture "$tmp/pgo_llvm" -c 2003 -- "$tmp/pgo_llvm" 200000 || exit 0

# clang reads it back: the fixture compiles with the profile, no warning
if "$cc" -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=fixture.hw.prof -Wall \
	-o pgo_llvm.pgo "$fx" 2>use.err && [ ! -s use.err ]; then
	pass "pgo_llvm_sample_use ($(basename "$cc") -fprofile-sample-use: no warnings)"
else
	fail "pgo_llvm_sample_use: $(head -2 use.err | tr '\n' ' ')"
fi
# and it uses it: the profiled build's 'run' carries the profile's entry count
if "$cc" -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=fixture.hw.prof -S -emit-llvm \
	-o pgo_llvm.ll "$fx" 2>/dev/null && grep -q 'function_entry_count' pgo_llvm.ll; then
	pass "pgo_llvm_sample_use_applied (function_entry_count in the IR)"
else
	fail "pgo_llvm_sample_use_applied: no function_entry_count in the IR built with the profile"
fi

# The same fixture built by gcc: its own discriminators and DWARF (functions
# split into hot and cold parts carry DW_AT_ranges)
if command -v gcc >/dev/null && gcc -O2 -g -o pgo_llvm_gcc "$fx" 2>gcc.err; then
	one_case gcc "$tmp/pgo_llvm_gcc" -c 2003 -- "$tmp/pgo_llvm_gcc" 200000
else
	skip "pgo_llvm_gcc: gcc missing or failed: $(head -1 gcc.err 2>/dev/null)"
fi

# A real program: hwprof itself, built with clang (-fdebug-info-for-profiling)
# into $tmp, recorded while it analyses the fixture's recording. Its
# profile has thousands of lines, inlining across static helpers and C
# library calls that are not function entries of the binary.
if [ -n "${PGO_LLVM_NO_REAL:-}" ]; then
	skip "pgo_llvm_real: PGO_LLVM_NO_REAL set"
elif ! make -C "$root" -j2 SAN= BUILD="$tmp/cb" CC="$cc" CFLAGS="-O2 -g -fdebug-info-for-profiling" \
	"$tmp/cb/hwprof" >cb.log 2>&1; then
	fail "pgo_llvm_real_build: $(grep -m1 -i error cb.log)"
else
	one_case hwprof "$tmp/cb/hwprof" -c 1009 -- "$tmp/cb/hwprof" probs -i "$tmp/fixture.data"
fi
