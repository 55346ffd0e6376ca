#!/bin/bash
# SPDX-License-Identifier: MIT
# CSSPGO's context-sensitive profile on a real program: tests/e2e/
# pgo_llvm_cs_context.sh with SQLite's amalgamation, so that its SQLite
# comparisons run (the unwinder's address contexts, the flat, the nested and
# the default pre-inlined probe profile, each byte for byte llvm-profgen-19's;
# clang-19 compiles sqlite3.c with the default one). The source:
# $SQLITE_AMALGAMATION (a directory with sqlite3.c and sqlite3.h), else the
# amalgamation that the npm package better-sqlite3 ships (`npm pack`, as
# bench/inputs.sh); without either, one SKIP. Run by 'make test-long'
# (tests/run.sh long/pgo_cs).
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
SQLITE_NPM=better-sqlite3@12.11.1 # SQLite 3.53.2, as bench/inputs.sh
amal=${SQLITE_AMALGAMATION:-}
if [ -z "$amal" ] || [ ! -f "$amal/sqlite3.c" ]; then
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	if ! command -v npm >/dev/null; then
		echo "PLAN 1"
		echo "SKIP pgo_cs: no SQLite source: set SQLITE_AMALGAMATION or install npm"
		exit 0
	fi
	if ! (cd "$dir" && npm pack -q "$SQLITE_NPM" >npm.log 2>&1 && tar xzf better-sqlite3-*.tgz package/deps/sqlite3); then
		echo "PLAN 1"
		echo "SKIP pgo_cs: npm pack $SQLITE_NPM failed: $(tail -1 "$dir/npm.log")"
		exit 0
	fi
	amal=$dir/package/deps/sqlite3
fi
SQLITE_AMALGAMATION=$amal bash "$root/tests/e2e/pgo_llvm_cs_context.sh"
