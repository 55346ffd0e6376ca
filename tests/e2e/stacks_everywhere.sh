#!/bin/bash
# Call stacks (frame-pointer callchains, --call-graph dwarf unwound by
# src/unwind/) where a report is more than its call graph, on real perf 6.1
# cpu-clock recordings of tests/fixtures/dwarf_unwind.c made here:
#   - hwprof export --format pprof: each stack a sample, decoded from the
#     wire format (tests/tools/pprof_decode.py --folded) equal to perf
#     script's callchains folded (tests/tools/unwind_check.py folded), for
#     a --call-graph dwarf recording of a build without frame pointers and
#     a -g recording of one with them; the samples and period values sum
#     to perf script's; every location's lines in the fixture and ld.so
#     (inlined frames included) as addr2line -f -i gives them
#     (tests/tools/pprof_lines_check.py).
# Skips where perf cannot record cpu-clock or gcc is missing.
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
HWPROF=${HWPROF:-$build/hwprof}
PERF=/usr/bin/perf
chk=$tools/unwind_check.py
export PERF_BUILDID_DIR=$tmp/cache
perfc() { "$PERF" --buildid-dir "$PERF_BUILDID_DIR" "$@"; }

NAMES=(stacks_pprof_dwarf stacks_pprof_dwarf_totals stacks_pprof_lines stacks_pprof_fp)
echo "PLAN ${#NAMES[@]}"
said=()
done_() { said+=("$1"); }
skip_rest() {
	for n in "${NAMES[@]}"; do
		[[ " ${said[*]} " == *" $n "* ]] || { skip "$n: $1"; said+=("$n"); }
	done
}

fx=$root/tests/fixtures/dwarf_unwind.c
if [ ! -x "$PERF" ] || ! command -v gcc >/dev/null; then
	skip_rest "needs gcc and $PERF"
	exit 0
fi
if ! gcc -O2 -g -fomit-frame-pointer -o "$tmp/dw" "$fx" -lz 2>"$tmp/gcc.err" ||
	! gcc -O2 -g -fno-omit-frame-pointer -o "$tmp/fp" "$fx" -lz 2>>"$tmp/gcc.err"; then
	skip_rest "cannot build the fixture against zlib: $(head -1 "$tmp/gcc.err")"
	exit 0
fi
# record NAME BINARY [perf args]: $tmp/NAME.data, two rounds of the fixture
record() {
	local out=$1 bin=$2
	shift 2
	perfc record -N -q -e cpu-clock "$@" -o "$tmp/$out.data" "$bin" 2 >/dev/null 2>"$tmp/$out.rec"
}
if ! record dw "$tmp/dw" --call-graph dwarf; then
	skip_rest "perf cannot record cpu-clock here: $(head -1 "$tmp/dw.rec")"
	exit 0
fi
perf_script() { perfc script -i "$1" -F period,ip,sym,dso --no-inline >"$2" 2>/dev/null; }

# pprof_folded NAME DATA: NAME.pb.gz, NAME.json and NAME.folded (by samples)
pprof_folded() {
	local name=$1 data=$2
	"$HWPROF" export -q --format pprof -i "$data" -o "$tmp/$name.pb.gz" 2>"$tmp/$name.err" &&
		python3 "$tools/pprof_decode.py" "$tmp/$name.pb.gz" >"$tmp/$name.json" 2>>"$tmp/$name.err" &&
		python3 "$tools/pprof_decode.py" "$tmp/$name.pb.gz" --folded samples >"$tmp/$name.folded" 2>>"$tmp/$name.err"
}

# 1. pprof of a --call-graph dwarf recording
perf_script "$tmp/dw.data" "$tmp/dw.script"
if pprof_folded dwp "$tmp/dw.data"; then
	CMP_NAME=stacks_pprof_dwarf python3 "$chk" folded "$tmp/dw.script" "$tmp/dwp.folded" /proc/kallsyms
	# samples and period (cpu-clock, nanoseconds) as perf script's
	want=$(awk '/^ *[0-9]+ *$/ { n++; p += $1 } END { print n + 0, p + 0 }' "$tmp/dw.script")
	got=$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
t = [x for x, _ in d['sample_type']]
print(sum(s['values'][t.index('samples')] for s in d['samples']), sum(s['values'][t.index('cpu-clock')] for s in d['samples']),
      dict(d['sample_type'])['cpu-clock'])" "$tmp/dwp.json" 2>&1)
	if [ "$got" = "$want nanoseconds" ]; then
		pass "stacks_pprof_dwarf_totals ($want samples and nanoseconds, as perf script)"
	else
		fail "stacks_pprof_dwarf_totals: pprof $got, perf script $want"
	fi
	CMP_NAME=stacks_pprof_lines python3 "$tools/pprof_lines_check.py" "$tmp/dwp.json" "$tmp/dw" \
		"$(readlink -f /lib64/ld-linux-x86-64.so.2)"
else
	fail "stacks_pprof_dwarf: $(head -1 "$tmp/dwp.err")"
fi
done_ stacks_pprof_dwarf
done_ stacks_pprof_dwarf_totals
done_ stacks_pprof_lines

# 2. pprof of a frame-pointer recording (-g): return addresses, named as perf names them
if record fp "$tmp/fp" -g; then
	perf_script "$tmp/fp.data" "$tmp/fp.script"
	if pprof_folded fpp "$tmp/fp.data"; then
		CMP_NAME=stacks_pprof_fp python3 "$chk" folded "$tmp/fp.script" "$tmp/fpp.folded" /proc/kallsyms
	else
		fail "stacks_pprof_fp: $(head -1 "$tmp/fpp.err")"
	fi
else
	fail "stacks_pprof_fp: perf record -g: $(head -1 "$tmp/fp.rec")"
fi
done_ stacks_pprof_fp
skip_rest "not reached"
