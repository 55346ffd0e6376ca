#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Overlap of two BOLT fdata profiles (llvm-profdata overlap's formula over
their edges): the sum over edges of min(count / total) of each, in percent.

  fdata_overlap.py A.fdata B.fdata [--function NAME]

An edge is a line's source and target (symbol and offset), as llvm-bolt
matches them to a binary's functions; read from the documented fdata line
format (`1 sym off 1 sym off mispreds count`), no hwprof code. With
--function, only the edges leaving NAME, each profile normalized over
them. Prints the overlap (0 when either side has no count).
"""
import sys
from collections import defaultdict


def read(path, function=None):
    edges = defaultdict(int)
    for line in open(path):
        f = line.split()
        if len(f) != 8 or f[0] == "#" or (function and f[1] != function):
            continue
        edges[(f[1], f[2], f[4], f[5])] += int(f[7])
    return edges


def main():
    args = sys.argv[1:]
    function = None
    if "--function" in args:
        i = args.index("--function")
        function = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = read(args[0], function), read(args[1], function)
    ta, tb = sum(a.values()), sum(b.values())
    keys = set(a) | set(b)
    ov = 100.0 * sum(min(a.get(k, 0) / ta, b.get(k, 0) / tb) for k in keys) if ta and tb else 0.0
    print(f"{ov:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
