"""Compares perf's `perf report -b --stdio -F overhead,sample,KEYS` table with
`hwprof branches --sort KEYS` (text): every row key gets the same count.
With --unique, hwprof must also print each key combination on ONE row: perf
6.1 groups source lines by their text, symbols by symbol, modules by name
(its -F table may still split them per process, see below).

With --exact, source lines are compared as printed, unresolved ones too
("crtstuff.c:0", "??:0", "_init+59": perf's addr2line fallbacks).

usage: branches_compare.py [--unique] [--exact] PERF_TXT HWPROF_TXT KEYS [ONLY_FILES_RE]

Normalization, both sides alike:
- source lines perf cannot resolve print as "??:0", "file:0" or "sym+N" (perf
  6.1 asks the addr2line program), hwprof's fallbacks differ; they become "?"
  and rows that then print the same are summed. Every line perf does resolve
  ("file:N", N > 0) must match exactly.
- `-F` keeps perf's default sort keys (comm, ...) underneath, so perf splits
  rows per process; rows are summed by their printed keys.
- Symbols are compared exactly, PLT stubs included: hwprof names them as
  perf 6.1 does ("name@plt", libc's nameless IRELATIVE slots "@plt", or a
  stretched _init or no symbol where perf's symbol tree finds those).
- A source line perf's addr2line gave no answer for ("sym+N" or
  "dso[addr]", not addr2line's own "??:0" or "file:0") matches any line, as
  realworld_compare.py treats perf's "(null)" cells: perf 6.1 prints that
  fallback when its addr2line child does not answer within its timeout, so
  on a loaded machine a line perf resolves on another run comes out "?"
  while hwprof (which reads DWARF itself) resolves it. Rows are first matched
  exactly; each such perf row then takes hwprof's unmatched rows that agree
  on every other cell, and nothing may be left over on either side."""
import re
import sys
from collections import Counter

args = sys.argv[1:]
unique = "--unique" in args
exact = "--exact" in args
args = [a for a in args if a not in ("--unique", "--exact")]
perf_path, hwprof_path, keys = args[0], args[1], args[2].split(",")
# Optional: only source lines of files matching this are compared (perf 6.1
# asks addr2line about the binary itself and misses separate debug files,
# e.g. libc6-dbg's, that hwprof reads: lines of other files become "?").
only_files = re.compile(args[3]) if len(args) > 3 else None
SRC = {"srcline_from", "srcline_to"}


ADDR = {"addr_from", "addr_to"}
WILD = None  # a source line perf's addr2line did not answer for


def unanswered(key, v):
    """perf's fallback for an address its addr2line did not answer for."""
    return key in SRC and not re.fullmatch(r"[^:\s]+:[0-9]+", v.strip())


def norm(key, v, side):
    v = v.strip()
    if key in SRC and exact:
        return v
    if key in SRC and not re.fullmatch(r"[^:\s]+:[1-9][0-9]*", v):
        return "?"
    if key in SRC and only_files and not only_files.match(v):
        return "?"
    if key in ADDR:
        # perf cuts the symbol name of addr_* cells to its column width
        # ("[.] __do_globa+0x11"): compare the level, the name's first 8
        # characters and the offset.
        m = re.fullmatch(r"(\[.\]) (.*?)(\+0x[0-9a-f]+)?", v)
        if m:
            return (m.group(1), m.group(2)[:8], m.group(3) or "")
    return v


def table_rows(path):
    # Columns are separated by two or more spaces (cells may hold one space,
    # and may be wider than perf's header, so the header widths do not help).
    # hwprof's text table has the same shape.
    for l in open(path).read().splitlines():
        if l.strip() and not l.startswith("#"):
            yield re.split(r"\s{2,}", l.strip())


def count(path, who, want_unique):
    """Counter of normalized row keys; for perf, also the unanswered-cell
    pattern of each (WILD where perf's addr2line gave no answer)."""
    c, seen, wild = Counter(), Counter(), {}
    for cells in table_rows(path):
        if len(cells) != len(keys) + 2:
            raise SystemExit(f"cannot parse {who} row {cells}")
        seen[tuple(cells[2:])] += 1
        k = tuple(norm(k, v, who) for k, v in zip(keys, cells[2:]))
        c[k] += int(cells[1])
        # rows that print alike after norm() share a pattern: WILD where any is
        old = wild.get(k, k)
        wild[k] = tuple(WILD if unanswered(kk, v) or o is WILD else n
                        for kk, v, n, o in zip(keys, cells[2:], k, old))
    dup = [k for k, n in seen.items() if n > 1]
    if want_unique and dup:
        raise SystemExit(f"{who} prints {len(dup)} key combinations on several rows, e.g. {dup[0]}")
    return c, wild


def sort_key(k):
    return tuple("" if c is None else str(c) for c in k)


def main():
    got, _ = count(hwprof_path, "hwprof", unique)
    want, wild = count(perf_path, "perf", False)
    if not want:
        print("perf printed no rows")
        return 1
    # exact matches first, then perf's unanswered lines take what is left
    left_got = got - want
    left_want = want - got
    absorbed = 0
    for k in sorted(left_want, key=lambda k: (wild[k].count(WILD), sort_key(k))):
        pat = wild[k]
        if WILD not in pat:
            continue
        for g in sorted(left_got, key=sort_key):
            if left_want[k] and all(p is WILD or p == c for p, c in zip(pat, g)):
                take = min(left_want[k], left_got[g])
                left_want[k] -= take
                left_got[g] -= take
                absorbed += take
    left_got, left_want = +left_got, +left_want
    if not left_got and not left_want:
        note = f", {absorbed} on lines perf's addr2line did not answer for" if absorbed else ""
        print(f"{len(want)} rows, {sum(want.values())} entries{note}")
        return 0
    diff = sorted(set(left_got) | set(left_want), key=sort_key)[:4]
    print(f"rows differ: perf {len(want)} rows/{sum(want.values())} entries vs hwprof "
          f"{len(got)}/{sum(got.values())}; e.g. " +
          "; ".join(f"{k}: perf {want.get(k, 0)} hwprof {got.get(k, 0)}" for k in diff))
    return 1


sys.exit(main())
