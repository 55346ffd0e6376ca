#!/bin/bash
# libhwprof.so: its soname and symlinks, and its exported functions: only
# public hwp_* names (nothing hwp__, nothing without the prefix), and exactly
# the functions include/hwprof/*.h declares (those marked HWP_API; static
# inline ones excluded).
set -u
echo "PLAN 3"
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

# Functions the public headers declare: hwp_name( outside comments, minus
# static inline functions (their bodies too) and function-pointer typedefs.
python3 - "$root"/include/hwprof/*.h >"$tmp/declared" <<'PY'
import re, sys
names = set()
for path in sys.argv[1:]:
    s = open(path).read()
    s = re.sub(r"/\*.*?\*/|//[^\n]*", " ", s, flags=re.S)
    s = re.sub(r"^\s*#.*?(?<!\\)$", " ", s, flags=re.M | re.S)  # preprocessor lines
    out, i = [], 0
    for m in re.finditer(r"\bstatic\s+(?:__inline__|inline)\b", s):
        if m.start() < i:
            continue
        out.append(s[i:m.start()])
        j = s.find("{", m.end())
        depth, k = 0, j
        while k < len(s):
            depth += {"{": 1, "}": -1}.get(s[k], 0)
            k += 1
            if depth == 0:
                break
        i = k
    out.append(s[i:])
    names |= set(re.findall(r"(?<![\w])(hwp_[a-z0-9_]+)\s*\(", "".join(out)))
print("\n".join(sorted(names)))
PY
not_exported=$(comm -23 "$tmp/declared" "$tmp/exported")
not_declared=$(comm -13 "$tmp/declared" "$tmp/exported")
if [ -z "$not_exported$not_declared" ]; then
	echo "PASS exports_match_headers ($(wc -l <"$tmp/declared") functions)"
else
	echo "FAIL exports_match_headers: $(echo "$not_exported" | grep -c .) declared but not exported" \
		"(missing HWP_API): $(echo $not_exported | cut -c1-300);" \
		"$(echo "$not_declared" | grep -c .) exported but not declared: $(echo $not_declared | cut -c1-300)"
fi
