#!/bin/bash
# libhwprof.so: its soname and symlinks, and its exported functions: only
# public hwp_* names (nothing hwp__, nothing without the prefix), exactly the
# functions include/hwprof/*.h declares (those marked HWP_API; static inline
# ones excluded), each listed by name in libhwprof.map and versioned by it,
# and the map is scripts/gen_map.py's output.
set -u
echo "PLAN 6"
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
so=$build/libhwprof.so
version=$(sed -n 's/.*define HWPROF_VERSION "\(.*\)"/\1/p' "$root/include/hwprof/hwprof.h")

if [ ! -e "$so" ]; then
	echo "FAIL so_built: no $so"
	exit 0
fi
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
if [ "$soname" = "libhwprof.so.${version%%.*}" ] && [ "$(readlink "$so")" = "$soname" ] &&
	[ "$(readlink "$build/$soname")" = "libhwprof.so.$version" ] && [ -f "$build/libhwprof.so.$version" ]; then
	echo "PASS soname ($soname -> libhwprof.so.$version)"
else
	echo "FAIL soname: soname '$soname', $so -> $(readlink "$so"), $build/$soname -> $(readlink "$build/$soname")"
fi

nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u >"$tmp/exported"
bad=$(grep -v '^hwp_' "$tmp/exported"; grep '^hwp__' "$tmp/exported")
if [ ! -s "$tmp/exported" ]; then
	echo "FAIL exports_public_only: nothing exported"
elif [ -n "$bad" ]; then
	echo "FAIL exports_public_only: $(echo "$bad" | wc -l) private or unprefixed symbols exported: $(echo "$bad" | head -5 | tr '\n' ' ')"
else
	echo "PASS exports_public_only ($(wc -l <"$tmp/exported") functions)"
fi

# Functions the public headers declare (scripts/gen_map.py's reading of
# them: hwp_name( outside comments, minus static inline functions and
# function-pointer typedefs) are exactly the exported ones.
python3 "$root/scripts/gen_map.py" --names "$root" >"$tmp/declared"
not_exported=$(comm -23 "$tmp/declared" "$tmp/exported")
not_declared=$(comm -13 "$tmp/declared" "$tmp/exported")
if [ -z "$not_exported$not_declared" ]; then
	echo "PASS exports_match_headers ($(wc -l <"$tmp/declared") functions)"
else
	echo "FAIL exports_match_headers: $(echo "$not_exported" | grep -c .) declared but not exported" \
		"(missing HWP_API, or libhwprof.map not regenerated: python3 scripts/gen_map.py --write): $(echo $not_exported | cut -c1-300);" \
		"$(echo "$not_declared" | grep -c .) exported but not declared: $(echo $not_declared | cut -c1-300)"
fi

# libhwprof.map lists every exported function by name, under a version
# node, and nothing else: no pattern, nothing that is not exported; each
# export carries the version of the node that lists it.
map=$root/libhwprof.map
python3 "$root/scripts/gen_map.py" --listed "$root" | sort >"$tmp/listed_nodes"
cut -d' ' -f1 "$tmp/listed_nodes" | sort -u >"$tmp/listed"
patterns=$(grep -E '[*?[]' "$tmp/listed")
unlisted=$(comm -13 "$tmp/listed" "$tmp/exported")
not_exported=$(comm -23 "$tmp/listed" "$tmp/exported")
if [ -n "$patterns" ]; then
	echo "FAIL map_lists_exports: libhwprof.map exports by pattern ($(echo $patterns)): list names"
elif [ -z "$unlisted$not_exported" ] && [ -s "$tmp/listed" ]; then
	echo "PASS map_lists_exports ($(wc -l <"$tmp/listed") names)"
else
	echo "FAIL map_lists_exports: $(echo "$unlisted" | grep -c .) exported but not in libhwprof.map:" \
		"$(echo $unlisted | cut -c1-300); $(echo "$not_exported" | grep -c .) listed but not exported:" \
		"$(echo $not_exported | cut -c1-300)"
fi
nm -D --defined-only "$so" | awk '$2 != "A" { split($3, v, "@@"); print v[1], v[2] }' | sort >"$tmp/versions"
wrong=$(comm -13 "$tmp/listed_nodes" "$tmp/versions")
if [ -z "$wrong" ] && [ -s "$tmp/versions" ]; then
	echo "PASS exports_versioned ($(cut -d' ' -f2 "$tmp/versions" | sort -u | tr '\n' ' ' | sed 's/ $//'))"
else
	echo "FAIL exports_versioned: $(echo "$wrong" | grep -c .) exports without the version of their node: $(echo "$wrong" | head -5 | tr '\n' ' ')"
fi

# The map is what scripts/gen_map.py makes of the headers.
if python3 "$root/scripts/gen_map.py" "$root" | diff -u "$map" - >"$tmp/map.diff"; then
	echo "PASS map_generated"
else
	echo "FAIL map_generated: libhwprof.map is not what the headers say; regenerate it" \
		"(python3 scripts/gen_map.py --write): $(grep '^[-+][^-+]' "$tmp/map.diff" | head -8 | tr '\n\t' '  ')"
fi
