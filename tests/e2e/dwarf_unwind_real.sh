#!/bin/bash
# DWARF unwinding (perf record --call-graph dwarf) of real programs and of
# C++ exceptions, against perf 6.1: `hwprof flame --folded --no-inline`
# equals perf script's callchains folded (tests/tools/unwind_check.py
# folded: kernel frames by address; for xz and python3 also perf's ending
# of a stack cut by the end of its copy) and `hwprof callgraph --no-inline`
# every function's children and self of `perf report --children`
# (tests/tools/callgraph_compare.py), on
#   - Debian's xz compressing 2 MB (liblzma, libc);
#   - Debian's python3 running a loop (interpreter frames; recorded with a
#     32 KiB stack copy: its stacks are deeper than the default 8 KiB);
#   - tests/fixtures/dwarf_unwind_exceptions.cc built -O2
#     -fomit-frame-pointer by g++ and by clang++ (samples inside the C++
#     runtime's own unwinder under the user frames);
#   - tests/fixtures/dwarf_unwind.c built -O2 -fomit-frame-pointer by clang.
# xz's stacks also as a pprof profile (flame --pprof), decoded from the wire
# format (tests/tools/pprof_decode.py), against perf's.
# Skips where perf cannot record cpu-clock or a program is missing.
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
HWPROF=${HWPROF:-$build/hwprof}
. "$tools/unwind_lib.sh"
echo "PLAN 10"

# compare NAME DATA [children]: folded stacks, and with "children" the
# children report too (two checks). With CUT=cut (the real programs, where
# a frame with large buffers on the stack can push a return address past
# the end of the copy): the oracles' normalizations of perf 6.1's ending
# of such a stack (unwind_check.py's cut, callgraph_compare.py's 8)
compare() {
	local name=$1 data=$2 cut=${CUT:-}
	perfc script -i "$data" -F period,ip,sym,dso --no-inline >"$tmp/$name.script" 2>/dev/null
	if "$HWPROF" flame -q --folded --no-inline -i "$data" >"$tmp/$name.folded" 2>"$tmp/$name.err"; then
		CMP_NAME=${name}_folded python3 "$chk" folded "$tmp/$name.script" "$tmp/$name.folded" /proc/kallsyms $cut
	else
		fail "${name}_folded: $(head -1 "$tmp/$name.err")"
	fi
	[ "${3:-}" = children ] || return 0
	perfc report -i "$data" --no-inline --no-branch-stack --children --stdio -g none >"$tmp/$name.perf" 2>/dev/null
	perfc script --show-mmap-events -i "$data" 2>/dev/null | grep PERF_RECORD_MMAP >"$tmp/$name.mmaps"
	if "$HWPROF" callgraph --no-inline -q -i "$data" --json >"$tmp/$name.json" 2>"$tmp/$name.cgerr"; then
		CMP_CUT=$([ -n "$cut" ] && echo 1) CMP_NAME=${name}_children python3 "$tools/callgraph_compare.py" "$tmp/$name.perf" "$tmp/$name.json" \
			"$tmp/$name.mmaps"
	else
		fail "${name}_children: $(head -1 "$tmp/$name.cgerr")"
	fi
}
# record NAME STACK PROG ARGS...: a cpu-clock:u recording with DWARF stacks
record() {
	local name=$1 size=$2
	shift 2
	perfc record -N -q -e cpu-clock:u --call-graph "dwarf,$size" -o "$tmp/$name.data" "$@" \
		>/dev/null 2>"$tmp/$name.rec"
}
# skip_n N REASON: N SKIP lines
skip_n() { for i in $(seq "$1"); do skip "dwarf_unwind_real_$i: $2"; done; }

if [ ! -x "$PERF" ] || ! record probe 8192 /bin/true; then
	skip_n 10 "perf cannot record cpu-clock with --call-graph dwarf here: $(head -1 "$tmp/probe.rec" 2>/dev/null)"
	exit 0
fi

# 1. xz
if [ -x /usr/bin/xz ]; then
	head -c 1500000 /dev/urandom | base64 >"$tmp/in.txt"
	if record xz 8192 /usr/bin/xz -3 -T1 -c "$tmp/in.txt"; then
		CUT=cut compare dwarf_unwind_xz "$tmp/xz.data" children
		# the same stacks as a pprof profile (flame --pprof), decoded from
		# the wire format by pprof_decode.py and folded, against perf's
		if "$HWPROF" flame -q --pprof --no-inline -o "$tmp/xz.pb.gz" -i "$tmp/xz.data" 2>"$tmp/pp.err" &&
			python3 "$tools/pprof_decode.py" "$tmp/xz.pb.gz" >"$tmp/xz.pp.json" 2>>"$tmp/pp.err"; then
			python3 - "$tmp/xz.pp.json" >"$tmp/xz.pp.folded" <<'PY'
import collections, json, sys
d = json.load(open(sys.argv[1]))
c = collections.Counter()
for s in d["samples"]:
    names = [d["locations"][str(l)]["functions"][0] for l in s["locations"]]
    c[";".join(reversed(names))] += s["values"][0]
for k, v in c.items():
    print(k, v)
PY
			CMP_NAME=dwarf_unwind_xz_pprof python3 "$chk" folded "$tmp/dwarf_unwind_xz.script" "$tmp/xz.pp.folded" /proc/kallsyms cut
		else
			fail "dwarf_unwind_xz_pprof: $(head -1 "$tmp/pp.err")"
		fi
	else
		fail "dwarf_unwind_xz_folded: $(head -1 "$tmp/xz.rec")"
		fail "dwarf_unwind_xz_children: $(head -1 "$tmp/xz.rec")"
		fail "dwarf_unwind_xz_pprof: $(head -1 "$tmp/xz.rec")"
	fi
else
	skip_n 3 "no /usr/bin/xz"
fi

# 2. python3 (Debian's, not one found first on PATH)
if [ -x /usr/bin/python3 ]; then
	# (os._exit: no exit handlers, whose _fini perf 6.1's libunwind walks
	# by guessing, see unwind_check.py)
	if record py 32768 /usr/bin/python3 -c 'import json, os
def f(n):
    return sum(i * i for i in range(n))
for k in range(40):
    json.dumps([f(2000) for _ in range(50)])
os._exit(0)'; then
		CUT=cut compare dwarf_unwind_python3 "$tmp/py.data" children
	else
		fail "dwarf_unwind_python3_folded: $(head -1 "$tmp/py.rec")"
		fail "dwarf_unwind_python3_children: $(head -1 "$tmp/py.rec")"
	fi
else
	skip_n 2 "no /usr/bin/python3"
fi

# 3. C++ exceptions, g++ and clang++
for cxx in g++ clang++; do
	n=dwarf_unwind_exceptions_${cxx//+/x}
	if ! command -v $cxx >/dev/null; then
		skip "${n}_folded: no $cxx"
		skip "${n}_children: no $cxx"
	elif $cxx -O2 -g -fomit-frame-pointer -o "$tmp/exc" "$root/tests/fixtures/dwarf_unwind_exceptions.cc" \
		2>"$tmp/cxx.err" && record exc 8192 "$tmp/exc" 300000; then
		compare "$n" "$tmp/exc.data" children
	else
		fail "${n}_folded: $(head -1 "$tmp/cxx.err" "$tmp/exc.rec" 2>/dev/null)"
		fail "${n}_children: cannot build or record"
	fi
done

# 4. the C fixture built by clang
if ! command -v clang >/dev/null; then
	skip "dwarf_unwind_clang_folded: no clang"
elif clang -O2 -g -fomit-frame-pointer -o "$tmp/dwc" "$root/tests/fixtures/dwarf_unwind.c" -lz 2>"$tmp/clang.err" &&
	record dwc 8192 "$tmp/dwc" 2; then
	compare dwarf_unwind_clang "$tmp/dwc.data"
else
	fail "dwarf_unwind_clang_folded: $(head -1 "$tmp/clang.err" "$tmp/dwc.rec" 2>/dev/null)"
fi
