#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The caller chains of `hwprof advise --json` against perf 6.1's callchains.

usage: advise_callers_check.py ADVISE.json PERF_SCRIPT FUNCTION CHAIN LOW HIGH

PERF_SCRIPT: `perf script -F period,ip,sym,dso --no-inline` of the recording with
the call stacks (parsed by stack_oracle.py). For every finding with
callers, from perf's stacks alone: each sample with the finding's function
(its symbol) on the stack, at its outermost frame, gives the chain of its
callers (innermost first, cut after main or at 4 callers; a sample where
the function has no caller is not counted); the finding must name the
chain with most samples, with perf's count of it and of all those
samples. And the fixture's design: the top finding in FUNCTION has callers
CHAIN, their share within [LOW, HIGH] percent. Prints PASS or FAIL with
$CMP_NAME."""
import json
import os
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack_oracle import samples  # noqa: E402

name = os.environ.get("CMP_NAME", "advise_callers")


def chains(stacks, fn):
    c = Counter()
    for fr in stacks:
        if fn not in fr:
            continue
        out = len(fr) - 1 - fr[::-1].index(fn)  # outermost frame of fn
        callers = []
        for f in fr[out + 1:]:
            if len(callers) == 4:
                break
            callers.append(f)
            if f == "main":
                break
        if callers:
            c[" <- ".join(callers)] += 1
    return c


def main():
    rows = json.load(open(sys.argv[1]))
    stacks = list(samples(sys.argv[2]))
    fn, chain, lo, hi = sys.argv[3], sys.argv[4], float(sys.argv[5]), float(sys.argv[6])
    bad, n = [], 0
    for r in rows:
        if not r.get("callers"):
            continue
        n += 1
        c = chains(stacks, r["symbol"])
        top = max(c.values()) if c else 0
        best = sorted(k for k, v in c.items() if v == top)
        if r["callers"] not in best or r["callers_samples"] != top or r["function_samples"] != sum(c.values()):
            bad.append("%s in %s: %s %d of %d, perf %s %d of %d" % (r["kind"], r["symbol"], r["callers"],
                                                                   r["callers_samples"], r["function_samples"],
                                                                   best, top, sum(c.values())))
    top = next((r for r in rows if r["symbol"] == fn), None)
    if not n:
        bad.append("no finding has callers")
    elif not top or top.get("callers") != chain or not lo <= top["callers_percent"] <= hi:
        bad.append("top finding in %s: %s" % (fn, top and (top.get("callers"), top.get("callers_percent"))))
    if bad:
        print("FAIL %s: %s" % (name, "; ".join(bad[:3])))
    else:
        print("PASS %s (%d findings' callers as perf's callchains; %s: %.1f%% from %s)" %
              (name, n, fn, top["callers_percent"], chain))


if __name__ == "__main__":
    main()
