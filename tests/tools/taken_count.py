#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Taken branches of one binary from the exact counts of 'hwprof record
--emulate --exact FILE' (JSON lines, one branch site each):

    taken_count.py SITES.jsonl BINARY

prints "TOTAL cond=N jmp=N call=N ret=N other=N": the branches taken in
BINARY's own code (sites whose module is BINARY, by its real path), by
kind. Calls, returns and unconditional jumps are always taken."""
import json
import os
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    want = os.path.realpath(sys.argv[2])
    kinds = {"cond": 0, "jmp": 0, "call": 0, "ret": 0, "other": 0}
    with open(sys.argv[1]) as f:
        for line in f:
            site = json.loads(line)
            if os.path.realpath(site["module"]) != want:
                continue
            k = site["kind"]
            kinds[k if k in kinds else "other"] += site.get("taken", site["executed"])
    print(sum(kinds.values()), " ".join(f"{k}={v}" for k, v in kinds.items()))


if __name__ == "__main__":
    main()
