#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Block latency histograms computed independently from perf's own dump
('perf script -F ip,brstack': FROM/TO/{M|P|-}/{X|-}/{A|-}/CYCLES/ per entry,
newest first), and compared with hwprof timing's CSV.

For consecutive entries e[i] (older) and e[i-1] (newer), the block
[e[i].to, e[i-1].from] ran in e[i-1].cycles cycles. Counted when, by the
documented range rules decidable from addresses: both ends are non-zero;
not the duplicated newest entry (i == 1, e[0] and e[1] the same branch, and
the range backward or longer than 0x1000); end >= start; end - start <= 1
MiB; and the cycle count is not 0 (unknown).

usage: timing_oracle.py ORACLE.txt.gz HISTOGRAMS.csv BLOCKS.csv UNMAPPED
  HISTOGRAMS.csv  hwprof timing --histograms --csv (rows: start_addr,
                  end_addr, cycles, samples)
  BLOCKS.csv      hwprof timing --csv (per block summary)
  UNMAPPED        pairs hwprof rejects for reasons that need the maps
                  (unmapped + modules, from hwprof ranges --stats): the
                  oracle may count at most that many latencies more
Prints one line: PASS or FAIL with the counts.
"""
import csv
import gzip
import math
import re
import sys

ENTRY = re.compile(r"0x([0-9a-f]+)/0x([0-9a-f]+)/[MP-]/[X-]/[A-]/(\d+)/")


def oracle(path):
    hist = {}
    with gzip.open(path, "rt") as f:
        for line in f:
            e = [(int(a, 16), int(b, 16), int(c)) for a, b, c in ENTRY.findall(line)]
            for i in range(1, len(e)):
                start, end, cyc = e[i][1], e[i - 1][0], e[i - 1][2]
                if not start or not end or not cyc:
                    continue
                if i == 1 and e[1][0] == e[0][0] and e[1][1] == e[0][1] and (end < start or end - start > 0x1000):
                    continue
                if end < start or end - start > (1 << 20):
                    continue
                h = hist.setdefault((start, end), {})
                h[cyc] = h.get(cyc, 0) + 1
    return hist


def nearest_rank(h, p):
    total = sum(h.values())
    rank = max(1, math.ceil(p * total))
    seen = 0
    for v in sorted(h):
        seen += h[v]
        if seen >= rank:
            return v


def main():
    want = oracle(sys.argv[1])
    got = {}
    for r in csv.DictReader(open(sys.argv[2])):
        k = (int(r["start_addr"], 16), int(r["end_addr"], 16))
        h = got.setdefault(k, {})
        c = int(r["cycles"])
        if c in h:
            print(f"FAIL: cycle value {c} twice for block {k[0]:#x}-{k[1]:#x}")
            return
        h[c] = int(r["samples"])
    unmapped = int(sys.argv[4])
    bad = []
    for k, h in got.items():
        if want.get(k) != h:
            bad.append(f"block {k[0]:#x}-{k[1]:#x}: hwprof {sorted(h.items())[:4]}, oracle {sorted(want.get(k, {}).items())[:4]}")
    missing = {k: h for k, h in want.items() if k not in got}
    extra = sum(sum(h.values()) for h in missing.values())
    if extra > unmapped:
        bad.append(f"{len(missing)} oracle blocks ({extra} latencies) not in hwprof, more than the {unmapped} pairs it rejects as unmapped/modules")
    # the summary statistics, from the oracle's own histograms
    nstat = 0
    for r in csv.DictReader(open(sys.argv[3])):
        k = (int(r["start_addr"], 16), int(r["end_addr"], 16))
        h = want.get(k)
        if h is None:
            continue
        n = sum(h.values())
        exp = {"samples": n, "min": min(h), "max": max(h), "median": nearest_rank(h, 0.5),
               "p90": nearest_rank(h, 0.9), "p99": nearest_rank(h, 0.99),
               "cycles_total": sum(c * m for c, m in h.items())}
        for f, v in exp.items():
            if int(r[f]) != v:
                bad.append(f"block {k[0]:#x}: {f} hwprof {r[f]}, oracle {v}")
        if abs(float(r["mean"]) - exp["cycles_total"] / n) > 1e-3 * max(1, exp["cycles_total"] / n):
            bad.append(f"block {k[0]:#x}: mean hwprof {r['mean']}, oracle {exp['cycles_total'] / n}")
        if r["cycles_source"] != "measured":
            bad.append(f"block {k[0]:#x}: cycles_source {r['cycles_source']}")
        nstat += 1
    lat = sum(sum(h.values()) for h in got.values())
    line = (f"{len(got)} blocks, {lat} latencies equal; {nstat} summaries checked; "
            f"oracle-only: {len(missing)} blocks, {extra} latencies (<= {unmapped} unmapped/modules)")
    print(("FAIL: " + "; ".join(bad[:5]) + f" ({len(bad)} differences) -- " if bad else "PASS ") + line)


main()
