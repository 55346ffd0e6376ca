#!/bin/bash
# hwprof pgo on recordings without branch stacks (perf record -e cpu-clock,
# which works without a PMU): the profiles of IP samples, against the tools
# that make them from the same recording:
#   - --format llvm equals AutoFDO's create_llvm_prof --use_lbr=false
#     (llvm-profgen 19 refuses perf data without -b) function by function,
#     call site by call site and line by line, order aside
#     (tests/tools/afdo_prof_compare.py; create_llvm_prof 0.19 prints inlined
#     callees' names from freed memory, so call sites are matched by
#     location), on the fixture tests/fixtures/pgo_llvm.c built by clang
#     (-fdebug-info-for-profiling) and by gcc, and on a real program: hwprof
#     itself, built with clang into $tmp, analysing a generated recording;
#     DWARF 4, which autofdo 0.19 reads;
#   - llvm-profdata-19 show --sample reads it (the same function lines as
#     the oracle's) and clang-19 -fprofile-sample-use compiles with it, no
#     warning, the profile in the IR;
#   - --format autofdo (the address section only) makes create_llvm_prof
#     --profiler=text write the same profile as from the recording;
#   - --format bolt equals 'perf2bolt -nl' line by line (order aside,
#     tests/e2e/fdata_compare.py), llvm-bolt-19 accepts it with as many
#     profiled functions as with perf2bolt's and the BOLTed program prints
#     the same: the fixture and the SQLite driver (linked with --emit-relocs);
#   - perf script -F ip text (no brstack) gives the same fdata;
#   - the warning on stderr, the '#' line in the LLVM profile, --format
#     bolt-pa refused in one line;
#   - --ip-samples on an emulated recording (it has branch stacks): the same
#     profiles from its samples' IPs (heads and call targets aside: the
#     oracle takes them from the stacks).
# Skips what needs a missing tool (perf, clang-19, autofdo, bolt-19).
. "$(dirname "$0")/../tools/emu_lib.sh"
if [ ! -x "${HWPROF:-}" ]; then
	echo "PLAN 1"
	skip "pgo_nolbr: no hwprof binary (\$HWPROF=${HWPROF:-unset})"
	exit 0
fi
cd "$tmp" || exit 1 # perf2bolt and llvm-bolt leave files in the current directory
if ! command -v perf >/dev/null || ! perf record -q -e cpu-clock -o probe.data -- /bin/true >/dev/null 2>&1; then
	echo "PLAN 1"
	skip "pgo_nolbr: perf record -e cpu-clock does not work here"
	exit 0
fi
cc=$(command -v clang-19)
profdata=$(command -v llvm-profdata-19 || echo /usr/lib/llvm-19/bin/llvm-profdata)
perf2bolt=/usr/lib/llvm-19/bin/perf2bolt # perf2bolt-19 starts llvm-bolt (it looks at its name)
bolt=$(command -v llvm-bolt-19 || echo /usr/lib/llvm-19/bin/llvm-bolt)
have_afdo=$(command -v create_llvm_prof)
have_bolt=yes
[ -x "$perf2bolt" ] && [ -x "$bolt" ] || have_bolt=
# PLAN, from the tools present: llvm_case 2 checks; bolt_case 2 (1 SKIP
# without BOLT, 1 with IP=1); the clang fixture 8 + autofdo text + BOLT's
# text input; gcc 2; the real program 3; SQLite bolt_case; --ip-samples
# autofdo + bolt_case. A part that cannot run is 1 SKIP.
bolt_n=1
[ -n "$have_bolt" ] && bolt_n=2
if [ -z "$cc" ]; then
	plan=1
else
	plan=$((6 + bolt_n))
	[ -n "$have_afdo" ] && plan=$((plan + 1))
	[ -n "$have_bolt" ] && plan=$((plan + 1))
fi
plan=$((plan + 2))
if [ -n "${PGO_NOLBR_NO_REAL:-}" ] || [ -z "$cc" ]; then plan=$((plan + 1)); else plan=$((plan + 3)); fi
lib=/usr/lib/x86_64-linux-gnu
if [ ! -f $lib/libsqlite3.a ] || [ ! -f $lib/libz.a ] || [ ! -f /usr/include/sqlite3.h ]; then
	plan=$((plan + 1))
else
	plan=$((plan + bolt_n))
fi
if [ -z "$cc" ] || ! emu_ready pgo_nolbr_ip_samples >/dev/null; then
	plan=$((plan + 1))
else
	plan=$((plan + 1))
	[ -n "$have_afdo" ] && plan=$((plan + 1))
fi
echo "PLAN $plan"
cmp_llvm=$tools/afdo_prof_compare.py
cmp_fdata=$root/tests/e2e/fdata_compare.py
fx=$root/tests/fixtures

# rec NAME PERIOD PROG ARGS: a cpu-clock recording $tmp/NAME.data
rec() {
	local name=$1 period=$2
	shift 2
	if ! perf record -q -e cpu-clock -c "$period" -o "$name.data" -- "$@" >/dev/null 2>"$name.rec.err"; then
		fail "pgo_nolbr_record_$name: $(head -1 "$name.rec.err")"
		return 1
	fi
}

# llvm_case NAME BINARY [compare options]: hwprof's LLVM profile of
# NAME.data against create_llvm_prof's, and llvm-profdata's reading
llvm_case() {
	local name=$1 bin=$2 out
	shift 2
	if ! "$HWPROF" pgo -i "$name.data" --format llvm --binary "$bin" -o "$name.hw.prof" 2>"$name.hw.err"; then
		fail "pgo_nolbr_llvm_$name: $(head -1 "$name.hw.err")"
		return 1
	fi
	if [ -z "$have_afdo" ]; then
		skip "pgo_nolbr_llvm_vs_autofdo_$name: create_llvm_prof not installed (apt-get install autofdo)"
	else
		create_llvm_prof --binary="$bin" --profile="$name.data" --use_lbr=false --format=text \
			--out="$name.afdo.prof" >/dev/null 2>&1
		TEST_NAME=pgo_nolbr_llvm_vs_autofdo_$name python3 "$cmp_llvm" "$name.hw.prof" "$name.afdo.prof" "$@"
	fi
	# llvm-profdata's function lines ("Function: NAME: TOTAL, HEAD, N sampled
	# lines") against the oracle's functions (which llvm-profdata may not
	# read: the garbage names)
	local hs ps
	hs=$("$profdata" show --sample "$name.hw.prof" 2>"$name.pd.err" | grep '^Function:' |
		sed -E 's/^Function: (.*), [0-9]+ sampled lines$/\1/' | LC_ALL=C sort)
	if [ -n "$have_afdo" ]; then
		ps=$(python3 "$cmp_llvm" --functions "$name.afdo.prof" | LC_ALL=C sort)
	else
		ps=$hs
	fi
	if [ -n "$hs" ] && [ "$hs" = "$ps" ]; then
		pass "pgo_nolbr_profdata_$name (llvm-profdata-19 reads it: $(echo "$hs" | wc -l) functions, as in the oracle's)"
	else
		fail "pgo_nolbr_profdata_$name: $(head -1 "$name.pd.err"); its function lines differ from the oracle's"
	fi
}

# bolt_case NAME BINARY PROG-ARGS...: the no-LBR fdata against perf2bolt -nl, then llvm-bolt
bolt_case() {
	local name=$1 bin=$2 out
	shift 2
	if [ -z "$have_bolt" ]; then
		skip "pgo_nolbr_bolt_$name: perf2bolt / llvm-bolt 19 not installed (apt-get install bolt-19)"
		return
	fi
	if ! "$perf2bolt" -nl -p "$name.data" -o "$name.p2b.fdata" "$bin" >"$name.p2b.out" 2>&1; then
		fail "pgo_nolbr_perf2bolt_$name: $(grep -m1 -E 'ERROR|error' "$name.p2b.out")"
		return
	fi
	if ! "$HWPROF" pgo -q -i "$name.data" --format bolt --binary "$bin" ${IP:+--ip-samples} -o "$name.fdata" \
		2>"$name.bolt.err"; then
		fail "pgo_nolbr_bolt_$name: $(head -1 "$name.bolt.err")"
		return
	fi
	if out=$(python3 "$cmp_fdata" "$name.p2b.fdata" "$name.fdata" 2>&1); then
		pass "pgo_nolbr_bolt_vs_perf2bolt_$name ($(head -1 "$name.fdata"); ${out/edges/sampled addresses})"
	else
		fail "pgo_nolbr_bolt_vs_perf2bolt_$name: $out"
	fi
	[ -n "${IP:-}" ] && return # the BOLT run is the same as from a cpu-clock recording
	local opt=(-reorder-blocks=ext-tsp -reorder-functions=cdsort)
	"$bolt" "$bin" -o "$name.bolt" -data="$name.fdata" "${opt[@]}" >"$name.bolt.out" 2>&1
	local rc=$?
	"$bolt" "$bin" -o "$name.bolt2" -data="$name.p2b.fdata" "${opt[@]}" >"$name.bolt2.out" 2>&1
	local h p
	h=$(grep -m1 'have non-empty execution profile' "$name.bolt.out")
	p=$(grep -m1 'have non-empty execution profile' "$name.bolt2.out")
	if [ $rc -eq 0 ] && [ -n "$h" ] && [ "$h" = "$p" ] && ! grep -q '^BOLT-INFO: 0 out of' <<<"$h" &&
		[ "$("./$name.bolt" "$@")" = "$("$bin" "$@")" ]; then
		pass "pgo_nolbr_llvm_bolt_$name (${h#BOLT-INFO: }; the optimized program prints the same)"
	else
		fail "pgo_nolbr_llvm_bolt_$name: exit $rc; hwprof: '$h'; perf2bolt: '$p'; $(grep -m1 ERROR "$name.bolt.out")"
	fi
}

# ---- the fixture, built by clang: every check ----
if [ -z "$cc" ]; then
	skip "pgo_nolbr_clang: clang-19 not installed (apt-get install clang-19)"
elif ! "$cc" -O2 -g -gdwarf-4 -fdebug-info-for-profiling -Wl,--emit-relocs -o pgo_llvm "$fx/pgo_llvm.c" 2>cc.err; then
	fail "pgo_nolbr_build: $(head -1 cc.err)"
elif rec fixture 50000 ./pgo_llvm 30000000; then
	llvm_case fixture "$tmp/pgo_llvm"
	# the warning: one line, saying why the profile is weaker
	if [ "$(wc -l <fixture.hw.err)" -eq 1 ] && grep -q 'no branch stacks: from [0-9]* IP samples: the profile is weaker' fixture.hw.err; then
		pass "pgo_nolbr_warning ($(cat fixture.hw.err))"
	else
		fail "pgo_nolbr_warning: $(head -2 fixture.hw.err | tr '\n' ' ')"
	fi
	if head -1 fixture.hw.prof | grep -q '^# hwprof: from IP samples'; then
		pass "pgo_nolbr_comment ($(head -1 fixture.hw.prof | cut -c1-60)...)"
	else
		fail "pgo_nolbr_comment: first line $(head -1 fixture.hw.prof)"
	fi
	# clang reads it: no warning, and the profile reaches the IR
	if "$cc" -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=fixture.hw.prof -Wall -c \
		-o pgo_use.o "$fx/pgo_llvm.c" 2>use.err && [ ! -s use.err ] &&
		"$cc" -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=fixture.hw.prof -S -emit-llvm \
			-o pgo_use.ll "$fx/pgo_llvm.c" 2>/dev/null && grep -q 'branch_weights' pgo_use.ll; then
		pass "pgo_nolbr_sample_use (clang-19 -fprofile-sample-use: no warnings, branch weights in the IR)"
	else
		fail "pgo_nolbr_sample_use: $(head -2 use.err | tr '\n' ' ')"
	fi
	# AutoFDO text: create_llvm_prof makes the same profile from it as from the recording
	if [ -n "$have_afdo" ]; then
		"$HWPROF" pgo -q -i fixture.data --format autofdo -o fixture.afdo.txt 2>/dev/null
		create_llvm_prof --binary=pgo_llvm --profile=fixture.afdo.txt --profiler=text --use_lbr=false \
			--format=text --out=fixture.fromtext.prof >/dev/null 2>&1
		TEST_NAME=pgo_nolbr_autofdo_text python3 "$cmp_llvm" fixture.fromtext.prof fixture.afdo.prof
	fi
	bolt_case fixture "$tmp/pgo_llvm" 1000
	# perf script text without brstack is a recording without branch stacks
	# too (its event is not named: the header aside)
	if [ -n "$have_bolt" ] && [ -s fixture.p2b.fdata ]; then
		perf script -i fixture.data -F ip --show-mmap-events >fixture.txt 2>/dev/null
		if "$HWPROF" pgo -q -i fixture.txt --format bolt -o fixture.txt.fdata 2>txt.err &&
			out=$(python3 "$cmp_fdata" <(sed 's/^no_lbr .*/no_lbr/' fixture.p2b.fdata) \
				<(sed 's/^no_lbr .*/no_lbr/' fixture.txt.fdata) 2>&1); then
			pass "pgo_nolbr_text_input (perf script -F ip: $out)"
		else
			fail "pgo_nolbr_text_input: $(head -1 txt.err) ${out:-}"
		fi
	fi
	# the pre-aggregated text has no line for IP samples: one clear line
	if "$HWPROF" pgo -i fixture.data --format bolt-pa >/dev/null 2>pa.err; then
		fail "pgo_nolbr_bolt_pa: accepted"
	elif [ "$(wc -l <pa.err)" -eq 1 ] && grep -q 'no line for IP samples' pa.err; then
		pass "pgo_nolbr_bolt_pa ($(cat pa.err))"
	else
		fail "pgo_nolbr_bolt_pa: $(head -2 pa.err | tr '\n' ' ')"
	fi
fi

# ---- the fixture built by gcc (its own DWARF and discriminators) ----
if gcc -O2 -gdwarf-4 -o pgo_gcc "$fx/pgo_llvm.c" 2>gcc.err && rec gcc 50000 ./pgo_gcc 30000000; then
	llvm_case gcc "$tmp/pgo_gcc"
else
	fail "pgo_nolbr_gcc: $(head -1 gcc.err)"
fi

# ---- a real program with source: hwprof, analysing a generated recording ----
if [ -n "${PGO_NOLBR_NO_REAL:-}" ]; then
	skip "pgo_nolbr_real: PGO_NOLBR_NO_REAL set"
elif [ -z "$cc" ]; then
	skip "pgo_nolbr_real: clang-19 not installed"
elif ! make -C "$root" -j2 SAN= BUILD="$tmp/cb" CC="$cc" CFLAGS="-O2 -g -gdwarf-4 -fdebug-info-for-profiling" \
	"$tmp/cb/hwprof" >cb.log 2>&1; then
	fail "pgo_nolbr_real_build: $(grep -m1 -E "error:|Error [0-9]" cb.log)"
elif ! mkdir -p symfs/usr/lib/hwprof-bench ||
	! "$build/bench/gen_branch_perfdata" gen.data 60 --elf "$tmp/symfs/usr/lib/hwprof-bench/libbenchfake.so" \
		>gen.out 2>&1; then
	fail "pgo_nolbr_real_input: $(head -1 gen.out)"
elif rec hwprof 20000 "$tmp/cb/hwprof" probs -q -i gen.data --symfs symfs; then
	llvm_case hwprof "$tmp/cb/hwprof"
	# clang compiles hwprof's hottest file with the profile, no warning
	if "$cc" -O2 -g -fdebug-info-for-profiling -fprofile-sample-use=hwprof.hw.prof -Wall -std=c11 -D_GNU_SOURCE \
		-I"$root/include" -I"$root/src" -c -o bt.o "$root/src/analysis/branch_table.c" 2>bt.err && [ ! -s bt.err ]; then
		pass "pgo_nolbr_sample_use_real (src/analysis/branch_table.c with hwprof's profile: no warnings)"
	else
		fail "pgo_nolbr_sample_use_real: $(head -2 bt.err | tr '\n' ' ')"
	fi
fi

# ---- a real program without source: the SQLite driver, for BOLT ----
lib=/usr/lib/x86_64-linux-gnu
if [ ! -f $lib/libsqlite3.a ] || [ ! -f $lib/libz.a ] || [ ! -f /usr/include/sqlite3.h ]; then
	skip "pgo_nolbr_sqlite: no static SQLite/zlib (apt-get install libsqlite3-dev zlib1g-dev)"
elif gcc -O2 -g -Wl,--emit-relocs -o sqlite "$fx/realworld_sqlite.c" -l:libsqlite3.a -l:libz.a -lm 2>gcc.err; then
	rec sqlite 20000 ./sqlite 200000 && bolt_case sqlite "$tmp/sqlite" 3000
else
	fail "pgo_nolbr_build_sqlite: $(head -1 gcc.err)"
fi

# ---- --ip-samples: an emulated recording (with branch stacks) profiled by its IPs ----
if [ -z "$cc" ] || [ ! -x pgo_llvm ]; then
	skip "pgo_nolbr_ip_samples: no clang-19 fixture"
elif emu_ready pgo_nolbr_ip_samples; then
	if emu_record emu -c 2003 -- ./pgo_llvm 200000; then
		if "$HWPROF" pgo -i emu.data --format llvm --ip-samples -o emu.hw.prof 2>emu.hw.err &&
			grep -q -- '--ip-samples: from' emu.hw.err; then
			if [ -n "$have_afdo" ]; then
				create_llvm_prof --binary=pgo_llvm --profile=emu.data --use_lbr=false --format=text \
					--out=emu.afdo.prof >/dev/null 2>&1
				TEST_NAME=pgo_nolbr_ip_samples_llvm python3 "$cmp_llvm" emu.hw.prof emu.afdo.prof --no-calls
			fi
		else
			fail "pgo_nolbr_ip_samples_llvm: $(head -1 emu.hw.err)"
		fi
		IP=1 bolt_case emu "$tmp/pgo_llvm"
	else
		fail "pgo_nolbr_ip_samples_record: $(head -1 emu.err)"
	fi
fi
