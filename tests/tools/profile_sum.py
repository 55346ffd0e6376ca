#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Sums BOLT profiles key by key (tests/e2e/fleet.sh): the profile of
several recordings' merged counts must be the sum of theirs.

usage: profile_sum.py bolt|bolt-pa FLEET LOCAL...
bolt: fdata lines '1 SYM OFF 1 SYM OFF MISPREDS COUNT' (key: the first six
fields); bolt-pa: 'B FROM TO COUNT MISPREDS' and 'F FROM TO COUNT' (key:
the first three). Prints the differing keys (at most 10) and exits 1 on
any; else 'LINES n'."""
import sys
from collections import defaultdict


def read(path, nkey):
    out = defaultdict(lambda: None)
    for ln in open(path):
        f = ln.split()
        if not f:
            continue
        k, v = tuple(f[:nkey]), [int(x) for x in f[nkey:]]
        out[k] = v if out[k] is None else [a + b for a, b in zip(out[k], v)]
    return out


def main():
    nkey = 6 if sys.argv[1] == "bolt" else 3
    fleet = read(sys.argv[2], nkey)
    total = defaultdict(lambda: None)
    for p in sys.argv[3:]:
        for k, v in read(p, nkey).items():
            total[k] = v if total[k] is None else [a + b for a, b in zip(total[k], v)]
    bad = [k for k in set(fleet) | set(total) if fleet.get(k) != total.get(k)]
    for k in bad[:10]:
        print("%s: fleet %s, sum %s" % (" ".join(k), fleet.get(k), total.get(k)))
    if bad:
        sys.exit(1)
    print("LINES %d" % len(fleet))


if __name__ == "__main__":
    main()
