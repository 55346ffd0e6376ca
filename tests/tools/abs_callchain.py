#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`perf script --show-mmap-events -F ip,dso,brstack` on stdin -> the same
with `-F ip,brstack`'s layout but every callchain address absolute, as the
kernel recorded it (perf 6.1 prints a callchain address relative to its
mapping: the file offset; llvm-profgen --perfscript reads it as an address).
A frame of no known mapping is printed as it came."""
import re
import sys

MMAP = re.compile(r"PERF_RECORD_MMAP2? .*\[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)\b.*\]: \S+ (.*)$")
FRAME = re.compile(r"^(\s+)([0-9a-f]+) \((.*)\)$")
maps = {}  # dso path -> [(pgoff, len, start)]
for line in sys.stdin:
    line = line.rstrip("\n")
    m = MMAP.search(line)
    if m:
        start, ln, off, path = int(m.group(1), 16), int(m.group(2), 16), int(m.group(3), 16), m.group(4)
        maps.setdefault(path, []).append((off, ln, start))
        print(line)
        continue
    f = FRAME.match(line)
    if f:
        rel, dso = int(f.group(2), 16), f.group(3)
        addr = rel
        for off, ln, start in reversed(maps.get(dso, [])):
            if off <= rel < off + ln:
                addr = rel - off + start
                break
        print("%s%x" % (f.group(1), addr))
        continue
    if line.startswith(" 0x"):  # the branch stack: its entries without their dso
        line = re.sub(r"\([^)]*\)", "", line)
    print(line)
