#!/bin/sh
# Installs the Debian packages a purpose needs, when missing:
#   scripts/setup.sh [PURPOSE...]      (default: build)
#   build  compile hwprof (make, make setup): the required libraries (elfutils,
#          zstd) and the optional ones mk/config.mk enables features with
#   demo   make demo: build, and QEMU for the emulated recording
#   deb    make deb: build, and dpkg-buildpackage, debhelper, lintian
#   test   make test: build, demo, deb, and the tools the tests compare
#          hwprof with or run it on (perf, compilers, BOLT, AutoFDO, valgrind,
#          Chromium to render the HTML report, ClickHouse for push/fleet, ...)
#   long   make test-long (the PGO rebuilds); fuzz: make fuzz (clang)
#   bench  make bench: test's, and bc, time, and npm (fetches the SQLite source
#          that better-sqlite3 ships, compiled with -g for the PGO rows)
#   all    every one of them
#   --list print the packages instead of installing them
set -e
list=
[ "${1:-}" = --list ] && { list=1; shift; }
[ $# -eq 0 ] && set -- build

BUILD_PKGS="gcc make python3 libelf-dev libdw-dev libzstd-dev libcapstone-dev libpfm4-dev libiberty-dev
	libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libcurl4-openssl-dev liblzma-dev"
DEMO_PKGS="qemu-user"
DEB_PKGS="dpkg-dev debhelper lintian"
# perf and the others hwprof is compared with; man, completion and pkg-config
# for the installed files; static libraries and Lua/SQLite/xz programs to
# record; Chromium renders the HTML report and SVGs; ClickHouse and curl
# for push/fleet, openssl for the CA of its TLS test; protoc and Go's
# profile.proto to read the pprof export.
TEST_PKGS="g++ clang clang-19 llvm-19 bolt-19 autofdo linux-perf valgrind dwz zstd xz-utils gzip
	pkg-config man-db groff-base bash-completion lua5.4 liblua5.4-dev libsqlite3-dev liblzma-dev libbz2-dev
	chromium fonts-dejavu-core clickhouse-server clickhouse-client curl openssl protobuf-compiler
	golang-github-google-pprof-dev"
LONG_PKGS="clang-19 llvm-19 bolt-19 lua5.4 liblua5.4-dev"
FUZZ_PKGS="clang"
BENCH_PKGS="bc time npm"

PKGS=
for purpose in "$@"; do
	case $purpose in
	build) PKGS="$PKGS $BUILD_PKGS" ;;
	demo) PKGS="$PKGS $BUILD_PKGS $DEMO_PKGS" ;;
	deb) PKGS="$PKGS $BUILD_PKGS $DEB_PKGS" ;;
	test) PKGS="$PKGS $BUILD_PKGS $DEMO_PKGS $DEB_PKGS $TEST_PKGS" ;;
	long) PKGS="$PKGS $BUILD_PKGS $LONG_PKGS" ;;
	fuzz) PKGS="$PKGS $BUILD_PKGS $FUZZ_PKGS" ;;
	bench) PKGS="$PKGS $BUILD_PKGS $DEMO_PKGS $DEB_PKGS $TEST_PKGS $BENCH_PKGS" ;;
	all) PKGS="$PKGS $BUILD_PKGS $DEMO_PKGS $DEB_PKGS $TEST_PKGS $LONG_PKGS $FUZZ_PKGS $BENCH_PKGS" ;;
	*) echo "setup: unknown purpose '$purpose': build, demo, deb, test, long, fuzz, bench or all" >&2; exit 2 ;;
	esac
done
PKGS=$(printf '%s\n' $PKGS | sort -u)
if [ -n "$list" ]; then
	echo $PKGS
	exit 0
fi
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup ($*): installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
