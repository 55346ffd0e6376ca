#!/usr/bin/env python3
"""Oracles for the DWARF unwinding test (tests/e2e/dwarf_unwind.sh).

usage: unwind_check.py paths FOLDED MIN_PERCENT
       unwind_check.py cut PERF_SCRIPT FOLDED STACK_SIZE WARNINGS

paths: the call structure of tests/fixtures/dwarf_unwind.c, from its source:
every user stack of `hwprof flame --folded --no-inline` whose innermost
user frame is leaf() must be one of the four ways main reaches it,
  main;a;b;leaf                     (two calls of b per a)
  main;rec x25;leaf                 (rec(24) recurses down to depth 0)
  main;sorter;<libc's qsort...>;by_value;leaf
  main;raise;<libc...>;on_signal;leaf   (through the signal frame)
below _start and the two libc frames that call main; kernel frames after
the user part are ignored. At least MIN_PERCENT of those samples must
match (100 where CFI describes every frame; a frame-pointer walk loses
the caller of a sample taken in a prologue), and each of the four must
be seen. A sample whose innermost user frame is elsewhere is not judged.

cut: a recording whose stack copy is too small for the recursion (perf
record --call-graph dwarf,STACK_SIZE): `hwprof flame --folded --no-inline`
against perf script's callchains (perf 6.1, --no-inline), folded as
stack_oracle.py folds them, with two normalizations, each a difference of
perf 6.1's libunwind-based unwinder, not of the stacks:
  1. perf ends a stack cut by the end of the copy with a frame at address
     0xffffffffffffffff (libunwind's failed read of the return address, 0,
     minus one): that frame is dropped.
  2. perf's access_mem() refuses the copy's last 8 bytes (it tests
     addr + 8 >= end), so where a return address sits in that word perf's
     stack ends one frame earlier: a hwprof stack whose outermost frame,
     removed, gives a stack perf has (and this one perf has not) is counted
     as that stack.
Then the stacks must be equal, and the count WARNINGS (from hwprof's
warning: stacks that ran past their copy) must be within 1% of the samples
of perf's stacks that do not reach _start.
Prints PASS/FAIL lines named by $CMP_NAME.
"""
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stack_oracle  # noqa: E402

name = os.environ.get("CMP_NAME", "unwind_check")
KERNEL = re.compile(r"^(asm_|entry_SYSCALL|exc_|sysvec_|irqentry_|__sysvec_|common_interrupt|ret_from_)")


def folded(path):
    got = Counter()
    for line in open(path):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        got[stack] += int(n)
    return got


def user_part(frames):
    """The frames before the first kernel entry point (callers first)."""
    for i, f in enumerate(frames):
        if KERNEL.match(f):
            return frames[:i]
    return frames


def paths(path, min_percent):
    base = r"^_start;[^;]+;[^;]+;main;"
    ways = {
        "a": re.compile(base + r"a;b;leaf$"),
        "rec": re.compile(base + r"(rec;){25}leaf$"),
        "qsort": re.compile(base + r"sorter;([^;]+;)+by_value;leaf$"),
        "signal": re.compile(base + r"raise;([^;]+;)+on_signal;leaf$"),
    }
    seen, total, bad = Counter(), 0, Counter()
    for stack, n in folded(path).items():
        user = user_part(stack.split(";"))
        if not user or user[-1] != "leaf":
            continue
        total += n
        s = ";".join(user)
        for way, rx in ways.items():
            if rx.match(s):
                seen[way] += n
                break
        else:
            bad[s] += n
    ok = sum(seen.values())
    missing = [w for w in ways if not seen[w]]
    if total and 100.0 * ok / total >= min_percent and not missing:
        print(f"PASS {name} ({ok} of {total} samples in leaf on the source's paths: {dict(seen)})")
        return 0
    worst = "; ".join(f"{s[-100:]} x{n}" for s, n in bad.most_common(2))
    print(f"FAIL {name}: {ok} of {total} samples in leaf on the source's paths (want {min_percent}%), "
          f"none on {missing}; others: {worst}")
    return 1


def cut(script, mine, size, warned):
    want, cut_perf = Counter(), 0
    for fr in stack_oracle.samples(script):
        if not fr:
            continue
        if fr[-1] == "0xffffffffffffffff":
            fr = fr[:-1]
        if fr and fr[-1] != "_start":
            cut_perf += 1
        want[";".join(reversed(fr))] += 1
    got = folded(mine)
    for stack in list(got):
        shorter = stack.partition(";")[2]
        if stack not in want and shorter and want[shorter] > got[shorter]:
            n = min(got[stack], want[shorter] - got[shorter])
            got[stack] -= n
            got[shorter] += n
    got = +got
    total = sum(want.values())
    diff = [(s, want[s], got[s]) for s in set(want) | set(got) if want[s] != got[s]]
    if diff:
        diff.sort(key=lambda d: -abs(d[1] - d[2]))
        det = "; ".join(f"{s[-80:]}: perf {a} hwprof {b}" for s, a, b in diff[:3])
        print(f"FAIL {name}: {len(diff)} stacks differ: {det}")
        return 1
    if abs(cut_perf - int(warned)) > total / 100:
        print(f"FAIL {name}: hwprof says {warned} stacks ran past their {size}-byte copy, "
              f"perf's {cut_perf} of {total} stacks do not reach _start")
        return 1
    print(f"PASS {name} ({len(want)} distinct stacks, {total} samples; {warned} said to run past "
          f"their {size}-byte copy, perf cut {cut_perf})")
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "paths":
        sys.exit(paths(sys.argv[2], float(sys.argv[3])))
    sys.exit(cut(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]))
