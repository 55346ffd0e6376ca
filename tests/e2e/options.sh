#!/bin/bash
# The option tables (cli/parse_options.c): every command's parser, --help and
# completion come from one table. Bad values, missing values and unknown
# options are one error line naming the command and the option; -i repeats
# and inputs may be positional (the pipeline's commands read them all, the
# others refuse: never one silently dropped); --help and the completion name
# every option of the table (hwprof CMD --list-options).
set -u
HWPROF=${HWPROF:-build/hwprof}
root=${HWPROF_ROOT:-.}
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "PLAN 46"

cmds=$("$HWPROF" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }')
gcc -g -O1 -o "$tmp/branchy" "$root/tests/fixtures/branchy.c"
"$build/tests/tools/gen_fixture_branches" "$tmp/branchy" "$tmp/b.data" --samples 100 --seed 1 >/dev/null
cp "$tmp/b.data" "$tmp/c.data"

# one_error NAME PATTERN ARGS...: fails with exactly one line on stderr,
# matching PATTERN (grep -E), and nothing on stdout.
one_error() {
	local name=$1 pat=$2
	shift 2
	"$HWPROF" "$@" >"$tmp/o" 2>"$tmp/e"
	local rc=$?
	if [ $rc -ne 0 ] && [ ! -s "$tmp/o" ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -qE -- "$pat" "$tmp/e"; then
		echo "PASS $name"
	else
		echo "FAIL $name: 'hwprof $*': rc=$rc, stderr: $(head -3 "$tmp/e" | tr '\n' '|'), stdout: $(head -c 100 "$tmp/o")"
	fi
}

# Bad values: one line naming the command, the option and the value.
one_error bad_count "^hwprof: mispredicts: --min-samples 'x' is not a count$" mispredicts -i "$tmp/b.data" --min-samples x
one_error bad_count_negative "^hwprof: probs: --min-executions '-1' is not a count$" probs -i "$tmp/b.data" --min-executions -1
one_error bad_limit_equals "^hwprof: blocks: --limit '0': the number of rows must be a count of at least 1$" blocks -i "$tmp/b.data" --limit=0
one_error bad_range "^hwprof: flame: --width '5': pixels from 100 to 100000$" flame -i "$tmp/b.data" --width 5
# --infer and --no-infer: not both; not where the counts are a fleet's sums
one_error infer_both "^hwprof: mispredicts: --infer and --no-infer: give one$" mispredicts -i "$tmp/b.data" --infer --no-infer
one_error infer_both_pgo "^hwprof: pgo: --infer and --no-infer: give one$" pgo -i "$tmp/b.data" --format bolt --infer --no-infer
one_error infer_fleet_rows "^hwprof: pgo: --infer: the rows of --from URL are summed counts" pgo --from http://127.0.0.1:9 --format llvm --infer
one_error infer_indirect "^hwprof: probs: --indirect: the targets' shares are the sampled ones" probs -i "$tmp/b.data" --indirect --infer
one_error infer_fleet_probs "^hwprof: fleet probs: --infer: the rows are summed counts" fleet probs http://127.0.0.1:9 --infer
one_error bad_percentage "^hwprof: branches: --min-percent '101' is not a percentage$" branches -i "$tmp/b.data" --min-percent 101
one_error bad_percentage_open "^hwprof: diff: --min-change '0' is not a percentage above 0$" diff --min-change 0 "$tmp/b.data" "$tmp/c.data"
one_error bad_choice "^hwprof: export: --format 'xml': the formats are" export -i "$tmp/b.data" --format xml
one_error bad_power_of_two "^hwprof: c2c: --cache-line '48': a power of two from 8 to 4096$" c2c -i "$tmp/b.data" --cache-line 48
one_error bad_callback "^hwprof: export: --window '5,1': give START,END" export -i "$tmp/b.data" --window 5,1

# Missing values, unknown and ambiguous options.
one_error missing_value_long "^hwprof: branches: option '--sort' needs a value; see 'hwprof branches --help'$" branches --sort
one_error missing_value_short "^hwprof: branches: option '-i' needs a value" branches -i
one_error missing_value_before_dashes "^hwprof: record: option '-o' needs a value before '--'" record -o -- true
one_error unknown_long "^hwprof: paths: unknown option '--nope'; see 'hwprof paths --help'$" paths --nope
one_error unknown_long_value "^hwprof: timing: unknown option '--nope'" timing --nope=3
one_error unknown_short "^hwprof: info: unknown option '-Z'" info -Z
one_error ambiguous "^hwprof: branches: option '--sy' is ambiguous" branches -i "$tmp/b.data" --sy x
one_error flag_with_value "^hwprof: probs: option '--json' takes no value" probs --json=yes
one_error unexpected_argument "^hwprof: check: unexpected argument 'extra'$" check extra

# Spellings getopt_long took: --name=value, abbreviations, -ifile, -vq.
"$HWPROF" branches -q -i "$tmp/b.data" --limit 3 --csv >"$tmp/ref.csv" 2>/dev/null
bad=
for form in "--limit=3 --csv -i $tmp/b.data" "--lim 3 --cs --input=$tmp/b.data" "-i$tmp/b.data --limit 3 --csv" \
	"--csv --limit 3 $tmp/b.data" "$tmp/b.data --csv --limit 3"; do
	"$HWPROF" branches -q $form >"$tmp/got.csv" 2>"$tmp/e" && cmp -s "$tmp/ref.csv" "$tmp/got.csv" ||
		bad="$bad 'branches $form' differs: $(head -1 "$tmp/e")"
done
[ -z "$bad" ] && [ -s "$tmp/ref.csv" ] && echo "PASS spellings (--name=value, abbreviations, -iFILE, positional input)" ||
	echo "FAIL spellings:$bad"
"$HWPROF" branches -vq -i "$tmp/b.data" --limit 3 --csv >"$tmp/got.csv" 2>"$tmp/e"
cmp -s "$tmp/ref.csv" "$tmp/got.csv" && [ ! -s "$tmp/e" ] && echo "PASS short_cluster (-vq: quiet wins)" ||
	echo "FAIL short_cluster: $(head -2 "$tmp/e")"

# Several inputs: -i repeated, positional, or both; never one silently dropped.
# The commands on the pipeline read them all in one pass (two copies of one
# recording: every count doubles, and the three spellings agree) ...
for c in branches mispredicts probs blocks paths timing ranges callgraph export info; do
	csv=--csv
	[ $c = export ] && csv="--format csv --window 1,2" # (the window: the same rows from both copies)
	[ $c = info ] && csv=--json
	"$HWPROF" $c -q $csv -i "$tmp/b.data" >"$tmp/one.csv" 2>"$tmp/e1"
	"$HWPROF" $c -q $csv -i "$tmp/b.data" -i "$tmp/c.data" >"$tmp/two.csv" 2>"$tmp/e2"
	"$HWPROF" $c -q $csv "$tmp/b.data" "$tmp/c.data" >"$tmp/pos.csv" 2>>"$tmp/e2"
	"$HWPROF" $c -q $csv -i "$tmp/b.data" "$tmp/c.data" >"$tmp/mix.csv" 2>>"$tmp/e2"
	if [ -s "$tmp/one.csv" ] && [ -s "$tmp/two.csv" ] && ! cmp -s "$tmp/one.csv" "$tmp/two.csv" &&
		cmp -s "$tmp/two.csv" "$tmp/pos.csv" && cmp -s "$tmp/two.csv" "$tmp/mix.csv"; then
		echo "PASS several_inputs_read[$c]"
	else
		echo "FAIL several_inputs_read[$c]: $(head -2 "$tmp/e1" "$tmp/e2" | tr '\n' '|')"
	fi
done
"$HWPROF" branches -q --csv -i "$tmp/b.data" >"$tmp/one.csv" 2>/dev/null
"$HWPROF" branches -q --csv "$tmp/b.data" -i "$tmp/c.data" >"$tmp/two.csv" 2>/dev/null
n1=$(awk -F, 'NR == 2 { print $2 }' "$tmp/one.csv")
n2=$(awk -F, 'NR == 2 { print $2 }' "$tmp/two.csv")
[ -n "$n1" ] && [ "$n2" = $((2 * n1)) ] && echo "PASS several_inputs_counted[branches: $n1 then $n2]" ||
	echo "FAIL several_inputs_counted[branches]: one input $n1, two $n2"
# ... script and flame read them all too: script prints each one's samples
# in turn, flame's folded stacks add up.
"$HWPROF" script -q -i "$tmp/b.data" >"$tmp/sb" 2>/dev/null
"$HWPROF" script -q -i "$tmp/c.data" >"$tmp/sc" 2>/dev/null
"$HWPROF" script -q "$tmp/b.data" -i "$tmp/c.data" >"$tmp/sbc" 2>"$tmp/e"
[ -s "$tmp/sb" ] && cat "$tmp/sb" "$tmp/sc" | cmp -s - "$tmp/sbc" && echo "PASS several_inputs_read[script]" ||
	echo "FAIL several_inputs_read[script]: $(head -2 "$tmp/e" | tr '\n' '|')"
total() { awk '{ n += $NF } END { print n + 0 }' "$1"; }
"$HWPROF" flame -q --folded -i "$tmp/b.data" >"$tmp/fb" 2>/dev/null
"$HWPROF" flame -q --folded -i "$tmp/c.data" >"$tmp/fc" 2>/dev/null
"$HWPROF" flame -q --folded -i "$tmp/b.data" "$tmp/c.data" >"$tmp/fbc" 2>"$tmp/e"
tb=$(total "$tmp/fb") tc=$(total "$tmp/fc") tbc=$(total "$tmp/fbc")
[ "$tb" -gt 0 ] && [ "$tbc" = $((tb + tc)) ] && echo "PASS several_inputs_read[flame: $tb + $tc]" ||
	echo "FAIL several_inputs_read[flame]: $tb + $tc != $tbc $(head -2 "$tmp/e" | tr '\n' '|')"
# ... while the commands that compare two recordings keep their meaning.
"$HWPROF" diff -q --all --csv "$tmp/b.data" "$tmp/c.data" >"$tmp/o" 2>"$tmp/e" && [ -s "$tmp/o" ] &&
	echo "PASS two_inputs_on_purpose[diff]" || echo "FAIL two_inputs_on_purpose[diff]: $(head -2 "$tmp/e")"
"$HWPROF" flame -q --diff --folded "$tmp/b.data" "$tmp/c.data" >"$tmp/o" 2>"$tmp/e"
rc=$?
! grep -q "several inputs" "$tmp/e" && { [ $rc -eq 0 ] || grep -q "call stack\|callchain\|call graph" "$tmp/e"; } &&
	echo "PASS two_inputs_on_purpose[flame --diff]" || echo "FAIL two_inputs_on_purpose[flame --diff]: $(head -2 "$tmp/e")"
"$HWPROF" report -q --html "$tmp/r.html" --diff "$tmp/b.data" "$tmp/c.data" >"$tmp/o" 2>"$tmp/e" && [ -s "$tmp/r.html" ] &&
	echo "PASS two_inputs_on_purpose[report --diff]" || echo "FAIL two_inputs_on_purpose[report --diff]: $(head -2 "$tmp/e")"
# One input, positional, is the same report as with -i.
"$HWPROF" probs -q --csv "$tmp/b.data" >"$tmp/pos.csv" 2>/dev/null
"$HWPROF" probs -q --csv -i "$tmp/b.data" >"$tmp/i.csv" 2>/dev/null
[ -s "$tmp/i.csv" ] && cmp -s "$tmp/pos.csv" "$tmp/i.csv" && echo "PASS positional_input_is_-i" ||
	echo "FAIL positional_input_is_-i"

# --help and the table: the usage line names the command; every option of the
# table (--list-options) is on an option line of --help and only those are.
bad=
for c in $cmds; do
	"$HWPROF" "$c" --list-options >"$tmp/list" 2>"$tmp/e" || { bad="$bad $c(list-options rc)"; continue; }
	"$HWPROF" "$c" --help >"$tmp/help" 2>&1 || { bad="$bad $c(help rc)"; continue; }
	head -1 "$tmp/help" | grep -q "^usage: hwprof $c " || bad="$bad $c(usage line)"
	want=$(cut -f1 "$tmp/list" | tr ' ' '\n' | grep -- '^--' | sort -u)
	got=$(grep -E '^ {1,8}-' "$tmp/help" | grep -oE '(^|[ ,])--[a-z][a-z-]*' | tr -d ' ,' | sort -u)
	[ -n "$want" ] && [ "$want" = "$got" ] || bad="$bad $c(table: $(echo $want) help: $(echo $got))"
	# text wrapped as before: no line longer than 80 but a single long word's
	awk 'length($0) > 80 && NF > 1 && !/^ +-/ { print; exit 1 }' "$tmp/help" >/dev/null || bad="$bad $c(wrap)"
done
[ -z "$bad" ] && echo "PASS help_from_table ($(echo $cmds | wc -w) commands)" || echo "FAIL help_from_table:$bad"

# The completion script (scripts/helpdoc.py bash, from --list-options) offers
# every long option of every command after "hwprof CMD --".
comp=$build/completion/hwprof
python3 "$root/scripts/helpdoc.py" bash "$HWPROF" "$tmp/completion" 2>"$tmp/e" && cmp -s "$comp" "$tmp/completion" &&
	echo "PASS completion_current (build/completion/hwprof is the tables')" ||
	echo "FAIL completion_current: $comp differs from what the tables make $(head -2 "$tmp/e")"
bad=
for c in $cmds; do
	got=" $(bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hwprof; echo "${COMPREPLY[*]}"' \
		_ "$tmp/completion" hwprof "$c" --) "
	for o in $("$HWPROF" "$c" --list-options | cut -f1 | tr ' ' '\n' | grep -- '^--'); do
		case $got in *" $o "*) ;; *) bad="$bad $c:$o" ;; esac
	done
done
[ -z "$bad" ] && echo "PASS completion_every_table_option" || echo "FAIL completion_every_table_option: missing$bad"
got=$(bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hwprof; echo "${COMPREPLY[*]}"' \
	_ "$tmp/completion" hwprof export --format j)
[ "$got" = json ] && echo "PASS completion_choice_values" || echo "FAIL completion_choice_values: export --format j -> '$got'"
