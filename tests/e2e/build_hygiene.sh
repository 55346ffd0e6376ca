#!/bin/bash
# The build cannot go stale: in a copy of the checkout and its build (mtimes
# kept), nothing is to be done; touching a header (or a .c file another one
# includes) recompiles exactly the sources that include it, directly or not
# (computed here from the #include lines, independently of make), and the
# tests and tools that link a changed libhwprof.a; a changed
# library set recompiles everything and is said once; a missing required
# library stops the build with one line. Only `make -n`: nothing is rebuilt.
set -u
echo "PLAN 9"
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$root/tests/tools/make_env.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BUILD=${BUILD:-build}

# The copy: sources without build directories, then this suite's build.
copy=$tmp/src
mkdir "$copy"
tar -C "$root" --exclude=./.git --exclude='./build' --exclude='./build-*' -cf - . |
	tar -C "$copy" -xf -
case $BUILD in
/*)	cp -a "$BUILD" "$tmp/build"
	# .d files name their targets by absolute path: point them at the copy.
	find "$tmp/build" -name '*.d' -exec sed -i "s#$BUILD/#$tmp/build/#g" {} +
	BUILD=$tmp/build ;;
*)	mkdir -p "$copy/$(dirname "$BUILD")" && cp -a "$root/$BUILD" "$copy/$BUILD" ;;
esac
mk() { (cd "$copy" && hwp_make "$@"); }

if mk -q all; then
	echo "PASS build_up_to_date"
else
	echo "FAIL build_up_to_date: make -q says the build is stale; make -n would run: $(mk -n all 2>&1 | head -3)"
	exit 0 # the checks below need an up-to-date build
fi

# compiled FILE: the .c files in `make -n` output, one per line, sorted.
compiled() { grep -oE '[^ ]+\.c\b' "$1" | sort -u; }

# Sources that include FILE, directly or through other headers.
dependents() {
	(cd "$copy" && python3 - "$1" <<'PY'
import os, re, sys
roots = ["include", "src", "tests/unit"]
files = [os.path.join(d, f) for top in ["src", "cli", "include", "tests/unit", "tests/tools", "bench"]
         for d, _, fs in os.walk(top) for f in fs if f.endswith((".c", ".h"))]
def includes(path):
    out = []
    for name in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(path).read(), re.M):
        for base in [os.path.dirname(path)] + roots:
            p = os.path.normpath(os.path.join(base, name))
            if os.path.exists(p):
                out.append(p)
                break
    return out
graph = {f: includes(f) for f in files}
def reaches(f, target, seen):
    if f == target:
        return True
    seen.add(f)
    return any(reaches(g, target, seen) for g in graph.get(f, []) if g not in seen)
# (bench/*.c and tests/tools/*.c only: make builds no subdirectory of them;
# bench/emu/ holds workloads bench/emulate.sh compiles itself)
built = [f for f in files if f.endswith(".c") and not f.startswith("tests/unit/") and
         not re.match(r"(bench|tests/tools)/.+/", f) or
         re.match(r"tests/unit/test_.*\.c$", f)]
want = {f for f in built if reaches(f, sys.argv[1], set())}
# Unit tests, tools and benchmarks compile and link in one step against
# libhwprof.a: a changed library object rebuilds them all.
if any(f.startswith("src/") and not f.startswith("src/emu/") for f in want):
    want |= {f for f in built if f.startswith(("tests/", "bench/"))}
print("\n".join(sorted(want)))
PY
	)
}

for h in include/hwprof/hwprof.h src/util/bytes.h tests/unit/testlib.h src/emu/x86_branch.h src/emu/x86_branch.c; do
	name=touch_$(basename "$h" | tr . _)
	if [ ! -f "$copy/$h" ]; then
		echo "SKIP $name: no $h"
		continue
	fi
	touch -r "$copy/$h" "$tmp/ref"
	touch "$copy/$h"
	mk -n all >"$tmp/n.out" 2>&1
	touch -r "$tmp/ref" "$copy/$h"
	compiled "$tmp/n.out" >"$tmp/got"
	dependents "$h" >"$tmp/want"
	if [ ! -s "$tmp/want" ]; then
		echo "FAIL $name: nothing includes $h (test is out of date)"
	elif cmp -s "$tmp/got" "$tmp/want"; then
		echo "PASS $name ($(wc -l <"$tmp/want") sources)"
	else
		echo "FAIL $name: recompiled vs includers: $(diff "$tmp/want" "$tmp/got" | grep '^[<>]' | head -5 | tr '\n' ' ')"
	fi
done

# A required library missing: one line naming the packages and make setup.
# A fake compiler that cannot link -lzstd.
printf '#!/bin/sh\ncase " $* " in *" -lzstd "*) exit 1 ;; esac\nexec %s "$@"\n' "$(command -v "${CC:-cc}")" >"$tmp/cc-nozstd"
chmod +x "$tmp/cc-nozstd"
if mk -n CC="$tmp/cc-nozstd" all >"$tmp/req.out" 2>"$tmp/req.err"; then
	echo "FAIL missing_required_stops: make -n succeeded without zstd"
elif [ "$(wc -l <"$tmp/req.err")" = 1 ] && grep -q "libelf-dev libdw-dev libzstd-dev" "$tmp/req.err" &&
	grep -q "make setup" "$tmp/req.err" && [ ! -s "$tmp/req.out" ]; then
	echo "PASS missing_required_stops"
else
	echo "FAIL missing_required_stops: $(head -3 "$tmp/req.err" "$tmp/req.out" | tr '\n' ' ')"
fi

# A changed library set (capstone turned off): every object recompiles, the
# missing library is named once, and only when the set changes.
line="hwprof: building without capstone (libcapstone-dev): instruction decoding disabled"
mk -n HAVE_CAPSTONE= all >"$tmp/nc.out" 2>&1
mk -n HAVE_CAPSTONE= all >"$tmp/nc2.out" 2>&1
# (with the C protoc-c generates from src/**/*.proto into $BUILD/gen/, and
# the --help texts helpdoc.py generates from docs/)
all_srcs=$(cd "$copy" && { find src cli -name '*.c'; ls tests/unit/test_*.c tests/tools/*.c bench/*.c
	find src -name '*.proto' | sed "s|^|$BUILD/gen/|; s|\\.proto\$|.pb-c.c|"; echo "$BUILD/gen/cli/help_text.c"; } | sort)
if [ "$(compiled "$tmp/nc.out")" != "$all_srcs" ]; then
	echo "FAIL config_change_rebuilds: not everything recompiles: $(comm -3 <(echo "$all_srcs") <(compiled "$tmp/nc.out") | head -3 | tr '\n' ' ')"
elif grep -q -- '-DHAVE_CAPSTONE\|-lcapstone' "$tmp/nc.out"; then
	echo "FAIL config_change_rebuilds: capstone still used"
else
	echo "PASS config_change_rebuilds"
fi
if [ "$(grep -cxF "$line" "$tmp/nc.out")" = 1 ] && ! grep -qF "$line" "$tmp/nc2.out"; then
	echo "PASS optional_missing_said_once"
else
	echo "FAIL optional_missing_said_once: $(grep -c "without capstone" "$tmp/nc.out") then $(grep -c "without capstone" "$tmp/nc2.out") lines"
fi
