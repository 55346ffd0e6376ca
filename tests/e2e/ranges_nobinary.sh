#!/bin/bash
# hwprof ranges --format profgen|autofdo and pgo --format autofdo when the
# recorded binary is not at hand (issue 24 item 5): the text is written from
# the mappings' file offsets with one warning saying so.
#   - emulated recordings of a PIE and a non-PIE fixture, the binary moved
#     away after recording: the profgen text equals llvm-profgen-19
#     --skip-symbolization's with the binary present (tests/tools/
#     profgen_compare.py, its named rules), the autofdo text equals
#     tests/tools/autofdo_ref.py's (AutoFDO's rules on perf's own text, with
#     the binary), and 'pgo --format autofdo' writes the same text;
#   - simpleperf's lbr/perf_lbr.data (corpus; its binary was never
#     published): addresses are offsets moved by the lowest executable
#     address simpleperf recorded (0x1730 at offset 0x730), so each sampled
#     address of perf 6.1's dump (corpus oracle), less the map's start, plus
#     0x1000, has the count of the dump's samples there.
# Skips where llvm-profgen-19, perf or qemu are missing.
. "$(dirname "$0")/../tools/emu_lib.sh"
corpus=${HWPROF_CORPUS:-$root/../shared/corpus}
lbr=$corpus/simpleperf/lbr/perf_lbr.data
oracle=$corpus/oracles/simpleperf_lbr_perf_lbr.data.perf61.ip-brstack.txt.gz
echo "PLAN 8"

# --- simpleperf's recording: no binary anywhere
if [ ! -f "$lbr" ] || [ ! -f "$oracle" ]; then
	skip "ranges_nobinary_simpleperf: corpus not found ($lbr)"
	skip "ranges_nobinary_simpleperf_warning: corpus not found"
else
	"$HWPROF" ranges -i "$lbr" --format autofdo -o "$tmp/sp.txt" 2>"$tmp/sp.err"
	rc=$?
	# the address section: after the range section's count and lines
	got=$(python3 -c 'import sys
l = open(sys.argv[1]).read().split("\n")
n = int(l[0]); a = int(l[n + 1])
print("\n".join(l[n + 2:n + 2 + a]))' "$tmp/sp.txt")
	want=$(zcat "$oracle" | python3 -c 'import sys, collections
c = collections.Counter(int(l.split()[0], 16) for l in sys.stdin if l.strip())
print("\n".join("%x:%d" % (a - 0x5597dfefd000 + 0x1000, n) for a, n in sorted(c.items())))')
	if [ $rc = 0 ] && [ -n "$got" ] && [ "$got" = "$want" ]; then
		pass "ranges_nobinary_simpleperf ($(echo "$got" | wc -l) sampled addresses as perf 6.1 dumps them)"
	else
		fail "ranges_nobinary_simpleperf: rc $rc, got '${got//$'\n'/ }' want '${want//$'\n'/ }': $(head -2 "$tmp/sp.err")"
	fi
	if [ "$(grep -c 'lbr_test_loop: .*addresses in it are its file offsets plus 0x1000 (the lowest executable address 0x1730 at offset 0x730' "$tmp/sp.err")" = 1 ] &&
		grep -q '^// build_id: 0x0000000000000000000000000000000000000000$' "$tmp/sp.txt"; then
		pass "ranges_nobinary_simpleperf_warning (one warning, simpleperf's zero build-id line)"
	else
		fail "ranges_nobinary_simpleperf_warning: $(tr '\n' ' ' <"$tmp/sp.err")"
	fi
fi

ready=$(emu_ready ranges_nobinary) || { for c in pie nopie; do echo "$ready" | sed "s/ranges_nobinary/ranges_nobinary_$c/"; echo "$ready" | sed "s/ranges_nobinary/ranges_nobinary_autofdo_$c/"; echo "$ready" | sed "s/ranges_nobinary/ranges_nobinary_pgo_$c/"; done; exit 0; }
profgen=$(command -v llvm-profgen-19 || echo /usr/lib/llvm-19/bin/llvm-profgen)
fx=$root/tests/fixtures

# one_case NAME GCC-FLAGS...
one_case() {
	local name=$1 bin=$tmp/$1 out
	shift
	if ! gcc -O2 -g "$@" -o "$bin" "$fx/pgo_hot.c" 2>"$tmp/$name.gcc" ||
		! emu_record "$name" -c 1000 -- "$bin"; then
		for k in "" autofdo_ pgo_; do fail "ranges_nobinary_$k$name: build or record failed"; done
		return
	fi
	mv "$bin" "$bin.hidden"
	"$HWPROF" ranges -i "$tmp/$name.data" --format profgen -o "$tmp/$name.hw.txt" 2>"$tmp/$name.hw.err"
	"$HWPROF" ranges -i "$tmp/$name.data" --format autofdo -o "$tmp/$name.afdo.txt" 2>"$tmp/$name.afdo.err"
	"$HWPROF" pgo -i "$tmp/$name.data" --format autofdo -o "$tmp/$name.pgo.txt" 2>"$tmp/$name.pgo.err"
	mv "$bin.hidden" "$bin"
	if [ ! -x "$profgen" ]; then
		skip "ranges_nobinary_$name: llvm-profgen-19 not installed (apt-get install llvm-19)"
	elif [ "$(grep -c ': addresses in it are its file offsets less' "$tmp/$name.hw.err")" != 1 ]; then
		fail "ranges_nobinary_$name: not one warning: $(head -3 "$tmp/$name.hw.err" | tr '\n' ' ')"
	else
		"$profgen" --perfdata "$tmp/$name.data" --binary "$bin" --skip-symbolization -o "$tmp/$name.pg.txt" \
			>"$tmp/$name.pg.out" 2>&1
		if out=$(python3 "$tools/profgen_compare.py" "$bin" "$tmp/$name.hw.txt" "$tmp/$name.pg.txt"); then
			pass "ranges_nobinary_$name (without the binary, as llvm-profgen-19 with it: $out)"
		else
			fail "ranges_nobinary_$name: $out"
		fi
	fi
	if ! command -v perf >/dev/null || ! command -v readelf >/dev/null; then
		skip "ranges_nobinary_autofdo_$name: perf or readelf not installed"
		skip "ranges_nobinary_pgo_$name: perf or readelf not installed"
		return
	fi
	perf script --show-mmap-events --show-task-events -F pid,tid,ip,brstack -i "$tmp/$name.data" 2>/dev/null |
		python3 "$tools/autofdo_ref.py" "$bin" >"$tmp/$name.ref.txt"
	grep -v '^//' "$tmp/$name.afdo.txt" | grep . >"$tmp/$name.afdo.body"
	if [ -s "$tmp/$name.ref.txt" ] && cmp -s "$tmp/$name.afdo.body" "$tmp/$name.ref.txt" &&
		[ "$(grep -c ': addresses in it are its file offsets (as simpleperf' "$tmp/$name.afdo.err")" = 1 ]; then
		pass "ranges_nobinary_autofdo_$name ($(head -1 "$tmp/$name.afdo.body") ranges, as AutoFDO's rules with the binary)"
	else
		fail "ranges_nobinary_autofdo_$name: $(diff "$tmp/$name.ref.txt" "$tmp/$name.afdo.body" | head -3 | tr '\n' ' ') $(head -2 "$tmp/$name.afdo.err" | tr '\n' ' ')"
	fi
	if cmp -s "$tmp/$name.afdo.txt" "$tmp/$name.pgo.txt"; then
		pass "ranges_nobinary_pgo_$name (pgo --format autofdo writes the same text)"
	else
		fail "ranges_nobinary_pgo_$name: $(diff "$tmp/$name.afdo.txt" "$tmp/$name.pgo.txt" | head -3 | tr '\n' ' ') $(head -2 "$tmp/$name.pgo.err" | tr '\n' ' ')"
	fi
}

one_case pie -fPIE -pie
one_case nopie -no-pie
