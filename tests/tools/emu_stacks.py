#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the branch stacks `perf script -F brstacksym` (or -F brstack) prints
for an emulated recording, read from standard input.

  emu_stacks.py types T1,T2,...  every entry's type (needs -j save_type) is
                                 one of the listed perf names (COND, CALL, ...)
  emu_stacks.py callstack [F,..] call-stack mode: each newer entry is a call
                                 made inside the function the older one entered
                                 (only where that function is one of F: code
                                 with tail calls legitimately breaks the rule)
  emu_stacks.py depth N          no stack deeper than N, and some exactly N
  emu_stacks.py noflags          no entry has M or P
  emu_stacks.py nocycles         every entry's cycles is 0
Prints one line (what was checked) and exits 1 on failure.
"""
import sys


def entries(line):
    out = []
    for tok in line.split():
        f = tok.split("/")
        if len(f) >= 7:
            out.append(f)
    return out


def func(loc):
    return loc.split("+")[0]


def main():
    mode = sys.argv[1]
    samples = nent = bad = checked = 0
    maxd = 0
    first = None
    for line in sys.stdin:
        es = entries(line)
        if not es:
            continue
        samples += 1
        nent += len(es)
        maxd = max(maxd, len(es))
        if mode == "types":
            ok = set(sys.argv[2].split(","))
            for e in es:
                if e[6] not in ok:
                    bad += 1
                    first = first or f"type {e[6]} in {'/'.join(e)}"
        elif mode == "callstack":
            for newer, older in zip(es, es[1:]):
                callee, caller = func(older[1]), func(newer[0])
                # a call into the PLT enters a stub (perf may name it after
                # the section before it, _init) that jumps to the real callee
                if "[unknown]" in (callee, caller) or "@plt" in callee or callee == "_init":
                    continue
                if len(sys.argv) > 2 and callee not in sys.argv[2].split(","):
                    continue
                checked += 1
                if callee != caller:
                    bad += 1
                    first = first or f"call from {caller} after entering {callee}"
        elif mode == "noflags":
            for e in es:
                if e[2] != "-":
                    bad += 1
                    first = first or "/".join(e)
        elif mode == "nocycles":
            for e in es:
                if e[5] != "0":
                    bad += 1
                    first = first or "/".join(e)
    if mode == "depth":
        want = int(sys.argv[2])
        if maxd != want:
            bad = 1
            first = f"deepest stack {maxd}, want {want}"
    if mode == "callstack":
        print(f"{samples} samples, {nent} entries, {checked} call pairs checked" +
              (f"; {bad} bad, e.g. {first}" if bad else ""))
        return 1 if bad or not checked else 0
    print(f"{samples} samples, {nent} entries" + (f"; {bad} bad, e.g. {first}" if bad else ""))
    return 1 if bad or not samples else 0


if __name__ == "__main__":
    sys.exit(main())
