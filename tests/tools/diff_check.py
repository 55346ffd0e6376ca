#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks 'hwprof diff --all --json' output for tests/e2e/diff.sh.

  diff_check.py none JSON
      no row is significant
  diff_check.py truth PERMILLE ROUNDS
      the planted condition's true frequency (diff_branch.c's generator replayed)
  diff_check.py planted JSON LINE P_BEFORE P_AFTER
      the most significant taken-probability change is the branch at
      diff_branch.c:LINE; the true change of the branch's probability of
      going one way (P_AFTER - P_BEFORE, or its negation when the compiler
      made the other direction the taken one) lies inside its interval; no
      other branch site's taken probability is significant
Prints a one-line summary; exits 1 with the reason on failure."""
import json
import sys


def main(argv):
    rows = json.load(open(argv[2]))
    sig = [r for r in rows if r["significant"]]
    if argv[1] == "none":
        if sig:
            r = sig[0]
            sys.exit(f"{len(sig)} significant: {r['kind']} {r['measure']} {r.get('after_symbol')}"
                     f"+{r.get('after_sym_offset')} {r['change']:+.2f} "
                     f"[{r['change_low']:+.2f}, {r['change_high']:+.2f}]")
        widest = max((r["change_high"] - r["change_low"] for r in rows
                      if r["kind"] == "branch"), default=0)
        print(f"{len(rows)} rows, none significant; widest branch interval {widest:.1f} points")
        return
    line, pb, pa = int(argv[3]), float(argv[4]), float(argv[5])
    if not sig:
        sys.exit("no significant change found")
    # the most significant change of a taken probability (latency rows of
    # the blocks around it may move too: their mispredicts change)
    top = next((r for r in sig if (r["kind"], r["measure"]) == ("branch", "taken")), None)
    if top is None or top.get("after_line") != line:
        sys.exit(f"top taken-probability change is at line {top and top.get('after_line')}, not the "
                 f"planted branch at line {line}")
    # the taken direction is the condition's or its negation, as laid out
    before = top["before"] / 100
    truth = (pa - pb) if abs(before - pb) < abs(before - (1 - pb)) else (pb - pa)
    lo, hi = top["change_low"] / 100, top["change_high"] / 100
    if not lo <= truth <= hi:
        sys.exit(f"true change {truth:+.4f} outside [{lo:+.4f}, {hi:+.4f}] (measured {top['change'] / 100:+.4f})")
    others = {(r.get("after_offset"), r.get("after_line")) for r in sig
              if r["kind"] == "branch" and r["measure"] == "taken" and r.get("after_line") != line}
    if others:
        sys.exit(f"other branches called changed: {sorted(others)}")
    print(f"planted branch at line {line}: measured {top['change']:+.2f} points "
          f"[{lo * 100:+.2f}, {hi * 100:+.2f}], true {truth * 100:+.2f}")


def rng_truth(permille, rounds):
    """The planted condition's frequency: diff_branch.c's xorshift32, replayed."""
    r, hits = 2463534242, 0
    for _ in range(rounds):
        r ^= (r << 13) & 0xFFFFFFFF
        r ^= r >> 17
        r ^= (r << 5) & 0xFFFFFFFF
        hits += r % 1000 < permille
    return hits / rounds


if __name__ == "__main__":
    if sys.argv[1] == "truth":
        print(f"{rng_truth(int(sys.argv[2]), int(sys.argv[3])):.6f}")
    else:
        main(sys.argv)
