#!/bin/bash
# make deb: the packages hwprof, libhwprof0 and libhwprof-dev hold what belongs
# to each, libhwprof0's symbols file lists exactly what the library exports,
# lintian finds no error; unpacked into a scratch root, every examples/*.c
# builds against the installed headers and library only (pkg-config with the
# root as sysroot) and prints what the installed hwprof prints
# (tests/tools/examples_check.sh), the man pages render, and the installed
# hwprof finds its QEMU plugin.
#
# The .debs are build/deb's, rebuilt by `make deb` here unless they are newer
# than every source file (scripts/deb.sh decides, by the same file list it
# copies): a fresh clone builds them once (a minute), a rerun reuses them.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CC=${CC:-cc}
. "$root/tests/tools/examples_check.sh"
nex=$(examples_count)
checks="deb_build deb_contents deb_symbols deb_lintian deb_pkgconfig deb_man deb_plugin_found"
echo "PLAN $(($(wc -w <<<"$checks") + nex))"
skip_all() { # WHY
	local c
	for c in $checks; do echo "SKIP $c: $1"; done
	for c in "$root"/examples/*.c; do echo "SKIP deb_example_$(basename "$c" .c): $1"; done
	exit 0
}
for t in dpkg-buildpackage dh pkg-config; do
	command -v $t >/dev/null || skip_all "$t not installed (scripts/setup.sh deb: dpkg-dev debhelper pkg-config)"
done

out=$root/build/deb
start=$(date +%s)
# (the packages are built as Debian ships them: never sanitized, into build/)
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u SAN -u BUILD make -C "$root" --no-print-directory deb >"$tmp/deb.out" 2>&1; then
	echo "FAIL deb_build: $(grep -v '^make' "$tmp/deb.out" | tail -3 | tr '\n' ' ')"
	checks=${checks#deb_build }
	skip_all "make deb failed"
fi
version=$(sed -n 's/.*define HWPROF_VERSION "\(.*\)"/\1/p' "$root/include/hwprof/hwprof.h")
so=libhwprof.so.${version%%.*}
debs=()
for p in hwprof libhwprof${version%%.*} libhwprof-dev; do
	d=$(ls "$out/${p}_${version}"-*.deb 2>/dev/null | head -1)
	[ -n "$d" ] && debs+=("$d")
done
if [ ${#debs[@]} -ne 3 ]; then
	echo "FAIL deb_build: $out has ${#debs[@]} of the 3 packages"
	checks=${checks#deb_build }
	skip_all "make deb made no packages"
fi
echo "PASS deb_build ($(($(date +%s) - start)) s; $(for d in "${debs[@]}"; do printf '%s %s KiB, ' \
	"$(basename "$d" | cut -d_ -f1)" "$(du -k "$d" | cut -f1)"; done | sed 's/, $//'))"

ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
lib=usr/lib/$ma
# Each package's files (what each must hold, and nothing in two).
bad=
want_hwprof="usr/bin/hwprof usr/lib/hwprof/hwprof-emu.so usr/share/man/man1/hwprof.1.gz
	usr/share/man/man1/hwprof-branches.1.gz usr/share/bash-completion/completions/hwprof"
want_lib="$lib/libhwprof.so.$version $lib/$so"
want_dev="$lib/libhwprof.a $lib/libhwprof.so $lib/pkgconfig/hwprof.pc
	$(cd "$root" && ls include/hwprof/*.h | sed 's|^|usr/|')"
for i in 0 1 2; do
	dpkg-deb -c "${debs[$i]}" | awk '{ print $6 }' | sed 's|^\./||' | grep -v '/$' | sort >"$tmp/files.$i"
done
for pair in "0:$want_hwprof" "1:$want_lib" "2:$want_dev"; do
	i=${pair%%:*}
	for f in ${pair#*:}; do
		grep -qx "$f" "$tmp/files.$i" || bad="$bad $(basename "${debs[$i]}" | cut -d_ -f1):$f"
	done
done
dup=$(sort "$tmp"/files.? | grep -v '^usr/share/doc/' | uniq -d | head -3)
[ -n "$dup" ] && bad="$bad in-two-packages:$dup"
if [ -z "$bad" ]; then
	echo "PASS deb_contents ($(cat "$tmp"/files.? | wc -l) files)"
else
	echo "FAIL deb_contents: missing or misplaced:$bad"
fi

# The packaged symbols file against the packaged library's dynamic symbols.
mkdir -p "$tmp/root" "$tmp/ctrl"
for d in "${debs[@]}"; do dpkg -x "$d" "$tmp/root"; done
dpkg-deb -e "${debs[1]}" "$tmp/ctrl"
if [ ! -f "$tmp/ctrl/symbols" ]; then
	echo "FAIL deb_symbols: libhwprof0 has no symbols file"
else
	sed -n 's/^ \([^ ]*\) .*/\1/p' "$tmp/ctrl/symbols" | sort >"$tmp/sym.want"
	nm -D --defined-only --with-symbol-versions "$tmp/root/$lib/libhwprof.so.$version" |
		awk '{ sub(/@@/, "@", $3); print $3 ~ /@/ ? $3 : $3 "@" $3 }' | sort >"$tmp/sym.got"
	if cmp -s "$tmp/sym.want" "$tmp/sym.got"; then
		echo "PASS deb_symbols ($(wc -l <"$tmp/sym.got") symbols)"
	else
		echo "FAIL deb_symbols: $(diff "$tmp/sym.want" "$tmp/sym.got" | grep '^[<>]' | head -4 | tr '\n' ' ')"
	fi
fi

if [ ! -f "$out/lintian.txt" ]; then
	echo "SKIP deb_lintian: lintian not installed (apt-get install lintian)"
elif grep -q '^E:' "$out/lintian.txt"; then
	echo "FAIL deb_lintian: $(grep '^E:' "$out/lintian.txt" | head -3 | tr '\n' ' ')"
else
	echo "PASS deb_lintian (0 errors, $(grep -c '^W:' "$out/lintian.txt") warnings)"
fi

# pkg-config reads only the root's hwprof.pc and puts the root before its paths.
export PKG_CONFIG_LIBDIR=$tmp/root/$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$tmp/root
export PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 PKG_CONFIG_PATH=
cflags=$(pkg-config --cflags hwprof 2>"$tmp/pc.err") libs=$(pkg-config --libs hwprof 2>>"$tmp/pc.err")
bad=
for want in "-I$tmp/root/usr/include" "-L$tmp/root/$lib" -lhwprof; do
	[[ " $cflags $libs " == *" $want "* ]] || bad="$bad $want"
done
[[ "$cflags $libs" == *"$root/"* ]] && bad="$bad (a path into the source tree)"
if [ -z "$bad" ]; then
	echo "PASS deb_pkgconfig ($cflags $libs)"
else
	echo "FAIL deb_pkgconfig: missing$bad: '$cflags' '$libs' $(head -1 "$tmp/pc.err")"
fi

if ! command -v man >/dev/null; then
	echo "SKIP deb_man: man not installed (apt-get install man-db groff-base)"
else
	bad=
	for page in "$tmp/root"/usr/share/man/man1/*.1.gz; do
		w=$(MANWIDTH=80 man -l --warnings -E UTF-8 "$page" 2>&1 >/dev/null)
		[ -n "$w" ] && bad="$bad $(basename "$page"): $w"
	done
	n=$(ls "$tmp/root"/usr/share/man/man1/*.1.gz 2>/dev/null | wc -l)
	[ -z "$bad" ] && [ "$n" -gt 1 ] && echo "PASS deb_man ($n pages)" || echo "FAIL deb_man: $n pages;$bad"
fi

# /usr/bin/hwprof looks for /usr/lib/hwprof/hwprof-emu.so beside it.
if ! command -v qemu-x86_64 >/dev/null; then
	echo "SKIP deb_plugin_found: qemu-x86_64 not installed (apt-get install qemu-user)"
elif env -u HWPROF_EMU_PLUGIN "$tmp/root/usr/bin/hwprof" record --emulate -o "$tmp/t.data" -- /bin/true \
	>/dev/null 2>"$tmp/r.err" && [ -s "$tmp/t.data" ]; then
	echo "PASS deb_plugin_found"
else
	echo "FAIL deb_plugin_found: $(head -1 "$tmp/r.err")"
fi

# Every example against the root only; the root's hwprof says what it must print.
EXAMPLES_ONLY_UNDER=$tmp/root examples_check deb_example "$tmp/root/usr/bin/hwprof" "$cflags" "$libs" shared \
	LD_LIBRARY_PATH="$tmp/root/$lib"
