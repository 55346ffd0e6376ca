#!/bin/bash
# SPDX-License-Identifier: MIT
# make deb: the Debian packages hwprof, libhwprof0 and libhwprof-dev, built by
# dpkg-buildpackage (debian/) in a copy of the source tree (it writes beside
# the tree it builds and into debian/), then copied to OUT (make deb: $BUILD/deb).
# lintian checks them when installed; an error fails the build.
#   scripts/deb.sh OUT
# OUT is up to date, and nothing is built, when its .debs are newer than
# every file of the tree (the same files the copy takes).
set -euo pipefail
out=$(realpath -m "${1:?usage: scripts/deb.sh OUT}")
cd "$(dirname "$0")/.."
# OUT's top directory in the tree (the build directory) holds no source.
case $out in "$PWD"/*) rel=${out#"$PWD"/} outtop=./${rel%%/*} ;; *) outtop=./.git ;; esac
version=$(sed -n 's/.*define HWPROF_VERSION "\(.*\)"/\1/p' include/hwprof/hwprof.h)
deb_version=$(dpkg-parsechangelog -S Version)
if [ "${deb_version%-*}" != "$version" ]; then
	echo "deb: debian/changelog is at $deb_version, include/hwprof/hwprof.h at $version: add a changelog entry (dch -v $version-1)" >&2
	exit 1
fi
# The symbols file will be made from the map (debian/rules): a map it cannot
# be made from fails now, not after the build.
scripts/map2symbols.py libhwprof.map libhwprof.so.${version%%.*} libhwprof${version%%.*} "$version" >/dev/null
# The tree without git, build directories and what a build in place leaves,
# nor the tests and benchmarks (a change there rebuilds no package; a package
# build that needed them would fail, not go stale).
tree_find() {
	find . \( -path ./.git -o -path ./tests -o -path ./bench -o -path './build' -o -path './build-*' -o -path "$outtop" \
		-o -path ./debian/.debhelper -o -path ./debian/tmp -o -path ./debian/files \
		-o -path './debian/*.substvars' -o -path './debian/*.debhelper.log' \
		-o -path ./debian/hwprof -o -path ./debian/libhwprof0 -o -path ./debian/libhwprof-dev \) -prune \
		-o -type f "$@"
}
debs="$out/hwprof_${deb_version}_*.deb $out/libhwprof0_${deb_version}_*.deb $out/libhwprof-dev_${deb_version}_*.deb"
stamp=$out/.stamp
# shellcheck disable=SC2086
if [ -f "$stamp" ] && ls $debs >/dev/null 2>&1 && [ -z "$(tree_find -newer "$stamp" -print | head -1)" ]; then
	echo "deb: $out is up to date ($(cd "$out" && echo *.deb))"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/hwprof-$version
mkdir -p "$src"
tree_find -print0 | tar --null -T - -cf - | tar -C "$src" -xf -
# The build's own stamp: files changed while it runs make the next one build again.
mkdir -p "$out"
touch "$tmp/started"
start=$(date +%s)
(cd "$src" && DEB_BUILD_OPTIONS="nocheck noddebs parallel=${DEB_JOBS:-2}" \
	dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1) || {
	tail -30 "$tmp/build.log" >&2
	echo "deb: dpkg-buildpackage failed (the log's end is above)" >&2
	exit 1
}
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$stamp"
cp "$tmp"/*.deb "$tmp"/*.changes "$tmp"/*.buildinfo "$out"/
cp "$tmp/build.log" "$out/build.log"
echo "deb: built in $(($(date +%s) - start)) s:"
(cd "$out" && for d in *.deb; do printf '  %s/%s  %s\n' "$out" "$d" "$(du -k "$d" | cut -f1) KiB"; done)
if command -v lintian >/dev/null; then
	# errors fail; warnings are printed (debian/changelog is UNRELEASED-free)
	if ! lintian --fail-on error --tag-display-limit 0 "$out"/*.changes >"$out/lintian.txt" 2>&1; then
		cat "$out/lintian.txt" >&2
		echo "deb: lintian reports errors (above)" >&2
		exit 1
	fi
	echo "deb: lintian: $(grep -c '^E:' "$out/lintian.txt") errors, $(grep -c '^W:' "$out/lintian.txt") warnings ($out/lintian.txt)"
	sed 's/^/  /' "$out/lintian.txt"
else
	echo "deb: lintian not installed: not checked (apt-get install lintian)"
fi
touch -r "$tmp/started" "$stamp"
