#!/bin/bash
# JIT-compiled code's names, against perf 6.1 on the same recordings:
#  - perf maps: Node.js --perf-basic-prof recorded with perf record -e
#    cpu-clock:u -g (/tmp/perf-PID.map): callgraph's JIT rows against perf
#    report --children, the hot JavaScript function named as perf names it,
#    flame --folded against perf script's stacks, script against perf
#    script; the map under --symfs; a map with bad lines (one warning);
#  - jitdumps: Node.js --perf-prof recorded with -k mono: hwprof on the
#    recording against perf report on `perf inject --jit`'s output
#    (callgraph, folded stacks, script), hwprof on that output too; a
#    recording on another clock (one warning, as perf inject refuses it);
#  - generated recordings of a JIT whose truth is known
#    (tests/tools/gen_jit_perfdata: loads, a load replacing another at its
#    address, a move, debug info, the code heap's //anon maps): branches -s
#    dso,sym, annotate, callgraph, script and mem against perf on perf
#    inject's output; probs against the generator's counts (decoding the
#    dump's code bytes), blocks' source lines against its debug entries; -j 2; a dump
#    cut short (one warning, the loads before the cut used, as perf
#    inject); perf-map entries that overlap, repeat or are zero-sized
#    against perf's report of the same map.
# `:u` keeps kernel frames out: kernel symbol aliases are not this test's
# subject. Python's -X perf needs Python 3.12 (Debian 12 has 3.11).
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
HWPROF=${HWPROF:-$build/hwprof}
PERF=/usr/bin/perf
GEN=$build/tests/tools/gen_jit_perfdata
cmp=$tools/callgraph_compare.py
cleanup=()
trap 'rm -rf "$tmp" "${cleanup[@]}"' EXIT

NODE_CHECKS=11
GEN_CHECKS=13
if [ ! -x "$PERF" ]; then
	echo "PLAN 1"
	skip "jit_names: $PERF not installed"
	exit 0
fi
echo "PLAN $((NODE_CHECKS + GEN_CHECKS))"

# callgraph NAME PERF_INPUT HWPROF_INPUT DSO_REGEX [hwprof args]: hwprof
# callgraph's rows of the shared objects matching DSO_REGEX (perf's names)
# against perf report --children on PERF_INPUT (or the report in
# $PERF_REPORT when set)
callgraph() {
	local name=$1 pin=$2 hin=$3 only=$4
	shift 4
	if [ -n "${PERF_REPORT:-}" ]; then
		cp "$PERF_REPORT" "$tmp/$name.perf"
	elif ! "$PERF" report -i "$pin" --no-branch-stack --children --stdio -g none >"$tmp/$name.perf" 2>"$tmp/$name.perferr"; then
		fail "$name: perf report failed: $(grep -v '^$' "$tmp/$name.perferr" | head -1)"
		return
	fi
	if ! "$HWPROF" callgraph "$@" -q -i "$hin" --json >"$tmp/$name.json" 2>"$tmp/$name.err"; then
		fail "$name: hwprof callgraph failed: $(head -1 "$tmp/$name.err")"
		return
	fi
	"$PERF" script --show-mmap-events -i "$pin" 2>/dev/null | grep PERF_RECORD_MMAP >"$tmp/$name.mmaps"
	CMP_DSO=$only CMP_NAME=$name python3 "$cmp" "$tmp/$name.perf" "$tmp/$name.json" "$tmp/$name.mmaps"
}

# folded NAME PERF_INPUT HWPROF_INPUT: flame --folded against perf script's stacks
folded() {
	local name=$1 pin=$2 hin=$3
	"$PERF" script -i "$pin" -F period,ip,sym,dso >"$tmp/$name.script" 2>/dev/null
	# (each sample's own IP: a frame-pointer walk through JIT code can end
	# in a word perf takes for a context marker, and perf then prints the
	# sample with no frame; hwprof counts it at its IP)
	"$PERF" script -i "$pin" -F period,ip,sym,dso -G >"$tmp/$name.ips" 2>/dev/null
	if "$HWPROF" flame -q -i "$hin" --folded --no-inline >"$tmp/$name.folded" 2>"$tmp/$name.err"; then
		CMP_NAME=$name CMP_IPS=$tmp/$name.ips python3 "$tools/stack_oracle.py" folded "$tmp/$name.script" \
			"$tmp/$name.folded"
	else
		fail "$name: $(head -1 "$tmp/$name.err")"
	fi
}

# script NAME PERF_INPUT HWPROF_INPUT [args]: hwprof script prints what perf script -F ip[,brstack] prints
script() {
	local name=$1 pin=$2 hin=$3 fields=$4
	shift 4
	"$PERF" script -i "$pin" -F "$fields" "$@" >"$tmp/$name.perf" 2>/dev/null
	if ! "$HWPROF" script -q -i "$hin" -F "$fields" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
		fail "$name: $(head -1 "$tmp/$name.err")"
	elif cmp -s "$tmp/$name.perf" "$tmp/$name.out"; then
		pass "$name ($(grep -c . "$tmp/$name.out") lines, byte for byte)"
	else
		fail "$name: differs from perf script: $(diff "$tmp/$name.perf" "$tmp/$name.out" | sed -n 2,3p | tr '\n' ' ')"
	fi
}

# hot NAME PERF_REPORT HWPROF_JSON DSO_REGEX MODULE_REGEX: the JIT function
# with the most self samples (perf's shared objects matching DSO_REGEX,
# hwprof's modules MODULE_REGEX) is the same, and a named one, in both
hot() {
	python3 - "$@" <<'EOF'
import json, re, sys
name, perf, mine, only, mod = sys.argv[1:6]
best_p = None
for l in open(perf, errors="replace"):
    m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s+\S+\s+(.*?)\s+\[\.\] (.*)$", l)
    if m and re.search(only, m.group(3)) and (best_p is None or float(m.group(2)) > best_p[0]):
        best_p = (float(m.group(2)), m.group(4).strip())
rows = [r for r in json.load(open(mine)) if re.search(mod, r.get("module") or "")]
best_h = max(rows, key=lambda r: r["self_percent"]) if rows else None
if not best_p or not best_h:
    print(f"FAIL {name}: no JIT function (perf: {best_p}, hwprof: {best_h and best_h.get('symbol')})")
elif best_h.get("symbol") != best_p[1] or best_p[1].startswith("0x"):
    print(f"FAIL {name}: perf's hottest JIT function is {best_p[1]!r}, hwprof's {best_h.get('symbol')!r}")
else:
    print(f"PASS {name} ({best_p[1]!r}, {best_p[0]:.2f}% self in perf, {best_h['self_percent']:.2f}% in hwprof)")
EOF
}

# ---------------------------------------------------------------- Node.js
node_skip() {
	for c in jit_perfmap_callgraph jit_perfmap_hot jit_perfmap_folded jit_perfmap_script jit_perfmap_symfs \
		jit_perfmap_bad_lines jit_dump_callgraph jit_dump_folded jit_dump_script jit_dump_injected_input \
		jit_dump_clock; do
		skip "$c: $1"
	done
}
cat >"$tmp/hot.js" <<'EOF'
require("fs").writeFileSync(process.argv[2], String(process.pid));
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function hotLoop(k) { let s = 0; for (let i = 0; i < k; i++) s += fib(20) & 7; return s; }
let t = 0;
for (let j = 0; j < 150; j++) t += hotLoop(10);
console.log(t);
EOF
if ! command -v node >/dev/null; then
	node_skip "node not installed (apt-get install nodejs)"
elif ! (cd "$tmp" && "$PERF" record -q -e cpu-clock:u -g -o "$tmp/map.data" -- node --perf-basic-prof "$tmp/hot.js" "$tmp/map.pid" >/dev/null 2>"$tmp/rec.err"); then
	node_skip "perf record -e cpu-clock:u failed here ($(head -1 "$tmp/rec.err"))"
else
	pid=$(cat "$tmp/map.pid")
	map=/tmp/perf-$pid.map
	cleanup+=("$map")
	callgraph jit_perfmap_callgraph "$tmp/map.data" "$tmp/map.data" '^\[JIT\]'
	hot jit_perfmap_hot "$tmp/jit_perfmap_callgraph.perf" "$tmp/jit_perfmap_callgraph.json" '^\[JIT\]' '^/tmp/perf-[0-9]+\.map$'
	folded jit_perfmap_folded "$tmp/map.data" "$tmp/map.data"
	script jit_perfmap_script "$tmp/map.data" "$tmp/map.data" ip
	# the map under a symfs root (perf 6.1 reads /tmp only: its report with
	# the map in place is the oracle)
	mkdir -p "$tmp/symfs/tmp"
	mv "$map" "$tmp/symfs/tmp/"
	PERF_REPORT=$tmp/jit_perfmap_callgraph.perf callgraph jit_perfmap_symfs "$tmp/map.data" "$tmp/map.data" \
		'^\[JIT\]' --symfs "$tmp/symfs"
	# lines perf skips or reads as junk away from the code: one warning
	# naming the file and the first bad line; the rest as perf reads it
	{ printf 'not a line\n10 10 ab\n'; cat "$tmp/symfs/tmp/perf-$pid.map"; printf '20 zz bad size\n'; } >"$map"
	if "$PERF" report -i "$tmp/map.data" --no-branch-stack --children --stdio -g none >"$tmp/bad.perf" 2>/dev/null &&
		"$HWPROF" callgraph -i "$tmp/map.data" --json >"$tmp/bad.json" 2>"$tmp/bad.err"; then
		"$PERF" script --show-mmap-events -i "$tmp/map.data" 2>/dev/null | grep PERF_RECORD_MMAP >"$tmp/bad.mmaps"
		res=$(CMP_DSO='^\[JIT\]' CMP_NAME=jit_perfmap_bad_lines python3 "$cmp" "$tmp/bad.perf" "$tmp/bad.json" "$tmp/bad.mmaps")
		# (the recording may also warn of a frame-pointer walk that perf
		# discards, a word no context marker is: any other line counts)
		warn=$(grep -v 'callchains with an unknown context marker were dropped, as perf drops them$' \
			"$tmp/bad.err" | grep -c "")
		if [[ $res != PASS* ]]; then
			echo "$res"
		elif [ "$warn" != 1 ] || ! grep -q "$map: 3 of [0-9]* lines skipped (line 1: START is not a hex number)" "$tmp/bad.err"; then
			fail "jit_perfmap_bad_lines: warning: $(head -3 "$tmp/bad.err" | tr '\n' ' ')"
		else
			pass "jit_perfmap_bad_lines (${res#PASS jit_perfmap_bad_lines }; one warning: $(grep -F "$map" "$tmp/bad.err" | cut -c1-100)...)"
		fi
	else
		fail "jit_perfmap_bad_lines: $(head -1 "$tmp/bad.err")"
	fi

	# jitdump: node writes jit-PID.dump in its working directory
	mkdir -p "$tmp/dump"
	if ! (cd "$tmp/dump" && "$PERF" record -q -k mono -e cpu-clock:u -g -o "$tmp/dump.data" -- node --perf-prof "$tmp/hot.js" "$tmp/dump.pid" >/dev/null 2>"$tmp/rec.err"); then
		for c in jit_dump_callgraph jit_dump_folded jit_dump_script jit_dump_injected_input jit_dump_clock; do
			fail "$c: perf record -k mono failed: $(head -1 "$tmp/rec.err")"
		done
	elif ! "$PERF" inject --jit -i "$tmp/dump.data" -o "$tmp/dump/injected.data" 2>"$tmp/inj.err"; then
		for c in jit_dump_callgraph jit_dump_folded jit_dump_script jit_dump_injected_input jit_dump_clock; do
			fail "$c: perf inject --jit failed: $(head -1 "$tmp/inj.err")"
		done
	else
		callgraph jit_dump_callgraph "$tmp/dump/injected.data" "$tmp/dump.data" 'jitted-'
		folded jit_dump_folded "$tmp/dump/injected.data" "$tmp/dump.data"
		script jit_dump_script "$tmp/dump/injected.data" "$tmp/dump.data" ip
		# perf inject's output, with its ELF images (it drops the marker: no
		# second injection)
		callgraph jit_dump_injected_input "$tmp/dump/injected.data" "$tmp/dump/injected.data" 'jitted-'
		# another clock: perf inject refuses the dump; hwprof says so once and
		# reads on, the code unnamed as perf's report of the recording has it
		if (cd "$tmp/dump" && "$PERF" record -q -e cpu-clock:u -g -o "$tmp/clock.data" -- node --perf-prof "$tmp/hot.js" "$tmp/clock.pid" >/dev/null 2>"$tmp/rec.err"); then
			callgraph jit_dump_clock_rows "$tmp/clock.data" "$tmp/clock.data" '^\[JIT\]' >"$tmp/clock.res"
			"$HWPROF" callgraph -i "$tmp/clock.data" >/dev/null 2>"$tmp/clock.err"
			rc=$?
			if [ $rc != 0 ] || [ "$(grep -c . "$tmp/clock.err")" != 1 ] ||
				! grep -q "jit-$(cat "$tmp/clock.pid").dump: not used: the recording's clock is not CLOCK_MONOTONIC" "$tmp/clock.err"; then
				fail "jit_dump_clock: exit $rc, $(head -2 "$tmp/clock.err" | tr '\n' ' ')"
			elif ! grep -q '^PASS' "$tmp/clock.res"; then
				fail "jit_dump_clock: $(cat "$tmp/clock.res")"
			else
				pass "jit_dump_clock (one warning; $(sed 's/^PASS jit_dump_clock_rows //' "$tmp/clock.res"))"
			fi
		else
			fail "jit_dump_clock: perf record failed: $(head -1 "$tmp/rec.err")"
		fi
	fi
fi

# ---------------------------------------------------------------- generated
gen_skip() {
	for c in jit_gen_branches jit_gen_probs jit_gen_blocks jit_gen_annotate jit_gen_callgraph jit_gen_script \
		jit_gen_mem jit_gen_parallel jit_gen_truncated jit_gen_realtime jit_gen_perfmap_overlaps \
		jit_gen_perfmap_branches jit_gen_tsc; do
		skip "$c: $1"
	done
}
gpid=$((1900000000 + $$ % 100000))
if [ ! -x "$GEN" ]; then
	gen_skip "$GEN not built"
	exit 0
fi
mkdir -p "$tmp/g" "$tmp/gm" "$tmp/gt" "$tmp/gr" "$tmp/gc"
if ! "$GEN" "$tmp/g" $gpid "$tmp/g/gen.data" >"$tmp/truth" 2>"$tmp/gen.err" ||
	! "$PERF" inject --jit -i "$tmp/g/gen.data" -o "$tmp/g/inj.data" 2>"$tmp/inj.err"; then
	gen_skip "generating or injecting failed: $(cat "$tmp/gen.err" "$tmp/inj.err" | head -1)"
	exit 0
fi
. "$tmp/truth"

keys=dso_from,symbol_from,dso_to,symbol_to
"$PERF" report -b --stdio -F "overhead,sample,$keys" -i "$tmp/g/inj.data" >"$tmp/gb.perf" 2>/dev/null
if "$HWPROF" branches --sort "$keys" -i "$tmp/g/gen.data" >"$tmp/gb.txt" 2>"$tmp/gb.err" &&
	out=$(python3 "$root/tests/e2e/branches_compare.py" --unique "$tmp/gb.perf" "$tmp/gb.txt" "$keys" 2>&1); then
	pass "jit_gen_branches ($out)"
else
	fail "jit_gen_branches: ${out:-$(head -1 "$tmp/gb.err")}"
fi

# probs: the loops' conditional branches, decoded from the dump's bytes
# (--no-infer: the generator's counts are the ones compared, and its short
# stacks would make flow-consistent counts the default)
"$HWPROF" probs --no-infer -q --json -i "$tmp/g/gen.data" >"$tmp/probs.json" 2>"$tmp/probs.err"
python3 - "$tmp/probs.json" "$a_taken" "$a_not_taken" "$c_taken" "$c_not_taken" <<'EOF'
import json, sys
rows = json.load(open(sys.argv[1]))
want = {("jit_loop_a", 7): (int(sys.argv[2]), int(sys.argv[3])), ("jit_replaced_c", 7): (int(sys.argv[4]), int(sys.argv[5]))}
got = {}
for r in rows:
    key = (r.get("symbol"), r.get("sym_offset"))
    got[key] = (r.get("taken"), r.get("not_taken"))
bad = [f"{k[0]}+{k[1]}: want {w}, got {got.get(k)}" for k, w in want.items() if got.get(k) != w]
if bad or len(got) != len(want):
    print(f"FAIL jit_gen_probs: {'; '.join(bad) or 'rows ' + str(sorted(got))}")
else:
    print(f"PASS jit_gen_probs (jit_loop_a+7 taken {want[('jit_loop_a', 7)]}, jit_replaced_c+7 {want[('jit_replaced_c', 7)]})")
EOF

# blocks: source lines from the DEBUG_INFO before jit_loop_a's load
"$HWPROF" blocks --no-infer -q --json -i "$tmp/g/gen.data" >"$tmp/blocks.json" 2>"$tmp/blocks.err"
python3 - "$tmp/blocks.json" <<'EOF'
import json, sys
# the generator's entries: offsets 0, 2, 7, 9 of jit_loop_a are loop.js:10-13
want = {2: (11, 12), 9: (13, 13)}
rows = [r for r in json.load(open(sys.argv[1])) if r.get("symbol") == "jit_loop_a"]
got = {r.get("sym_offset"): (r.get("line"), r.get("last_line")) for r in rows}
files = {r.get("file") for r in rows}
if got != want or files != {"/src/loop.js"}:
    print(f"FAIL jit_gen_blocks: want {want} in /src/loop.js, got {got} in {files}; fields {sorted(rows[0]) if rows else None}")
else:
    print(f"PASS jit_gen_blocks (jit_loop_a's blocks at +2 and +9: lines {got[2]} and {got[9]} of /src/loop.js)")
EOF

# annotate: the dump's bytes decoded as perf annotate decodes perf inject's ELF image
if "$HWPROF" annotate -q -i "$tmp/g/gen.data" -s jit_loop_a --json >"$tmp/ann.json" 2>"$tmp/ann.err" &&
	"$PERF" annotate -i "$tmp/g/inj.data" --stdio -s jit_loop_a --no-source >"$tmp/ann.perf" 2>/dev/null; then
	CMP_NAME=jit_gen_annotate python3 "$tools/annotate_compare.py" perf "$tmp/ann.json" "$tmp/ann.perf"
else
	fail "jit_gen_annotate: $(head -1 "$tmp/ann.err")"
fi

callgraph jit_gen_callgraph "$tmp/g/inj.data" "$tmp/g/gen.data" '.'
script jit_gen_script "$tmp/g/inj.data" "$tmp/g/gen.data" ip,brstack

if "$GEN" "$tmp/gm" $((gpid + 1)) "$tmp/gm/mem.data" --mem >/dev/null 2>"$tmp/gen.err" &&
	"$PERF" inject --jit -i "$tmp/gm/mem.data" -o "$tmp/gm/inj.data" 2>/dev/null &&
	"$PERF" report --mem-mode --stdio -s sym,dso -i "$tmp/gm/inj.data" >"$tmp/mem.perf" 2>/dev/null &&
	"$HWPROF" mem -q --json -i "$tmp/gm/mem.data" >"$tmp/mem.json" 2>"$tmp/mem.err"; then
	python3 - "$tmp/mem.perf" "$tmp/mem.json" <<'EOF'
import json, os, re, sys
perf = {}
for l in open(sys.argv[1]):
    m = re.match(r"\s*([\d.]+)%\s+\[\.\] (\S+)\s+(\S+)\s*$", l)
    if m:
        perf[(m.group(2), m.group(3))] = float(m.group(1))
mine = {(r["symbol"], os.path.basename(r["module"])): r["share"] for r in json.load(open(sys.argv[2]))}
bad = [k for k in set(perf) | set(mine) if abs(perf.get(k, 0) - mine.get(k, 0)) > 0.006]
if bad or not perf:
    print(f"FAIL jit_gen_mem: perf {perf}, hwprof {mine}")
else:
    print(f"PASS jit_gen_mem ({len(perf)} JIT functions, shares as perf's)")
EOF
else
	fail "jit_gen_mem: $(cat "$tmp/gen.err" "$tmp/mem.err" | head -1)"
fi

# -j 2: the loads are mapped between batches, as -j 1 maps them
for j in 1 2; do
	"$HWPROF" branches -q -j $j --sort sym,dso -i "$tmp/g/gen.data" >"$tmp/j$j.txt" 2>&1
	"$HWPROF" callgraph -q -j $j -i "$tmp/g/gen.data" >>"$tmp/j$j.txt" 2>&1
	"$HWPROF" blocks -q -j $j -i "$tmp/g/gen.data" >>"$tmp/j$j.txt" 2>&1
done
if cmp -s "$tmp/j1.txt" "$tmp/j2.txt" && grep -q jit_replaced_c "$tmp/j1.txt"; then
	pass "jit_gen_parallel (branches, callgraph and blocks: -j 2 prints what -j 1 prints)"
else
	fail "jit_gen_parallel: $(diff "$tmp/j1.txt" "$tmp/j2.txt" | head -3 | tr '\n' ' ')"
fi

# a dump cut in its third load: the loads before it, as perf inject reads them
"$GEN" "$tmp/gt" $((gpid + 2)) "$tmp/gt/gen.data" >/dev/null
dump=$tmp/gt/jit-$((gpid + 2)).dump
cut=$(python3 -c "
import struct, sys
d = open(sys.argv[1], 'rb').read(); off, n = 40, 0
while off < len(d):
    i, s = struct.unpack_from('<II', d, off)
    if i == 0:
        n += 1
        if n == 3:
            print(off, off + s // 2); break
    off += s" "$dump")
truncate -s "${cut#* }" "$dump"
"$PERF" inject --jit -i "$tmp/gt/gen.data" -o "$tmp/gt/inj.data" 2>/dev/null
callgraph jit_gen_truncated_rows "$tmp/gt/inj.data" "$tmp/gt/gen.data" '.' >"$tmp/trunc.res"
"$HWPROF" callgraph -i "$tmp/gt/gen.data" >/dev/null 2>"$tmp/trunc.err"
rc=$?
off=$(printf '0x%x' "${cut% *}")
if [ $rc != 0 ] || [ "$(grep -c . "$tmp/trunc.err")" != 1 ] ||
	! grep -q "$dump: offset $off: record of type 0 (JIT_CODE_LOAD) and [0-9]* bytes cut short" "$tmp/trunc.err"; then
	fail "jit_gen_truncated: exit $rc: $(head -2 "$tmp/trunc.err" | tr '\n' ' ')"
elif ! grep -q '^PASS' "$tmp/trunc.res"; then
	fail "jit_gen_truncated: $(cat "$tmp/trunc.res")"
else
	pass "jit_gen_truncated (one warning: $(cut -c1-120 "$tmp/trunc.err")...; rows as perf's)"
fi

# CLOCK_REALTIME: the dump is not used (perf inject refuses it), one warning
"$GEN" "$tmp/gr" $((gpid + 3)) "$tmp/gr/gen.data" --realtime >/dev/null
"$HWPROF" callgraph -i "$tmp/gr/gen.data" --json >"$tmp/rt.json" 2>"$tmp/rt.err"
rc=$?
if [ $rc = 0 ] && [ "$(grep -c . "$tmp/rt.err")" = 1 ] && grep -q "not used: the recording's clock is not CLOCK_MONOTONIC" "$tmp/rt.err" &&
	! grep -q jitted "$tmp/rt.json" && grep -q "perf-$((gpid + 3)).map" "$tmp/rt.json"; then
	pass "jit_gen_realtime (one warning, the code unnamed)"
else
	fail "jit_gen_realtime: exit $rc, $(head -2 "$tmp/rt.err" | tr '\n' ' ')"
fi

# a perf map with entries that overlap, repeat, are zero-sized or bad, over
# the samples' addresses: as perf's tree finds them
"$GEN" "$tmp/gr" $((gpid + 4)) "$tmp/gr/map.data" --no-marker >/dev/null
map=/tmp/perf-$((gpid + 4)).map
cleanup+=("$map")
{
	echo "7f0000010000 40 outer_a"
	echo "7f0000010020 10 inner_a"
	echo "7f0000010020 10 inner_repeat"
	echo "7f0000010050 0 zero_sized"
	echo "7f0000010060 20 ab"
	echo "garbage line"
	echo "7f0000010080 80 JS:*name with spaces"
	for i in $(seq 0 199); do printf '%x %x rejit_%d\n' $((0x7f0000010000 + (i * 37) % 0x100)) $(((i % 7) * 8)) $i; done
	echo "7f0000020000 4 callee"
	echo "7f0000030000 100 moved"
} >"$map"
callgraph jit_gen_perfmap_overlaps "$tmp/gr/map.data" "$tmp/gr/map.data" '.'
"$PERF" report -b --stdio -F "overhead,sample,$keys" -i "$tmp/gr/map.data" >"$tmp/mb.perf" 2>/dev/null
if "$HWPROF" branches -q --sort "$keys" -i "$tmp/gr/map.data" >"$tmp/mb.txt" 2>"$tmp/mb.err" &&
	out=$(python3 "$root/tests/e2e/branches_compare.py" --unique "$tmp/mb.perf" "$tmp/mb.txt" "$keys" 2>&1); then
	pass "jit_gen_perfmap_branches ($out)"
else
	fail "jit_gen_perfmap_branches: ${out:-$(head -1 "$tmp/mb.err")}"
fi

# a dump of TSC timestamps: placed on perf's clock by the TIME_CONV record,
# as perf inject places it
"$GEN" "$tmp/gc" $((gpid + 5)) "$tmp/gc/gen.data" --tsc >/dev/null
if "$PERF" inject --jit -i "$tmp/gc/gen.data" -o "$tmp/gc/inj.data" 2>"$tmp/tsc.err"; then
	callgraph jit_gen_tsc "$tmp/gc/inj.data" "$tmp/gc/gen.data" 'jitted-'
else
	fail "jit_gen_tsc: perf inject failed: $(head -1 "$tmp/tsc.err")"
fi
