#!/bin/bash
# The machine-readable rows of `branches` and `mispredicts` (--json, --csv)
# carry separate fields that join with other tools' facts about the binary:
# module path, build-id (readelf -n), ELF address and symbol (nm: the
# symbol's address is vaddr - sym_offset), file offset (readelf -l: the
# segment mapping), source line (readelf --debug-dump=decodedline), and no
# display strings; text output keeps perf's display strings.
set -u
echo "PLAN 2" # the PIE and the non-PIE binary
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=${HWPROF_ROOT:-.}
gen=$root/${BUILD:-build}/tests/tools/gen_fixture_branches
for pie in pie no-pie; do
	bin=$tmp/branchy-$pie
	gcc -g -O1 -$pie -Wl,--build-id -o "$bin" "$root/tests/fixtures/branchy.c" || { echo "FAIL fields_build"; exit 0; }
	"$gen" "$bin" "$tmp/$pie.data" --samples 200 --seed 11 --tx >/dev/null
	nm "$bin" >"$tmp/$pie.nm"
	readelf -n "$bin" >"$tmp/$pie.notes"
	readelf -lW "$bin" >"$tmp/$pie.segs"
	readelf --debug-dump=decodedline "$bin" >"$tmp/$pie.lines" 2>/dev/null
	keys=symbol_from,srcline_from,addr_to,mispredict,in_tx,abort,cycles
	"$HWPROF" branches --json --sort "$keys" -i "$tmp/$pie.data" >"$tmp/$pie.json" &&
	"$HWPROF" branches --csv --sort "$keys" -i "$tmp/$pie.data" >"$tmp/$pie.csv" &&
	"$HWPROF" branches --sort "$keys" -i "$tmp/$pie.data" >"$tmp/$pie.txt" &&
	"$HWPROF" mispredicts --json -i "$tmp/$pie.data" >"$tmp/$pie.mis.json" &&
	"$HWPROF" mispredicts --csv -i "$tmp/$pie.data" >"$tmp/$pie.mis.csv" ||
		{ echo "FAIL fields_$pie: hwprof failed"; continue; }
	if out=$(python3 - "$tmp" "$pie" "$bin" <<'PY' 2>&1
import csv, json, re, sys
d, pie, binary = sys.argv[1:4]
p = lambda ext: f"{d}/{pie}.{ext}"
syms = {}
for l in open(p("nm")):
    f = l.split()
    if len(f) == 3 and f[1] in "tTwW":
        syms.setdefault(f[2], int(f[0], 16))
bid = re.search(r"Build ID: ([0-9a-f]+)", open(p("notes")).read()).group(1)
segs = [(int(m[0], 16), int(m[1], 16), int(m[2], 16)) for m in
        re.findall(r"LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)",
                   open(p("segs")).read())]  # (file offset, vaddr, memsz)
lines = {}  # address -> {(file base name, line)}
cur = None
for l in open(p("lines")):
    m = re.match(r"(\S+)\s+(\d+)\s+(0x[0-9a-f]+)", l)
    if m:
        lines.setdefault(int(m[3], 16), set()).add((m[1].rsplit("/", 1)[-1], int(m[2])))
starts = sorted(lines)

def vaddr_of(off):
    for o, v, sz in segs:
        if o <= off < o + sz:
            return off - o + v
    raise AssertionError(f"offset {off:#x} in no segment")

def check_loc(r, pre, want_line=True):
    assert r[pre + "module"] == binary, (r[pre + "module"], binary)
    assert r[pre + "build_id"] == bid, (r[pre + "build_id"], bid)
    off, va = int(r[pre + "offset"], 16), int(r[pre + "vaddr"], 16)
    assert vaddr_of(off) == va, f"{pre}offset {off:#x} is not vaddr {va:#x}"
    sym = r[pre + "symbol"]
    if sym in syms:  # PLT slots may be nameless or stretched symbols
        assert va - int(r[pre + "sym_offset"]) == syms[sym], f"{sym}: {va:#x} - {r[pre + 'sym_offset']}"
    if want_line and r[pre + "line"] not in (None, ""):
        at = max(a for a in starts if a <= va)
        got = (r[pre + "file"].rsplit("/", 1)[-1], int(r[pre + "line"]))
        assert got in lines[at], f"{va:#x}: {got} not in {lines[at]}"
        return 1
    return 0

js = json.load(open(p("json")))
rows = list(csv.DictReader(open(p("csv"), newline="")))
assert js and len(js) == len(rows), "json and csv rows"
with_lines = 0
for j, c in zip(js, rows):
    for k, v in j.items():  # CSV says the same as JSON
        cv = c[k]
        want = "" if v is None else ("true" if v is True else "false" if v is False else str(v))
        assert cv == want or (isinstance(v, float) and abs(float(cv) - v) < 1e-3 * max(1, v)), (k, v, cv)
        assert not (isinstance(v, str) and re.match(r"\[[.k]\] ", v)), f"display string in {k}: {v}"
    with_lines += check_loc(j, "from_")
    check_loc(j, "to_", want_line=False)
    assert isinstance(j["in_tx"], bool) and isinstance(j["abort"], bool)
    assert j["mispredict"] in (True, False)
    assert j["cycles"] is None or j["cycles"] > 0
    assert not any(k.startswith(("symbol_", "srcline_", "addr_")) for k in j), "display columns in json"
assert with_lines >= len(js) // 2, f"only {with_lines} of {len(js)} rows have a source line"
assert sum(j["count"] for j in js) == 200 * 16, "entries"
assert any(j["in_tx"] for j in js) and any(j["abort"] for j in js), "tx flags lost"
mis = json.load(open(p("mis.json")))
mrows = list(csv.DictReader(open(p("mis.csv"), newline="")))
assert mis and len(mis) == len(mrows)
for m in mis:
    check_loc(m, "")
    check_loc(m, "target_", want_line=False)
    assert not any(k in m for k in ("branch", "srcline", "top_target")), "display columns in json"
txt = open(p("txt")).read()
assert re.search(r"\[\.\] walk  ", txt) and re.search(r"\[\.\] \w+\+0x[0-9a-f]+", txt), "text lost display strings"
assert re.search(r"branchy\.c:\d+", txt), "text lost srclines"
print(f"{len(js)} rows, {with_lines} with lines; {len(mis)} mispredict rows")
PY
); then
		echo "PASS fields_$pie ($out)"
	else
		echo "FAIL fields_$pie: $(echo "$out" | tail -2)"
	fi
done
