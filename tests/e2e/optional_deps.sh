#!/bin/bash
# libcurl, protobuf-c (with zlib) and libiberty are optional: one build with
# all three hidden (make WITHOUT=curl,protobuf-c,iberty, into $BUILD-without)
# passes, names each missing library once, links none of them; push, fleet
# and the pprof export say which Debian package to install; C++ names stay
# mangled (demangled by the suite's build); the rest reports as before.
# The build directory stays between runs (a rerun rebuilds only what changed);
# the messages are checked on a configuration-only run in a fresh directory.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$root/tests/tools/make_env.sh"
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
without=curl,protobuf-c,iberty
echo "PLAN 8"

# The configuration alone (no compiling): its messages, each once.
hwp_make -C "$root" BUILD="$tmp/cfg" SAN= WITHOUT=$without "$tmp/cfg/config.stamp" >"$tmp/cfg.out" 2>&1
bad=
for lib in "libcurl (libcurl4-openssl-dev)" "protobuf-c (libprotobuf-c-dev" "libiberty (libiberty-dev)"; do
	[ "$(grep -cF "hwprof: building without $lib" "$tmp/cfg.out")" = 1 ] || bad="$bad '$lib'"
done
[ -z "$bad" ] && echo "PASS optional_reported_once" ||
	echo "FAIL optional_reported_once: not once:$bad: $(head -5 "$tmp/cfg.out" | tr '\n' ' ')"

# The build, without the sanitizers (the libraries, not the checks, are tested),
# named as the suite's is (relative or absolute: the .d files name it so).
bdir=${BUILD:-build}-without
case $bdir in /*) b=$bdir ;; *) b=$root/$bdir ;; esac
if ! hwp_make -C "$root" BUILD="$bdir" SAN= WITHOUT=$without -j2 all >"$tmp/build.out" 2>&1; then
	echo "FAIL optional_build: $(grep -E 'error|Error' "$tmp/build.out" | head -3 | tr '\n' ' ')"
	for c in not_linked push_error fleet_error pprof_error mangled core_same; do
		echo "SKIP optional_$c: the build failed"
	done
	exit 0
fi
echo "PASS optional_build ($b)"

bad=
for f in "$b/hwprof" "$b/libhwprof.so"; do
	n=$(readelf -d "$f" | grep -E 'NEEDED.*(libcurl|libprotobuf-c|libz\.)' | tr -s ' ' | cut -d' ' -f6)
	[ -n "$n" ] && bad="$bad $(basename "$f") needs $n;"
	nm "$f" 2>/dev/null | grep -qw cplus_demangle && bad="$bad $(basename "$f") has cplus_demangle;"
done
[ -z "$bad" ] && echo "PASS optional_not_linked" || echo "FAIL optional_not_linked:$bad"

gcc -g -O1 -o "$tmp/branchy" "$root/tests/fixtures/branchy.c"
"$build/tests/tools/gen_fixture_branches" "$tmp/branchy" "$tmp/b.data" --samples 400 --seed 3 >/dev/null
# NAME PACKAGE COMMAND...: fails, with one line naming PACKAGE.
feature_error() {
	local name=$1 pkg=$2
	shift 2
	if "$@" >/dev/null 2>"$tmp/$name.err"; then
		echo "FAIL optional_$name: succeeded: $*"
	elif [ "$(wc -l <"$tmp/$name.err")" = 1 ] && grep -q "built without .*install .*$pkg.* and rebuild" "$tmp/$name.err"; then
		echo "PASS optional_$name ($(cat "$tmp/$name.err"))"
	else
		echo "FAIL optional_$name: $(head -2 "$tmp/$name.err" | tr '\n' ' ')"
	fi
}
feature_error push_error libcurl4-openssl-dev "$b/hwprof" push --no-spool http://127.0.0.1:9/ "$tmp/b.data"
feature_error fleet_error libcurl4-openssl-dev "$b/hwprof" fleet init http://127.0.0.1:9/
feature_error pprof_error libprotobuf-c-dev "$b/hwprof" export --format pprof -o "$tmp/p.pb.gz" -i "$tmp/b.data"

# A C++ function's name: mangled here, demangled by the suite's build.
if ! command -v g++ >/dev/null; then
	echo "SKIP optional_mangled: g++ not installed"
else
	cat >"$tmp/cxx.cc" <<'EOF'
namespace outer { __attribute__((noinline)) long step(long x) { return x & 1 ? 3 * x + 1 : x / 2; } }
int main(int argc, char **) { long x = 27 + argc, n = 0; for (int i = 0; i < 2000000; i++) { x = outer::step(x); n += x == 1; if (x == 1) x = 27 + i; } return n == 7; }
EOF
	g++ -g -O1 -o "$tmp/cxx" "$tmp/cxx.cc" &&
		"$build/tests/tools/gen_fixture_branches" "$tmp/cxx" "$tmp/cxx.data" --samples 300 --seed 5 >/dev/null
	mangled=$("$b/hwprof" branches --sort symbol_from -i "$tmp/cxx.data" 2>&1)
	plain=$("$HWPROF" branches --sort symbol_from -i "$tmp/cxx.data" 2>&1)
	if grep -q '_ZN5outer4stepEl' <<<"$mangled" && ! grep -q 'outer::step' <<<"$mangled" &&
		grep -q 'outer::step' <<<"$plain"; then
		echo "PASS optional_mangled"
	else
		echo "FAIL optional_mangled: without: $(grep -m1 -E 'step' <<<"$mangled"); with: $(grep -m1 step <<<"$plain")"
	fi
fi

# Everything else is the suite's build's answer.
"$b/hwprof" branches --csv -i "$tmp/b.data" >"$tmp/without.csv" 2>&1
"$HWPROF" branches --csv -i "$tmp/b.data" >"$tmp/with.csv" 2>&1
if [ -s "$tmp/with.csv" ] && cmp -s "$tmp/without.csv" "$tmp/with.csv"; then
	echo "PASS optional_core_same"
else
	echo "FAIL optional_core_same: branches --csv differs: $(diff "$tmp/with.csv" "$tmp/without.csv" | head -3 | tr '\n' ' ')"
fi
