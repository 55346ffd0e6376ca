# SPDX-License-Identifier: MIT
# Shared by tests/e2e/emulate_*.sh (sourced). Needs $HWPROF; builds fixtures
# from tests/fixtures/ into a temporary directory.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
build=$root/${BUILD:-build}
tools=$root/tests/tools
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
EMU_CFLAGS="-O1 -g -fno-inline -fno-optimize-sibling-calls -fno-unroll-loops"

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }
skip() { echo "SKIP $*"; }

# emu_ready NAME: 0 when emulated recording can run here; else prints SKIP.
emu_ready() {
	local name=$1
	if ! command -v qemu-x86_64 >/dev/null; then
		skip "$name: qemu-x86_64 not installed (apt-get install qemu-user)"; return 1
	fi
	if ! command -v gcc >/dev/null; then
		skip "$name: gcc not installed"; return 1
	fi
	if [ ! -x "${HWPROF:-}" ]; then
		skip "$name: no hwprof binary (\$HWPROF=${HWPROF:-unset})"; return 1
	fi
	if ! "$HWPROF" record --emulate -o "$tmp/probe.data" -- /bin/true >/dev/null 2>"$tmp/probe.err"; then
		if grep -q "not implemented" "$tmp/probe.err"; then
			skip "$name: 'hwprof record' is not wired to --emulate yet"; return 1
		fi
		if grep -q "plugin not found" "$tmp/probe.err"; then
			skip "$name: $(head -1 "$tmp/probe.err")"; return 1
		fi
		fail "$name: record --emulate of /bin/true failed: $(head -1 "$tmp/probe.err")"
		return 1
	fi
	return 0
}

# emu_build NAME [gcc args...]: tests/fixtures/emu_NAME.c -> $tmp/NAME
emu_build() {
	local name=$1
	shift
	gcc $EMU_CFLAGS "$@" -o "$tmp/$name" "$root/tests/fixtures/emu_$name.c" -lpthread \
		2>"$tmp/$name.gcc" || { fail "emulate_build_$name: $(head -1 "$tmp/$name.gcc")"; return 1; }
}

# emu_record OUT [record args...] -- PROG ARGS: records into $tmp/OUT.data,
# stderr in $tmp/OUT.err; returns hwprof's exit code.
emu_record() {
	local out=$1
	shift
	"$HWPROF" record --emulate -o "$tmp/$out.data" "$@" >"$tmp/$out.out" 2>"$tmp/$out.err"
}

# exact NAME EXACT BINARY RULE...: analytic checks (tests/tools/emu_exact.py)
exact() {
	local name=$1
	shift
	EMU_TEST_NAME=$name python3 "$tools/emu_exact.py" expect "$@"
}

# callgrind NAME BINARY EXACT ARGS...: runs BINARY ARGS under callgrind (one
# output per process) and compares every jump it reports with EXACT.
# $CG_FILTER: "--only F,.." or "--skip F,.." (see tests/tools/emu_exact.py).
callgrind() {
	local name=$1 bin=$2 ex=$3
	shift 3
	if ! command -v valgrind >/dev/null; then
		skip "$name: valgrind not installed"; return
	fi
	mkdir -p "$tmp/cg.$name"
	valgrind --tool=callgrind --collect-jumps=yes --dump-instr=yes --separate-recs=1 \
		--callgrind-out-file="$tmp/cg.$name/out.%p" "$bin" "$@" >/dev/null 2>"$tmp/cg.$name.err" ||
		{ fail "$name: valgrind failed: $(tail -1 "$tmp/cg.$name.err")"; return; }
	EMU_TEST_NAME=$name python3 "$tools/emu_exact.py" callgrind "$ex" "$bin" ${CG_FILTER:-} \
		"$tmp/cg.$name"/out.*
}

# check NAME PERF.DATA: branch stacks consistent with the code (emu_check)
check() {
	local name=$1 data=$2 out rc
	out=$("$build/tests/tools/emu_check" "$data" 2>"$tmp/check.err")
	rc=$?
	case $rc in
	0) pass "$name ($out)" ;;
	77) skip "$name: $out" ;;
	*) fail "$name: $out"; sed 's/^/    /' "$tmp/check.err" >&2 ;;
	esac
}
