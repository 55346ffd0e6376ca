#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the call chains of an emulated recording of tests/fixtures/callgraph.c
(built with -fno-optimize-sibling-calls, so that every call is a call)
against the program's call structure, from `perf script -F ip,sym,brstack`
on stdin:  main -> alpha -> (shared -> leaf_work | leaf_work)
           main -> beta -> recurse x4 -> shared -> leaf_work
(recurse x1..x4 while it descends), main -> printf and libc below.
Every sample must carry a chain and a branch stack. Prints one PASS/FAIL
line named by argv[1]."""
import re
import sys

FIX = {"main", "alpha", "beta", "recurse", "shared", "leaf_work"}
BELOW_MAIN = ["__libc_start_call_main", "__libc_start_main", "_start"]


def samples(text):
    """Each sample: (chain symbols innermost first, branch stack line)."""
    chain, out = [], []
    for line in text.splitlines():
        if line.startswith("\t"):
            parts = line.split()
            chain.append(parts[1].split("@@")[0] if len(parts) > 1 else "?")
        elif line.strip():
            out.append((chain, line))
            chain = []
        elif chain:  # a chain without a branch stack line
            out.append((chain, ""))
            chain = []
    return out


def check(chain):
    """None when CHAIN (innermost first) is one of the program's call paths."""
    if "main" not in chain:
        return None  # the dynamic loader, libc start-up: not the fixture's
    m = chain.index("main")
    if chain[m + 1:] != BELOW_MAIN:
        return "below main: %s" % " <- ".join(chain[m + 1:])
    above = list(reversed(chain[:m]))  # outermost first, after main
    if not above or above[0] not in FIX:
        return None if all(s not in FIX for s in above) else "libc calling %s" % above
    if above[0] == "alpha":
        ok = above[1:] in ([], ["shared"], ["shared", "leaf_work"], ["leaf_work"])
    elif above[0] == "beta":
        k = 0
        while 1 + k < len(above) and above[1 + k] == "recurse":
            k += 1
        rest = above[1 + k:]
        ok = k <= 4 and (rest == [] or (k == 4 and rest in (["shared"], ["shared", "leaf_work"])))
    else:
        ok = False
    return None if ok else "not a call path: main -> %s" % " -> ".join(above)


def main():
    name = sys.argv[1]
    got = samples(sys.stdin.read())
    if not got:
        print("FAIL %s: no samples" % name)
        return
    bad = [c for c, b in got if not re.search(r"0x[0-9a-f]+/0x[0-9a-f]+/", b)]
    if bad:
        print("FAIL %s: %d of %d samples without a branch stack" % (name, len(bad), len(got)))
        return
    deep = 0
    for chain, _ in got:
        why = check(chain)
        if why:
            print("FAIL %s: %s" % (name, why))
            return
        deep += chain[:3] == ["leaf_work", "shared", "recurse"] and chain.count("recurse") == 4
    if not deep:
        print("FAIL %s: no sample in leaf_work under 4 recurse frames" % name)
        return
    print("PASS %s (%d samples, every chain a call path of the program; %d at recursion depth 4)"
          % (name, len(got), deep))


main()
