# SPDX-License-Identifier: MIT
# Shared by the call-stack tests against perf 6.1 (tests/e2e/dwarf_unwind*.sh,
# stacks_everywhere.sh; sourced after emu_lib.sh, which sets $tmp and $tools).
PERF=/usr/bin/perf
chk=$tools/unwind_check.py
# perf's build-id cache (--buildid-dir: perf does not read PERF_BUILDID_DIR)
# and hwprof's lookups in it stay in the test's directory: a binary cached
# by an earlier run (the same build-id) would stand in for the one given
export PERF_BUILDID_DIR=$tmp/cache
perfc() { "$PERF" --buildid-dir "$PERF_BUILDID_DIR" "$@"; }
# perf script's callchains of DATA into OUT (tests/tools/unwind_check.py reads them)
perf_script() { perfc script -i "$1" -F period,ip,sym,dso --no-inline >"$2" 2>/dev/null; }
