#!/bin/bash
# Emulated memory samples (record --emulate --mem) through the modelled cache
# hierarchy (src/emu/mem_model.h), and hwprof mem / c2c on them:
#  - mem_walk: arrays of 16 KiB, 512 KiB, 8 MiB and 256 MiB walked a line at a
#    time: each walk's main data source is the smallest level the sizes
#    documented in mem_model.h say holds the array (read from that header);
#  - false sharing: two threads incrementing adjacent fields of one line is
#    c2c's top line, with HITMs, both offsets (0 and 8) and both source lines
#    (found by grep in the fixture), and hwprof mem's data object of those
#    HITMs is the fixture's data symbol 'shared'; the padded variant has no
#    shared line;
#  - perf 6.1 reads the emulated file: its script text equals hwprof's, and
#    perf report --mem-mode's samples per (memory access, snoop) and per data
#    symbol equal hwprof mem's;
#  - --svg draws one stacked bar per (bucket, source) cell, with a legend;
#  - the period arithmetic: accesses / period = the samples written.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 8, 2 fewer without perf (the checks against it); 1 (the SKIP) where
# emulated recording cannot run
ready=$(emu_ready emulate_mem) || { echo "PLAN 1"; echo "$ready"; exit 0; }
if command -v perf >/dev/null; then echo "PLAN 8"; else echo "PLAN 6"; fi

# --- the array walk
gcc $EMU_CFLAGS -o "$tmp/walk" "$root/tests/fixtures/mem_walk.c" || { fail "mem_walk: gcc"; exit 0; }
if ! "$HWPROF" record --emulate --mem -c 101 -o "$tmp/walk.data" -- "$tmp/walk" >/dev/null 2>"$tmp/err"; then
	fail "mem_walk: record failed: $(head -1 "$tmp/err")"
else
	# the period arithmetic: accesses / period against the samples written
	# (one thread: they differ by less than one sample)
	read -r acc per exp wrote < <(sed -n 's/.* \([0-9]*\) loads and stores at period \([0-9]*\): \([0-9]*\) samples expected, \([0-9]*\) written.*/\1 \2 \3 \4/p' "$tmp/err")
	n=$("$HWPROF" script -F ip -i "$tmp/walk.data" | wc -l)
	if [ -n "${acc:-}" ] && [ $((acc / per)) -le "$n" ] && [ "$n" -le $((acc / per + 1)) ] && [ "$wrote" -eq "$n" ]; then
		pass "mem_period_arithmetic ($acc accesses / $per = $exp expected, $n in the file)"
	else
		fail "mem_period_arithmetic: '$(grep expected "$tmp/err")', $n samples in the file"
	fi
	"$HWPROF" mem -i "$tmp/walk.data" -s symbol --json >"$tmp/walk.json"
	python3 - "$root/src/emu/mem_model.h" "$tmp/walk.json" <<'PY'
import json, re, sys
hdr = open(sys.argv[1]).read()
size = {}
for lvl in ('L1D', 'L2', 'L3'):
    m = re.search(r'^ \*\s+%s\s+(\d+) (KiB|MiB)' % lvl, hdr, re.M)
    size[lvl] = int(m.group(1)) << (10 if m.group(2) == 'KiB' else 20)
def expect(n):
    for lvl, key in (('L1D', 'l1'), ('L2', 'l2'), ('L3', 'l3')):
        if n <= size[lvl]:
            return key
    return 'local_dram'
rows = {r['symbol']: r for r in json.load(open(sys.argv[2])) if r.get('symbol')}
keys = ('l1', 'lfb', 'l2', 'l3', 'l3_hitm', 'peer', 'local_dram', 'remote_dram')
bad = []
for name, n in (('walk_16k', 16 << 10), ('walk_512k', 512 << 10), ('walk_8m', 8 << 20), ('walk_256m', 256 << 20)):
    r = rows.get(name)
    if not r:
        bad.append(f'{name}: no row')
        continue
    top = max(keys, key=lambda k: r[k])
    share = r[top] / r['samples']
    if top != expect(n) or share < 0.8:
        bad.append(f'{name}: main source {top} ({share:.0%}), model predicts {expect(n)}')
print('FAIL mem_walk: ' + '; '.join(bad) if bad else
      'PASS mem_walk (16K L1, 512K L2, 8M L3, 256M DRAM; sizes from mem_model.h: %s)' %
      ', '.join(f'{k} {v >> 10} KiB' for k, v in size.items()))
PY
	# the histogram of one function and of one line: walk_8m's loads are L3
	# hits (50 cycles: bucket 32-63); the walk's load line holds every walk's
	# loads (the function rows of the symbol table, summed)
	wl=$(grep -n 'WALK_LOAD' "$root/tests/fixtures/mem_walk.c" | cut -d: -f1)
	"$HWPROF" mem -i "$tmp/walk.data" -s hist --symbol walk_8m --json >"$tmp/h8.json" &&
		"$HWPROF" mem -i "$tmp/walk.data" -s hist --srcline "mem_walk.c:$wl" --json >"$tmp/hl.json" &&
		python3 - "$tmp/h8.json" "$tmp/hl.json" "$tmp/walk.json" <<'PY'
import json, sys
h8 = {r['latency']: r['samples'] for r in json.load(open(sys.argv[1]))}
hl = sum(r['samples'] for r in json.load(open(sys.argv[2])))
walks = sum(r['samples'] for r in json.load(open(sys.argv[3])) if (r.get('symbol') or '').startswith('walk_'))
top = max(h8, key=h8.get)
ok = top == '32-63' and h8[top] >= 0.8 * sum(h8.values()) and abs(hl - walks) <= 0.01 * walks
print(f'PASS mem_hist_selected (walk_8m: {h8}; load line {hl} of {walks} walk samples)' if ok else
      f'FAIL mem_hist_selected: walk_8m {h8}; load line {hl}, walk functions {walks}')
PY
	# --svg: the histogram stacked by data source (the chart module): one bar
	# per (bucket, source) cell of the hist table, a legend entry per source
	"$HWPROF" mem -i "$tmp/walk.data" --svg "$tmp/walk.svg" >/dev/null &&
		"$HWPROF" mem -i "$tmp/walk.data" -s hist --json >"$tmp/hist.json" &&
		python3 - "$tmp/walk.svg" "$tmp/hist.json" <<'PY'
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
bars = [e for e in root.iter() if e.get('class') == 'bar']
texts = {e.text for e in root.iter() if e.tag.endswith('text')}
hist = json.load(open(sys.argv[2]))
keys = {'l1': 'L1', 'l2': 'L2', 'l3': 'L3', 'local_dram': 'local DRAM', 'lfb': 'fill buffer',
        'l3_hitm': 'L3 HITM', 'unknown': 'unknown'}
cells = sum(1 for r in hist for k in keys if r.get(k))
present = {keys[k] for r in hist for k in keys if r.get(k)}
if len(bars) == cells and present <= texts and any('modelled' in (t or '') for t in texts):
    print(f'PASS mem_svg ({cells} stacked bars, legend {sorted(present)}, modelled said)')
else:
    print(f'FAIL mem_svg: {len(bars)} bars for {cells} cells; legend {sorted(present - texts)} missing')
PY
	if command -v perf >/dev/null; then
		f=event,cpu,ip,addr,weight,data_src
		perf script -F $f -i "$tmp/walk.data" 2>/dev/null >"$tmp/perf.txt"
		"$HWPROF" script -F $f -i "$tmp/walk.data" >"$tmp/hw.txt"
		if [ -s "$tmp/perf.txt" ] && cmp -s "$tmp/perf.txt" "$tmp/hw.txt"; then
			pass "mem_emulated_perf_reads ($(wc -l <"$tmp/perf.txt") samples as perf prints them)"
		else
			fail "mem_emulated_perf_reads: perf script differs from hwprof script"
		fi
	fi
fi

# --- false sharing
src=$root/tests/fixtures/mem_false_sharing.c
line_a=$(grep -n 'LINE_A' "$src" | cut -d: -f1)
line_b=$(grep -n 'LINE_B' "$src" | cut -d: -f1)
for v in shared padded; do
	flags=""
	[ $v = padded ] && flags=-DPADDED
	gcc $EMU_CFLAGS -pthread $flags -o "$tmp/fs_$v" "$src" || { fail "c2c_$v: gcc"; continue; }
	if ! "$HWPROF" record -q --emulate --mem -c 211 -o "$tmp/fs_$v.data" -- "$tmp/fs_$v" >/dev/null 2>"$tmp/err"; then
		fail "c2c_$v: record failed: $(head -1 "$tmp/err")"
		continue
	fi
	# perf 6.1's own memory report of the emulated file is the oracle of
	# hwprof mem's counts: samples per (memory access, snoop), and of the
	# data symbol the counters resolve to
	if command -v perf >/dev/null && [ $v = shared ]; then
		perf report -i "$tmp/fs_$v.data" --stdio --mem-mode -F sample,mem,snoop 2>/dev/null >"$tmp/pmem.txt"
		perf report -i "$tmp/fs_$v.data" --stdio --mem-mode -F sample,symbol_daddr 2>/dev/null >"$tmp/pdaddr.txt"
		"$HWPROF" mem -i "$tmp/fs_$v.data" -s source --json >"$tmp/src.json"
		"$HWPROF" mem -i "$tmp/fs_$v.data" -s object --json >"$tmp/obj.json"
		python3 - "$tmp/pmem.txt" "$tmp/pdaddr.txt" "$tmp/src.json" "$tmp/obj.json" <<'PY'
import json, re, sys
names = {('L1 or L1 hit', 'None'): 'l1', ('L2 or L2 hit', 'None'): 'l2', ('L3 or L3 hit', 'None'): 'l3',
         ('L3 or L3 hit', 'HitM'): 'l3_hitm', ('Local RAM or RAM hit', 'Miss'): 'local_dram'}
want, shared = {}, 0
for line in open(sys.argv[1]):
    m = re.match(r'^\s+(\d+)\s+(.*?)\s{2,}(\S+)\s*$', line)
    if m and not line.startswith('#'):
        want[names.get((m.group(2), m.group(3)), f'{m.group(2)}/{m.group(3)}')] = int(m.group(1))
for line in open(sys.argv[2]):
    m = re.match(r'^\s+(\d+)\s+\[\.\] shared\+0x', line)
    if m:
        shared += int(m.group(1))
got = {}
for r in json.load(open(sys.argv[3])):
    for k in names.values():
        if r.get(k):
            got[k] = got.get(k, 0) + r[k]
obj = {r['data_object']: r['samples'] for r in json.load(open(sys.argv[4]))}
if got != want or obj.get('shared') != shared:
    print(f'FAIL mem_vs_perf_report: hwprof {got} shared {obj.get("shared")}; perf {want} shared {shared}')
else:
    print(f'PASS mem_vs_perf_report (perf report --mem-mode: {want}, data symbol shared {shared})')
PY
	fi
	"$HWPROF" c2c -i "$tmp/fs_$v.data" --json >"$tmp/c2c_$v.json"
	"$HWPROF" mem -i "$tmp/fs_$v.data" -s object --json >"$tmp/obj_$v.json"
	python3 - "$v" "$tmp/c2c_$v.json" "$line_a" "$line_b" "$tmp/obj_$v.json" <<'PY'
import json, sys
v, path, la, lb = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
objs = {r['data_object']: r for r in json.load(open(sys.argv[5]))}
rows = json.load(open(path))
top = [r for r in rows if r['rank'] == 1]
ours = [r for r in rows if r['line_offset'] is not None and r['symbol'] in ('bump_a', 'bump_b')]
if v == 'padded':
    # each counter on a line of its own: no line holds both, and neither
    # thread's increments find its line modified elsewhere (a counter's line
    # may still be listed: main reads both after the joins, and a sample
    # there is a real HITM, on one line)
    both = {r['rank'] for r in ours if r['symbol'] == 'bump_a'} & {r['rank'] for r in ours if r['symbol'] == 'bump_b'}
    hitm = [r for r in ours if r['hitm']]
    if both or hitm:
        print(f'FAIL c2c_padded: the padded counters are flagged: {(hitm or ours)[0]}')
    else:
        print(f'PASS c2c_padded (no line holds both counters, no HITM at the increments; '
              f'{len({r["rank"] for r in rows})} lines listed)')
    sys.exit(0)
if not top:
    print('FAIL c2c_false_sharing: no contended line'); sys.exit(0)
line, acc = top[0], top[1:]
offs = {r['line_offset'] for r in acc}
lines = {(r['symbol'], r['line']) for r in acc}
want = {('bump_a', la), ('bump_b', lb)}
problems = []
if line['hitm'] == 0: problems.append('no HITM')
if line['threads'] < 2: problems.append(f'{line["threads"]} thread')
if offs != {'0x0', '0x8'}: problems.append(f'offsets {sorted(offs)}')
if not want <= lines: problems.append(f'code lines {sorted(lines)}, want {sorted(want)}')
# the data object: the ELF data symbol of the counters (in .data), with the HITMs
if 'shared' not in objs or objs['shared']['hitm'] != line['hitm']:
    problems.append(f'data object: {objs.get("shared")}')
if problems:
    print('FAIL c2c_false_sharing: top line ' + ', '.join(problems))
else:
    print(f'PASS c2c_false_sharing (top line: {line["hitm"]} HITM, {line["threads"]} threads, '
          f'offsets 0x0 and 0x8 at lines {la} and {lb})')
PY
done
