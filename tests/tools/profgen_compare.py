#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares two llvm-profgen unsymbolized profiles (range and branch counts)
of BINARY: hwprof's ('ranges --format profgen') against llvm-profgen's own
('--skip-symbolization'), range by range and branch by branch.

One rule differs, and is applied to hwprof's side before comparing:
  plt   llvm-profgen decodes only code covered by function symbols, so an
        address in .plt / .plt.sec / .plt.got (no symbols there) is not code
        to it: ranges with an end there are dropped, branches to there are
        dropped, branches from there come from its "external" address.
        hwprof counts the PLT as the module's code it is.
Prints one summary line; exits 1 on any other difference (listing a few).
usage: profgen_compare.py BINARY HWPROF.txt PROFGEN.txt
"""
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


def main():
    binary, hw, pg = sys.argv[1:4]
    base, plt = layout(binary)
    ext = (1 - base) & (2**64 - 1)
    in_plt = lambda a: any(s <= a < e for s, e in plt)
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
    for (a, b), c in hb.items():
        if in_plt(b):
            dropped += 1
            continue
        k = (ext if in_plt(a) else a, b)
        b2[k] = b2.get(k, 0) + c
    bad = []
    for name, h, p in (("range", r2, pr), ("branch", b2, pb)):
        for k in sorted(set(h) | set(p)):
            if h.get(k) != p.get(k):
                bad.append(f"{name} {k[0]:x}{'-' if name == 'range' else '->'}{k[1]:x}: "
                           f"hwprof {h.get(k)} llvm-profgen {p.get(k)}")
    summary = (f"{len(pr)} ranges, {len(pb)} branches equal; {dropped} hwprof rows in the PLT "
               f"(rule 'plt')")
    if bad:
        print(f"{len(bad)} differences; first: " + "; ".join(bad[:5]))
        sys.exit(1)
    print(summary)


main()
