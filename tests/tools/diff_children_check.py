#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`hwprof diff --all --json` of two call-stack recordings against perf 6.1.

usage: diff_children_check.py DIFF.json PERF_BEFORE.txt PERF_AFTER.txt UP DOWN

PERF_*.txt: `perf report --children --stdio -g none --no-inline` of each
recording (parsed by callgraph_compare.py's parser; rows summed over
commands). Every function row of measure "children" (and "self") must give
on each side the share perf gives that function (shared object basename
and symbol), within perf's rounding to 0.01 points (a function perf has no
row for: 0); and the planted change: function UP's children share must
rise significantly and DOWN's fall significantly (interval excluding 0,
as the row says), each change inside its own interval; UP and DOWN "-":
two recordings of the same run, no children change may be significant. Prints PASS or
FAIL with $CMP_NAME.

An address no symbol covers (ld.so's internals on a machine without
libc6-dbg) is a row per address on both sides: perf names a sampled IP by
its address in the module (compared) but a caller's by its raw IP, which no
row of hwprof's carries; such rows are left out and counted, and each
must stay under 1 point of children share (symbolization working)."""
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callgraph_compare import parse_perf  # noqa: E402

name = os.environ.get("CMP_NAME", "diff_children")


def perf_shares(path):
    out = defaultdict(lambda: [0.0, 0.0])
    for ch, se, _comm, dso, sym in parse_perf(path):
        out[(os.path.basename(dso), sym)][0] += ch
        out[(os.path.basename(dso), sym)][1] += se
    return out


def main():
    rows = json.load(open(sys.argv[1]))
    want = [perf_shares(sys.argv[2]), perf_shares(sys.argv[3])]
    up, down = sys.argv[4], sys.argv[5]
    bad, n, seen = [], 0, {}
    unmatched, unmatched_share = 0, 0.0
    for r in rows:
        if r["kind"] != "function" or r["measure"] not in ("children", "self"):
            continue
        col = 0 if r["measure"] == "children" else 1
        for k, side in enumerate(("before", "after")):
            mod = r.get(side + "_module")
            sym = r.get(side + "_symbol")
            if not mod:
                if r[side] != 0:
                    bad.append("%s %s absent but %.4f" % (side, sym, r[side]))
                continue
            key = (os.path.basename(mod), r.get(side + "_demangled") or sym)
            if sym is None:
                key = (key[0], "0x%016x" % int(r[side + "_vaddr"], 16))
                if key not in want[k]:
                    unmatched += 1
                    unmatched_share = max(unmatched_share, r[side])
                    continue
            p = want[k].get(key, [0.0, 0.0])[col]
            n += 1
            if abs(p - r[side]) > 0.005 + 1e-9:
                bad.append("%s %s %s: %.4f, perf %.2f" % (r["measure"], side, key[1], r[side], p))
        if r["measure"] == "children":
            seen[r.get("after_symbol") or r.get("before_symbol")] = r
    if up == "-":
        sig = [r.get("after_symbol") or r.get("before_symbol") for r in seen.values() if r["significant"]]
        if sig:
            bad.append("significant children changes in a recording of the same run: %s" % ", ".join(sig[:4]))
    for fn, sign in ((up, 1), (down, -1)) if up != "-" else ():
        r = seen.get(fn)
        if not r:
            bad.append("no children row for %s" % fn)
        elif not r["significant"] or sign * r["change"] <= 0 or not r["change_low"] <= r["change"] <= r["change_high"]:
            bad.append("%s: change %.2f [%.2f, %.2f] significant %s" % (fn, r["change"], r["change_low"],
                                                                       r["change_high"], r["significant"]))
    if unmatched_share >= 1:
        bad.append("%d unsymbolized addresses perf names otherwise, one of %.2f points of children share" %
                   (unmatched, unmatched_share))
    if bad:
        print("FAIL %s: %d differences: %s" % (name, len(bad), "; ".join(bad[:4])))
    else:
        print("PASS %s (%d shares as perf report --children%s; %s)" %
              (name, n, "; %d unsymbolized caller addresses not compared" % unmatched if unmatched else "",
               "no significant change" if up == "-" else "%s %+.2f, %s %+.2f points, significant" %
               (up, seen[up]["change"], down, seen[down]["change"])))


if __name__ == "__main__":
    main()
