#!/bin/sh
# Installs the Debian packages hwprof builds and tests with, when missing.
set -e
PKGS="gcc g++ make bc time dwz clang pkg-config man-db groff-base bash-completion libelf-dev libdw-dev libcapstone-dev libzstd-dev libiberty-dev libpfm4-dev zstd linux-perf qemu-user valgrind python3 llvm-19 bolt-19 lua5.4 liblua5.4-dev libsqlite3-dev zlib1g-dev liblzma-dev libbz2-dev xz-utils gzip autofdo clang-19 chromium chromium-driver fonts-dejavu-core libprotobuf-c-dev protobuf-c-compiler libcurl4-openssl-dev clickhouse-server clickhouse-client protobuf-compiler golang-github-google-pprof-dev curl"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
