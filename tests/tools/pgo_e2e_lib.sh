# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2154,SC2034 # inputs and outputs are the caller's variables
# The end-to-end PGO flows of issue 10, shared by tests/long/pgo_e2e.sh (are
# the optimized programs built cleanly, do they print what the baseline
# prints) and bench/pgo_e2e.sh (how much faster are they). Sourced; needs
# $root (the source tree), $e2e_build (its build directory, absolute: the
# benchmark generator), $HWPROF (the hwprof that records and writes the
# profiles) and $e2e_dir (an absolute work directory). Each flow builds a
# baseline, records a training run with 'hwprof record --emulate -b', writes
# the profile with hwprof and with the established tool from the same
# recording, and builds one optimized program from each:
#   e2e_llvm_hwprof: hwprof itself built by clang-19 -O2 -g
#     -fdebug-info-for-profiling, trained on 'hwprof probs' of a small
#     generated recording; rebuilt with -fprofile-sample-use= the profile of
#     'hwprof pgo --format llvm' and of llvm-profgen-19;
#   e2e_bolt NAME: a driver linked with --emit-relocs against Debian's static
#     SQLite (sqlite) or Lua 5.4 (lua); rewritten by llvm-bolt-19 with the
#     fdata of 'hwprof pgo --format bolt' and of perf2bolt (LLVM 19).
# A failing step returns 1 with the reason in $e2e_err; its output is in
# $e2e_dir/STEP.log.

e2e_cc=$(command -v clang-19 || true)
e2e_profgen=$(command -v llvm-profgen-19 || echo /usr/lib/llvm-19/bin/llvm-profgen)
e2e_profdata=$(command -v llvm-profdata-19 || echo /usr/lib/llvm-19/bin/llvm-profdata)
e2e_perf2bolt=/usr/lib/llvm-19/bin/perf2bolt # perf2bolt-19 starts llvm-bolt (it looks at its name)
e2e_bolt=$(command -v llvm-bolt-19 || echo /usr/lib/llvm-19/bin/llvm-bolt)
e2e_lib=/usr/lib/x86_64-linux-gnu
# BOLT's usual optimization set (as in its README's example)
e2e_bolt_opts=(-reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions -split-all-cold
	-split-eh -dyno-stats)

# e2e_missing: prints what is not installed (empty: everything is)
e2e_missing() {
	local m=
	[ -n "$e2e_cc" ] || m+=" clang-19"
	[ -x "$e2e_profgen" ] && [ -x "$e2e_profdata" ] || m+=" llvm-19"
	[ -x "$e2e_perf2bolt" ] && [ -x "$e2e_bolt" ] || m+=" bolt-19"
	command -v qemu-x86_64 >/dev/null || m+=" qemu-user"
	command -v gcc >/dev/null || m+=" gcc"
	[ -f $e2e_lib/libsqlite3.a ] && [ -f $e2e_lib/libz.a ] || m+=" libsqlite3-dev zlib1g-dev"
	[ -f $e2e_lib/liblua5.4.a ] && [ -f /usr/include/lua5.4/lua.h ] || m+=" liblua5.4-dev"
	echo "${m# }"
}

# e2e_step NAME CMD...: runs CMD in $e2e_dir (profgen, perf2bolt and
# llvm-bolt leave files in the current directory), output in $e2e_dir/NAME.log
e2e_step() {
	local name=$1
	shift
	if ! (cd "$e2e_dir" && "$@") >"$e2e_dir/$name.log" 2>&1; then
		e2e_err="$name: $(grep -m1 -iE 'error|fail' "$e2e_dir/$name.log" || tail -1 "$e2e_dir/$name.log")"
		return 1
	fi
}

# e2e_record NAME PERIOD -- PROG ARGS: the training run, $e2e_dir/NAME.train.data
e2e_record() {
	local name=$1 period=$2
	shift 3
	e2e_step "$name.record" "$HWPROF" record --emulate -b -c "$period" -o "$e2e_dir/$name.train.data" \
		-- "$@"
}

# e2e_gen OUT MB: a generated branch-stack recording of the fake module that
# $e2e_dir/symfs holds (same seed: the same module for every size)
e2e_gen() {
	local gen=$e2e_build/bench/gen_branch_perfdata
	mkdir -p "$e2e_dir/symfs/usr/lib/hwprof-bench"
	[ -f "$e2e_dir/symfs/usr/lib/hwprof-bench/libbenchfake.so" ] ||
		e2e_step gen.elf "$gen" "$e2e_dir/.elf.data" 0 \
			--elf "$e2e_dir/symfs/usr/lib/hwprof-bench/libbenchfake.so" || return 1
	[ -f "$1" ] || e2e_step "gen.$2" "$gen" "$1" "$2"
}

# e2e_make_hwprof DIR CFLAGS...: hwprof built by clang into DIR (no
# sanitizers: the subject is timed and emulated); a warning fails
e2e_make_hwprof() {
	local out=$1
	shift
	e2e_step "make.$(basename "$out")" make -C "$root" -j2 SAN= BUILD="$out" CC="$e2e_cc" \
		CFLAGS="$*" "$out/hwprof" || return 1
	if grep -qi 'warning' "$e2e_dir/make.$(basename "$out").log"; then
		e2e_err="make.$(basename "$out"): $(grep -m1 -i warning "$e2e_dir/make.$(basename "$out").log")"
		return 1
	fi
}

# e2e_llvm_hwprof TRAIN_MB EVAL_MB PERIOD: sets e2e_bins (baseline,
# hwprof-PGO, profgen-PGO) and e2e_args (the measured command's arguments)
e2e_llvm_hwprof() {
	local d=$e2e_dir flags=(-O2 -g -fdebug-info-for-profiling)
	e2e_gen "$d/hw-train-in.data" "$1" && e2e_gen "$d/hw-eval-in.data" "$2" || return 1
	e2e_make_hwprof "$d/hwprof-base" "${flags[@]}" || return 1
	e2e_record hwprof "$3" -- "$d/hwprof-base/hwprof" probs -i "$d/hw-train-in.data" --symfs "$d/symfs" ||
		return 1
	e2e_step hwprof.pgo "$HWPROF" pgo -q --format llvm -i "$d/hwprof.train.data" \
		--binary "$d/hwprof-base/hwprof" -o "$d/hwprof.hw.prof" || return 1
	e2e_step hwprof.profgen "$e2e_profgen" --perfdata "$d/hwprof.train.data" \
		--binary "$d/hwprof-base/hwprof" --format=text --output "$d/hwprof.pg.prof" || return 1
	rm -rf "$d/hwprof-hw" "$d/hwprof-pg" # a new profile: rebuild everything
	e2e_make_hwprof "$d/hwprof-hw" "${flags[@]}" -fprofile-sample-use="$d/hwprof.hw.prof" &&
		e2e_make_hwprof "$d/hwprof-pg" "${flags[@]}" -fprofile-sample-use="$d/hwprof.pg.prof" || return 1
	e2e_bins=("$d/hwprof-base/hwprof" "$d/hwprof-hw/hwprof" "$d/hwprof-pg/hwprof")
	e2e_args=(probs -i "$d/hw-eval-in.data" --symfs "$d/symfs")
}

# e2e_bolt NAME TRAIN_ARG PERIOD: NAME is sqlite or lua; sets e2e_bins
# (baseline, hwprof-BOLT, perf2bolt-BOLT)
e2e_bolt() {
	local name=$1 d=$e2e_dir fx=$root/tests/fixtures b=$e2e_dir/$1 skip=()
	case $name in
	sqlite) e2e_step "$name.cc" gcc -O2 -g -Wall -Wl,--emit-relocs -o "$b" "$fx/realworld_sqlite.c" \
		-l:libsqlite3.a -l:libz.a -lm ;;
	lua) # Lua's interpreter loop dispatches through a table of label
		# addresses (computed goto), one of them its end: llvm-bolt 19 stops
		# there ("unable to get new address ... in function luaV_execute/1")
		# with any profile, so it leaves that function as it is
		skip=(-skip-funcs=luaV_execute/1)
		e2e_step "$name.cc" gcc -O2 -g -Wall -Wl,--emit-relocs -I/usr/include/lua5.4 -o "$b" \
			"$fx/flow_lua.c" -l:liblua5.4.a -lm ;;
	esac || return 1
	e2e_record "$name" "$3" -- "$b" "$2" || return 1
	e2e_step "$name.pgo" "$HWPROF" pgo -q --format bolt -i "$d/$name.train.data" --binary "$b" \
		-o "$d/$name.hw.fdata" || return 1
	e2e_step "$name.perf2bolt" "$e2e_perf2bolt" -p "$d/$name.train.data" -o "$d/$name.p2b.fdata" "$b" ||
		return 1
	local v
	for v in hw p2b; do
		e2e_step "$name.bolt.$v" "$e2e_bolt" "$b" -o "$b.$v.bolt" -data="$d/$name.$v.fdata" \
			"${e2e_bolt_opts[@]}" "${skip[@]}" || return 1
		if grep -q 'BOLT-ERROR' "$d/$name.bolt.$v.log"; then
			e2e_err="$name.bolt.$v: $(grep -m1 BOLT-ERROR "$d/$name.bolt.$v.log")"
			return 1
		fi
	done
	e2e_bins=("$b" "$b.hw.bolt" "$b.p2b.bolt")
}

# e2e_taken PROG ARGS: prints how many taken branches PROG executes (counted
# by the emulator; a sparse recording, thrown away)
e2e_taken() {
	"$HWPROF" record --emulate -b -c 1000003 -o "$e2e_dir/.taken.data" -- "$@" 2>&1 >/dev/null |
		sed -n 's/.* \([0-9]*\) taken branches emulated.*/\1/p'
}
