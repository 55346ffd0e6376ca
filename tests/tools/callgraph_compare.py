#!/usr/bin/env python3
"""Compares `hwprof callgraph --json` with `perf report --children --stdio -g none`.

usage: callgraph_compare.py PERF_REPORT.txt HWPROF.json MMAPS.txt

The oracle is perf's text, parsed here by its column rulers. Normalizations,
each one a difference of presentation, not of counts:
  1. perf splits rows by Command; hwprof does not: perf's rows of one
     function are summed over commands (tolerance grows with the rows summed,
     as each was rounded to 0.01%).
  2. A function is (shared object, symbol); [k]/[.] is not part of the key.
  3. Unresolved addresses: perf prints a sample's own address relative to its
     mapping and callchain addresses as recorded, in two rows for one place;
     hwprof keys both by module offset. perf's recorded addresses that fall
     in a mapping of that object (MMAPS: `perf script --show-mmap-events`)
     are turned into offsets, and the two rows merged (children: the larger,
     which counts every sample with the address on its stack; self: the sum).
  4. Kernel modules: both put a module's addresses in its map ([ath9k], from
     the recording's MMAP of ath9k.ko: hwprof's JSON names the .ko, perf's
     text "[ath9k]") and print them absolute; both are keyed by module
     offset as in 3.
  5. [vdso] rows are not compared: where a recording has no vDSO image,
     perf 6.1 names its addresses with this machine's vDSO from its cache
     (a different kernel's code), which hwprof does not do.
  6. JIT code of a perf map: hwprof's JSON names the module by its path,
     /tmp/perf-PID.map; perf's column shows "[JIT] tid PID" for it.
  7. Addresses in [stack]: a frame an unwinder read off the stack where a
     function without CFI (crti.o's _fini, at exit) was stepped out of by
     guessing. perf 6.1's libunwind does so where hwprof's libdwfl walk
     goes on to _start: the [stack] rows are not compared, and every
     function's children may differ by up to perf's [stack] share (those
     samples' outer frames); self is compared as it is. The same for
     perf's vDSO samples: without the vDSO image in its build-id cache
     perf 6.1 may not unwind out of it, where hwprof does.
  8. With CMP_CUT=1 (DWARF stacks of real programs, which a frame with
     large buffers can push past the end of the stack copy): perf 6.1's
     libunwind ends such a stack with a frame at 0xffffffffffffffff (its
     failed read of the return address, 0, minus one) and, where the
     return address is the copy's last word, one frame earlier than hwprof.
     That [unknown] row is not compared, and every function's children may
     differ by up to its share, as in 7.
With CMP_DSO=REGEX only the functions of shared objects (perf's names)
matching REGEX are compared.
Prints one line: PASS NAME (...) or FAIL NAME: the worst differences.
"""
import json
import os
import re
import sys
from collections import defaultdict

name = os.environ.get("CMP_NAME", "callgraph")


def columns(lines):
    for l in lines:
        if l.startswith("# ....."):
            spans, i = [], 1
            for m in re.finditer(r"\.+", l):
                spans.append((m.start(), m.end()))
            return spans
    return None


def parse_perf(path):
    lines = open(path, errors="replace").read().split("\n")
    spans = columns(lines)
    rows = []
    if not spans or len(spans) < 5:
        return rows
    for l in lines:
        if not l.strip() or l.startswith("#"):
            continue
        m = re.match(r"\s*([\d.]+)%\s+([\d.]+)%\s", l)
        if not m:
            continue
        comm = l[spans[2][0]:spans[3][0]].strip()
        dso = l[spans[3][0]:spans[4][0]].strip()
        sym = l[spans[4][0]:].strip()
        sm = re.match(r"\[(.)\] (.*)$", sym)
        if not sm:
            continue
        rows.append((float(m.group(1)), float(m.group(2)), comm, dso, sm.group(2).strip()))
    return rows


def parse_mmaps(path):
    maps = defaultdict(list)  # basename -> [(start, end, pgoff)]
    rx = re.compile(r"\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|\d+)[^\]]*\]: \S+ (.*)$")
    for l in open(path, errors="replace"):
        m = rx.search(l)
        if not m:
            continue
        start, size, pgoff = int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 0)
        base = os.path.basename(m.group(4).strip())
        if re.search(r"\.ko(\.[a-z]+)?$", base):
            base = "[" + re.sub(r"\.ko(\.[a-z]+)?$", "", base).replace("-", "_") + "]"
        maps[base].append((start, start + size, pgoff))
    return maps


def addr_of(sym):
    # perf's "%-#.*llx" with 16 digits ("0x" and 16 digits; 0 has no "0x")
    if re.fullmatch(r"0x[0-9a-f]{16}|0{16}", sym):
        return int(sym, 16)
    return None


def main():
    perf_rows = parse_perf(sys.argv[1])
    mine = json.load(open(sys.argv[2]))
    maps = parse_mmaps(sys.argv[3])
    if not perf_rows:
        print(f"FAIL {name}: no rows in perf's report")
        return 1

    # perf: (comm, key) -> children of the recorded-address rows (summed: one
    # per process mapping the object elsewhere), children of the offset rows
    # (summed), self (summed), rows
    per_comm = defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    vdso = 0.0  # the samples in the vDSO (see 5 and 7)
    for ch, se, comm, dso, sym in perf_rows:
        a = addr_of(sym)
        if dso == "[vdso]":
            vdso = max(vdso, ch)
            continue
        raw = False
        if a is not None:
            if dso not in ("[unknown]", "[kernel.kallsyms]"):
                for lo, hi, pgoff in maps.get(dso, []):
                    if lo <= a < hi:
                        a, raw = a - lo + pgoff, True
                        break
            key = (dso, a)
        else:
            key = (dso, sym)
        if dso == "[stack]":
            key = (dso, "(any address)")
        c = per_comm[(comm, key)]
        c[0 if raw else 1] += ch
        c[2] += se
        c[3] += 1
    perf = defaultdict(lambda: [0.0, 0.0, 0])
    for (comm, key), (ch_raw, ch_off, se, n) in per_comm.items():
        p = perf[key]
        p[0] += max(ch_raw, ch_off)
        p[1] += se
        p[2] += n

    got = defaultdict(lambda: [0.0, 0.0])
    for r in mine:
        mod = r.get("module")
        dso = os.path.basename(mod) if mod else "[unknown]"
        jit = re.fullmatch(r"/tmp/perf-(\d+)\.map", mod or "")
        if jit:
            dso = f"[JIT] tid {jit.group(1)}"
        if r.get("kernel") and mod and mod.startswith("[kernel"):
            dso = "[kernel.kallsyms]"
        if dso == "[vdso]":
            continue
        if r.get("kernel") and re.search(r"\.ko(\.[a-z]+)?$", dso):
            dso = "[" + re.sub(r"\.ko(\.[a-z]+)?$", "", dso).replace("-", "_") + "]"
            if not r.get("symbol"):
                a = int(r["offset"], 16)
                hit = [lo for lo, hi, pg in maps.get(dso, []) if lo <= a < hi]
                if hit:
                    r = dict(r, offset=hex(a - hit[0]))
        key = (dso, r["symbol"]) if r.get("symbol") else (dso, int(r["offset"], 16))
        if dso == "[stack]":
            key = (dso, "(any address)")
        got[key][0] += r["children_percent"]
        got[key][1] += r["self_percent"]

    garbage = perf.get(("[stack]", "(any address)"), [0.0, 0.0, 0])[0] + vdso
    if os.environ.get("CMP_CUT") == "1":
        garbage += perf.pop(("[unknown]", 0xffffffffffffffff), [0.0, 0.0, 0])[0]
    perf.pop(("[stack]", "(any address)"), None)
    got.pop(("[stack]", "(any address)"), None)
    bad = []
    keys = set(perf) | set(got)
    only = os.environ.get("CMP_DSO")
    if only:
        keys = {k for k in keys if re.search(only, k[0])}
        if not keys:
            print(f"FAIL {name}: no function of a shared object matching {only}")
            return 1
    for key in keys:
        p = perf.get(key, [0.0, 0.0, 1])
        g = got.get(key, [0.0, 0.0])
        tol = 0.005 * max(p[2], 1) + 0.0001
        dc, ds = abs(p[0] - g[0]), abs(p[1] - g[1])
        if dc > tol + garbage or ds > tol:
            bad.append((max(dc, ds), key, p[:2], g))
    if bad:
        bad.sort(key=lambda b: -b[0])
        det = "; ".join(f"{k[0]} {k[1] if isinstance(k[1], str) else hex(k[1])}: perf {p[0]:.2f}/{p[1]:.2f} "
                        f"hwprof {g[0]:.2f}/{g[1]:.2f}" for _, k, p, g in bad[:5])
        print(f"FAIL {name}: {len(bad)} of {len(keys)} functions differ (children/self): {det}")
        return 1
    print(f"PASS {name} ({len(keys)} functions, children and self within perf's rounding)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
