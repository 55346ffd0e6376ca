#!/bin/bash
# DWARF unwinding of perf record --call-graph dwarf stacks (src/unwind/),
# on tests/fixtures/dwarf_unwind.c built -O2 -fomit-frame-pointer: main ->
# a -> b -> leaf, a 25-deep recursion, a callback under libc's qsort, zlib's
# compress2 (Debian's libz: stripped, .eh_frame only), a signal handler.
#   - against perf 6.1 (perf script's callchains folded, perf report
#     --children; --no-inline on both sides): the binary with .eh_frame
#     (kernel part kept), stripped, and a stack copy too small for the
#     recursion (tests/tools/unwind_check.py names the normalizations);
#   - against the source's call structure where perf 6.1 cannot unwind
#     (its libunwind reads no .debug_frame): .debug_frame in the binary, in
#     a separate debug file found by build-id, and frame pointers alone
#     (clang, no CFI at all for the fixture's code);
#   - the cached per-address rules against libdwfl alone (same stacks);
#   - lazy binding (tests/fixtures/lazy_binding.c under LD_BIND_NOT=1):
#     samples in ld.so's _dl_fixup under the lazy-binding trampoline, which
#     finds its frame from rbx, against perf 6.1, rules and libdwfl alone;
#   - AArch64: a sample written by tests/tools/gen_unwind_arm64.py for
#     tests/fixtures/unwind_arm64.S (clang-19 --target=aarch64-linux-gnu,
#     ld.lld), whose frames are known from the source;
#   - the corpus recording with user stacks whose binaries are not there.
# Skips cleanly where perf cannot record cpu-clock or a compiler is missing.
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
HWPROF=${HWPROF:-$build/hwprof}
CORPUS=${HWPROF_CORPUS:-$root/../shared/corpus}
. "$tools/unwind_lib.sh"

NAMES=(dwarf_unwind_folded dwarf_unwind_children dwarf_unwind_paths dwarf_unwind_rules_vs_libdwfl
	dwarf_unwind_nothing_said dwarf_unwind_stripped_folded dwarf_unwind_stripped_children
	dwarf_unwind_debug_frame dwarf_unwind_debug_file dwarf_unwind_frame_pointer
	dwarf_unwind_short_copy dwarf_unwind_jobs dwarf_unwind_lazy_binding dwarf_unwind_lazy_binding_libdwfl
	dwarf_unwind_arm64 dwarf_unwind_corpus)
echo "PLAN ${#NAMES[@]}"
said=()
done_() { said+=("$1"); }
skip_rest() { # skip every check not said yet, with REASON
	for n in "${NAMES[@]}"; do
		[[ " ${said[*]} " == *" $n "* ]] || { skip "$n: $1"; said+=("$n"); }
	done
}

# the AArch64 check and the corpus check need no perf: run them first
arm64() {
	local n=dwarf_unwind_arm64 cc=clang-19
	done_ $n
	if ! command -v $cc >/dev/null || ! command -v ld.lld >/dev/null; then
		skip "$n: needs clang-19 and ld.lld"
		return
	fi
	mkdir -p "$tmp/a64/usr/lib"
	if ! $cc --target=aarch64-linux-gnu -c -o "$tmp/a64.o" "$root/tests/fixtures/unwind_arm64.S" 2>"$tmp/a64.err" ||
		! ld.lld -shared --build-id -o "$tmp/a64/usr/lib/libunwind_arm64.so" "$tmp/a64.o" 2>>"$tmp/a64.err" ||
		! python3 "$tools/gen_unwind_arm64.py" "$tmp/a64/usr/lib/libunwind_arm64.so" /usr/lib/libunwind_arm64.so \
			"$tmp/a64.data" 2>>"$tmp/a64.err"; then
		fail "$n: fixture: $(head -1 "$tmp/a64.err")"
		return
	fi
	# the frames the fixture's comment lays out: a sample in inner, one in
	# middle, both ending at entry (its return address undefined)
	printf 'entry;outer;middle %s\nentry;outer;middle;inner %s\n' 1 1 >"$tmp/a64.want"
	local bad=""
	for rules in 0 1; do
		HWPROF_UNWIND_NO_RULES=$rules "$HWPROF" flame --folded --no-inline --symfs "$tmp/a64" -i "$tmp/a64.data" \
			>"$tmp/a64.got" 2>"$tmp/a64.err" || bad+=" exit status (rules off: $rules)"
		cmp -s "$tmp/a64.want" "$tmp/a64.got" || bad+=" rules off $rules: $(tr '\n' '|' <"$tmp/a64.got")"
		grep -q 'end before' "$tmp/a64.err" && bad+=" warned: $(head -1 "$tmp/a64.err")"
	done
	if [ -z "$bad" ]; then
		pass "$n (two samples: entry;outer;middle[;inner] through .eh_frame, x29/x30/sp/pc as perf's arm64 registers)"
	else
		fail "$n:$bad"
	fi
}

corpus() {
	local n=dwarf_unwind_corpus f=$CORPUS/linux-perf-data/fibo.compressed2.pipe.data
	done_ $n
	if [ ! -f "$f" ]; then
		skip "$n: no $f"
		return
	fi
	# its binaries (fib_example, libc) are not in the corpus: every user
	# stack must be said to stop at one, naming them, and nothing else said
	local total
	total=$(python3 -c "
import json, sys
for l in open('$CORPUS/summary.jsonl'):
    d = json.loads(l)
    if d['file'].endswith('fibo.compressed2.pipe.data'):
        print(d['samples_per_attr']['0'])" 2>/dev/null)
	if "$HWPROF" flame --folded -i "$f" >"$tmp/fibo.out" 2>"$tmp/fibo.err" &&
		[ "$(grep -c 'end before their outermost frame' "$tmp/fibo.err")" = 1 ] &&
		grep -q ": $total of $total user stacks .*: $total reached code of a binary not found (.*fib_example" "$tmp/fibo.err"; then
		pass "$n ($total of $total user stacks said to stop at the missing fib_example and libc.so.6)"
	else
		fail "$n: want $total stacks said to stop at missing binaries; stderr: $(head -2 "$tmp/fibo.err" | tr '\n' ' ')"
	fi
}

arm64
corpus

if [ ! -x "$PERF" ] || ! command -v gcc >/dev/null; then
	skip_rest "needs gcc and $PERF"
	exit 0
fi
fx=$root/tests/fixtures/dwarf_unwind.c
# bound at load (-z now): the lazy-binding trampoline's samples are
# checked on their own (6. below), with a fixture that falls there often
if ! gcc -O2 -g -fomit-frame-pointer -Wl,-z,now -o "$tmp/dw" "$fx" -lz 2>"$tmp/gcc.err"; then
	skip_rest "cannot build the fixture against zlib: $(head -1 "$tmp/gcc.err")"
	exit 0
fi
# record NAME BINARY [perf args]: $tmp/NAME.data, two rounds of the fixture;
# no build-id cache (-N): binaries are read where they are (the stripped one
# has the unstripped one's build-id)
record() {
	local out=$1 bin=$2
	shift 2
	perfc record -N -q -e "${EV:-cpu-clock}" "$@" -o "$tmp/$out.data" "$bin" 2 >/dev/null 2>"$tmp/$out.rec"
}
if ! record dw "$tmp/dw" --call-graph dwarf; then
	skip_rest "perf cannot record cpu-clock here: $(head -1 "$tmp/dw.rec")"
	exit 0
fi

# perf 6.1's view: callchains (folded) and the children report
folded() { # NAME DATA [hwprof args]: hwprof's folded stacks, stderr in NAME.err
	local name=$1 data=$2
	shift 2
	"$HWPROF" flame -v --folded --no-inline "$@" -i "$data" >"$tmp/$name.folded" 2>"$tmp/$name.err"
}
children() { # NAME DATA
	local name=$1 data=$2
	perfc report -i "$data" --no-inline --no-branch-stack --children --stdio -g none >"$tmp/$name.perf" 2>/dev/null
	perfc script --show-mmap-events -i "$data" 2>/dev/null | grep PERF_RECORD_MMAP >"$tmp/$name.mmaps"
	if "$HWPROF" callgraph --no-inline -q -i "$data" --json >"$tmp/$name.json" 2>"$tmp/$name.cgerr"; then
		CMP_NAME=$name python3 "$tools/callgraph_compare.py" "$tmp/$name.perf" "$tmp/$name.json" "$tmp/$name.mmaps"
	else
		fail "$name: $(head -1 "$tmp/$name.cgerr")"
	fi
}

# 1. .eh_frame, the kernel part kept (kernel frames compared by address)
perf_script "$tmp/dw.data" "$tmp/dw.script"
folded dw "$tmp/dw.data"
CMP_NAME=dwarf_unwind_folded python3 "$chk" folded "$tmp/dw.script" "$tmp/dw.folded" /proc/kallsyms
done_ dwarf_unwind_folded
CMP_NAME=dwarf_unwind_paths python3 "$chk" paths "$tmp/dw.folded" 100
done_ dwarf_unwind_paths
if HWPROF_UNWIND_NO_RULES=1 "$HWPROF" flame -q --folded --no-inline -i "$tmp/dw.data" >"$tmp/dw.dwfl" 2>/dev/null &&
	cmp -s "$tmp/dw.folded" "$tmp/dw.dwfl" &&
	by=$(sed -n 's/.* user stacks unwound to [0-9]* frames, \([0-9]*\) of them from cached.*/\1/p' "$tmp/dw.err") &&
	[ "${by:-0}" -gt 0 ]; then
	pass "dwarf_unwind_rules_vs_libdwfl (the same stacks; $by samples from cached rules alone)"
else
	fail "dwarf_unwind_rules_vs_libdwfl: $(diff "$tmp/dw.folded" "$tmp/dw.dwfl" | head -3 | tr '\n' ' ') rules: ${by:-?}"
fi
done_ dwarf_unwind_rules_vs_libdwfl
# a stack may end early where perf's ends early too (a sample where
# neither unwinder can go on: said, and perf's stack is as short)
early=$(sed -n 's/.*: \([0-9]*\) of [0-9]* user stacks (--call-graph dwarf) end before.*/\1/p' "$tmp/dw.err")
short=$(python3 "$chk" short "$tmp/dw.script" /proc/kallsyms 2>/dev/null)
if grep -q 'user stacks unwound to' "$tmp/dw.err" && ! grep -q 'end before their outermost frame' "$tmp/dw.err"; then
	pass "dwarf_unwind_nothing_said (every stack unwound to its end: no warning)"
elif [ -n "$early" ] && [ -n "$short" ] && [ "$early" -le "$short" ] && ! grep -q 'ran past\|not found' "$tmp/dw.err"; then
	pass "dwarf_unwind_nothing_said ($early stacks said to end early, as $short of perf's do)"
else
	fail "dwarf_unwind_nothing_said: $(grep -v '^hwprof: /' "$tmp/dw.err" | head -3 | tr '\n' ' ')"
fi
done_ dwarf_unwind_nothing_said
# the children report on user-mode samples (kernel rows are aliases perf
# and hwprof name differently, see unwind_check.py)
if EV=cpu-clock:u record dwu "$tmp/dw" --call-graph dwarf; then
	children dwarf_unwind_children "$tmp/dwu.data"
else
	fail "dwarf_unwind_children: perf record cpu-clock:u: $(head -1 "$tmp/dwu.rec")"
fi
done_ dwarf_unwind_children

# 2. stripped: .eh_frame only, no symbols
strip -o "$tmp/dws" "$tmp/dw"
if EV=cpu-clock:u record dws "$tmp/dws" --call-graph dwarf; then
	perf_script "$tmp/dws.data" "$tmp/dws.script"
	folded dws "$tmp/dws.data"
	CMP_NAME=dwarf_unwind_stripped_folded python3 "$chk" folded "$tmp/dws.script" "$tmp/dws.folded" /proc/kallsyms
	children dwarf_unwind_stripped_children "$tmp/dws.data"
else
	fail "dwarf_unwind_stripped_folded: $(head -1 "$tmp/dws.rec")"
	fail "dwarf_unwind_stripped_children: $(head -1 "$tmp/dws.rec")"
fi
done_ dwarf_unwind_stripped_folded
done_ dwarf_unwind_stripped_children

# 3. .debug_frame only (no unwind tables): in the binary, then in a
# separate debug file found by build-id in the build-id cache, next to
# the binary stripped of it
if gcc -O2 -g -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables -o "$tmp/dwdf" "$fx" -lz \
	2>"$tmp/gcc.err" && record dwdf "$tmp/dwdf" --call-graph dwarf; then
	folded dwdf "$tmp/dwdf.data"
	CMP_NAME=dwarf_unwind_debug_frame python3 "$chk" paths "$tmp/dwdf.folded" 100
	bid=$(readelf -n "$tmp/dwdf" | awk '/Build ID/ { print $3 }')
	d=$tmp/dfcache/.build-id/${bid:0:2}
	mkdir -p "$d"
	objcopy --only-keep-debug "$tmp/dwdf" "$d/${bid:2}.debug"
	strip --strip-debug -o "$d/${bid:2}" "$tmp/dwdf"
	PERF_BUILDID_DIR=$tmp/dfcache folded dwdff "$tmp/dwdf.data"
	if readelf -S "$d/${bid:2}" | grep -q debug_frame || ! grep -q "debug info from $d/${bid:2}.debug" "$tmp/dwdff.err"; then
		fail "dwarf_unwind_debug_file: the binary kept .debug_frame or its debug file was not used: $(grep "dwdf:" "$tmp/dwdff.err")"
	else
		CMP_NAME=dwarf_unwind_debug_file python3 "$chk" paths "$tmp/dwdff.folded" 100
	fi
else
	fail "dwarf_unwind_debug_frame: $(head -1 "$tmp/gcc.err" "$tmp/dwdf.rec" 2>/dev/null)"
	skip "dwarf_unwind_debug_file: no .debug_frame recording"
fi
done_ dwarf_unwind_debug_frame
done_ dwarf_unwind_debug_file

# 4. frame pointers alone: clang keeps them in leaf functions too
if ! command -v clang >/dev/null; then
	skip "dwarf_unwind_frame_pointer: needs clang"
elif clang -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-unwind-tables -o "$tmp/dwfp" "$fx" -lz 2>"$tmp/clang.err" && record dwfp "$tmp/dwfp" --call-graph dwarf; then
	leaf=$(nm "$tmp/dwfp" | awk '$3 == "leaf" { print $1 }')
	if readelf --debug-dump=frames "$tmp/dwfp" 2>/dev/null | python3 -c "
import re, sys
a = int('$leaf', 16)
sys.exit(0 if any(int(lo, 16) <= a < int(hi, 16)
                  for lo, hi in re.findall(r'pc=([0-9a-f]+)\.\.([0-9a-f]+)', sys.stdin.read())) else 1)"; then
		fail "dwarf_unwind_frame_pointer: the fixture still has CFI for leaf()"
	else
		folded dwfp "$tmp/dwfp.data"
		# a sample in a prologue or epilogue loses a caller to the walk
		CMP_NAME=dwarf_unwind_frame_pointer python3 "$chk" paths "$tmp/dwfp.folded" 95
	fi
else
	fail "dwarf_unwind_frame_pointer: $(head -1 "$tmp/clang.err" "$tmp/dwfp.rec" 2>/dev/null)"
fi
done_ dwarf_unwind_frame_pointer

# 5. a stack copy too small for the recursion: perf's stacks (named
# normalizations) and the warning's count
if record short "$tmp/dw" --call-graph dwarf,512; then
	perf_script "$tmp/short.data" "$tmp/short.script"
	folded short "$tmp/short.data"
	n=$(sed -n 's/.*: \([0-9]*\) ran past their 512-byte stack copy (record with --call-graph dwarf,2048).*/\1/p' "$tmp/short.err")
	if [ "$(grep -c 'end before their outermost frame' "$tmp/short.err")" = 1 ] && [ -n "$n" ]; then
		CMP_NAME=dwarf_unwind_short_copy python3 "$chk" cut "$tmp/short.script" "$tmp/short.folded" /proc/kallsyms 512 "$n"
	else
		fail "dwarf_unwind_short_copy: not said once: $(grep -v '^hwprof: /' "$tmp/short.err" | head -2 | tr '\n' ' ')"
	fi
else
	fail "dwarf_unwind_short_copy: $(head -1 "$tmp/short.rec")"
fi
done_ dwarf_unwind_short_copy

# the parallel pass: each thread unwinds with its own unwinder, the same
# stacks, and the merged counts say the same
if [ -s "$tmp/short.folded" ]; then
	for j in 1 3; do
		"$HWPROF" flame -j $j --folded --no-inline -i "$tmp/short.data" >"$tmp/j$j.folded" 2>"$tmp/j$j.err"
	done
	if cmp -s "$tmp/j1.folded" "$tmp/j3.folded" && cmp -s "$tmp/j1.err" "$tmp/j3.err" && grep -q 'ran past' "$tmp/j3.err"; then
		pass "dwarf_unwind_jobs (-j 3 gives -j 1's stacks and warning)"
	else
		fail "dwarf_unwind_jobs: $(diff "$tmp/j1.err" "$tmp/j3.err" | head -2 | tr '\n' ' ') $(diff "$tmp/j1.folded" "$tmp/j3.folded" | head -2 | tr '\n' ' ')"
	fi
else
	fail "dwarf_unwind_jobs: no short-copy recording"
fi
done_ dwarf_unwind_jobs

# 6. lazy binding: every call through the PLT resolved again (LD_BIND_NOT=1),
# so that most samples fall under ld.so's trampoline, some at the entry of
# _dl_fixup, where its CFI leaves rbx (the trampoline's frame register)
# unspecified; the stacks whose innermost user frame is ld.so's against
# perf's, from the cached rules and from libdwfl alone (SKIP, said by
# unwind_check.py, when too few samples fall there)
lazy=dwarf_unwind_lazy_binding
if ! gcc -O2 -g -fno-builtin -fomit-frame-pointer -Wl,-z,lazy -o "$tmp/lazy" "$root/tests/fixtures/lazy_binding.c" \
	2>"$tmp/gcc.err"; then
	fail "$lazy: $(head -1 "$tmp/gcc.err")"
	skip "${lazy}_libdwfl: no fixture"
elif ! LD_BIND_NOT=1 record lazy "$tmp/lazy" --call-graph dwarf; then
	fail "$lazy: $(head -1 "$tmp/lazy.rec")"
	skip "${lazy}_libdwfl: no recording"
else
	perfc script -i "$tmp/lazy.data" -F period,ip,sym,symoff,dso --no-inline >"$tmp/lazy.script" 2>/dev/null
	folded lazy "$tmp/lazy.data"
	CMP_NAME=$lazy python3 "$chk" loader "$tmp/lazy.script" "$tmp/lazy.folded" /proc/kallsyms 200
	HWPROF_UNWIND_NO_RULES=1 folded lazyd "$tmp/lazy.data"
	CMP_NAME=${lazy}_libdwfl python3 "$chk" loader "$tmp/lazy.script" "$tmp/lazyd.folded" /proc/kallsyms 200
fi
done_ $lazy
done_ ${lazy}_libdwfl
