# SPDX-License-Identifier: MIT
# Sourced by the install tests (tests/e2e/install.sh, tests/e2e/deb.sh): every
# examples/*.c, built against an installed libhwprof, prints what its leading
# comment says the installed hwprof prints (tests/tools/example_expect.py) on
# two recordings (examples_data).
# Needs $root (the tree), $tmp, $build (for gen_fixture_branches), $CC.
#
#   examples_count                  the number of examples (one check each)
#   examples_check NAME HWPROF CFLAGS LIBS LINK [VAR=VALUE...]
#       one check NAME_EXAMPLE per example: built with CFLAGS and LIBS, linked
#       LINK (shared: needs libhwprof.so.N; static: does not), run with the
#       VAR=VALUE environment (LD_LIBRARY_PATH). With $EXAMPLES_ONLY_UNDER
#       set, every hwprof header it includes must come from under that
#       directory (the installed tree, not the source).

examples_count() {
	local n=0 f
	for f in "$root"/examples/*.c; do [ -f "$f" ] && n=$((n + 1)); done
	echo "$n"
}

# Two recordings (the examples' arguments), made once per test: of
# tests/fixtures/advise_patterns.c emulated (what advise has findings on) when
# QEMU and the plugin are here, else synthesized over branchy.c's branches.
examples_data() {
	[ -s "$tmp/examples/b.data" ] && return 0
	mkdir -p "$tmp/examples"
	if [ -f "$build/hwprof-emu.so" ] && command -v qemu-x86_64 >/dev/null &&
		gcc -O2 -g -o "$tmp/examples/ap" "$root/tests/fixtures/advise_patterns.c" &&
		"$build/hwprof" record --emulate -b -c 1009 -o "$tmp/examples/a.data" -- "$tmp/examples/ap" \
			>/dev/null 2>&1 &&
		"$build/hwprof" record --emulate -b -c 1013 -o "$tmp/examples/b.data" -- "$tmp/examples/ap" \
			>/dev/null 2>&1; then
		return 0
	fi
	gcc -g -O1 -o "$tmp/examples/branchy" "$root/tests/fixtures/branchy.c" &&
		"$build/tests/tools/gen_fixture_branches" "$tmp/examples/branchy" "$tmp/examples/a.data" \
			--samples 500 --seed 3 >/dev/null &&
		"$build/tests/tools/gen_fixture_branches" "$tmp/examples/branchy" "$tmp/examples/b.data" \
			--samples 400 --seed 4 >/dev/null
}

examples_check() {
	local prefix=$1 hwprof=$2 cflags=$3 libs=$4 link=$5 src name check bin n want got bad
	shift 5
	examples_data || {
		for src in "$root"/examples/*.c; do
			echo "FAIL ${prefix}_$(basename "$src" .c): no recording (gen_fixture_branches failed)"
		done
		return
	}
	local data=("$tmp/examples/a.data" "$tmp/examples/b.data")
	for src in "$root"/examples/*.c; do
		name=$(basename "$src" .c) check=${prefix}_$name bin=$tmp/examples/$prefix.$name
		if ! n=$(python3 "$root/tests/tools/example_expect.py" --inputs "$src" 2>"$bin.err"); then
			echo "FAIL $check: $(head -1 "$bin.err")"; continue
		fi
		# shellcheck disable=SC2086
		if ! $CC -std=c11 -Wall -Wextra -Werror ${xflags:-} $cflags -MMD -MF "$bin.d" -o "$bin" "$src" $libs \
			2>"$bin.err"; then
			echo "FAIL $check: does not build: $(grep -o 'undefined reference to `[a-z_0-9]*' "$bin.err" |
				sort -u | head -3 | tr '\n' ' ')$(grep -v 'undefined reference' "$bin.err" | head -2 | tr '\n' ' ')"
			continue
		fi
		if [ -n "${EXAMPLES_ONLY_UNDER:-}" ]; then
			bad=$(tr ' \\' '\n\n' <"$bin.d" | grep '/hwprof/.*\.h' | grep -v "^$EXAMPLES_ONLY_UNDER/" | head -3)
			[ -n "$bad" ] && { echo "FAIL $check: included headers from outside the installed tree: $bad"; continue; }
		fi
		case $link in
		shared) readelf -d "$bin" | grep -q "NEEDED.*\[libhwprof\.so\.[0-9]*\]" ||
			{ echo "FAIL $check: not linked against libhwprof.so.N"; continue; } ;;
		static) readelf -d "$bin" | grep -q "NEEDED.*libhwprof" &&
			{ echo "FAIL $check: linked against libhwprof.so"; continue; } ;;
		esac
		if ! want=$(python3 "$root/tests/tools/example_expect.py" "$src" "$hwprof" "${data[@]:0:$n}" 2>"$bin.err"); then
			echo "FAIL $check: $(head -1 "$bin.err")"; continue
		fi
		got=$(env "$@" "$bin" "${data[@]:0:$n}" 2>"$bin.err")
		if [ "$got" = "$want" ]; then
			echo "PASS $check ($(head -1 <<<"$got"))"
		else
			echo "FAIL $check: printed '$(tr '\n' '|' <<<"$got")' $(head -1 "$bin.err"), hwprof: '$(tr '\n' '|' <<<"$want")'"
		fi
	done
}
