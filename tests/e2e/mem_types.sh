#!/bin/bash
# Data types of memory samples (mem -s type, annotate, c2c; perf annotate
# --data-type's question) on tests/fixtures/mem_types.c (fields through a
# pointer parameter, a global struct, a global array of structs, a linked
# list, a struct on the stack, false sharing; one access nothing names)
# built with gcc -O2 -g and recorded with record --emulate --mem. The oracle is the fixture's
# source: each access it makes is on a line marked FIELD=type.member (or
# FIELD=unknown where no variable holds the pointer), and llvm-dwarfdump's
# member offsets against objdump's operands:
#  - mem_types_generated: a generated recording (tests/tools/gen_mem_at)
#    with one sample on each memory access of the marked lines names each
#    as its line says, with no program run; and mem_walk.c's loads, inlined
#    into its callers, are char (its 'const volatile char *' parameter);
#  - mem_types_fields: every sampled instruction on a marked line names its
#    line's type and member (the unknown one says unknown);
#  - mem_types_fraction: at least 90% of the fixture's own samples typed;
#  - mem_types_offsets: for the accesses through a pointer parameter or a
#    global, the member named sits, in llvm-dwarfdump's DWARF, at the
#    instruction's displacement (objdump), modulo the struct's size;
#  - mem_types_sort: mem -s type sums the instructions of each type, and its
#    '# data types' line counts the typed rows;
#  - mem_types_annotate: annotate's memory column and JSON carry the type;
#  - mem_types_c2c: the false-sharing line of the two threads names
#    struct counters, its offsets struct counters.x and .y;
#  - mem_types_corpus: the corpus PEBS recording (no binary here) types
#    nothing: every row is unknown, no guess.
. "$(dirname "$0")/../tools/emu_lib.sh"
echo "PLAN 8"
corpus=$root/../shared/corpus/perf_data_converter/perf.data.weight_struct
if [ -f "$corpus" ] && [ -x "${HWPROF:-}" ]; then
	"$HWPROF" mem -s type --json -i "$corpus" >"$tmp/corpus.json" 2>"$tmp/corpus.err"
	python3 - "$tmp/corpus.json" "$tmp/corpus.err" <<'PY'
import json, re, sys
rows = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
m = re.search(r'data types: (\d+) of (\d+)', err)
typed = [r for r in rows if r.get('data_type')]
if m and m.group(1) == '0' and not typed and sum(r['samples'] for r in rows) == int(m.group(2)):
    print(f'PASS mem_types_corpus (0 of {m.group(2)} PEBS samples typed: no binary, every row unknown)')
else:
    print(f'FAIL mem_types_corpus: {len(typed)} typed rows; stderr {err.strip()!r}')
PY
else
	skip "mem_types_corpus: no corpus recording at $corpus, or no hwprof binary"
fi
src=$root/tests/fixtures/mem_types.c
if ! command -v gcc >/dev/null || ! command -v objdump >/dev/null || [ ! -x "${HWPROF:-}" ] ||
	! gcc -O2 -g -pthread -o "$tmp/mt" "$src"; then
	for t in generated fields fraction offsets sort annotate c2c; do
		skip "mem_types_$t: no gcc, objdump or hwprof binary, or the fixture does not build"
	done
	exit 0
fi
# --- generated samples, one on each memory access of a marked line (no
# program runs: the binary alone says what is named)
objdump -dl --no-show-raw-insn "$tmp/mt" >"$tmp/objdump_l.txt"
python3 - "$src" "$tmp/objdump_l.txt" >"$tmp/at.txt" <<'PY'
import re, sys
field = {n: m.group(1) for n, line in enumerate(open(sys.argv[1]), 1)
         if (m := re.search(r'FIELD=(\S+(?: \S+)?)\s*\*/', line))}
line = None
for text in open(sys.argv[2]):
    m = re.match(r'^/\S*mem_types\.c:(\d+)', text)
    if m:
        line = int(m.group(1))
        continue
    if re.match(r'^\S', text):
        line = None if not text.startswith('/') else line
    m = re.match(r'^\s+([0-9a-f]+):\s+(\S+)\s*(.*)$', text)
    if m and line in field and ('(' in m.group(3) or m.group(2).startswith('call')) and \
            not m.group(2).startswith(('lea', 'nop')):
        want = '(stack operation)' if m.group(2).startswith('call') else field[line]
        print(f'0x{m.group(1)} {want}')
PY
# and tests/fixtures/mem_walk.c's loads, inlined into each walk_* function
# through a 'const volatile char *' parameter: char
if gcc -O2 -g -o "$tmp/walk" "$root/tests/fixtures/mem_walk.c"; then
	objdump -dl --no-show-raw-insn "$tmp/walk" >"$tmp/walk_l.txt"
	wl=$(grep -n 'WALK_LOAD' "$root/tests/fixtures/mem_walk.c" | cut -d: -f1)
	awk -v l="mem_walk.c:$wl" '/^\//{on = index($0, l) > 0; next} /^[^ ]/{on = 0} on && /\(%/ && !/lea/{sub(":", "", $1); print "0x" $1 " char"}' \
		"$tmp/walk_l.txt" >"$tmp/walk_at.txt"
	"$build/tests/tools/gen_mem_at" "$tmp/walkgen.data" "$tmp/walk" $(cut -d' ' -f1 "$tmp/walk_at.txt") 2>>"$tmp/gen.err" &&
		"$HWPROF" mem -s ip --json -i "$tmp/walkgen.data" >"$tmp/walkgen.json" 2>/dev/null
fi
"$build/tests/tools/gen_mem_at" "$tmp/gen.data" "$tmp/mt" $(cut -d' ' -f1 "$tmp/at.txt") 2>"$tmp/gen.err" &&
	"$HWPROF" mem -s ip --json --limit 1000000 -i "$tmp/gen.data" >"$tmp/gen.json" 2>/dev/null
python3 - "$tmp/at.txt" "$tmp/gen.json" "$tmp/walk_at.txt" "$tmp/walkgen.json" <<'PY'
import json, sys
bad, n = [], 0
for at, js in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    try:
        want = {int(l.split(' ', 1)[0], 16): l.split(' ', 1)[1].strip() for l in open(at)}
        rows = json.load(open(js))
    except Exception as e:
        bad.append(f'no report for {at} ({e})')
        continue
    got = {int(r['offset'], 16): r['data_type_display'] for r in rows}
    bad += [f'{o:#x}: {got.get(o)!r}, source says {w!r}' for o, w in sorted(want.items()) if got.get(o) != w]
    n += len(want) if want else 0
    if not want:
        bad.append(f'no instruction found in {at}')
print(f'PASS mem_types_generated ({n} memory instructions of the marked lines of mem_types.c and mem_walk.c, each named as its line says)'
      if not bad else f'FAIL mem_types_generated: {n} instructions; ' + '; '.join(bad[:5]))
PY
# --- recorded with the emulator
ready=$(emu_ready mem_types) || {
	for t in fields fraction offsets sort annotate c2c; do skip "mem_types_$t: ${ready#SKIP }"; done
	exit 0
}
if ! "$HWPROF" record -q --emulate --mem -c 53 -o "$tmp/mt.data" -- "$tmp/mt" 20 >/dev/null 2>"$tmp/err"; then
	for t in fields fraction offsets sort annotate c2c; do fail "mem_types_$t: record: $(head -1 "$tmp/err")"; done
	exit 0
fi
"$HWPROF" mem -s ip --json --limit 1000000 -i "$tmp/mt.data" >"$tmp/ip.json" 2>/dev/null
"$HWPROF" mem -s type --json --limit 1000000 -i "$tmp/mt.data" >"$tmp/type.json" 2>"$tmp/type.err"
objdump -d --no-show-raw-insn "$tmp/mt" >"$tmp/objdump.txt"
llvm-dwarfdump-19 --debug-info "$tmp/mt" >"$tmp/dwarf.txt" 2>/dev/null || : >"$tmp/dwarf.txt"
python3 - "$src" "$tmp/ip.json" "$tmp/type.json" "$tmp/type.err" "$tmp/objdump.txt" "$tmp/dwarf.txt" "$tmp/mt" <<'PY'
import json, re, sys
src, ipf, typef, errf, objf, dwf, binary = sys.argv[1:]
field = {}
for n, line in enumerate(open(src), 1):
    m = re.search(r'FIELD=(\S+(?: \S+)?)\s*\*/', line)
    if m:
        field[n] = m.group(1)
rows = [r for r in json.load(open(ipf)) if r.get('module') == binary]
allrows = json.load(open(ipf))

insn = {}
for line in open(objf):
    m = re.match(r'^\s+([0-9a-f]+):\s+(.*)$', line)
    if m:
        insn[int(m.group(1), 16)] = m.group(2)

# fields: each sampled instruction on a marked line (a call there is a
# stack operation, as objdump shows)
bad, seen = [], set()
for r in rows:
    want = field.get(r.get('line'))
    if (r.get('file') or '').endswith('mem_types.c') and want:
        seen.add(want)
        stack = re.match(r'(call|push|pop|ret)', insn.get(int(r['vaddr'], 16), ''))
        if r['data_type_display'] != (want if not stack else '(stack operation)'):
            bad.append(f"{r['symbol']}+{r['sym_offset']:#x} line {r['line']}: {r['data_type_display']!r}, source says {want!r}")
missing = set(field.values()) - seen
if bad or missing:
    print('FAIL mem_types_fields: ' + '; '.join(bad[:5]) + (f'; never sampled: {sorted(missing)}' if missing else ''))
else:
    print(f'PASS mem_types_fields ({len(seen)} fields of the source, {sum(1 for r in rows if r.get("line") in field)} instructions, unknown said unknown)')

# fraction: the fixture's own samples
tot = sum(r['samples'] for r in rows)
typed = sum(r['samples'] for r in rows if r.get('data_type'))
share = typed / tot if tot else 0
print(f'PASS mem_types_fraction ({typed} of {tot} fixture samples typed: {share:.1%})' if share >= 0.9 else
      f'FAIL mem_types_fraction: {typed} of {tot} ({share:.1%}) typed, under 90%')

# offsets: llvm-dwarfdump's member offsets against the operands objdump prints
dies, structs = {}, {}
cur = None
for line in open(dwf):
    m = re.match(r'^0x[0-9a-f]+:\s+DW_TAG_(\w+)', line)
    if m:
        cur = {'tag': m.group(1), 'indent': len(line) - len(line.lstrip())}
        continue
    m = re.match(r'\s+DW_AT_(name|byte_size|data_member_location)\s+\(("?)([^")]*)', line)
    if cur is not None and m:
        cur[m.group(1)] = m.group(3)
        if cur['tag'] == 'structure_type' and m.group(1) == 'byte_size' and 'name' in cur:
            structs[cur['name']] = {'size': int(cur['byte_size'], 0), 'members': {}}
            last = cur['name']
        if cur['tag'] == 'member' and m.group(1) == 'data_member_location' and 'name' in cur and structs:
            structs[last]['members'][cur['name']] = int(cur['data_member_location'], 0)
bad, n = [], 0
for r in rows:
    if r.get('symbol') not in ('rec_sum', 'list_sum', 'bump_x', 'bump_y', 'config_limit') or not r.get('data_member'):
        continue
    va = int(r['vaddr'], 16)
    text = insn.get(va, '')
    sym = re.search(r'<\w+\+(0x[0-9a-f]+)>', text)
    disp = re.search(r'(-?0x[0-9a-f]+)?\(%r\w+', text)
    off = int(sym.group(1), 16) if sym else int(disp.group(1) or '0', 16) if disp else None
    st = structs.get(r['data_type'].split()[-1])
    if off is None or not st or st['members'].get(r['data_member']) != off % st['size']:
        bad.append(f"{va:#x} {text!r}: {r['data_type_display']} (DWARF: {st and st['members']})")
    n += 1
print(f'PASS mem_types_offsets ({n} instructions: member offsets of llvm-dwarfdump-19 = operand displacements)'
      if n and not bad else f'FAIL mem_types_offsets: {n} checked; ' + '; '.join(bad[:4]))

# sort: -s type sums the instructions; the typed line counts its rows
types = json.load(open(typef))
by = {}
for r in allrows:
    by[r['data_type_display']] = by.get(r['data_type_display'], 0) + r['samples']
got = {r['data_type_display']: r['samples'] for r in types}
m = re.search(r'data types: (\d+) of (\d+)', open(errf).read())
typed_rows = sum(r['samples'] for r in types if r.get('data_type'))
ok = got == by and m and int(m.group(1)) == typed_rows and int(m.group(2)) == sum(got.values())
print(f'PASS mem_types_sort ({len(types)} types; {m.group(1)} of {m.group(2)} samples typed in all)' if ok else
      f'FAIL mem_types_sort: -s type and -s ip disagree or the typed line is off ({m and m.group(0)})')
PY
# annotate: the memory column of rec_sum's load of total
"$HWPROF" annotate -i "$tmp/mt.data" --sym rec_sum >"$tmp/ann.txt" 2>/dev/null
"$HWPROF" annotate -i "$tmp/mt.data" --sym rec_sum --json >"$tmp/ann.json" 2>/dev/null
if grep -q 'type struct rec.total' "$tmp/ann.txt" && grep -q 'type struct rec.flags' "$tmp/ann.txt" &&
	grep -q '^# data types: [0-9]* of [0-9]* memory samples' "$tmp/ann.txt" &&
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if {"struct rec.total","struct rec.flags"} <= {x.get("memory_data_type") for x in r} else 1)' "$tmp/ann.json"; then
	pass "mem_types_annotate (rec_sum's loads name struct rec.total and .flags, text and JSON; the typed line)"
else
	fail "mem_types_annotate: $(grep -c 'type struct' "$tmp/ann.txt") typed lines in the text"
fi
# c2c: the counters' line, its two offsets named
"$HWPROF" c2c -i "$tmp/mt.data" --json >"$tmp/c2c.json" 2>/dev/null
python3 - "$tmp/c2c.json" "$tmp/dwarf.txt" <<'PY'
import json, re, sys
rows = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
# the offsets of x and y in struct counters, as llvm-dwarfdump prints them
blk = text[text.find('DW_AT_name\t("counters")'):]
offs = dict((n, int(o, 0)) for n, o in re.findall(r'DW_AT_name\t\("(\w+)"\)[^\n]*\n(?:[^\n]*\n){0,6}?\s+DW_AT_data_member_location\t\((0x[0-9a-f]+)\)', blk)[:2])
lines = {}
for r in rows:
    lines.setdefault(r['rank'], []).append(r)
ok = False
for rank, rs in lines.items():
    acc = [r for r in rs if r.get('line_offset') is not None]
    if rs[0].get('data_type') == 'struct counters' and acc:
        named = {(int(r['line_offset'], 16), r['data_type_display']) for r in acc}
        want = {(offs.get('x'), 'struct counters.x'), (offs.get('y'), 'struct counters.y')}
        ok = named == want
        break
print(f'PASS mem_types_c2c (line {rank}: struct counters, offsets {sorted(named)})' if ok else
      f'FAIL mem_types_c2c: no line names struct counters with x at {offs.get("x")} and y at {offs.get("y")}')
PY
