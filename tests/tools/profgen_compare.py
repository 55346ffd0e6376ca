#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares two llvm-profgen unsymbolized profiles (range and branch counts)
of BINARY: hwprof's ('ranges --format profgen') against llvm-profgen's own
('--skip-symbolization'), range by range and branch by branch.

Two rules differ, and are applied to hwprof's side before comparing:
  plt       llvm-profgen decodes only code covered by function symbols, so
            an address in .plt / .plt.sec / .plt.got (no symbols there) is
            not code to it. hwprof counts the PLT as the module's code it is.
  not_insn  llvm-profgen takes an address that is no instruction start of
            its disassembly (from each symbol's start) for not code. hwprof
            keeps such a branch address in its module (a range end there is
            rejected, "misaligned", by both).
And one rule applied to llvm-profgen's side:
  ind_jump  llvm-profgen's "range crosses an unconditional branch" check
            leaves out indirect jumps (MCInstrDesc::isUnconditionalBranch is
            false for them), so it accepts a range that runs through a
            'jmp *'; hwprof rejects it (crosses_branch): such ranges are
            dropped from llvm-profgen's side (found with objdump -d).
An address that is not code to llvm-profgen: ranges with an end there are
dropped, branches to there are dropped, branches from there come from its
"external" address.
Prints one summary line; exits 1 on any other difference (listing a few).
usage: profgen_compare.py BINARY HWPROF.txt PROFGEN.txt
"""
import re
import subprocess
import sys


def read_profile(path):
    with open(path) as f:
        lines = [l.strip() for l in f if l.strip()]
    out, i = [], 0
    for sep in ("-", "->"):
        n = int(lines[i])
        i += 1
        sect = {}
        for l in lines[i:i + n]:
            pair, count = l.rsplit(":", 1)
            a, b = pair.split(sep)
            key = (int(a, 16), int(b, 16))
            sect[key] = sect.get(key, 0) + int(count)
        i += n
        out.append(sect)
    if i != len(lines):
        raise SystemExit(f"{path}: {len(lines) - i} lines after the branch section")
    return out


def layout(binary):
    """(base, [(start, end)] of PLT sections), addresses relative to base."""
    ph = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout
    base = None
    for l in ph.splitlines():
        f = l.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1] and base is None:
            base = int(f[2], 16) & ~0xfff
    sh = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    plt = []
    for l in sh.splitlines():
        l = l.replace("[ ", "[")
        f = l.split()
        if len(f) > 5 and f[1].startswith(".plt"):
            addr, size = int(f[3], 16), int(f[5], 16)
            plt.append((addr - base, addr - base + size))
    return base, plt


def insn_starts(binary, base):
    """Instruction starts, and those of indirect jumps, relative to base."""
    out = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", binary],
                         capture_output=True, text=True, check=True).stdout
    starts, ind = set(), []
    for m in re.finditer(r"^\s*([0-9a-f]+):\t(.*)$", out, re.M):
        a = int(m.group(1), 16) - base
        starts.add(a)
        w = [x for x in m.group(2).split() if x not in ("bnd", "notrack")]
        if len(w) > 1 and w[0] == "jmp" and w[1].startswith("*"):
            ind.append(a)
    return starts, sorted(ind)


def main():
    binary, hw, pg = sys.argv[1:4]
    base, plt = layout(binary)
    ext = (1 - base) & (2**64 - 1)
    starts, ind_jumps = insn_starts(binary, base)
    notes = {"plt": set(), "not_insn": set()}

    def in_plt(a):  # not code to llvm-profgen: the distinct addresses, by rule
        if a == ext:
            return True
        if any(s <= a < e for s, e in plt):
            notes["plt"].add(a)
            return True
        if a not in starts:
            notes["not_insn"].add(a)
            return True
        return False
    hr, hb = read_profile(hw)
    pr, pb = read_profile(pg)
    dropped = 0
    r2 = {}
    for (a, b), c in hr.items():
        if in_plt(a) or in_plt(b):
            dropped += 1
            continue
        r2[(a, b)] = c
    b2 = {}
    merged = 0
    for (a, b), c in hb.items():
        if in_plt(b):
            dropped += 1
            continue
        k = (ext if in_plt(a) else a, b)
        merged += k[0] == ext and a != ext
        b2[k] = b2.get(k, 0) + c
    through_ind = 0
    for (a, b) in list(pr):
        if any(a <= j < b for j in ind_jumps):
            through_ind += 1
            del pr[(a, b)]
    bad = []
    for name, h, p in (("range", r2, pr), ("branch", b2, pb)):
        for k in sorted(set(h) | set(p)):
            if h.get(k) != p.get(k):
                bad.append(f"{name} {k[0]:x}{'-' if name == 'range' else '->'}{k[1]:x}: "
                           f"hwprof {h.get(k)} llvm-profgen {p.get(k)}")
    summary = (f"{len(pr)} ranges, {len(pb)} branches equal; by rule {dropped} hwprof rows dropped, "
               f"{merged} branch sources made external (addresses: plt {len(notes['plt'])}, "
               f"not_insn {len(notes['not_insn'])}); {through_ind} llvm-profgen ranges through "
               f"an indirect jump dropped")
    if bad:
        print(f"{len(bad)} differences; first: " + "; ".join(bad[:5]))
        sys.exit(1)
    print(summary)


main()
