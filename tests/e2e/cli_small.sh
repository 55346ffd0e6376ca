#!/bin/bash
# Small command-line behaviours: --help texts, version, report options and
# what the commands say about empty or filtered-out results.
set -u
# PLAN: 35; 3 fewer without qemu-x86_64 (one SKIP for each group of
# --emulate checks), 1 fewer without perf (the reference check)
plan=35
command -v qemu-x86_64 >/dev/null 2>&1 || plan=$((plan - 3))
command -v perf >/dev/null 2>&1 || plan=$((plan - 1))
echo "PLAN $plan"
HWPROF=${HWPROF:-build/hwprof}
root=${HWPROF_ROOT:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmds=$("$HWPROF" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }')

# -V and --version print the version, as perf -v / git --version do.
want="hwprof $(sed -n 's/.*define HWPROF_VERSION "\(.*\)"/\1/p' "$root/include/hwprof/hwprof.h")"
for v in -V --version; do
	out=$("$HWPROF" $v 2>&1)
	rc=$?
	[ $rc -eq 0 ] && [ "$out" = "$want" ] && echo "PASS version[$v]" ||
		echo "FAIL version[$v]: rc=$rc, printed '$out', want '$want'"
done

# The command list: every description starts in the same column.
cols=$("$HWPROF" --help | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 }
	on && /^  [a-z]/ { match($0, /^  [a-z0-9]+ +/); print RLENGTH }' | sort -u)
n=$(echo "$cmds" | wc -l)
if [ "$n" -ge 6 ] && [ "$(echo "$cols" | wc -l)" = 1 ]; then
	echo "PASS help_commands_aligned ($n commands, column $cols)"
else
	echo "FAIL help_commands_aligned: descriptions start at columns $(echo $cols)"
fi

# No --help shows a printf escape (%% for %) literally.
bad=
for c in "" $cmds; do
	"$HWPROF" $c --help >"$tmp/help" 2>&1 || bad="$bad ${c:-hwprof}(rc)"
	grep -q '%%' "$tmp/help" && bad="$bad ${c:-hwprof}:$(grep -m1 -o '.\{0,20\}%%.\{0,10\}' "$tmp/help")"
done
[ -z "$bad" ] && echo "PASS help_no_double_percent" || echo "FAIL help_no_double_percent:$bad"
grep -q 'P% of all entries' <("$HWPROF" branches --help) && echo "PASS help_branches_percent" ||
	echo "FAIL help_branches_percent: 'P% of all entries' not in branches --help"

# A recording of a small program (synthesized branch stacks, no PMU needed).
gen=$root/${BUILD:-build}/tests/tools/gen_fixture_branches
gcc -g -O1 -o "$tmp/branchy" "$root/tests/fixtures/branchy.c"
"$gen" "$tmp/branchy" "$tmp/b.data" --samples 200 --seed 1 >/dev/null

# --limit N: the first N rows of the full table, in branches as in
# mispredicts, in every format; 0 and non-numbers are refused the same way.
for c in branches mispredicts; do
	"$HWPROF" $c -q -i "$tmp/b.data" --csv >"$tmp/all.csv"
	"$HWPROF" $c -q -i "$tmp/b.data" --csv --limit 3 >"$tmp/3.csv"
	"$HWPROF" $c -q -i "$tmp/b.data" --limit 3 >"$tmp/3.txt"
	"$HWPROF" $c -q -i "$tmp/b.data" --json --limit 2 >"$tmp/2.json"
	nall=$(($(wc -l <"$tmp/all.csv") - 1))
	if [ "$nall" -gt 3 ] && head -4 "$tmp/all.csv" | cmp -s - "$tmp/3.csv" &&
		[ "$(grep -c . "$tmp/3.txt")" -le 6 ] && [ "$(grep -o '"count"\|"sampled"' "$tmp/2.json" | wc -l)" = 2 ]; then
		echo "PASS limit[$c] (3 of $nall rows)"
	else
		echo "FAIL limit[$c]: $nall rows in all, $(($(wc -l <"$tmp/3.csv") - 1)) with --limit 3; json: $(head -c 200 "$tmp/2.json")"
	fi
	for bad in 0 -1 x 3x ""; do
		"$HWPROF" $c -i "$tmp/b.data" --limit "$bad" >"$tmp/o" 2>"$tmp/e"
		rc=$?
		if [ $rc -eq 0 ] || [ -s "$tmp/o" ] || [ "$(wc -l <"$tmp/e")" != 1 ] ||
			! grep -q "^hwprof: $c: --limit '$bad': .*at least 1" "$tmp/e"; then
			echo "FAIL limit_bad[$c '$bad']: rc=$rc, $(head -2 "$tmp/e")"
			continue 2
		fi
	done
	echo "PASS limit_bad[$c]"
done

# record --emulate -j: kernel levels without user ones are refused the same
# way whether perf's rule keeps them (-j any,k) or drops them (-j k).
for j in k any,k hv,no_flags; do
	"$HWPROF" record --emulate -j "$j" -o "$tmp/k.data" -- true >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -e "$tmp/k.data" ] &&
		grep -q "^hwprof: record --emulate: -j $j: emulation records user-space branches only" "$tmp/e"; then
		echo "PASS emulate_kernel_filter_refused[$j]"
	else
		echo "FAIL emulate_kernel_filter_refused[$j]: rc=$rc: $(head -2 "$tmp/e")"
	fi
done

# The output file's previous content is kept as FILE.old, as perf record
# keeps perf.data.old: for the default name and -o, in both record paths;
# an empty file is overwritten; "-" (standard output) is never renamed.
rec_sw() { # DIR ARGS...: a software-event recording in DIR (no PMU needed)
	local d=$1
	shift
	(cd "$d" && "$HWPROF" record -q -e cpu-clock -c 100000 "$@" -- true >/dev/null 2>"$tmp/rec.err")
}
mkdir -p "$tmp/old" && cd "$tmp/old" || exit 1
if rec_sw . && cp perf.data first && rec_sw . && cmp -s first perf.data.old && [ -s perf.data ]; then
	echo "PASS keep_old[default name]"
else
	echo "FAIL keep_old[default name]: $(ls; cat "$tmp/rec.err")"
fi
if rec_sw . -o x.data && cp x.data first && echo stale >x.data.old && rec_sw . -o x.data &&
	cmp -s first x.data.old && [ -s x.data ]; then
	echo "PASS keep_old[-o, replacing an old .old]"
else
	echo "FAIL keep_old[-o]: $(ls; cat "$tmp/rec.err")"
fi
: >empty.data
rec_sw . -o empty.data
[ -s empty.data ] && [ ! -e empty.data.old ] && echo "PASS keep_old[empty file overwritten]" ||
	echo "FAIL keep_old[empty file overwritten]: $(ls)"
# A directory FILE.old: removed when it holds only perf's data files (perf's
# directory format), refused with one line when it holds anything else.
cp first d.data && mkdir d.data.old && : >d.data.old/data && : >d.data.old/data.1
rec_sw . -o d.data && [ -f d.data.old ] && cmp -s first d.data.old && echo "PASS keep_old[perf data dir replaced]" ||
	echo "FAIL keep_old[perf data dir replaced]: $(ls -l d.data*; cat "$tmp/rec.err")"
cp first f.data && mkdir f.data.old && : >f.data.old/mine
(cd . && "$HWPROF" record -e cpu-clock -o f.data -- true >/dev/null 2>"$tmp/e")
rc=$?
if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "^hwprof: record: can't remove old data f.data.old" "$tmp/e" &&
	cmp -s first f.data && [ -e f.data.old/mine ]; then
	echo "PASS keep_old[foreign dir refused]"
else
	echo "FAIL keep_old[foreign dir refused]: rc=$rc, $(head -2 "$tmp/e")"
fi
# perf itself (the reference) keeps the old file the same way.
if command -v perf >/dev/null 2>&1; then
	rm -f p.data p.data.old
	perf record -q -e cpu-clock -c 100000 -o p.data -- true >/dev/null 2>&1
	perf record -q -e cpu-clock -c 100000 -o p.data -- true >/dev/null 2>&1
	[ -s p.data.old ] && echo "PASS keep_old[perf does it too]" || echo "FAIL keep_old[perf does it too]: $(ls p.data*)"
fi
echo keep >-
"$HWPROF" record -e cpu-clock -o - -- true >/dev/null 2>&1
[ "$(cat ./-)" = keep ] && [ ! -e -.old ] && echo "PASS keep_old[-o - refused, nothing moved]" ||
	echo "FAIL keep_old[-o -]: $(ls)"
if command -v qemu-x86_64 >/dev/null 2>&1; then
	"$HWPROF" record -q --emulate -o e.data -- true 2>/dev/null && cp e.data first &&
		"$HWPROF" record -q --emulate -o e.data -- true 2>/dev/null
	cmp -s first e.data.old && echo "PASS keep_old[--emulate]" || echo "FAIL keep_old[--emulate]: $(ls)"
	"$HWPROF" record -q --emulate -o - -- true >"$tmp/stdout.data" 2>/dev/null
	[ "$(cat ./-)" = keep ] && [ ! -e -.old ] && [ -s "$tmp/stdout.data" ] &&
		echo "PASS keep_old[--emulate -o -: standard output, nothing moved]" ||
		echo "FAIL keep_old[--emulate -o -]: $(ls)"
else
	echo "SKIP keep_old[--emulate]: qemu-x86_64 not installed"
fi
cd - >/dev/null || exit 1

# A recording with 0 samples: record warns (how many events ran, and to
# lower the period), and the reports say the same instead of advising
# branch stacks or --emulate.
"$HWPROF" record -e cpu-clock -c 4000000000 -o "$tmp/zero.data" -- true >/dev/null 2>"$tmp/e"
if grep -q "(0 samples)" "$tmp/e" &&
	grep -q "^hwprof: warning: record: .*zero.data has 0 samples: true ran fewer cpu-clock events than the period (4000000000): lower it (-c N)" "$tmp/e"; then
	echo "PASS zero_samples_warned[hardware path]"
else
	echo "FAIL zero_samples_warned[hardware path]: $(cat "$tmp/e")"
fi
for c in branches mispredicts; do
	"$HWPROF" $c -i "$tmp/zero.data" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "no samples: .*lower period (-c N)" "$tmp/e" &&
		! grep -q -- "--emulate\|perf record -b" "$tmp/e"; then
		echo "PASS zero_samples_advice[$c]"
	else
		echo "FAIL zero_samples_advice[$c]: rc=$rc, $(cat "$tmp/e")"
	fi
done
if command -v qemu-x86_64 >/dev/null 2>&1; then
	"$HWPROF" record --emulate -o "$tmp/ez.data" -- true >/dev/null 2>"$tmp/e"
	taken=$(sed -n 's/.*(0 samples, \([0-9]*\) taken branches emulated).*/\1/p' "$tmp/e")
	if [ -n "$taken" ] && [ "$taken" -lt 20011 ] &&
		grep -q "^hwprof: warning: record: .*ez.data has 0 samples: true ran $taken taken branches, fewer than the period (20011): lower it with -c N" "$tmp/e"; then
		echo "PASS zero_samples_warned[--emulate]"
	else
		echo "FAIL zero_samples_warned[--emulate]: $(cat "$tmp/e")"
	fi
	"$HWPROF" branches -i "$tmp/ez.data" >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ $rc -ne 0 ] && grep -q "no samples: the program ran fewer taken branches than the period (20011): record again with a lower one (hwprof record --emulate -c N)" "$tmp/e"; then
		echo "PASS zero_samples_advice[emulated]"
	else
		echo "FAIL zero_samples_advice[emulated]: rc=$rc, $(cat "$tmp/e")"
	fi
	"$HWPROF" record --emulate -c 1000 -o "$tmp/enz.data" -- true >/dev/null 2>"$tmp/e"
	grep -q "0 samples" "$tmp/e" && echo "FAIL zero_samples_not_warned_when_some: $(cat "$tmp/e")" ||
		echo "PASS zero_samples_not_warned_when_some"
else
	echo "SKIP zero_samples[--emulate]: qemu-x86_64 not installed"
fi

# --dso NAME that names no module: one line naming it and the modules there,
# non-zero exit, nothing on stdout (perf 6.1's --dsos prints an empty table).
for fmt in "" --json; do
	"$HWPROF" branches -i "$tmp/b.data" --dso no_such.so $fmt >"$tmp/o" 2>"$tmp/e"
	rc=$?
	if [ $rc -ne 0 ] && [ ! -s "$tmp/o" ] && [ "$(wc -l <"$tmp/e")" = 1 ] &&
		grep -q "^hwprof: branches: --dso 'no_such.so' matches no module in .*b.data; .*: branchy" "$tmp/e"; then
		echo "PASS dso_matches_nothing[${fmt:-text}]"
	else
		echo "FAIL dso_matches_nothing[${fmt:-text}]: rc=$rc, $(head -2 "$tmp/e"), stdout $(wc -c <"$tmp/o") bytes"
	fi
done
"$HWPROF" branches -q -i "$tmp/b.data" --dso branchy --csv >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$tmp/o")" -gt 1 ] && echo "PASS dso_matches[branchy]" ||
	echo "FAIL dso_matches[branchy]: rc=$rc, $(head -2 "$tmp/e")"

# A binary with symbols but no debug info: its missing source lines are
# warned about only when the report shows source lines.
gcc -O1 -o "$tmp/nodebug" "$root/tests/fixtures/branchy.c"
"$gen" "$tmp/nodebug" "$tmp/nd.data" --samples 100 --seed 2 >/dev/null
check_lines_warning() { # label want(0|1) command...
	local label=$1 want=$2
	shift 2
	"$HWPROF" "$@" -i "$tmp/nd.data" >/dev/null 2>"$tmp/e"
	local rc=$? n
	n=$(grep -c "no source lines" "$tmp/e")
	if [ $rc -eq 0 ] && [ "$n" = "$want" ] && { [ "$want" = 1 ] || [ ! -s "$tmp/e" ]; }; then
		echo "PASS srcline_warning[$label]"
	else
		echo "FAIL srcline_warning[$label]: rc=$rc, $n warnings about source lines, want $want: $(head -2 "$tmp/e")"
	fi
}
check_lines_warning "branches default keys" 0 branches
check_lines_warning "branches addr,type" 0 branches --sort addr_from,type
check_lines_warning "branches srcline_from" 1 branches --sort symbol_from,srcline_from
check_lines_warning "branches srcline_to --json" 1 branches --sort srcline_to --json
check_lines_warning "mispredicts (Source Line column)" 1 mispredicts
