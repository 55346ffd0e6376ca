#!/bin/bash
# The memory report as parts of a parallel pass, on emulated memory samples
# (record --emulate --mem) of real programs: tests/fixtures/mem_false_sharing.c
# (threads, HITMs), mem_walk.c (one thread, every cache level) and
# emu_mmaps.c (processes forking, threads starting, libraries loaded and
# unloaded while sampled). For each, the unit test's comparison
# (tests/unit/test_mem_parts.c, given the files): the samples dealt to 2 or
# 3 parts in batches, merged, must print the bytes of the report that added
# them in order, for every grouping in every format, c2c and advise's
# memory findings, with each collection a command makes.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 3; 1 (the SKIP) where emulated recording cannot run
check=$build/tests/unit/test_mem_parts
ready=$(emu_ready mem_parts) || { echo "PLAN 1"; echo "$ready"; exit 0; }
echo "PLAN 3"
fx=$root/tests/fixtures
cd "$tmp" || exit 1

# record NAME PERIOD PROGRAM: NAME.data, or a FAIL line
record() {
	if ! "$HWPROF" record --emulate --mem -c "$2" -o "$1.data" -- "./$3" >/dev/null 2>"$1.err"; then
		fail "mem_parts_$1.data: record failed: $(head -1 "$1.err")"
		return 1
	fi
}

if ! gcc $EMU_CFLAGS -pthread -o fs "$fx/mem_false_sharing.c" 2>cc.err ||
	! gcc $EMU_CFLAGS -o walk "$fx/mem_walk.c" 2>>cc.err ||
	! gcc -O1 -g -fno-inline -o mmaps "$fx/emu_mmaps.c" -ldl -lpthread 2>>cc.err; then
	for f in fs walk mm; do fail "mem_parts_$f.data: gcc: $(head -1 cc.err)"; done
	exit 0
fi
files=()
record fs 101 fs && files+=(fs.data)
record walk 1009 walk && files+=(walk.data)
record mm 53 mmaps && files+=(mm.data)
if [ ${#files[@]} -gt 0 ] && [ ! -x "$check" ]; then
	for f in "${files[@]}"; do fail "mem_parts_$f: no $check (make all builds it)"; done
elif [ ${#files[@]} -gt 0 ]; then
	# one PASS or FAIL line per file; the differences on stderr
	"$check" "${files[@]}" 2>check.err
	grep -h . check.err | head -20 >&2
fi
