#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent range checker over perf's own text: 'perf script
--show-mmap-events --show-task-events -F pid,tid,brstack' (or a plain
'-F ip,brstack' dump with --no-dso: modules are then unknown). The module of
an address is resolved here from the MMAP/MMAP2, FORK and COMM exec events as
perf report resolves branch addresses: the sample process's maps first, then
the kernel's (maps of pid -1: the kernel image and what perf maps with it
are one module, each kernel module's map (.../ath9k.ko) a module of its own,
as perf and hwprof key them; a kernel map may extend over user addresses, as
old perf.data files record it). For each sample (entries newest first) and each pair of
consecutive entries e[i] (older), e[i-1] (newer), the range [e[i].to,
e[i-1].from] is classified by the documented rules, first match wins:
  zeroed     an end address is 0
  (wrong_path: perf 6.1 does not print the spec bits; no corpus file has
   a wrong-path entry, and this checker counts none)
  duplicate  i == 1, e[0] and e[1] are the same from/to, and the range is
             backward or longer than DUP_STRIDE (0x1000)
  filtered   --filtered: the stacks were recorded with a filter other than 'any'
  unmapped   an end's dso is [unknown]
  modules    the ends' dsos differ
  backward   end < start
  too_long   end - start > MAX_RANGE (1 MiB)
  accepted   otherwise (hwprof then decodes it when it has the binary)
Prints JSON: pairs, accepted, rejected by reason, and accepted counts by
(dso base name, length) -- what hwprof's table must hold (it merges the same
module loaded at different addresses, so addresses are not compared).
usage: ranges_check.py [--filtered] [--no-dso] FILE|-
"""
import json
import os
import re
import sys

# (perf prints a zero start or size without its 0x)
MMAP = re.compile(r"PERF_RECORD_MMAP2? (-?\d+)/\d+: \[(?:0x)?([0-9a-f]+)\((?:0x)?([0-9a-f]+)\) @ (\S+)[^\]]*\]: (\S+) (.*)$")
FORK = re.compile(r"PERF_RECORD_FORK\((\d+):\d+\):\((\d+):\d+\)")
EXEC = re.compile(r"PERF_RECORD_COMM exec: .*:(\d+)/(\d+)$")
SAMPLE = re.compile(r"^\s*(-?\d+)/(-?\d+)\s+0x")
ENTRY = re.compile(r"0x([0-9a-f]+)(?:\(([^)]*)\))?/0x([0-9a-f]+)(?:\(([^)]*)\))?/")
MAX_RANGE = 1 << 20
DUP_STRIDE = 0x1000


def main():
    args = sys.argv[1:]
    filtered = "--filtered" in args
    no_dso = "--no-dso" in args
    path = [a for a in args if not a.startswith("--")][0]
    f = sys.stdin if path == "-" else open(path)
    maps = {}  # pid -> [(start, end, path)], newest last
    fixed = {}
    def kernel_maps():
        # perf's maps__fixup_end(): a kernel map recorded without a size
        # (simpleperf writes them so) ends where the next one by start begins
        k = maps.get(-1, [])
        if fixed.get("n") != len(k):
            srt = sorted(k, key=lambda m: m[0])
            out = []
            for i, (s, e, p) in enumerate(srt):
                if e == s:
                    e = srt[i + 1][0] if i + 1 < len(srt) else 1 << 64
                out.append((s, e, p))
            fixed["n"], fixed["v"] = len(k), out
        return fixed["v"]
    def module(pid, addr):
        for s, e, p in reversed(maps.get(pid, [])):
            if s <= addr < e:
                return p
        for s, e, p in reversed(kernel_maps()):
            if s <= addr < e:
                # a kernel module's file (hwprof names the module by it)
                return os.path.basename(p) if p.startswith("/") else "[kernel]"
        return "[kernel]" if addr >= 0xffff800000000000 else "[unknown]"
    reasons = ["zeroed", "wrong_path", "duplicate", "filtered", "unmapped", "modules", "backward", "too_long"]
    rej = {r: 0 for r in reasons}
    pairs = accepted = 0
    by_len = {}
    for line in f:
        if "PERF_RECORD_" in line:
            m = MMAP.search(line)
            if m and (m.group(5) == "x" or "x" in m.group(5)[:4]):
                pid, start, size = int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)
                maps.setdefault(pid, []).append((start, start + size, m.group(6).strip()))
                continue
            m = FORK.search(line)
            if m and int(m.group(1)) != int(m.group(2)):
                maps[int(m.group(1))] = list(maps.get(int(m.group(2)), []))
                continue
            m = EXEC.search(line)
            if m and m.group(1) == m.group(2):
                maps[int(m.group(1))] = []
            continue
        e = [(int(m.group(1), 16), m.group(2), int(m.group(3), 16), m.group(4))
             for m in ENTRY.finditer(line)]
        if not no_dso:
            m = SAMPLE.match(line)
            pid = int(m.group(1)) if m else -2
            e = [(a, module(pid, a), b, module(pid, b)) for a, _, b, _ in e]
        for i in range(1, len(e)):
            start, sdso = e[i][2], e[i][3]
            end, edso = e[i - 1][0], e[i - 1][1]
            pairs += 1
            if not start or not end:
                r = "zeroed"
            elif i == 1 and e[0][0] == e[1][0] and e[0][2] == e[1][2] and \
                    (end < start or end - start > DUP_STRIDE):
                r = "duplicate"
            elif filtered:
                r = "filtered"
            elif not no_dso and ("[unknown]" in (sdso, edso)):
                r = "unmapped"
            elif not no_dso and sdso != edso:
                r = "modules"
            elif end < start:
                r = "backward"
            elif end - start > MAX_RANGE:
                r = "too_long"
            else:
                accepted += 1
                k = f"{os.path.basename(sdso or '?')}:{end - start}"
                by_len[k] = by_len.get(k, 0) + 1
                continue
            rej[r] += 1
    print(json.dumps({"pairs": pairs, "accepted": accepted, "rejected": rej, "by_len": by_len},
                     sort_keys=True))


main()
