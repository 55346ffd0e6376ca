#!/bin/bash
# The documentation where people look for it, and kept true:
#  - README.md is at most 250 lines, its links (and those of docs/ and
#    tests/README.md) point at files that exist, it points at docs/design.md,
#    its library examples are the files the install test builds;
#  - every command of cli/hwprof.c has its manual docs/hwprof-CMD.md, which
#    repeats no option line of --help (the options come from there), and a
#    generated man page (build/man) that renders without a groff warning,
#    names every option its --help lists, has the --help usage as synopsis
#    and the manual's sections;
#  - docs/design.md names every directory of src/, tests/README.md every
#    test;
#  - the bash completion (build/completion) completes commands, every
#    option, --sort keys and the program after "--".
# Every check prints exactly one line, whatever happens before it.
set -u
echo "PLAN 22"
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
HWPROF=${HWPROF:-$build/hwprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
result() { # NAME BAD...: PASS when BAD is empty
	local name=$1
	shift
	if [ -z "$*" ]; then echo "PASS $name"; else echo "FAIL $name: $*"; fi
}

# The commands, from the command table and from hwprof --help: the same list.
table=$(sed -n 's/^[[:space:]]*{ "\([a-z0-9]*\)", cmd_.*/\1/p' "$root/cli/hwprof.c")
cmds=$("$HWPROF" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }')
if [ -z "$cmds" ]; then
	result doc_commands "no commands in hwprof --help"
else
	result doc_commands "$([ "$(echo "$table" | sort)" = "$(echo "$cmds" | sort)" ] ||
		echo "cli/hwprof.c has '$(echo $table)', hwprof --help '$(echo $cmds)'")"
fi

# README.md
lines=$(wc -l <"$root/README.md")
result readme_length "$([ "$lines" -le 250 ] || echo "README.md has $lines lines, more than 250")"

# Relative links of the Markdown files people read first; http(s) and
# anchors within a page are not followed.
bad=
for md in "$root/README.md" "$root"/docs/*.md "$root/tests/README.md"; do
	dir=$(dirname "$md")
	for target in $(grep -oE '\]\([^)# ]+' "$md" | sed 's/^](//' | grep -vE '^(https?|mailto):'); do
		[ -e "$dir/$target" ] || bad="$bad ${md#"$root"/}->$target"
	done
done
result readme_links "${bad:+missing:$bad}"

bad=
grep -q '](docs/design.md)' "$root/README.md" || bad="README.md does not link docs/design.md;"
[ -s "$root/docs/design.md" ] || bad="$bad docs/design.md missing;"
hits=$(grep -l 'shared/DESIGN.md' "$root/README.md" "$root"/docs/*.md "$root/tests/README.md" 2>/dev/null)
[ -z "$hits" ] || bad="$bad ../shared/DESIGN.md named in $(echo $hits)"
result readme_design "$bad"

# The README's library examples are the programs the install test builds,
# not copies that drift: each block between <!-- example:NAME begin/end -->
# is examples/NAME.c (scripts/readme_examples.py writes them; a block whose
# file does not exist yet, the pipeline's placeholder, is left alone).
bad=
for name in hottest_branch pipeline; do
	grep -q "^<!-- example:$name begin -->\$" "$root/README.md" || bad="$bad no example:$name block;"
done
python3 "$root/scripts/readme_examples.py" --check "$root/README.md" >"$tmp/ex" 2>&1 || bad="$bad $(tail -1 "$tmp/ex")"
result readme_examples "$bad"

# The manuals: docs/hwprof.md and docs/hwprof-CMD.md for every command.
bad=
for c in "" $table; do
	page=hwprof${c:+-$c}
	md=$root/docs/$page.md
	if [ ! -f "$md" ]; then bad="$bad $page.md:missing"; continue; fi
	[ "$(head -1 "$md")" = "# $page(1)" ] || bad="$bad $page.md:first line is not '# $page(1)'"
done
for md in "$root"/docs/hwprof-*.md; do
	c=$(basename "$md" .md)
	c=${c#hwprof-}
	echo "$table" | grep -qx "$c" || bad="$bad $(basename "$md"):no such command"
done
result doc_pages "$bad"

# The option list is written once, in the command's option table: a manual
# holds no copy of a --help option line.
bad=
for c in $table; do
	md=$root/docs/hwprof-$c.md
	[ -f "$md" ] || continue
	"$HWPROF" "$c" --help 2>/dev/null | grep -E '^ {1,8}-' | sed 's/^ *//; s/ *$//' | sort -u >"$tmp/optlines"
	sed 's/^ *//; s/ *$//' "$md" | sort -u | comm -12 - "$tmp/optlines" >"$tmp/dup"
	[ -s "$tmp/dup" ] && bad="$bad hwprof-$c.md:'$(head -1 "$tmp/dup")'"
done
result doc_no_option_list "${bad:+option lines copied from --help:$bad}"

# Man pages: exactly hwprof.1 and hwprof-CMD.1 per command.
want=$( (echo hwprof.1; for c in $cmds; do echo "hwprof-$c.1"; done) | sort)
got=$(cd "$build/man" 2>/dev/null && ls ./*.1 2>/dev/null | sed 's|^\./||' | sort)
result man_pages "$([ "$got" = "$want" ] || echo "have '$(echo $got)', want '$(echo $want)'")"

if ! command -v groff >/dev/null; then
	echo "SKIP man_render: groff not installed (apt-get install groff-base)"
	echo "SKIP man_options: groff not installed"
	echo "SKIP man_sections: groff not installed"
else
	bad=
	for p in "$build"/man/*.1; do
		[ -f "$p" ] || continue
		w=$(groff -man -Tutf8 -ww -z "$p" 2>&1)
		[ -n "$w" ] && bad="$bad $(basename "$p"): $(echo "$w" | head -2 | tr '\n' ' ')"
	done
	result man_render "$bad"

	# Every option of every --help is in the page (rendered), and the
	# synopsis is the usage line.
	render() { groff -man -Tutf8 -rLL=200n -P-cbou "$1" 2>/dev/null; }
	bad=
	for c in "" $cmds; do
		page=$build/man/hwprof${c:+-$c}.1
		render "$page" >"$tmp/page"
		"$HWPROF" $c --help >"$tmp/help"
		# the options: the usage line's and the option lines' names (not
		# those the prose mentions, such as perf record's)
		for o in $( (sed -n '1,/^$/p' "$tmp/help"; grep -E '^ {1,8}-' "$tmp/help" | sed -E 's/ {2,}.*//') |
			grep -oE '(^|[][ ,|])--?[a-zA-Z][a-z-]*' | tr -d '][ ,|' | sort -u); do
			grep -qe "$o\b" "$tmp/page" || bad="$bad ${c:-hwprof}:$o"
		done
		usage=$(sed -n '1,/^$/p' "$tmp/help" | tr -s ' \n' '  ' | sed 's/^usage: //; s/ *$//')
		grep -qF -- "$usage" <(tr -s ' \n' '  ' <"$tmp/page") || bad="$bad ${c:-hwprof}:synopsis"
	done
	result man_options "${bad:+missing$bad}"

	# The prose is the manual's: each of its sections is one of the page's.
	bad=
	for c in "" $table; do
		md=$root/docs/hwprof${c:+-$c}.md
		[ -f "$md" ] || continue
		render "$build/man/hwprof${c:+-$c}.1" | grep -E '^[A-Z]' >"$tmp/sections"
		while read -r h; do
			want=$(echo "$h" | tr -d '`')
			grep -qixF -- "$want" "$tmp/sections" || bad="$bad hwprof${c:+-$c}:'$h'"
		done < <(sed -n 's/^## //p' "$md")
	done
	result man_sections "${bad:+sections of docs/ missing from the man page:$bad}"
fi

# docs/design.md is kept current: it names every directory of src/; and
# tests/README.md names every test.
bad=
for d in "$root"/src/*/; do
	d=src/$(basename "$d")/
	grep -qF "$d" "$root/docs/design.md" || bad="$bad $d"
done
result design_layout "${bad:+docs/design.md does not name$bad}"
bad=
for t in "$root"/tests/e2e/*.sh "$root"/tests/unit/test_*.c "$root"/tests/long/*.sh; do
	n=$(basename "$t")
	n=${n%.c}
	grep -qF "\`$n\`" "$root/tests/README.md" || bad="$bad $n"
done
result tests_inventory "${bad:+tests/README.md does not list$bad}"

comp=$build/completion/hwprof
if bash -n "$comp" 2>"$tmp/err"; then result completion_syntax ""; else result completion_syntax "$(head -2 "$tmp/err")"; fi
# complete WORD...: what the completion function offers for the last word.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hwprof; printf "%s\n" "${COMPREPLY[@]}" | sort -u | tr "\n" " "' \
		_ "$comp" "$@" 2>/dev/null
}
check() { # NAME WANT WORD...
	local name=$1 want=$2
	shift 2
	local got
	got=$(complete_words "$@")
	result "$name" "$([ "$got" = "$want " ] || echo "'$*' completes to '$got', want '$want'")"
}
check completion_command branches hwprof br
check completion_option --sort hwprof branches --so
check completion_sort_keys "symbol symbol_from symbol_to" hwprof branches --sort sym
check completion_sort_list "dso_from,srcline dso_from,srcline_from dso_from,srcline_to" hwprof branches --sort dso_from,src
check completion_sort_equals "symbol symbol_from symbol_to" hwprof branches --sort = sym
got=$(complete_words hwprof record --emulate -- tru)
case " $got" in *" true "*) result completion_record_program "" ;;
*) result completion_record_program "'hwprof record --emulate -- tru' completes to '$got'" ;; esac
touch "$tmp/page"
check completion_input_file "$tmp/page" hwprof script -i "$tmp/pa"
bad=
for c in $cmds; do
	got=" $(complete_words hwprof "$c" --)"
	for o in $("$HWPROF" "$c" --help | grep -E '^ {1,8}-' | grep -oE '(^|[ ,])--[a-z][a-z-]*' | tr -d ' ,' | sort -u); do
		case $got in *" $o "*) ;; *) bad="$bad $c:$o" ;; esac
	done
done
[ -n "$cmds" ] || bad=" no commands"
result completion_all_options "${bad:+missing$bad}"
