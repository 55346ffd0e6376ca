#!/bin/bash
# The library is the product: cli/ may include only the public headers
# (include/hwprof/*.h) and its own, and no library layer includes a header,
# private or public, of a layer above it (DESIGN.md: util -> format ->
# symbolize/decode/unwind -> session -> analysis -> pipeline -> output/export/report ->
# capture/emu -> cli). A public header belongs to the layer that implements
# it, found from the sources (see header_layers), so a new header needs no
# entry here.
set -u
cd "${HWPROF_ROOT:-$(dirname "$0")/../..}"
echo "PLAN 10"

# verdict NAME BAD: PASS when BAD (the offending places) is empty
verdict() {
	if [ -z "$2" ]; then echo "PASS $1"; else echo "FAIL $1:$2"; fi
}
# quoted_includes FILE: the "..." includes of FILE, one a line
quoted_includes() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
}

# cli/: every quoted include is hwprof/<public header> or a cli/ file.
bad=""
for f in cli/*.c cli/*.h; do
	while IFS= read -r inc; do
		if [[ $inc == hwprof/* ]]; then
			[ -f "include/$inc" ] || bad+=" $f:$inc(missing)"
		elif [ ! -f "cli/$inc" ] || [[ $inc == */* ]]; then
			bad+=" $f:$inc"
		fi
	done < <(quoted_includes "$f")
done
verdict "cli includes only public headers" "$bad"

# Public headers include only public headers (a library user has no src/).
bad=""
for f in include/hwprof/*.h; do
	while IFS= read -r inc; do
		[[ $inc == hwprof/* && -f include/$inc ]] || bad+=" $f:$inc"
	done < <(quoted_includes "$f")
done
verdict "public headers include only public headers" "$bad"

# The layers, lowest first: a file may include headers of its own layer and
# below. The report tables (src/report: the rows of each analysis as a
# table model) build output's hwp_table and are what export renders, so they
# share output/export's layer. The plugin (emu) and its driver (capture)
# share the raw stream format and sit above the rest of the library.
LAYERS=(util format "symbolize decode unwind" session analysis pipeline "output export report" "capture emu")
declare -A RANK
for i in "${!LAYERS[@]}"; do
	for d in ${LAYERS[$i]}; do RANK[$d]=$i; done
done

# header_layers ROOT: fills HLAYER[x.h] (x.h in ROOT/include/hwprof/) and
# HWHY[x.h]. A public header belongs to the highest layer among the src/
# directories that define the functions it declares (every hwp_* name
# followed by "(" outside comments and preprocessor lines; a definition is a
# non-static line at column 0 of a src/ .c file naming it before its "(").
# A header that declares no function src/ defines (types and constants only,
# e.g. perf_abi.h, code_loc.h) costs nothing to include by itself: it takes
# the highest layer of the public headers it includes, util when none (so a
# header can never hide an upward include behind one without code).
declare -A HLAYER HWHY
header_layers() {
	local root=$1 h name dir l n changed inc
	local -A def
	HLAYER=() HWHY=()
	while read -r name dir; do
		# a name defined in two layers: the higher one counts
		[ -n "${def[$name]:-}" ] && [ "${RANK[$dir]:-99}" -le "${RANK[${def[$name]}]:-99}" ] && continue
		def[$name]=$dir
	done < <(grep -rHoE '^[A-Za-z_][^;(=]*[ *]hwp_[A-Za-z0-9_]+\(' "$root/src" --include='*.c' |
		grep -v ':static' | sed -E 's#^.*/src/([^/]+)/[^:]*:.*[ *](hwp_[A-Za-z0-9_]+)\($#\2 \1#')
	for h in "$root"/include/hwprof/*.h; do
		n=${h##*/} l=-1
		for name in $(perl -0777 -pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g; s{^[ \t]*#[^\n]*}{}gm' "$h" |
			grep -oE '\bhwp_[A-Za-z0-9_]+[[:space:]]*\(' | tr -d ' \t(' | sort -u); do
			dir=${def[$name]:-}
			[ -n "$dir" ] || continue
			if [ "${RANK[$dir]:-99}" -gt "$l" ]; then l=${RANK[$dir]:-99} HWHY[$n]="$name() in src/$dir"; fi
		done
		[ "$l" -ge 0 ] && HLAYER[$n]=$l
	done
	# types-only headers: the highest layer they include, to a fixed point
	changed=1
	while [ $changed -eq 1 ]; do
		changed=0
		for h in "$root"/include/hwprof/*.h; do
			n=${h##*/}
			[ -n "${HWHY[$n]:-}" ] && continue
			l=${HLAYER[$n]:-0}
			while IFS= read -r inc; do
				inc=${inc#hwprof/}
				[ "${HLAYER[$inc]:-0}" -gt "$l" ] && l=${HLAYER[$inc]}
			done < <(quoted_includes "$h" | grep '^hwprof/')
			if [ "${HLAYER[$n]:-}" != "$l" ]; then HLAYER[$n]=$l changed=1; fi
		done
	done
}

# include_layer INC: the layer of an include written "dir/x.h" (a private
# header of src/dir) or "hwprof/x.h" (a public header); nothing for others
# (a header of the file's own directory, a system header)
include_layer() {
	local inc=$1 root=$2
	if [[ $inc == hwprof/* ]]; then
		echo "${HLAYER[${inc#hwprof/}]:-}"
	elif [[ $inc == */* && -d $root/src/${inc%%/*} ]]; then
		echo "${RANK[${inc%%/*}]:-99}"
	fi
}

# layer_violations ROOT: " file:include(why)" for every src/ file of ROOT
# that includes a header of a layer above its own, and every public header
# that includes a public header of a layer above its own
layer_violations() {
	local root=$1 f inc mine l bad=""
	header_layers "$root"
	while IFS= read -r f; do
		mine=${f#"$root"/src/}
		mine=${RANK[${mine%%/*}]:-99}
		while IFS= read -r inc; do
			l=$(include_layer "$inc" "$root")
			[ -n "$l" ] && [ "$l" -gt "$mine" ] && bad+=" ${f#"$root"/}:$inc(${LAYERS[$l]:-unknown layer} above ${LAYERS[$mine]:-unknown layer}${HWHY[${inc#hwprof/}]:+: ${HWHY[${inc#hwprof/}]}})"
		done < <(quoted_includes "$f")
	done < <(find "$root/src" -name '*.[ch]' | sort)
	for f in "$root"/include/hwprof/*.h; do
		mine=${HLAYER[${f##*/}]}
		while IFS= read -r inc; do
			l=${HLAYER[${inc#hwprof/}]:-0}
			[ "$l" -gt "$mine" ] && bad+=" ${f#"$root"/}:$inc(${LAYERS[$l]} above ${LAYERS[$mine]})"
		done < <(quoted_includes "$f" | grep '^hwprof/')
	done
	echo "$bad"
}

# Every src/ directory has a place in the order.
bad=""
for d in src/*/; do
	d=${d%/}
	[ -n "${RANK[${d#src/}]:-}" ] || bad+=" $d"
done
verdict "every src/ directory is a layer" "$bad"

# Every public header maps to a layer (the check below relies on it).
header_layers .
bad=""
for h in include/hwprof/*.h; do
	[ -n "${HLAYER[${h##*/}]:-}" ] || bad+=" $h"
done
verdict "every public header has a layer" "$bad"

verdict "library layers include downwards only" "$(layer_violations .)"

# The check itself, on scratch copies of the tree: it must catch a public
# header of a higher layer included from util, a private header of a higher
# layer, and a header added later (its layer found from its definitions).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
selftest() { # NAME WANT(fail|pass) FILE_TO_EDIT LINE [NEW_FILE CONTENT]...
	local name=$1 want=$2 file=$3 line=$4 t got inc
	shift 4
	inc=${line#*\"} inc=${inc%\"}
	t=$tmp/$name
	mkdir -p "$t"
	cp -r src include "$t/"
	while [ $# -ge 2 ]; do
		mkdir -p "$(dirname "$t/$1")"
		printf '%s\n' "$2" >"$t/$1"
		shift 2
	done
	sed -i "0,/^#include/s||$line\n#include|" "$t/$file"
	got=$(layer_violations "$t")
	if [ "$want" = fail ] && grep -qF " $file:$inc(" <<<"$got"; then
		echo "PASS layering_selftest_$name"
	elif [ "$want" = pass ] && [ -z "$got" ]; then
		echo "PASS layering_selftest_$name"
	else
		echo "FAIL layering_selftest_$name: wanted $want after adding '$line' to $file, got:${got:- nothing}"
	fi
}
selftest util_includes_advise fail src/util/vec.c '#include "hwprof/advise.h"'
selftest format_includes_analysis fail src/format/attr.c '#include "analysis/callchain.h"'
# a public header added later, implemented in src/pipeline/: too high for
# analysis, fine for output
newh='#include "hwprof/hwprof.h"
HWP_API int hwp_selftest__run(void);'
newc='#include "hwprof/selftest_pipe.h"
int hwp_selftest__run(void) { return 0; }'
selftest new_header_upwards fail src/analysis/timing_modes.c '#include "hwprof/selftest_pipe.h"' \
	include/hwprof/selftest_pipe.h "$newh" src/pipeline/selftest_pipe.c "$newc"
selftest new_header_downwards pass src/output/table.c '#include "hwprof/selftest_pipe.h"' \
	include/hwprof/selftest_pipe.h "$newh" src/pipeline/selftest_pipe.c "$newc"

# Library messages describe the problem and never name one of hwprof's
# command-line flags (the command maps them to its own); naming another
# tool's ("perf record -o -") is fine.
bad=$(grep -rnoE '"[^"]*"' src --include=*.c --exclude-dir=emu |
	grep -E '(^|[ (`'"'"'])-(-[a-z][a-z-]+|[a-zA-Z])\b' |
	grep -vE "perf [a-z-]+ [^\"]*-|QEMU -cpu|-dbgsym|-dbg package" || true)
verdict "library messages name no command-line flag" "${bad:+ $bad}"
