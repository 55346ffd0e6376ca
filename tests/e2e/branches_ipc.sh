#!/bin/bash
# perf's ipc_lbr key: `hwprof branches --sort symbol_to,ipc_lbr` prints, per
# target symbol, the IPC and coverage that perf 6.1's algorithm gives
# (hist__account_cycles -> symbol__account_cycles -> annotation__compute_ipc),
# recomputed here in Python from the raw stacks (`hwprof script --json`),
# the symbols (`nm -S`) and the instruction boundaries (`objdump -d`).
# perf 6.1 itself prints uninitialized numbers for this key in --stdio, so
# it cannot be the oracle. Non-PIE binary: recorded address = ELF address.
set -u
command -v objdump >/dev/null || { echo "PLAN 1"; echo "SKIP branches_ipc: no objdump"; exit 0; }
echo "PLAN 2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
root=${HWPROF_ROOT:-.}
gen=$root/${BUILD:-build}/tests/tools/gen_fixture_branches
bin=$tmp/branchy
gcc -g -O1 -no-pie -o "$bin" "$root/tests/fixtures/branchy.c" || { echo "FAIL branches_ipc_build"; exit 0; }
check() { # name data
	local name=$1 data=$2
	"$HWPROF" script --json -i "$data" >"$tmp/$name.json" &&
	"$HWPROF" branches --sort symbol_to,ipc_lbr -i "$data" >"$tmp/$name.txt" 2>/dev/null ||
		{ echo "FAIL $name: hwprof failed"; return; }
	if out=$(python3 - "$bin" "$tmp/$name.json" "$tmp/$name.txt" <<'PY' 2>&1
import json, re, subprocess, sys
binary, stacks, table = sys.argv[1:4]
syms = []  # (start, end, name): sized functions
for l in subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if len(f) == 4 and f[2] in "tT" and int(f[1], 16):
        syms.append((int(f[0], 16), int(f[0], 16) + int(f[1], 16), f[3]))
insns = set()
for l in subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True, text=True).stdout.splitlines():
    m = re.match(r"\s+([0-9a-f]+):\t", l)
    if m:
        insns.add(int(m[1], 16))
def sym_of(a):
    for s in syms:
        if s[0] <= a < s[1]:
            return s
hist = {}  # (sym, offset) -> perf's struct cyc_hist fields
def account(s, addr, start, cycles):  # perf's __symbol__account_cycles
    have = start is not None
    ch = hist.setdefault((s, addr), {"num": 0, "have": False, "start": 0, "cycles": 0})
    if not have and ch["have"]:
        return
    if ch["num"]:
        if have and (not ch["have"] or ch["start"] > start):
            ch.update(num=0, have=False, cycles=0)
        elif have and ch["start"] < start:
            return
    ch.update(have=have, start=start if have else 0)
    ch["cycles"] += cycles
    ch["num"] += 1
for line in open(stacks):
    e = json.loads(line).get("branch_stack", {}).get("entries", [])
    if not e or not e[0]["cycles"]:
        continue
    prev = None
    for i in range(len(e) - 1, -1, -1):
        a = int(e[i]["from"], 16)
        s = sym_of(a)
        if s:  # perf's symbol__account_cycles
            start = prev
            if start is not None and not (s[0] <= start < s[1]):
                pass  # -ERANGE: not accounted
            else:
                if start is not None and start >= a:
                    start = None
                account(s, a, start, e[i]["cycles"])
        prev = int(e[i]["to"], 16)
want = {}
for s in syms:  # perf's annotation__compute_ipc
    count = lambda lo, hi: sum(1 for x in range(lo, hi + 1) if x in insns)
    total, covered = count(s[0], s[1] - 1), set()
    hit_insn = hit_cycles = cover = 0
    for addr in range(s[1] - 1, s[0] - 1, -1):
        ch = hist.get((s, addr))
        if not ch or not ch["cycles"] or not ch["have"]:
            continue
        n = count(ch["start"], addr)
        if n and ch["num"] and ch["cycles"]:
            fresh = [x for x in range(ch["start"], addr + 1) if x in insns and x not in covered]
            covered.update(fresh)
            if fresh:
                hit_cycles += ch["cycles"]; hit_insn += n * ch["num"]; cover += len(fresh)
    want[s[2]] = "%-5.2f [%5.1f%%]" % (hit_insn / hit_cycles if hit_cycles else 0, cover * 100 / total if total else 0)
checked = nonzero = 0
for l in open(table):
    m = re.match(r"\s+[\d.]+%\s+\d+\s+\[\.\] (\S+)\s+(.*\S)\s*$", l)
    if m and m[1] in want:
        assert m[2] == want[m[1]].strip(), f"{m[1]}: hwprof '{m[2]}', perf's algorithm '{want[m[1]].strip()}'"
        checked += 1
        nonzero += not m[2].startswith("0.00")
assert checked >= 3 and nonzero >= 2, f"only {checked} symbols checked ({nonzero} with an IPC)"
print(f"{checked} symbols, {nonzero} with an IPC")
PY
); then
		echo "PASS $name ($out)"
	else
		echo "FAIL $name: $(echo "$out" | tail -1)"
	fi
}
"$gen" "$bin" "$tmp/gen.data" --samples 400 --seed 9 >/dev/null
check branches_ipc_generated "$tmp/gen.data"
if [ -f "$root/${BUILD:-build}/hwprof-emu.so" ] && command -v qemu-x86_64 >/dev/null; then
	if "$HWPROF" record --emulate -c 3000 -o "$tmp/emu.data" -- "$bin" 100000 >/dev/null 2>&1; then
		check branches_ipc_emulated "$tmp/emu.data"
	else
		echo "FAIL branches_ipc_emulated: record --emulate failed"
	fi
else
	echo "SKIP branches_ipc_emulated: no emulation plugin or qemu-x86_64"
fi
