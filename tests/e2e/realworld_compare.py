"""Compares perf 6.1's `perf report -b --stdio -F overhead,sample,KEYS` table
with hwprof's `hwprof branches --sort KEYS` table (both as text): every row
key must get the same count, PLT stubs included, and hwprof must print each
row key once.

Usage: realworld_compare.py PERF.txt HWPROF.txt KEYS [FILES_REGEX]
       realworld_compare.py --signatures PERF_V.txt HWPROF.json

The second form checks the full signatures: the symbol names of
`perf report -v -b -F overhead,sample,symbol_from,symbol_to` (perf demangles
with parameters under -v) must be the set of `from_demangled`/`to_demangled`
values of `hwprof branches --json --sort symbol_from,symbol_to` (bare
addresses, where neither has a symbol, left out).

Normalizations, and why:
- `-F` keeps perf's default sort keys underneath, so perf may split one
  printed row per process; its rows are summed by their printed cells.
  hwprof's rows are not summed: a repeated row is an error.
- Source lines that perf cannot resolve print as "??:0", "file:0" or
  "sym+N" (perf 6.1 asks the addr2line program); hwprof's fallbacks differ.
  Both become "?". With FILES_REGEX, lines of other files become "?" too:
  perf misses separate debug files (libc6-dbg's) that hwprof reads.
- perf 6.1 prints "(null)" for a srcline_from/srcline_to cell it never had
  to compare while sorting (it computes them lazily in its comparator).
  Such a cell matches any value: what hwprof counts beyond perf's fully
  printed rows, among the rows that agree on every other cell, must add up
  to the "(null)" row's count, and nothing may be left over.
- Symbols are compared exactly: no PLT normalization."""
import json
import re
import sys
from collections import Counter


def signatures(perf_path, json_path):
    want = set()
    for l in open(perf_path).read().splitlines():
        if l.startswith("#") or not l.strip():
            continue
        for name in re.findall(r"\[[.k]\] (.*?)(?=\s{2,}|\s*$)", l):
            if not re.fullmatch(r"0x[0-9a-f]+", name):
                want.add(name)
    got = set()
    for row in json.load(open(json_path)):
        for side in ("from", "to"):
            if row.get(f"{side}_demangled"):
                got.add(row[f"{side}_demangled"])
    if not want:
        print("perf -v printed no symbols")
        return 1
    if want != got:
        print(f"signatures differ: perf -v only {sorted(want - got)[:3]}, hwprof only {sorted(got - want)[:3]}")
        return 1
    nsig = sum("(" in n for n in want)
    print(f"{len(want)} names, {nsig} with a parameter list")
    return 0


if sys.argv[1] == "--signatures":
    sys.exit(signatures(sys.argv[2], sys.argv[3]))
perf_path, ours_path, keys = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
only_files = re.compile(sys.argv[4]) if len(sys.argv) > 4 else None
SRC = {"srcline_from", "srcline_to"}
WILD = None  # a "(null)" cell


def norm(key, v):
    v = v.strip()
    if key in SRC:
        if v == "(null)":
            return WILD
        if not re.fullmatch(r"[^:\s]+:[1-9][0-9]*", v):
            return "?"
        if only_files and not only_files.match(v):
            return "?"
    return v


def rows(path, who):
    # Columns are separated by two or more spaces; cells hold at most one.
    for l in open(path).read().splitlines():
        if not l.strip() or l.startswith("#"):
            continue
        cells = re.split(r"\s{2,}", l.strip())
        if len(cells) != len(keys) + 2 or not cells[1].isdigit():
            raise SystemExit(f"cannot parse {who} row {cells}")
        yield tuple(cells[2:]), int(cells[1])


def main():
    printed = Counter()
    got = Counter()
    for cells, n in rows(ours_path, "hwprof"):
        printed[cells] += 1
        got[tuple(norm(k, c) for k, c in zip(keys, cells))] += n
    want = Counter()
    perf_printed = Counter()
    for cells, n in rows(perf_path, "perf"):
        perf_printed[cells] += 1
        want[tuple(norm(k, c) for k, c in zip(keys, cells))] += n
    dups = [c for c, n in printed.items() if n > 1 and n > perf_printed[c]]
    if dups:
        print(f"hwprof prints {len(dups)} row keys more often than perf, e.g. {dups[:2]}")
        return 1
    if not want:
        print("perf printed no rows")
        return 1
    exact = Counter({k: n for k, n in want.items() if WILD not in k})
    left = Counter(got)
    bad = []
    # each "(null)" row takes what hwprof has beyond perf's full rows among
    # the rows it matches, the most specific pattern first
    for k, n in sorted(((k, n) for k, n in want.items() if WILD in k), key=lambda kn: kn[0].count(WILD)):
        need = n
        for g in sorted(g for g in left if all(w is WILD or w == c for w, c in zip(k, g))):
            take = min(need, left[g] - exact.get(g, 0))
            if take > 0:
                left[g] -= take
                need -= take
        if need:
            bad.append(f"{k}: perf {n} hwprof {n - need}")
    for k in set(left) | set(exact):
        if left.get(k, 0) != exact.get(k, 0):
            bad.append(f"{k}: perf {exact.get(k, 0)} hwprof {left.get(k, 0)}")
    if bad:
        print(f"rows differ: perf {len(want)} rows/{sum(want.values())} entries vs hwprof "
              f"{len(got)}/{sum(got.values())}; e.g. " + "; ".join(sorted(bad)[:4]))
        return 1
    nplt = sum(1 for k in want if any(c and c.endswith("@plt") for c in k))
    print(f"{len(want)} rows, {sum(want.values())} entries, {nplt} with PLT stubs")
    return 0


sys.exit(main())
