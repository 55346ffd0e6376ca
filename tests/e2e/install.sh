#!/bin/bash
# make install: the staged tree (DESTDIR, PREFIX=/usr) holds every file where
# it belongs; installed into a temporary PREFIX, the headers compile alone,
# hwprof.pc gives what a program needs, and examples/hottest_branch.c built
# against the installed library (shared, and libhwprof.a statically) prints
# the hottest branch `hwprof branches` prints; installed man pages render,
# the completion parses, the installed hwprof runs and finds its plugin;
# make uninstall removes everything it installed.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$root/tests/tools/make_env.sh"
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
version=$(sed -n 's/.*define HWPROF_VERSION "\(.*\)"/\1/p' "$root/include/hwprof/hwprof.h")
so=libhwprof.so.${version%%.*}
CC=${CC:-cc}
# A sanitizer build installs sanitized libraries: programs linking them too.
xflags=${SAN:+-fsanitize=address,undefined}
# PLAN: without pkg-config the checks stop after 2 and its SKIP
if command -v pkg-config >/dev/null; then echo "PLAN 10"; else echo "PLAN 3"; fi

# Staged: DESTDIR + PREFIX=/usr.
stage=$tmp/stage
if ! hwp_make -C "$root" install DESTDIR="$stage" PREFIX=/usr >"$tmp/i.out" 2>&1; then
	echo "FAIL install_staged: make install failed: $(tail -3 "$tmp/i.out" | tr '\n' ' ')"
	exit 0
fi
bad=
for f in bin/hwprof lib/hwprof/hwprof-emu.so lib/libhwprof.so.$version lib/libhwprof.a \
	lib/pkgconfig/hwprof.pc share/man/man1/hwprof.1 share/man/man1/hwprof-branches.1 \
	share/bash-completion/completions/hwprof; do
	[ -f "$stage/usr/$f" ] && [ ! -L "$stage/usr/$f" ] || bad="$bad $f"
done
for h in "$root"/include/hwprof/*.h; do
	cmp -s "$h" "$stage/usr/include/hwprof/$(basename "$h")" || bad="$bad include/hwprof/$(basename "$h")"
done
[ "$(readlink "$stage/usr/lib/$so")" = "libhwprof.so.$version" ] || bad="$bad lib/$so"
[ "$(readlink "$stage/usr/lib/libhwprof.so")" = "$so" ] || bad="$bad lib/libhwprof.so"
[ -x "$stage/usr/bin/hwprof" ] || bad="$bad bin/hwprof(mode)"
grep -qx 'prefix=/usr' "$stage/usr/lib/pkgconfig/hwprof.pc" || bad="$bad hwprof.pc(prefix)"
[ -z "$bad" ] && echo "PASS install_staged" || echo "FAIL install_staged: missing or wrong:$bad"

if hwp_make -C "$root" uninstall DESTDIR="$stage" PREFIX=/usr >"$tmp/u.out" 2>&1 &&
	[ -z "$(find "$stage" -type f -o -type l)" ]; then
	echo "PASS uninstall"
else
	echo "FAIL uninstall: left $(find "$stage" -type f -o -type l | head -5 | tr '\n' ' ') $(tail -2 "$tmp/u.out")"
fi

# Installed into a temporary prefix, used from there.
p=$tmp/prefix
if ! hwp_make -C "$root" install PREFIX="$p" >"$tmp/i2.out" 2>&1; then
	echo "FAIL install_prefix: $(tail -3 "$tmp/i2.out" | tr '\n' ' ')"
	exit 0
fi
export PKG_CONFIG_PATH=$p/lib/pkgconfig
if ! command -v pkg-config >/dev/null; then
	echo "SKIP pkgconfig: pkg-config not installed (apt-get install pkg-config)"
	exit 0
fi
cflags=$(pkg-config --cflags hwprof) libs=$(pkg-config --libs hwprof) static=$(pkg-config --static --libs hwprof)
bad=
for want in "cflags -I$p/include" "libs -L$p/lib" "libs -lhwprof" "static -lhwprof" "static -lzstd" \
	"static -ldw" "static -lelf" "static -lm"; do
	var=${want%% *}
	case " ${!var} " in *" ${want#* } "*) ;; *) bad="$bad $want" ;; esac
done
[ -z "$bad" ] && echo "PASS pkgconfig ($static)" ||
	echo "FAIL pkgconfig: missing$bad: cflags '$cflags', libs '$libs', static '$static'"

bad=
for h in "$p"/include/hwprof/*.h; do
	echo "#include <hwprof/$(basename "$h")>" | $CC -std=c11 -Wall -Wextra -Werror -fsyntax-only $cflags -x c - \
		2>"$tmp/h.err" || bad="$bad $(basename "$h"): $(head -1 "$tmp/h.err")"
done
[ -z "$bad" ] && echo "PASS headers_standalone" || echo "FAIL headers_standalone:$bad"

# The recording and what hwprof branches says is the hottest branch.
gcc -g -O1 -o "$tmp/branchy" "$root/tests/fixtures/branchy.c"
"$build/tests/tools/gen_fixture_branches" "$tmp/branchy" "$tmp/b.data" --samples 500 --seed 3 >/dev/null
"$p/bin/hwprof" branches --sort symbol_from,symbol_to -i "$tmp/b.data" >"$tmp/b.txt" 2>"$tmp/b.err"
# The example prints "PERCENT% COUNT FROM -> TO"; compared without the percent
# with the first row of the text table (cells apart by two or more spaces).
want=$(grep -v '^#' "$tmp/b.txt" | awk -F '  +' 'NF { print $3 " " $4 " -> " $5; exit }')
example() { # NAME BINARY [ENV...]
	local name=$1 bin=$2 got
	shift 2
	got=$(env "$@" "$bin" "$tmp/b.data" 2>"$tmp/$name.err")
	if [ -z "$want" ]; then
		echo "FAIL $name: hwprof branches printed no row: $(head -2 "$tmp/b.err")"
	elif [ "${got#* }" = "$want" ]; then
		echo "PASS $name ($got)"
	else
		echo "FAIL $name: printed '$got' $(head -2 "$tmp/$name.err"), hwprof branches '$want'"
	fi
}
if $CC -std=c11 $xflags $cflags -o "$tmp/ex_shared" "$root/examples/hottest_branch.c" $libs 2>"$tmp/cs.err"; then
	if readelf -d "$tmp/ex_shared" | grep -q "NEEDED.*\[$so\]"; then
		example example_shared "$tmp/ex_shared" LD_LIBRARY_PATH="$p/lib"
	else
		echo "FAIL example_shared: not linked against $so"
	fi
else
	echo "FAIL example_shared: does not link against libhwprof.so: $(grep -o 'undefined reference to `[a-z_0-9]*' "$tmp/cs.err" | sort -u | head -5 | tr '\n' ' ')$(grep -v 'undefined reference' "$tmp/cs.err" | head -2)"
fi
if $CC -std=c11 $xflags $cflags -o "$tmp/ex_static" "$root/examples/hottest_branch.c" \
	${static/-lhwprof/-Wl,-Bstatic -lhwprof -Wl,-Bdynamic} 2>"$tmp/cst.err"; then
	if readelf -d "$tmp/ex_static" | grep -q "NEEDED.*libhwprof"; then
		echo "FAIL example_static: linked against libhwprof.so"
	else
		example example_static "$tmp/ex_static"
	fi
else
	echo "FAIL example_static: $(head -3 "$tmp/cst.err" | tr '\n' ' ')"
fi

if ! command -v man >/dev/null; then
	echo "SKIP installed_man: man not installed (apt-get install man-db groff-base)"
else
	bad=
	for page in "$p"/share/man/man1/*.1; do
		w=$(MANWIDTH=80 man -l --warnings -E UTF-8 "$page" 2>&1 >/dev/null)
		[ -n "$w" ] && bad="$bad $(basename "$page"): $w"
	done
	n=$(ls "$p"/share/man/man1/*.1 | wc -l)
	[ -z "$bad" ] && [ "$n" -gt 1 ] && echo "PASS installed_man ($n pages)" || echo "FAIL installed_man: $n pages;$bad"
fi
bash -n "$p/share/bash-completion/completions/hwprof" 2>"$tmp/c.err" &&
	echo "PASS installed_completion" || echo "FAIL installed_completion: $(head -1 "$tmp/c.err")"
if "$p/bin/hwprof" --help >"$tmp/h.out" 2>&1 && grep -q '^usage: hwprof' "$tmp/h.out"; then
	echo "PASS installed_help"
else
	echo "FAIL installed_help: $(head -2 "$tmp/h.out")"
fi

# The installed hwprof finds PREFIX/lib/hwprof/hwprof-emu.so by itself.
if ! command -v qemu-x86_64 >/dev/null; then
	echo "SKIP installed_plugin_found: qemu-x86_64 not installed (apt-get install qemu-user)"
elif env -u HWPROF_EMU_PLUGIN "$p/bin/hwprof" record --emulate -o "$tmp/t.data" -- /bin/true \
	>/dev/null 2>"$tmp/r.err" && [ -s "$tmp/t.data" ]; then
	echo "PASS installed_plugin_found"
else
	echo "FAIL installed_plugin_found: $(head -1 "$tmp/r.err")"
fi
