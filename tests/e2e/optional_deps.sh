#!/bin/bash
# libcurl, protobuf-c (with zlib), libiberty and liblzma are optional: one
# build with all four hidden (make WITHOUT=curl,protobuf-c,iberty,lzma, into
# $BUILD-without) passes, names each missing library once, links none of
# them; push, fleet and the pprof export say which Debian package to
# install; C++ names stay mangled (demangled by the suite's build); a
# kernel module's .ko.xz is said to need liblzma; the rest reports as before.
# The build directory stays between runs (a rerun rebuilds only what changed);
# the messages are checked on a configuration-only run in a fresh directory.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$root/tests/tools/make_env.sh"
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
without=curl,protobuf-c,iberty,lzma
echo "PLAN 9"

# The configuration alone (no compiling): its messages, each once.
hwp_make -C "$root" BUILD="$tmp/cfg" SAN= WITHOUT=$without "$tmp/cfg/config.stamp" >"$tmp/cfg.out" 2>&1
bad=
for lib in "libcurl (libcurl4-openssl-dev)" "protobuf-c (libprotobuf-c-dev" "libiberty (libiberty-dev)" \
	"liblzma (liblzma-dev)"; do
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
	for c in not_linked push_error fleet_error pprof_error mangled ko_xz core_same; do
		echo "SKIP optional_$c: the build failed"
	done
	exit 0
fi
echo "PASS optional_build ($b)"

bad=
for f in "$b/hwprof" "$b/libhwprof.so"; do
	n=$(readelf -d "$f" | grep -E 'NEEDED.*(libcurl|libprotobuf-c|libz\.|liblzma)' | tr -s ' ' | cut -d' ' -f6)
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

# A kernel module's .ko.xz: not read, and said why (-v)
mod=/lib/modules/6.1.0-hwptest/kernel/hwptest.ko
if ! command -v xz >/dev/null || ! command -v ld >/dev/null; then
	echo "SKIP optional_ko_xz: needs xz and ld"
elif mkdir -p "$tmp/symfs${mod%/*}" && gcc -O2 -c -o "$tmp/ko.o" "$root/tests/fixtures/kmod_hwptest.c" &&
	ld -r --build-id=sha1 -o "$tmp/hwptest.ko" "$tmp/ko.o" && xz -c "$tmp/hwptest.ko" >"$tmp/symfs$mod.xz" &&
	python3 "$root/tests/tools/gen_kmod_perfdata.py" "$tmp/k.data" "$tmp/hwptest.ko" "$mod.xz" 0xffffffffc0a00000 0x400 &&
	"$b/hwprof" branches -v -i "$tmp/k.data" --symfs "$tmp/symfs" >/dev/null 2>"$tmp/ko.err" &&
	grep -q "hwptest.ko.xz: no usable .ko (.*built without liblzma (liblzma-dev)): symbols from kallsyms" "$tmp/ko.err"
then
	echo "PASS optional_ko_xz"
else
	echo "FAIL optional_ko_xz: $(grep hwptest "$tmp/ko.err" 2>/dev/null | head -2 | tr '\n' ' ')"
fi

# Everything else is the suite's build's answer.
"$b/hwprof" branches --csv -i "$tmp/b.data" >"$tmp/without.csv" 2>&1
"$HWPROF" branches --csv -i "$tmp/b.data" >"$tmp/with.csv" 2>&1
if [ -s "$tmp/with.csv" ] && cmp -s "$tmp/without.csv" "$tmp/with.csv"; then
	echo "PASS optional_core_same"
else
	echo "FAIL optional_core_same: branches --csv differs: $(diff "$tmp/with.csv" "$tmp/without.csv" | head -3 | tr '\n' ' ')"
fi
