#!/bin/bash
# hwprof timing on an emulated recording of a real program (the bundled
# example, tests/fixtures/branchy.c), against the emulator's documented cost
# model and objdump: for every block of the program and of ld.so whose
# binary is at hand, the instruction count equals objdump's count of
# instructions from the block's start to its last instruction (n); IPC is
# n over the mean cycles; and every latency is one the model allows for n
# instructions: ceil((n + 2) / 2) (a half cycle per instruction, one cycle
# for the taken branch that ends the block) plus 16 per mispredicted branch
# among the previous taken branch and the block's c conditional branches
# that fell through: base + 16k, 0 <= k <= 1 + c. Every back edge of --loops is a jump
# (objdump's mnemonic) to an address not after it, in the same function.
# --block FILE:LINE, SYM and SYM+OFF select exactly the blocks objdump -dl
# and the symbols say contain that line or address. The cycles are labelled
# modelled.
set -u
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where emulated recording cannot run or objdump is missing
ready=$(emu_ready timing_emulated) || { echo "PLAN 1"; echo "$ready"; exit 0; }
command -v objdump >/dev/null || { echo "PLAN 1"; skip "timing_emulated: no objdump"; exit 0; }
echo "PLAN 3"
gcc -g -O1 -o "$tmp/branchy" "$root/tests/fixtures/branchy.c" || { fail "timing_emulated: gcc"; exit 0; }
if ! "$HWPROF" record --emulate -c 1009 -o "$tmp/b.data" -- "$tmp/branchy" 100000 >/dev/null 2>"$tmp/rec.err" ||
	! "$HWPROF" timing -q --csv -i "$tmp/b.data" >"$tmp/b.csv" ||
	! "$HWPROF" timing -q --histograms --csv -i "$tmp/b.data" >"$tmp/h.csv" ||
	! "$HWPROF" timing -q --loops --csv -i "$tmp/b.data" >"$tmp/l.csv" ||
	! "$HWPROF" timing -q --block branchy.c:28 --csv -i "$tmp/b.data" >"$tmp/line.csv" ||
	! "$HWPROF" timing -q --block classify --csv -i "$tmp/b.data" >"$tmp/sym.csv" ||
	! "$HWPROF" timing -q --block walk+0x40 --csv -i "$tmp/b.data" >"$tmp/symoff.csv"; then
	fail "timing_emulated: hwprof failed: $(head -1 "$tmp/rec.err")"
	exit 0
fi
python3 - "$tmp" <<'PY'
import csv, math, re, subprocess, sys
d = sys.argv[1]
dis = {}
def insns(module, start, end):
    """objdump's instructions of MODULE in [start, end] (ELF addresses), and their mnemonics"""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", f"--start-address={start:#x}",
                          f"--stop-address={end + 16:#x}", module], capture_output=True, text=True).stdout
    got = []
    for l in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", l)
        if m and int(m.group(1), 16) <= end:
            got.append((int(m.group(1), 16), m.group(2)))
    return got

hist = {}
for r in csv.DictReader(open(f"{d}/h.csv")):
    hist.setdefault((r["start_module"], r["start_offset"], r["end_offset"]), {})[int(r["cycles"])] = int(r["samples"])
bad, checked, lat = [], 0, 0
for r in csv.DictReader(open(f"{d}/b.csv")):
    if r["cycles_source"] != "modelled":
        bad.append(f"cycles_source {r['cycles_source']}")
    if not r["start_vaddr"] or not r["end_vaddr"]:
        continue
    s, e = int(r["start_vaddr"], 16), int(r["end_vaddr"], 16)
    ins = insns(r["start_module"], s, e)
    if not ins or ins[0][0] != s or ins[-1][0] != e:
        bad.append(f"{r['start_symbol']}+{r['start_sym_offset']}: objdump does not decode [{s:#x}, {e:#x}]")
        continue
    n = len(ins)
    if not r["instructions"] or int(r["instructions"]) != n:
        bad.append(f"{r['start_symbol']}: {r['instructions']} instructions, objdump {n}")
    elif abs(float(r["ipc"]) - n / float(r["mean"])) > 1e-3:
        bad.append(f"{r['start_symbol']}: ipc {r['ipc']} != {n} / {r['mean']}")
    base = math.ceil((n + 2) / 2)
    conds = sum(1 for _, m in ins[:-1] if m.startswith("j") and m != "jmp")
    allowed = {base + 16 * k for k in range(conds + 2)}
    h = hist[(r["start_module"], r["start_offset"], r["end_offset"])]
    odd = {c: k for c, k in h.items() if c not in allowed}
    if odd:
        bad.append(f"{r['start_symbol']}+{r['start_sym_offset']} ({n} insns, {conds} conditional): latencies "
                   f"{sorted(odd)[:5]} not in {sorted(allowed)}")
    checked += 1
    lat += sum(h.values())
if checked < 10:
    bad.append(f"only {checked} blocks could be checked")
print(("FAIL timing_emulated_model: " + "; ".join(bad[:6])) if bad else
      f"PASS timing_emulated_model ({checked} blocks, {lat} latencies as the cost model says, IPC = objdump's count / mean)")

bad, n = [], 0
for r in csv.DictReader(open(f"{d}/l.csv")):
    if not r["from_vaddr"] or not r["to_vaddr"]:
        continue
    b, h = int(r["from_vaddr"], 16), int(r["to_vaddr"], 16)
    ins = insns(r["from_module"], b, b)
    if not ins or not ins[0][1].startswith("j") or h > b or r["from_symbol"] != r["to_symbol"]:
        bad.append(f"{r['from_symbol']}+{r['from_sym_offset']} -> {r['to_symbol']}: {ins[:1]}")
    n += 1
print(("FAIL timing_emulated_loops: " + "; ".join(bad[:5])) if bad or not n else
      f"PASS timing_emulated_loops ({n} back edges, every one a backward jump inside its function)")

# --block: the blocks objdump -dl says hold an instruction of branchy.c:28,
# those starting in classify, and those holding walk+0x40
lines, cur = {}, None
for l in subprocess.run(["objdump", "-dl", "--no-show-raw-insn", f"{d}/branchy"], capture_output=True,
                        text=True).stdout.splitlines():
    m = re.match(r"^(/\S+):(\d+)", l)
    if m:
        cur = (m.group(1).rsplit("/", 1)[-1], int(m.group(2)))
        continue
    m = re.match(r"\s*([0-9a-f]+):\s", l)
    if m and cur:
        lines[int(m.group(1), 16)] = cur
syms = {}
for l in subprocess.run(["nm", f"{d}/branchy"], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 3:
        syms[f[2]] = int(f[0], 16)
blocks = [r for r in csv.DictReader(open(f"{d}/b.csv")) if r["start_module"].endswith("/branchy") and r["start_vaddr"]]
def rng(r):
    return int(r["start_vaddr"], 16), int(r["end_vaddr"], 16)
def sel(f):
    return {(r["start_offset"], r["end_offset"]) for r in csv.DictReader(open(f"{d}/{f}"))}
want_line = {(r["start_offset"], r["end_offset"]) for r in blocks
             if any(lines.get(a) == ("branchy.c", 28) for a in range(rng(r)[0], rng(r)[1] + 1))}
want_sym = {(r["start_offset"], r["end_offset"]) for r in blocks if r["start_symbol"] == "classify"}
at = syms["walk"] + 0x40
want_off = {(r["start_offset"], r["end_offset"]) for r in blocks if rng(r)[0] <= at <= rng(r)[1]}
bad = [f"{name}: hwprof {sorted(sel(f))}, objdump {sorted(w)}"
       for name, f, w in (("branchy.c:28", "line.csv", want_line), ("classify", "sym.csv", want_sym),
                          ("walk+0x40", "symoff.csv", want_off)) if sel(f) != w or not w]
print(("FAIL timing_emulated_block: " + "; ".join(bad)) if bad else
      f"PASS timing_emulated_block (branchy.c:28: {len(want_line)} blocks, classify: {len(want_sym)}, walk+0x40: {len(want_off)})")
PY
