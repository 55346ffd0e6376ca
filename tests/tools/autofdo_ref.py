#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The AutoFDO unsymbolized text of BINARY from perf's own text, by the rules
'simpleperf inject' documents for LBR data: per sample, the sample address
(address counts), each entry with both ends in BINARY (branch counts), and
for consecutive entries e[i] (older), e[i-1] (newer) with e[i].to and
e[i-1].from in BINARY and 0 <= from - to <= 1 MiB the range [e[i].to,
e[i-1].from] (range counts). Addresses: the file offset (through the
process's MMAP2 records) turned into a link-time address through readelf's
program headers, minus the first PT_LOAD's address; sorted.
usage: perf script --show-mmap-events --show-task-events -F pid,tid,ip,brstack -i DATA |
       autofdo_ref.py BINARY
"""
import os
import re
import subprocess
import sys

MMAP = re.compile(r"PERF_RECORD_MMAP2? (-?\d+)/\d+: \[0x([0-9a-f]+)\(0x([0-9a-f]+)\) @ (0x[0-9a-f]+|0)[^\]]*\]: (\S+) (.*)$")
FORK = re.compile(r"PERF_RECORD_FORK\((\d+):\d+\):\((\d+):\d+\)")
SAMPLE = re.compile(r"^\s*(-?\d+)/(-?\d+)\s+([0-9a-f]+)\s")
ENTRY = re.compile(r"0x([0-9a-f]+)/0x([0-9a-f]+)/")


def main():
    binary = sys.argv[1]
    real = os.path.realpath(binary)
    ph = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout
    loads = []
    for l in ph.splitlines():
        f = l.split()
        if f and f[0] == "LOAD":
            loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    base = loads[0][1]
    maps = {}

    def vaddr(pid, a):
        for s, e, pgoff, path in maps.get(pid, []):
            if s <= a < e:
                if os.path.realpath(path) != real:
                    return None
                off = a - s + pgoff
                for o, v, sz in loads:
                    if o <= off < o + sz:
                        return off - o + v - base
                return None
        return None

    ranges, addrs, branches = {}, {}, {}
    for line in sys.stdin:
        if "PERF_RECORD_" in line:
            m = MMAP.search(line)
            if m:
                s, n = int(m.group(2), 16), int(m.group(3), 16)
                maps.setdefault(int(m.group(1)), []).append((s, s + n, int(m.group(4), 16), m.group(6).strip()))
            m = FORK.search(line)
            if m and m.group(1) != m.group(2):
                maps[int(m.group(1))] = list(maps.get(int(m.group(2)), []))
            continue
        m = SAMPLE.match(line)
        if not m:
            continue
        pid = int(m.group(1))
        ip = vaddr(pid, int(m.group(3), 16))
        if ip is not None:
            addrs[ip] = addrs.get(ip, 0) + 1
        e = [(vaddr(pid, int(x.group(1), 16)), vaddr(pid, int(x.group(2), 16))) for x in ENTRY.finditer(line)]
        for i, (f, t) in enumerate(e):
            if f is not None and t is not None:
                branches[(f, t)] = branches.get((f, t), 0) + 1
            if i and t is not None and e[i - 1][0] is not None:
                b, en = t, e[i - 1][0]
                if 0 <= en - b <= 1 << 20:
                    ranges[(b, en)] = ranges.get((b, en), 0) + 1
    print(len(ranges))
    for (a, b), c in sorted(ranges.items()):
        print(f"{a:x}-{b:x}:{c}")
    print(len(addrs))
    for a, c in sorted(addrs.items()):
        print(f"{a:x}:{c}")
    print(len(branches))
    for (a, b), c in sorted(branches.items()):
        print(f"{a:x}->{b:x}:{c}")


main()
