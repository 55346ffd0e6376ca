#!/bin/bash
# make install: the staged tree (DESTDIR, PREFIX=/usr) holds every file where
# it belongs; installed into a temporary PREFIX, the headers compile alone,
# hwprof.pc gives what a program needs, and every examples/*.c built against
# the installed library (shared, and libhwprof.a statically) prints what the
# installed hwprof prints (tests/tools/examples_check.sh); installed man pages render,
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
. "$root/tests/tools/examples_check.sh"
nex=$(examples_count)
echo "PLAN $((9 + 2 * nex))"
# skip_rest WHY CHECK...: the checks that cannot run, and every example's
skip_rest() {
	local why=$1 c
	shift
	for c in "$@"; do echo "SKIP $c: $why"; done
	for c in "$root"/examples/*.c; do
		echo "SKIP example_shared_$(basename "$c" .c): $why"
		echo "SKIP example_static_$(basename "$c" .c): $why"
	done
	for c in installed_man installed_completion installed_help installed_plugin_found; do echo "SKIP $c: $why"; done
	exit 0
}

# Staged: DESTDIR + PREFIX=/usr.
stage=$tmp/stage
if ! hwp_make -C "$root" install DESTDIR="$stage" PREFIX=/usr >"$tmp/i.out" 2>&1; then
	echo "FAIL install_staged: make install failed: $(tail -3 "$tmp/i.out" | tr '\n' ' ')"
	skip_rest "make install failed" uninstall install_prefix pkgconfig headers_standalone
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
	skip_rest "make install failed" pkgconfig headers_standalone
fi
echo "PASS install_prefix"
export PKG_CONFIG_PATH=$p/lib/pkgconfig
if ! command -v pkg-config >/dev/null; then
	skip_rest "pkg-config not installed (apt-get install pkg-config)" pkgconfig headers_standalone
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

# Every example, against the installed library: shared, and libhwprof.a
# with what pkg-config --static adds.
examples_check example_shared "$p/bin/hwprof" "$cflags" "$libs" shared LD_LIBRARY_PATH="$p/lib"
examples_check example_static "$p/bin/hwprof" "$cflags" "${static/-lhwprof/-Wl,-Bstatic -lhwprof -Wl,-Bdynamic}" static

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
