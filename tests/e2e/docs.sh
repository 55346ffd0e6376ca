#!/bin/bash
# Man pages and bash completion generated from the --help texts (build/man,
# build/completion): one page per command, each renders without warnings and
# names every option its --help names; the completion script completes
# commands, every option, --sort keys and the program after "--".
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
HWPROF=${HWPROF:-$build/hwprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmds=$("$HWPROF" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }')
if [ -z "$cmds" ]; then
	echo "FAIL doc_commands: no commands in hwprof --help"
	exit 0
fi

# Pages: exactly hwprof.1 and hwprof-CMD.1 per command.
want=$( (echo hwprof.1; for c in $cmds; do echo "hwprof-$c.1"; done) | sort)
got=$(cd "$build/man" 2>/dev/null && ls ./*.1 2>/dev/null | sed 's|^\./||' | sort)
[ "$got" = "$want" ] && echo "PASS man_pages ($(echo $got))" ||
	echo "FAIL man_pages: have '$(echo $got)', want '$(echo $want)'"

if ! command -v man >/dev/null; then
	echo "SKIP man_render: man not installed (apt-get install man-db groff-base)"
else
	bad=
	for p in "$build"/man/*.1; do
		w=$(MANWIDTH=80 man -l --warnings -E UTF-8 "$p" 2>&1 >/dev/null)
		[ -n "$w" ] && bad="$bad $(basename "$p"): $w"
	done
	[ -z "$bad" ] && echo "PASS man_render" || echo "FAIL man_render:$bad"

	# Every option of every --help is in the page (rendered), and the
	# synopsis is the usage line.
	bad=
	for c in "" $cmds; do
		page=$build/man/hwprof${c:+-$c}.1
		MANWIDTH=200 man -l -E UTF-8 "$page" 2>/dev/null | sed 's/‐/-/g' >"$tmp/page"
		"$HWPROF" $c --help >"$tmp/help"
		for o in $(grep -oE '(^|[ ,])--?[a-zA-Z][a-z-]*' "$tmp/help" | tr -d ' ,' | sort -u); do
			grep -qe "$o\b" "$tmp/page" || bad="$bad ${c:-hwprof}:$o"
		done
		usage=$(sed -n '1,/^$/p' "$tmp/help" | tr -s ' \n' '  ' | sed 's/^usage: //; s/ *$//')
		grep -qF -- "$usage" <(tr -s ' \n' '  ' <"$tmp/page") || bad="$bad ${c:-hwprof}:synopsis"
	done
	[ -z "$bad" ] && echo "PASS man_options" || echo "FAIL man_options: missing$bad"
fi

comp=$build/completion/hwprof
if bash -n "$comp" 2>"$tmp/err"; then echo "PASS completion_syntax"; else echo "FAIL completion_syntax: $(head -2 "$tmp/err")"; fi
# complete WORD...: what the completion function offers for the last word.
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _hwprof; printf "%s\n" "${COMPREPLY[@]}" | sort -u | tr "\n" " "' \
		_ "$comp" "$@"
}
check() { # NAME WANT WORD...
	local name=$1 want=$2
	shift 2
	local got
	got=$(complete_words "$@")
	[ "$got" = "$want " ] && echo "PASS $name" || echo "FAIL $name: '$*' completes to '$got', want '$want'"
}
check completion_command branches hwprof br
check completion_option --sort hwprof branches --so
check completion_sort_keys "symbol symbol_from symbol_to" hwprof branches --sort sym
check completion_sort_list "dso_from,srcline dso_from,srcline_from dso_from,srcline_to" hwprof branches --sort dso_from,src
check completion_sort_equals "symbol symbol_from symbol_to" hwprof branches --sort = sym
got=$(complete_words hwprof record --emulate -- tru)
case " $got" in *" true "*) echo "PASS completion_record_program" ;;
*) echo "FAIL completion_record_program: 'hwprof record --emulate -- tru' completes to '$got'" ;; esac
check completion_input_file "$tmp/page" hwprof script -i "$tmp/pa"
bad=
for c in $cmds; do
	got=" $(complete_words hwprof "$c" --)"
	for o in $("$HWPROF" "$c" --help | grep -E '^ {1,8}-' | grep -oE '(^|[ ,])--[a-z][a-z-]*' | tr -d ' ,' | sort -u); do
		case $got in *" $o "*) ;; *) bad="$bad $c:$o" ;; esac
	done
done
[ -z "$bad" ] && echo "PASS completion_all_options" || echo "FAIL completion_all_options: missing$bad"

# The README's Library example is examples/hottest_branch.c (which the
# install test builds), not a copy that drifts.
root=${HWPROF_ROOT:-.}
if python3 - "$root/README.md" "$root/examples/hottest_branch.c" <<'PY'
import re, sys
readme, example = open(sys.argv[1]).read(), open(sys.argv[2]).read()
lib = readme[readme.index("## Library"):]
block = re.search(r"```c\n(.*?)```", lib, re.S).group(1)
assert block.strip() and block in example, "README's example differs from examples/hottest_branch.c"
PY
then echo "PASS readme_example_is_the_installed_example"; else echo "FAIL readme_example_is_the_installed_example"; fi
