#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks `hwprof record --emulate --exact` output (JSON lines, one branch site
each) against analytic expectations and against callgrind.

  emu_exact.py expect EXACT BINARY RULE...
      RULE is one of
        FUNC:KIND:EXECUTED:TAKEN   sums over the KIND sites inside FUNC
                                   (TAKEN may be A|B: either value)
        FUNC:targets:F1=N,F2=N     the indirect-call targets of the icall
                                   sites inside FUNC, by symbol
        FUNC:has:KIND:EXECUTED:TAKEN  one KIND site inside FUNC has these counts
        FUNC:sites:KIND:N          number of KIND sites inside FUNC
  emu_exact.py callgrind EXACT BINARY [--only F,..] [--skip F,..] CALLGRIND_OUT...
      every jump, conditional jump and call that callgrind reports from
      BINARY (summed over the files: one per process) must have the same
      taken (and, for conditionals, executed) counts in EXACT, and the
      per-target counts of indirect calls inside BINARY must match. Run
      callgrind with --collect-jumps=yes --dump-instr=yes --separate-recs=1
      (recursion levels split a site's counts, and a level where a branch is
      never taken is not listed). rep-prefixed string instructions are left
      out (callgrind counts their iterations as jumps, LBR does not).
      --only / --skip restrict the comparison to sites inside (outside) the
      named functions: a forked child's callgrind output repeats the counts
      its parent had at the fork, and callgrind miscounts a block that takes
      a synchronous fault (SIGSEGV handled and restarted).

Addresses are compared as ELF virtual addresses of the module ("vaddr"), which
is also what callgrind prints (--dump-instr=yes). Prints PASS/FAIL lines with
NAME (the first argument after the subcommand's files is used as prefix via
$EMU_TEST_NAME) and exits 1 on any failure.
"""
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

NAME = os.environ.get("EMU_TEST_NAME", "emu_exact")


def load_exact(path, binary):
    real = os.path.realpath(binary)
    sites = []
    for line in open(path):
        line = line.strip()
        if not line:
            continue
        s = json.loads(line)
        if "vaddr" not in s:
            continue
        if os.path.realpath(s["module"]) != real:
            continue
        s["va"] = int(s["vaddr"], 16)
        sites.append(s)
    return sites


def symbols(binary):
    out = subprocess.run(["nm", "-S", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tTwW":
            syms[f[3]] = (int(f[0], 16), int(f[0], 16) + int(f[1], 16))
    return syms


def sym_of(syms, va):
    for name, (lo, hi) in syms.items():
        if lo <= va < hi:
            return name
    return None


def expect(exact, binary, rules):
    sites = load_exact(exact, binary)
    syms = symbols(binary)
    bad = 0
    for rule in rules:
        parts = rule.split(":")
        fn = parts[0]
        if fn not in syms:
            print(f"FAIL {NAME}: {rule}: no symbol {fn} in {binary}")
            bad += 1
            continue
        lo, hi = syms[fn]
        inside = [s for s in sites if lo <= s["va"] < hi]
        if parts[1] == "targets":
            want = {}
            for kv in parts[2].split(","):
                k, v = kv.split("=")
                want[k] = int(v)
            got = defaultdict(int)
            for s in inside:
                if s["kind"] != "icall":
                    continue
                for t in s.get("targets", []):
                    name = sym_of(syms, int(t.get("vaddr", "0x0"), 16)) \
                        if os.path.realpath(t["module"]) == os.path.realpath(binary) else t["module"]
                    got[name] += t["count"]
            ok = dict(got) == want
        elif parts[1] == "has":
            kind, ex = parts[2], int(parts[3])
            tks = [int(x) for x in parts[4].split("|")]
            got = [(s["executed"], s["taken"]) for s in inside if s["kind"] == kind]
            ok = any(e == ex and t in tks for e, t in got)
        elif parts[1] == "sites":
            n = sum(1 for s in inside if s["kind"] == parts[2])
            got, ok = n, n == int(parts[3])
        else:
            kind, ex, tk = parts[1], int(parts[2]), parts[3]
            e = sum(s["executed"] for s in inside if s["kind"] == kind)
            t = sum(s["taken"] for s in inside if s["kind"] == kind)
            got = f"executed {e} taken {t}"
            ok = e == ex and t in [int(x) for x in tk.split("|")]
        if ok:
            print(f"PASS {NAME}: {rule}")
        else:
            print(f"FAIL {NAME}: {rule}: got {got}")
            bad += 1
    return bad


# ------------------------------------------------------------- callgrind

def parse_callgrind(path):
    """(object, source vaddr, kind, count, executed|None, target vaddr, target object)"""
    names = {}
    last = [0, 0]
    ob = cob = None
    pending = None
    out = []

    def name(kind, s):
        m = re.match(r"\((\d+)\)\s*(.*)", s)
        if m:
            k = (kind, m.group(1))
            if m.group(2):
                names[k] = m.group(2)
            return names.get(k, "?")
        return s

    def pos(tok, i, update=True):
        if tok == "*":
            v = last[i]
        elif tok[0] in "+-":
            v = last[i] + int(tok, 0)
        else:
            v = int(tok, 0)
        if update:
            last[i] = v
        return v

    positions = 1
    for line in open(path):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        if line.startswith("positions:"):
            positions = len(line.split()[1:])
            continue
        head = line.split(" ", 1)[0]
        if "=" in head:
            key, val = line.split("=", 1)
            if key == "ob":
                ob = name("ob", val)
                cob = None
            elif key == "cob":
                cob = name("ob", val)
            elif key in ("fn", "cfn"):
                name("fn", val)
            elif key in ("fl", "fi", "fe", "cfi", "cfl"):
                name("fl", val)
            elif key in ("jump", "jcnd", "calls"):
                f = val.split()
                # target positions do not move the current position
                t = pos(f[1], 0, update=False)
                if key == "jcnd":
                    taken, executed = (int(x) for x in f[0].split("/"))
                else:
                    taken, executed = int(f[0]), None
                tob = (cob or ob) if key == "calls" else ob
                pending = (key, taken, executed, t, tob)
            continue
        if line[0] in "0123456789+-*":
            f = line.split()
            a = pos(f[0], 0)
            for i in range(1, min(positions, len(f))):
                pos(f[i], i)
            if pending:
                key, taken, executed, t, tob = pending
                out.append((ob, a, key, taken, executed, t, tob))
                pending = None
                if key == "calls":
                    cob = None
    return out


def text_range(binary):
    out = subprocess.run(["objdump", "-h", binary], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 4 and f[1] == ".text":
            return int(f[3], 16), int(f[3], 16) + int(f[2], 16)
    return 0, 0


def rep_sites(binary):
    """rep-prefixed string instructions: callgrind counts their iterations
    as a conditional jump to themselves; a branch record never does."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", binary], capture_output=True,
                         text=True, check=True).stdout
    reps = set()
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(repz?|repnz|repe|repne)\s", line)
        if m:
            reps.add(int(m.group(1), 16))
    return reps


def compare_callgrind(exact, binary, files, only=None, skip=None):
    real = os.path.realpath(binary)
    reps = rep_sites(binary)
    syms = symbols(binary)

    def wanted(va):
        if va in reps:
            return False
        name = sym_of(syms, va)
        if only is not None and name not in only:
            return False
        return skip is None or name not in skip
    sites = {}
    for s in load_exact(exact, binary):
        sites[(s["va"], s["kind"])] = s
    by_va = defaultdict(list)
    for (va, kind), s in sites.items():
        by_va[va].append(s)

    jumps = defaultdict(lambda: [0, 0])          # (va, key) -> [taken, executed]
    targets = defaultdict(lambda: defaultdict(int))  # va -> target va -> count
    calls = defaultdict(int)
    for f in files:
        for ob, va, key, taken, executed, t, tob in parse_callgrind(f):
            if not ob or os.path.realpath(ob) != real or not wanted(va):
                continue
            if key == "calls":
                # Calls into other objects go through the PLT, and the lazy
                # binding's resolver shows up as a second callee of the
                # same site: compare calls within the binary only.
                if tob and os.path.realpath(tob) == real:
                    calls[va] += taken
                    targets[va][t] += taken
            else:
                jumps[(va, key)][0] += taken
                if executed is not None:
                    jumps[(va, key)][1] += executed

    bad = checked = 0
    problems = []
    for (va, key), (taken, executed) in sorted(jumps.items()):
        checked += 1
        cand = by_va.get(va, [])
        if key == "jcnd":
            s = next((x for x in cand if x["kind"] == "cond"), None)
            ok = s is not None and s["taken"] == taken and s["executed"] == executed
            got = s and f"{s['kind']} {s['executed']}/{s['taken']}"
            want = f"cond executed {executed} taken {taken}"
        else:
            s = next((x for x in cand if x["kind"] in ("jmp", "ijmp", "cond")), None)
            ok = s is not None and s["taken"] == taken
            got = s and f"{s['kind']} taken {s['taken']}"
            want = f"jump taken {taken}"
        if not ok:
            bad += 1
            problems.append(f"0x{va:x}: callgrind {want}, emulation {got}")
    for va, n in sorted(calls.items()):
        checked += 1
        s = next((x for x in by_va.get(va, []) if x["kind"] in ("call", "icall")), None)
        ok = s is not None and s["executed"] == n
        if ok and s["kind"] == "icall":
            mine = defaultdict(int)
            for t in s.get("targets", []):
                if os.path.realpath(t["module"]) == real and "vaddr" in t:
                    mine[int(t["vaddr"], 16)] += t["count"]
            theirs = {k: v for k, v in targets[va].items()}
            if theirs and mine != theirs:
                ok = False
        if not ok:
            bad += 1
            problems.append(f"0x{va:x}: callgrind calls {n}, emulation "
                            f"{s and (s['kind'], s['executed'])}")
    # every conditional the emulation saw taken in the binary's .text must be
    # in callgrind too (callgrind lists taken jumps only, and attributes
    # .init/.plt code to no object)
    lo, hi = text_range(binary)
    for (va, kind), s in sites.items():
        if kind == "cond" and s["taken"] and lo <= va < hi and wanted(va) and \
                (va, "jcnd") not in jumps:
            checked += 1
            bad += 1
            problems.append(f"0x{va:x}: emulation cond taken {s['taken']}, not in callgrind")
    if checked == 0:
        print(f"FAIL {NAME}: callgrind: no jumps from {binary} in {files}")
        return 1
    if bad:
        print(f"FAIL {NAME}: callgrind: {bad} of {checked} sites differ")
        for p in problems[:20]:
            print(f"    {p}", file=sys.stderr)
    else:
        print(f"PASS {NAME}: callgrind: {checked} sites equal")
    return 1 if bad else 0


def main():
    if len(sys.argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "expect":
        return 1 if expect(sys.argv[2], sys.argv[3], sys.argv[4:]) else 0
    if sys.argv[1] == "callgrind":
        args, only, skip = sys.argv[4:], None, None
        while args and args[0] in ("--only", "--skip"):
            names = set(args[1].split(","))
            if args[0] == "--only":
                only = names
            else:
                skip = names
            args = args[2:]
        return compare_callgrind(sys.argv[2], sys.argv[3], args, only, skip)
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
