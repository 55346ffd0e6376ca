#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The local merge of several recordings' 'hwprof export' rows against the
fleet's summed rows ('hwprof fleet rows'), row by row (tests/e2e/fleet.sh).

usage: fleet_check.py FLEET.tsv EXPORT.tsv...
Sums the exports' rows by their key (kind, build-id, module, from, to side,
type) in Python, and compares every counted column and the cycle histogram
with the fleet's row of that key. Prints the differences (at most 10) and
exits 1 when there are any; else prints 'ROWS n' (the merged rows)."""
import sys
from collections import defaultdict

KEY = ["kind", "build_id", "module", "from_off", "to_build_id", "to_module", "to_off", "type"]
SUMS = ["count", "entries", "not_taken", "mispred", "predicted", "cycles_sum", "cycles_n"]


def rows(path):
    lines = open(path).read().split("\n")
    names = lines[0].split("\t")
    for ln in lines[1:]:
        if ln:
            yield dict(zip(names, ln.split("\t")))


def main():
    merged = defaultdict(lambda: [0] * (len(SUMS) + 17))
    for path in sys.argv[2:]:
        for r in rows(path):
            acc = merged[tuple(r[k] for k in KEY)]
            vals = [int(r[k]) for k in SUMS] + [int(x) for x in r["cycles_hist"].strip("[]").split(",")]
            for i, v in enumerate(vals):
                acc[i] += v
    fleet = {}
    for r in rows(sys.argv[1]):
        k = tuple(r[k] for k in KEY)
        if k in fleet:
            print("fleet row twice: %s" % (k,))
            sys.exit(1)
        fleet[k] = [int(r[k]) for k in SUMS] + [int(x) for x in r["cycles_hist"].strip("[]").split(",")]
    bad = []
    for k in sorted(set(merged) | set(fleet)):
        if merged.get(k) != fleet.get(k):
            bad.append("%s: local %s, fleet %s" % (k, merged.get(k), fleet.get(k)))
    for b in bad[:10]:
        print(b)
    if bad:
        print("%d of %d rows differ" % (len(bad), len(merged)))
        sys.exit(1)
    print("ROWS %d" % len(merged))


if __name__ == "__main__":
    main()
