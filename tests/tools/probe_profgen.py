#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""llvm-profgen's --show-pseudo-probe listing in tests/tools/probe_dump's
form: 'desc GUID HASH NAME' lines, then one line per probe,
ADDR NAME INDEX TYPE DISCRIMINATOR CONTEXT (CONTEXT '-' when not inlined).
A probe line comes before the instruction at its address.
usage: llvm-profgen-19 --binary B --show-disassembly-only --show-pseudo-probe -o /dev/null |
       probe_profgen.py
"""
import re
import sys

PROBE = re.compile(r"\[Probe\]:\s+FUNC: (\S+) Index: (\d+)\s+Type: (\w+)\s*(?:Discriminator: (\d+))?\s*(?:Inlined: @ (.*?))?\s*$")
INSN = re.compile(r"^\s+([0-9a-f]+):\s")
DESC_G = re.compile(r"^GUID: (\d+) Name: (\S+)$")
DESC_H = re.compile(r"^Hash: (\d+)$")
descs, pending, out = [], [], []
guid = name = None
for line in sys.stdin:
    line = line.rstrip("\n")
    m = DESC_G.match(line)
    if m:
        guid, name = m.group(1), m.group(2)
        continue
    m = DESC_H.match(line)
    if m and guid is not None:
        descs.append((int(guid), "desc %s %s %s" % (guid, m.group(1), name)))
        guid = None
        continue
    m = PROBE.search(line)
    if m:
        pending.append(m)
        continue
    m = INSN.match(line)
    if m and pending:
        for p in pending:
            out.append("%s %s %s %s %s %s" % (m.group(1), p.group(1), p.group(2), p.group(3), p.group(4) or 0,
                                              p.group(5) or "-"))
        pending = []
for _, d in sorted(descs):
    print(d)
for l in out:
    print(l)
