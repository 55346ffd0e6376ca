#!/bin/bash
# hwprof flame: the SVG's frames against the folded stacks (totals per frame,
# tree rebuilt from the SVG by tests/tools/flame_check.py), the SVG live in
# headless Chromium (not blank, a click zooms, the search box highlights and
# shows the share), and --diff (folded columns, colours by change) on two
# frame-pointer recordings of tests/fixtures/callgraph.c with different work.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
HWPROF=${HWPROF:-$root/${BUILD:-build}/hwprof}
PERF=/usr/bin/perf
check=$root/tests/tools/flame_check.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# PLAN: 12 with perf, gcc, xmllint and Chromium (1 fewer without
# xmllint, flame_check.py's 4 checks in Chromium are 1 SKIP
# without it); without perf or gcc, the generated-script check and 1 SKIP
if [ ! -x "$PERF" ] || ! command -v gcc >/dev/null; then
	plan=2
else
	plan=12
	command -v xmllint >/dev/null || plan=$((plan - 1))
	[ -n "$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)" ] ||
		plan=$((plan - 4 + 1))
fi
echo "PLAN $plan"
# skip_rest REASON: a SKIP for each check left, so the plan holds
skip_rest() {
	local i
	for i in $(seq $((plan - 1))); do echo "SKIP flame_svg[$i]: $1"; done
}

# the compiled-in script is the one in src/output/flame_svg.js
if python3 "$root/scripts/flame_js.py" "$tmp/script.h" 2>"$tmp/js.err" &&
	cmp -s "$tmp/script.h" "$root/src/output/flame_svg_script.h"; then
	echo "PASS flame_script_generated (flame_svg_script.h is scripts/flame_js.py's output)"
else
	echo "FAIL flame_script_generated: run scripts/flame_js.py after editing src/output/flame_svg.js $(head -1 "$tmp/js.err")"
fi

if [ ! -x "$PERF" ] || ! command -v gcc >/dev/null; then
	echo "SKIP flame_svg: needs perf and gcc"
	exit 0
fi
gcc -O2 -g -fno-omit-frame-pointer -o "$tmp/callgraph" "$root/tests/fixtures/callgraph.c" 2>"$tmp/gcc.err" ||
	{ echo "FAIL flame_build: $(head -1 "$tmp/gcc.err")"; exit 0; }
rec() { "$PERF" record -q -e cpu-clock -c 100000 -g -o "$tmp/$1.data" "$tmp/callgraph" "${@:2}" >/dev/null 2>"$tmp/rec.err"; }
if ! rec before 2000 || ! rec after 2000 40000; then
	skip_rest "perf record -e cpu-clock -g failed here ($(head -1 "$tmp/rec.err"))"
	exit 0
fi

run() { # NAME OUT hwprof-args...
	local name=$1 out=$2
	shift 2
	"$HWPROF" flame -q "$@" >"$out" 2>"$tmp/err" || { echo "FAIL $name: $(head -1 "$tmp/err")"; return 1; }
}
run flame_folded "$tmp/after.folded" -i "$tmp/after.data" --folded &&
	run flame_svg "$tmp/out" -i "$tmp/after.data" -o "$tmp/after.svg" &&
	python3 "$check" totals "$tmp/after.svg" "$tmp/after.folded"
if command -v xmllint >/dev/null; then
	xmllint --noout "$tmp/after.svg" 2>"$tmp/xml.err" && echo "PASS flame_svg_xml (well-formed)" ||
		echo "FAIL flame_svg_xml: $(head -1 "$tmp/xml.err")"
fi
# self-contained: nothing fetched from elsewhere
if grep -qE '(href|src)="(https?:|//)' "$tmp/after.svg"; then
	echo "FAIL flame_svg_self_contained: external references"
else
	echo "PASS flame_svg_self_contained"
fi
# the inlined mix() is searched for: it has frames of its own
[ -f "$tmp/after.svg" ] && python3 "$check" browser "$tmp/after.svg" shared 'mix|leaf_'

run flame_folded_before "$tmp/before.folded" -i "$tmp/before.data" --folded &&
	run flame_diff_folded "$tmp/diff.folded" --diff "$tmp/before.data" "$tmp/after.data" --folded &&
	run flame_diff_svg "$tmp/out" --diff "$tmp/before.data" "$tmp/after.data" -o "$tmp/diff.svg" &&
	python3 "$check" diff "$tmp/diff.svg" "$tmp/diff.folded" "$tmp/before.folded" "$tmp/after.folded"

# errors: one line, non-zero
if "$HWPROF" flame --diff "$tmp/before.data" 2>"$tmp/err" >/dev/null; then
	echo "FAIL flame_diff_args: one input accepted"
elif [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "two recordings" "$tmp/err"; then
	echo "PASS flame_diff_args"
else
	echo "FAIL flame_diff_args: $(cat "$tmp/err")"
fi
if "$HWPROF" flame -i "$tmp/before.data" -o /nonexistent/x.svg 2>"$tmp/err"; then
	echo "FAIL flame_output_error: wrote to /nonexistent"
else
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && echo "PASS flame_output_error" || echo "FAIL flame_output_error: $(cat "$tmp/err")"
fi
