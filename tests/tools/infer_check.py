#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Block counts against the exact ones of an emulated recording, with and
without `--infer`: llvm-profdata overlap's measure and flow conservation.

  infer_check.py NAME EXACT BINARY BLOCKS_JSON INFERRED_BLOCKS_JSON [--assert]

BLOCKS_JSON and INFERRED_BLOCKS_JSON are `hwprof blocks --json` without and
with --infer; only BINARY's blocks are compared. The exact count of a block
is that of its first instruction, derived by flow_check.py from the exact
file and objdump alone (no hwprof).

Overlap (llvm-profdata overlap's formula): over the blocks either table
holds, the sum of min(estimate / sum of estimates, exact / sum of exact),
in percent: 100 when the estimate is proportional to the exact counts.
Printed for the whole binary and as the count-weighted mean of its
functions' overlaps (each function's blocks normalized alone, as
llvm-profdata's per-function overlap). With --assert: inference must not
lower the binary's overlap by more than 0.1 point, and every block of the
inferred table must start at an instruction objdump decodes.
"""
import json
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flow_check import exact_insn_counts, load_exact, same_module  # noqa: E402


def blocks_of(path, binary):
    out = {}
    for b in json.load(open(path)):
        if same_module(b.get("module"), binary) and b.get("vaddr"):
            out[int(b["vaddr"], 16)] = (b["count"], b.get("symbol") or "?")
    return out


def overlap(keys, est, exact):
    se = sum(est.get(k, 0) for k in keys)
    sx = sum(exact.get(k, 0) for k in keys)
    if not se or not sx:
        return float("nan")
    return 100.0 * sum(min(est.get(k, 0) / se, exact.get(k, 0) / sx) for k in keys)


def per_function(keys, est, exact, sym):
    by_fn = defaultdict(list)
    for k in keys:
        by_fn[sym[k]].append(k)
    tot, wsum = 0.0, 0.0
    for fn, ks in by_fn.items():
        w = sum(exact.get(k, 0) for k in ks)
        o = overlap(ks, est, exact)
        if w and o == o:
            tot += w * o
            wsum += w
    return tot / wsum if wsum else float("nan")


def main():
    args = [a for a in sys.argv[1:] if a != "--assert"]
    do_assert = "--assert" in sys.argv[1:]
    if len(args) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    name, exact_path, binary, plain_path, inf_path = args
    counts = exact_insn_counts(binary, load_exact(exact_path))
    plain = blocks_of(plain_path, binary)
    inf = blocks_of(inf_path, binary)
    keys = sorted(set(plain) | set(inf))
    sym = {k: (plain.get(k) or inf.get(k))[1] for k in keys}
    exact = {k: counts.get(k, 0) for k in keys}
    e_plain = {k: v[0] for k, v in plain.items()}
    e_inf = {k: v[0] for k, v in inf.items()}
    o0, o1 = overlap(keys, e_plain, exact), overlap(keys, e_inf, exact)
    f0, f1 = per_function(keys, e_plain, exact, sym), per_function(keys, e_inf, exact, sym)
    bad = [k for k in inf if k not in counts]
    print(f"{name}: {len(keys)} blocks; block overlap with the exact counts {o0:.3f}% sampled, "
          f"{o1:.3f}% inferred; per function (weighted) {f0:.3f}% sampled, {f1:.3f}% inferred")
    if not do_assert:
        return 0
    checks = [
        (f"{name}_infer_overlap", o1 == o1 and o1 >= o0 - 0.1, f"inferred {o1:.3f}% >= sampled {o0:.3f}% - 0.1"),
        (f"{name}_infer_blocks", not bad and inf, f"{len(inf)} inferred blocks, {len(bad)} at no instruction"),
    ]
    rc = 0
    for cname, ok, msg in checks:
        print(f"{'PASS' if ok else 'FAIL'} {cname} ({msg})")
        rc |= not ok
    return rc


if __name__ == "__main__":
    sys.exit(main())
