#!/bin/bash
# DWARF unwinding (src/unwind/) of Node.js recorded with --perf-basic-prof
# and --call-graph dwarf: JIT code in anonymous memory, and node's own
# executable (an ET_EXEC on Debian) whose builtins V8 maps a second time
# next to its code (libdwfl cannot place that copy: hwprof once reported it
# anyway and libdwfl freed the executable's module under the unwinder,
# SIGSEGV in libdw). glibc fills freed memory here (MALLOC_PERTURB_), so
# that a module used after libdwfl freed it fails at once.
#   - callgraph and flame run to the end, -j 1 and -j 2 (each part of the
#     parallel pass has its own unwinder) giving the same;
#   - flame --folded against perf script's stacks (perf 6.1,
#     tests/tools/unwind_check.py jit: perf's libunwind ends a stack at its
#     first JIT frame, hwprof's at the same place are compared);
#   - the cached per-address rules against libdwfl alone (same stacks).
# Skips where node is missing or perf cannot record cpu-clock:u.
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
HWPROF=${HWPROF:-$build/hwprof}
PERF=/usr/bin/perf
cleanup=()
trap 'rm -rf "$tmp" "${cleanup[@]}"' EXIT
# perf caches what the recording ran (node: a hard link where it can, the
# [vdso] perf and hwprof both read) in the test's own build-id cache
export PERF_BUILDID_DIR=$tmp/cache
export MALLOC_PERTURB_=165

NAMES=(dwarf_node_callgraph dwarf_node_jobs dwarf_node_folded dwarf_node_rules_vs_libdwfl)
echo "PLAN ${#NAMES[@]}"
skip_all() {
	for n in "${NAMES[@]}"; do
		skip "$n: $1"
	done
	exit 0
}
[ -x "$PERF" ] || skip_all "$PERF not installed"
command -v node >/dev/null || skip_all "node not installed (apt-get install nodejs)"
cat >"$tmp/hot.js" <<'EOF'
require("fs").writeFileSync(process.argv[2], String(process.pid));
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
let s = 0; for (let i = 0; i < 30; i++) s += fib(24); console.log(s);
EOF
if ! (cd "$tmp" && "$PERF" --buildid-dir "$PERF_BUILDID_DIR" record -q -e cpu-clock:u --call-graph dwarf,16384 \
	-o "$tmp/nd.data" -- node --perf-basic-prof "$tmp/hot.js" "$tmp/nd.pid" >/dev/null 2>"$tmp/rec.err"); then
	skip_all "perf record -e cpu-clock:u --call-graph dwarf failed here ($(head -1 "$tmp/rec.err"))"
fi
map=/tmp/perf-$(cat "$tmp/nd.pid").map
cleanup+=("$map")

# what the recording holds: node's executable mapped where it is not linked
# (its start minus offset differs from the first mapping's)
exe=$(readlink -f "$(command -v node)")
"$PERF" script --show-mmap-events --no-inline -G -i "$tmp/nd.data" 2>/dev/null | grep PERF_RECORD_MMAP >"$tmp/nd.mmaps"
twice=$(python3 - "$tmp/nd.mmaps" "$exe" <<'EOF'
import re, sys
bases = set()
for line in open(sys.argv[1]):
    m = re.search(r"\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0) .*\]: r.xp (.*)$", line)
    if m and m.group(4) == sys.argv[2]:
        bases.add(int(m.group(1), 16) - int(m.group(3), 16))
print("mapped twice" if len(bases) > 1 else "mapped once")
EOF
)

cg() { # NAME JOBS [hwprof args]
	local name=$1 jobs=$2
	shift 2
	"$HWPROF" callgraph -q -j "$jobs" --json "$@" -i "$tmp/nd.data" >"$tmp/$name.json" 2>"$tmp/$name.err"
}
flame() { # NAME JOBS
	"$HWPROF" flame -q -j "$2" --folded --no-inline -i "$tmp/nd.data" >"$tmp/$1.folded" 2>"$tmp/$1.err"
}
status() { # NAME: the exit status said
	local rc=$1
	[ "$rc" -gt 128 ] && echo "killed by signal $((rc - 128))" || echo "exit status $rc"
}

if cg cg1 1; then
	if flame f1 1; then
		pass "dwarf_node_callgraph (callgraph and flame -j 1 ran to the end; node's executable $twice)"
	else
		fail "dwarf_node_callgraph: flame -j 1: $(status $?): $(head -1 "$tmp/f1.err")"
	fi
else
	fail "dwarf_node_callgraph: callgraph -j 1: $(status $?): $(head -1 "$tmp/cg1.err")"
fi

if cg cg2 2 && flame f2 2; then
	if cmp -s "$tmp/cg1.json" "$tmp/cg2.json" && cmp -s "$tmp/f1.folded" "$tmp/f2.folded"; then
		pass "dwarf_node_jobs (callgraph --json and flame --folded -j 2 as -j 1)"
	else
		fail "dwarf_node_jobs: -j 2 differs from -j 1: $(diff "$tmp/f1.folded" "$tmp/f2.folded" | head -2 | tr '\n' ' ')"
	fi
else
	fail "dwarf_node_jobs: -j 2: $(status $?)"
fi

"$PERF" script -i "$tmp/nd.data" -F period,ip,sym,dso --no-inline >"$tmp/nd.script" 2>/dev/null
if [ ! -s "$tmp/f1.folded" ]; then
	fail "dwarf_node_folded: no folded stacks from hwprof"
elif [ ! -f "$map" ]; then
	fail "dwarf_node_folded: node wrote no $map"
else
	CMP_NAME=dwarf_node_folded python3 "$tools/unwind_check.py" jit "$tmp/nd.script" "$tmp/f1.folded" /proc/kallsyms "$map"
fi

if HWPROF_UNWIND_NO_RULES=1 "$HWPROF" flame -q -j 1 --folded --no-inline -i "$tmp/nd.data" >"$tmp/dwfl.folded" \
	2>"$tmp/dwfl.err"; then
	if [ -s "$tmp/f1.folded" ] && cmp -s "$tmp/f1.folded" "$tmp/dwfl.folded"; then
		pass "dwarf_node_rules_vs_libdwfl (the same stacks)"
	else
		fail "dwarf_node_rules_vs_libdwfl: $(diff "$tmp/f1.folded" "$tmp/dwfl.folded" | head -3 | tr '\n' ' ')"
	fi
else
	fail "dwarf_node_rules_vs_libdwfl: $(status $?): $(head -1 "$tmp/dwfl.err")"
fi
