#!/bin/bash
# hwprof probs / blocks against ground truth: emulated recordings with
# --exact of fixtures and of real programs (a compressor on Debian's static
# zlib, SQLite, a Lua 5.4 interpreter loop), compared by
# tests/tools/flow_check.py, which derives the exact block counts from the
# exact per-site counts and objdump on its own. For every conditional branch
# with >= 1000 sampled executions |estimated - exact taken probability| <=
# 0.02; block estimates against exact counts: Spearman >= 0.95 over blocks
# with >= 100 sampled executions, and a z-score spread <= 3 (no systematic
# error beyond sampling noise); indirect targets' shares within 0.02; every
# step of every hot path (hwprof paths) an edge objdump's code allows.
# The numbers of every program are printed (NUMBERS lines on stdout: run
# HWPROF=build/hwprof bash tests/e2e/flow_exact.sh to see them).
#
# Fixtures assert every threshold. Real programs assert the branch threshold
# as max(0.02, 6 binomial sigmas) per branch (the plain max |dp| is printed):
# of hundreds of branches near 1000 sampled executions, the largest error
# exceeds 0.02 by chance in some runs (Lua: 0.013 to 0.022 over runs), while a
# systematic error still fails every well-sampled branch. And SQLite's
# Spearman stays near 0.92 whatever the sampling rate, because hundreds of its
# blocks run (nearly) equally often (once per row: 50000, 50002, 50006, ...),
# so their ranks are decided by sampling noise; its z-score spread (about 1)
# shows the estimates are as good as the samples allow. It is printed, not
# asserted.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: flow_check.py's 7 checks for each of the 4 fixtures, zlib and Lua,
# 6 for SQLite (no Spearman); 1 SKIP for each real program without its
# static library; 1 (the SKIP) where emulated recording cannot run
ready=$(emu_ready flow_exact) || { echo "PLAN 1"; echo "$ready"; exit 0; }
if ! command -v objdump >/dev/null; then
	echo "PLAN 1"
	skip "flow_exact: objdump not installed (binutils)"
	exit 0
fi
lib=/usr/lib/x86_64-linux-gnu
plan=28
if [ -f $lib/libz.a ] && [ -f /usr/include/zlib.h ]; then plan=$((plan + 7)); else plan=$((plan + 1)); fi
if [ -f $lib/libsqlite3.a ] && [ -f $lib/libz.a ] && [ -f /usr/include/sqlite3.h ]; then
	plan=$((plan + 6))
else
	plan=$((plan + 1))
fi
if [ -f $lib/liblua5.4.a ] && [ -f /usr/include/lua5.4/lua.h ]; then plan=$((plan + 7)); else plan=$((plan + 1)); fi
echo "PLAN $plan"

# check NAME BINARY PERIOD [flow_check args] -- PROG ARGS
check() {
	local name=$1 bin=$2 period=$3 extra=()
	shift 3
	while [ "$1" != -- ]; do extra+=("$1"); shift; done
	shift
	# (--seed: the same sampling periods every run: the statistical bounds
	# are checked on one recording, not on a new draw each time)
	if ! "$HWPROF" record --emulate -c "$period" --jitter 10 --seed 1 --exact "$tmp/$name.exact" \
		-o "$tmp/$name.data" -- "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
		fail "flow_exact_$name: record failed: $(head -1 "$tmp/$name.err")"
		return
	fi
	local cmd
	for cmd in "probs" "blocks" "probs --indirect" "paths"; do
		local f=$tmp/$name.${cmd// /}.json
		# shellcheck disable=SC2086
		if ! "$HWPROF" $cmd -q --json -i "$tmp/$name.data" >"$f" 2>"$tmp/$name.cmd.err"; then
			fail "flow_exact_$name: hwprof $cmd failed: $(head -1 "$tmp/$name.cmd.err")"
			return
		fi
	done
	python3 "$tools/flow_check.py" "flow_exact_$name" "$tmp/$name.exact" "$bin" \
		"$tmp/$name.probs.json" "$tmp/$name.blocks.json" --indirect "$tmp/$name.probs--indirect.json" \
		--paths "$tmp/$name.paths.json" \
		--assert "${extra[@]}" >"$tmp/$name.check" 2>&1
	sed -n '1s/^/NUMBERS /p' "$tmp/$name.check"
	grep -E '^(PASS|FAIL) ' "$tmp/$name.check"
	grep -vE '^(PASS|FAIL|NUMBERS) ' "$tmp/$name.check" | sed -n '2,$p' | head -5 >&2
}

# Fixtures: biased and unbiased branches, a jump table, function pointers,
# data-dependent loops; -O2 and the emulation tests' -O1 without inlining.
if gcc -O2 -g -o "$tmp/flow_bias" "$root/tests/fixtures/flow_bias.c" 2>"$tmp/gcc.err" &&
	gcc $EMU_CFLAGS -o "$tmp/flow_bias_o1" "$root/tests/fixtures/flow_bias.c" 2>>"$tmp/gcc.err" &&
	gcc -O2 -g -o "$tmp/emu_cpu" "$root/tests/fixtures/emu_cpu.c" 2>>"$tmp/gcc.err"; then
	check bias_o2 "$tmp/flow_bias" 997 -- "$tmp/flow_bias" 3000000
	check bias_o1 "$tmp/flow_bias_o1" 997 -- "$tmp/flow_bias_o1" 3000000
	check cpu_branchy "$tmp/emu_cpu" 997 -- "$tmp/emu_cpu" branchy 3
	check cpu_mixed "$tmp/emu_cpu" 997 -- "$tmp/emu_cpu" mixed 3
else
	fail "flow_exact_build: $(head -1 "$tmp/gcc.err")"
fi

# Real programs, built from source with debug info against Debian's static
# libraries.
lib=/usr/lib/x86_64-linux-gnu
if [ -f $lib/libz.a ] && [ -f /usr/include/zlib.h ]; then
	if gcc -O2 -g -o "$tmp/flow_zlib" "$root/tests/fixtures/flow_zlib.c" -l:libz.a 2>"$tmp/gcc.err"; then
		check zlib "$tmp/flow_zlib" 997 --dp-noise 6 -- "$tmp/flow_zlib" 4096
	else
		fail "flow_exact_build_zlib: $(head -1 "$tmp/gcc.err")"
	fi
else
	skip "flow_exact_zlib: no static zlib (apt-get install zlib1g-dev)"
fi
if [ -f $lib/libsqlite3.a ] && [ -f $lib/libz.a ] && [ -f /usr/include/sqlite3.h ]; then
	if gcc -O2 -g -o "$tmp/sqlite" "$root/tests/fixtures/realworld_sqlite.c" -l:libsqlite3.a -l:libz.a -lm \
		2>"$tmp/gcc.err"; then
		check sqlite "$tmp/sqlite" 211 --dp-noise 6 --no-assert-rho -- "$tmp/sqlite" 50000
	else
		fail "flow_exact_build_sqlite: $(head -1 "$tmp/gcc.err")"
	fi
else
	skip "flow_exact_sqlite: no static SQLite/zlib (apt-get install libsqlite3-dev zlib1g-dev)"
fi
if [ -f $lib/liblua5.4.a ] && [ -f /usr/include/lua5.4/lua.h ]; then
	if gcc -O2 -g -I/usr/include/lua5.4 -o "$tmp/flow_lua" "$root/tests/fixtures/flow_lua.c" \
		-l:liblua5.4.a -lm -ldl 2>"$tmp/gcc.err"; then
		check lua "$tmp/flow_lua" 997 --dp-noise 6 -- "$tmp/flow_lua" 50000
	else
		fail "flow_exact_build_lua: $(head -1 "$tmp/gcc.err")"
	fi
else
	skip "flow_exact_lua: no static Lua 5.4 (apt-get install liblua5.4-dev)"
fi
