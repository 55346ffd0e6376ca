#!/usr/bin/env python3
"""Compares two BOLT fdata files edge by edge (the oracle's, then hwprof's).

Each line "F_IS_SYM F_NAME F_OFF T_IS_SYM T_NAME T_OFF MISPREDS COUNT" is
keyed by its six location fields; order does not matter (perf2bolt writes
its hash maps' order). Prints a summary; exit status 1 when they differ
(with up to 10 differing edges on stderr).
  fdata_compare.py ORACLE.fdata HWPROF.fdata [--ignore-fn REGEX]
Edges whose from or to function matches REGEX are left out on both sides
(a named rule difference)."""
import re
import sys


def load(path, ignore):
    edges = {}
    for line in open(path):
        f = line.split()
        if not f or f[0] in ("no_lbr", "boltedcollection"):
            continue
        if len(f) != 8:
            sys.exit(f"{path}: not an fdata branch line: {line.strip()}")
        if ignore and (ignore.search(f[1]) or ignore.search(f[4])):
            continue
        key = tuple(f[:6])
        m, c = edges.get(key, (0, 0))
        edges[key] = (m + int(f[6]), c + int(f[7]))
    return edges


def main():
    args = sys.argv[1:]
    ignore = None
    if "--ignore-fn" in args:
        i = args.index("--ignore-fn")
        ignore = re.compile(args[i + 1])
        del args[i:i + 2]
    a, b = load(args[0], ignore), load(args[1], ignore)
    diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    total = sum(c for _, c in a.values())
    if diff:
        for k in diff[:10]:
            print(" ".join(k), "oracle", a.get(k), "hwprof", b.get(k), file=sys.stderr)
        print(f"{len(diff)} of {len(set(a) | set(b))} edges differ")
        return 1
    print(f"{len(a)} edges, {total} counts, equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
