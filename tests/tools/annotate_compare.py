#!/usr/bin/env python3
"""Checks `hwprof annotate --json` against independent answers.

usage: annotate_compare.py perf ANNOTATE.json PERF_ANNOTATE.txt
         each instruction's share of the function's samples equals perf 6.1's
         `perf annotate --stdio` percent (to its 2 decimals), and the instructions
         are the addresses objdump decodes (perf's lines)
       annotate_compare.py probs ANNOTATE.json PROBS.json BLOCKS.json TIMING.json
         every conditional branch of the function has the executions and taken
         probability `hwprof probs` gives for its address, every block start the
         executions of `hwprof blocks` and the median and modes of `hwprof timing`, and no
         other instruction carries them
       annotate_compare.py mem ANNOTATE.json MEM.json
         each instruction's memory samples equal `hwprof mem -s ip`'s row of its address
Prints one line: PASS/FAIL NAME: detail (NAME from $CMP_NAME).
"""
import json
import os
import re
import sys

name = os.environ.get("CMP_NAME", "annotate")


def done(bad, what):
    if bad:
        print(f"FAIL {name}: {len(bad)} differences: {'; '.join(bad[:4])}")
        return 1
    print(f"PASS {name} ({what})")
    return 0


def perf(mine, text):
    rows = [r for r in mine]
    total = sum(r["samples"] for r in rows)
    theirs = {}
    for l in open(text, errors="replace"):
        m = re.match(r"\s*([0-9.]+)\s*:\s+([0-9a-f]+):\s", l)
        if m:
            theirs[int(m.group(2), 16)] = float(m.group(1))
    bad = []
    ours = {int(r["address"], 16): r for r in rows}
    if set(ours) != set(theirs):
        bad.append(f"addresses: only hwprof {sorted(set(ours) - set(theirs))[:3]}, only perf "
                   f"{sorted(set(theirs) - set(ours))[:3]}")
    sampled = 0
    for a, p in theirs.items():
        r = ours.get(a)
        if not r:
            continue
        sampled += r["samples"] > 0
        if abs(round(r["share_percent"], 2) - p) > 0.0051:
            bad.append(f"{a:#x}: hwprof {r['share_percent']:.2f}% perf {p:.2f}%")
    if not sampled:
        bad.append("no instruction sampled")
    return done(bad, f"{len(theirs)} instructions, {sampled} sampled, {total} samples")


def by_vaddr(rows, key="vaddr"):
    return {int(r[key], 16): r for r in rows if r.get(key)}


def probs(mine, probs_json, blocks_json, timing_json):
    conds = by_vaddr(json.load(open(probs_json)))
    blocks = by_vaddr(json.load(open(blocks_json)))
    timing = {(int(r["start_vaddr"], 16), int(r["end_vaddr"], 16)): r for r in json.load(open(timing_json))
              if r.get("start_vaddr") and r.get("end_vaddr")}
    bad, nc, nb, nt = [], 0, 0, 0
    for r in mine:
        a = int(r["address"], 16)
        c = conds.get(a)
        if r["kind"] == "cond" and c:
            nc += 1
            if r["executions"] != c["executions"] or abs(r["taken_percent"] - c["taken_percent"]) > 1e-9:
                bad.append(f"{a:#x}: executions {r['executions']} vs {c['executions']}")
        elif r["executions"] is not None:
            bad.append(f"{a:#x}: executions where probs has none")
        b = blocks.get(a)
        if b:
            nb += 1
            if r["block_executions"] != b["count"]:
                bad.append(f"{a:#x}: block executions {r['block_executions']} vs {b['count']}")
        elif r["block_executions"] is not None:
            bad.append(f"{a:#x}: a block where blocks has none")
        t = timing.get((a, int(r["block_timed_to"], 16))) if r["block_timed_to"] else None
        if r["block_median_cycles"] is not None and not t:
            bad.append(f"{a:#x}: timed to {r['block_timed_to']}, which timing does not time")
        if t and t.get("median") is not None:
            nt += 1
            if r["block_median_cycles"] != t["median"]:
                bad.append(f"{a:#x}: median {r['block_median_cycles']} vs {t['median']}")
            if r.get("block_modes") != t.get("modes"):
                bad.append(f"{a:#x}: modes {r.get('block_modes')} vs {t.get('modes')}")
    if not nc or not nb:
        bad.append(f"{nc} branches and {nb} blocks matched: expected some of each")
    return done(bad, f"{nc} branches, {nb} blocks, {nt} timed blocks")


def mem(mine, mem_json):
    theirs = {}
    for r in json.load(open(mem_json)):
        if r.get("vaddr"):
            theirs[int(r["vaddr"], 16)] = r["samples"]
    bad, n = [], 0
    for r in mine:
        a = int(r["address"], 16)
        got = r["memory_samples"] or 0
        n += got > 0
        if got != theirs.get(a, 0):
            bad.append(f"{a:#x}: {got} vs mem's {theirs.get(a, 0)}")
    if not n:
        bad.append("no instruction with memory samples")
    return done(bad, f"{n} loads and stores")


def main():
    mode, mine = sys.argv[1], json.load(open(sys.argv[2]))
    if mode == "perf":
        return perf(mine, sys.argv[3])
    if mode == "probs":
        return probs(mine, *sys.argv[3:6])
    return mem(mine, sys.argv[3])


sys.exit(main())
