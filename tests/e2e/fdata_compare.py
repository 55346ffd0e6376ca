#!/usr/bin/env python3
"""Compares two BOLT fdata files edge by edge (the oracle's, then hwprof's).

Each line "F_IS_SYM F_NAME F_OFF T_IS_SYM T_NAME T_OFF MISPREDS COUNT" is
keyed by its six location fields; order does not matter (perf2bolt writes
its hash maps' order). Prints a summary; exit status 1 when they differ
(with up to 10 differing edges on stderr).
  fdata_compare.py ORACLE.fdata HWPROF.fdata [--ignore-fn REGEX]
Edges whose from or to function matches REGEX are left out on both sides.
Without LBR ('perf2bolt -nl'): a header "no_lbr EVENT..." (the events
compared as a set) and "1 FUNC OFF COUNT" lines, keyed by location.
  --allow-call-ft BINARY: a differing edge is tolerated (counted, not an
error) when it is a fall-through from a call to the next instruction inside
one function (objdump -d BINARY says which instructions are calls): the
edge perf2bolt adds for a range that began with a return into a block
right after a call; hwprof's range table does not keep which branch began
a range, so it splits the ranges starting at a block by the shares of the
branches into it from outside and inside its function (docs/hwprof-pgo.md)."""
import re
import subprocess
import sys


def call_fallthroughs(binary):
    """{(function name, offset of a call, offset after it)} from objdump."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True,
                         text=True, check=True).stdout
    fts, fn, start = set(), None, 0
    prev = None
    for line in out.splitlines():
        m = re.match(r"^([0-9a-f]+) <([^>]+)>:$", line)
        if m:
            fn, start, prev = m.group(2), int(m.group(1), 16), None
            continue
        m = re.match(r"^\s+([0-9a-f]+):\s+(\S+)", line)
        if not m or fn is None:
            continue
        a = int(m.group(1), 16)
        if prev is not None:
            fts.add((fn, prev - start, a - start))
        prev = a if m.group(2).startswith("call") else None
    return fts


def load(path, ignore, header=None):
    edges = {}
    for line in open(path):
        f = line.split()
        if f and f[0] == "no_lbr" and header is not None:
            header.append(sorted(f[1:]))  # the events, in perf2bolt's hash order
            continue
        if not f or f[0] in ("no_lbr", "boltedcollection"):
            continue
        if len(f) == 4 and header:  # no_lbr: "1 FUNC OFF COUNT"
            key = tuple(f[:3])
            edges[key] = (0, edges.get(key, (0, 0))[1] + int(f[3]))
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
    allow = None
    if "--allow-call-ft" in args:
        i = args.index("--allow-call-ft")
        allow = call_fallthroughs(args[i + 1])
        del args[i:i + 2]
    if "--ignore-fn" in args:
        i = args.index("--ignore-fn")
        ignore = re.compile(args[i + 1])
        del args[i:i + 2]
    ha, hb = [], []
    a, b = load(args[0], ignore, ha), load(args[1], ignore, hb)
    if ha != hb:
        print(f"headers differ: oracle {ha}, hwprof {hb}")
        return 1
    diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    total = sum(c for _, c in a.values())
    tolerated = []
    if allow is not None:
        def is_call_ft(k):
            name = k[1].split("/")[0]
            return k[0] == k[3] == "1" and k[1] == k[4] and \
                (name, int(k[2], 16), int(k[5], 16)) in allow
        tolerated = [k for k in diff if is_call_ft(k)]
        diff = [k for k in diff if not is_call_ft(k)]
    note = ""
    if tolerated:
        lost = sum(abs(a.get(k, (0, 0))[1] - b.get(k, (0, 0))[1]) for k in tolerated)
        note = f"; {len(tolerated)} call fall-through edges differ by {lost} counts (range origin rule)"
    if diff:
        for k in diff[:10]:
            print(" ".join(k), "oracle", a.get(k), "hwprof", b.get(k), file=sys.stderr)
        print(f"{len(diff)} of {len(set(a) | set(b))} edges differ{note}")
        return 1
    print(f"{len(a)} edges, {total} counts, equal{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
