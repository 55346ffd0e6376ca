#!/bin/bash
# Small command-line behaviours: --help texts, version, report options and
# what the commands say about empty or filtered-out results.
set -u
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
	on && /^  [a-z]/ { match($0, /^  [a-z]+ +/); print RLENGTH }' | sort -u)
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
