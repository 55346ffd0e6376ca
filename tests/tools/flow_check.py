#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares hwprof's fall-through estimates with the exact counts of an
emulated recording (`hwprof record --emulate --exact`).

  flow_check.py NAME EXACT BINARY PROBS_JSON BLOCKS_JSON [--indirect JSON] [--paths JSON]
                [--assert] [--no-assert-dp] [--no-assert-rho] [--dp-noise K]
                [--min-exec N] [--max-dp D] [--min-block N] [--min-rho R]

PROBS_JSON is `hwprof probs --json`, BLOCKS_JSON `hwprof blocks --json`; only
rows of BINARY's module are compared.

Branches: for every conditional branch with at least --min-exec (1000)
sampled executions, |estimated taken probability - exact taken / executed|.
Blocks: Spearman's rank correlation between the sampled block executions
and the exact ones, over blocks with at least --min-block (100) sampled
executions. The exact count of a block is that of its first instruction,
derived here without hwprof: objdump decodes BINARY, and every instruction
runs as often as control reaches it, by a taken branch (direct targets from
objdump, indirect ones from the exact file's target lists, returns at the
instruction after each call) or by falling through from the one before it
(all its executions, a conditional's not-taken ones, a call's once the
callee returns). The exact file is the only source of counts.

With --dp-noise K the branch check allows, per branch, the larger of D and
K binomial standard deviations (sqrt(p(1-p)/n), p exact, n sampled): for real
programs, where hundreds of branches sit near 1000 sampled executions and
the largest of their errors exceeds 0.02 by chance in some runs (sigma is
0.016 at p = 0.5, n = 1000, and the samples of one stack are correlated),
while a systematic error still shows on every well-sampled branch.

Blocks are also checked for systematic error: with r = sampled / exact over
the compared blocks, each estimate should be about Poisson(r * exact), so the
spread of (estimate - r * exact) / sqrt(r * exact) is about 1 when the only
differences are sampling noise, more when the windows of one stack
correlate (a tight loop fills a window: about 2 for zlib's longest_match); it
must stay <= 3, which a systematic error of a few percent on any hot block
exceeds. Spearman's rho is low when many blocks run (nearly)
equally often, however good the estimates: their ranks are noise.

Indirect sites (--indirect: `hwprof probs --indirect --json`) with at least
--min-exec entries: every target's share against the exact file's target
counts; max |d share| <= --max-dp.

Paths (--paths: `hwprof paths --json`): every step from one block of a path
to the next must be an edge objdump's code allows, forward, inside one
function: the fall-through of the block's last instruction, or its direct
target when it is a jump or conditional branch, or any place after it when
it is an indirect jump; no call or return inside a path; and no path runs
more often than any of its blocks.

Prints one line of numbers (and PASS/FAIL lines with --assert; the dp and
rho thresholds can be left out of the assertion). Exits 1 when an asserted
threshold fails.
"""
import json
import os
import re
import subprocess
import sys
from collections import defaultdict


def load_exact(path):
    sites = []
    for line in open(path):
        line = line.strip()
        if line:
            sites.append(json.loads(line))
    return sites


def same_module(a, b):
    return a and b and os.path.realpath(a) == os.path.realpath(b)


# objdump -d: "  401136:\tjne    401140 <f+0x10>" (no raw bytes)
INSN = re.compile(r"^\s*([0-9a-f]+):\s+(.*)$")


def decode(binary):
    """[(vaddr, mnemonic, operands)] of every executable section, in order."""
    out = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", binary],
                         capture_output=True, text=True, check=True)
    insns = []
    for line in out.stdout.splitlines():
        m = INSN.match(line)
        if not m:
            continue
        text = m.group(2).split("#")[0].strip()
        if not text or text.startswith("(bad)"):
            insns.append((int(m.group(1), 16), "(bad)", ""))
            continue
        parts = text.split(None, 1)
        mn = parts[0]
        ops = parts[1] if len(parts) > 1 else ""
        # prefixes objdump prints as part of the mnemonic field
        while mn in ("bnd", "notrack", "lock", "rep", "repz", "repnz", "repe", "repne",
                     "data16", "cs", "ds") and ops:
            p = ops.split(None, 1)
            mn, ops = p[0], p[1] if len(p) > 1 else ""
        insns.append((int(m.group(1), 16), mn, ops))
    return insns


def direct_target(ops):
    m = re.match(r"([0-9a-f]+)\s*(<|$)", ops.strip())
    return int(m.group(1), 16) if m else None


def exact_insn_counts(binary, sites):
    """vaddr -> exact executions of each instruction of BINARY."""
    mine = {}
    inflow = defaultdict(int)
    for s in sites:
        if same_module(s["module"], binary) and "vaddr" in s:
            mine[int(s["vaddr"], 16)] = s
        for t in s.get("targets", []):
            if same_module(t.get("module"), binary) and "vaddr" in t:
                inflow[int(t["vaddr"], 16)] += t["count"]
    insns = decode(binary)
    for i, (va, mn, ops) in enumerate(insns):
        s = mine.get(va)
        if not s or s["kind"] not in ("cond", "jmp", "call"):
            continue
        t = direct_target(ops)
        if t is not None:
            inflow[t] += s["taken"]
    counts = {}
    prev_fall = 0
    prev_end = None
    for i, (va, mn, ops) in enumerate(insns):
        fall = prev_fall if prev_end == va else 0
        n = inflow[va] + fall
        counts[va] = n
        s = mine.get(va)
        kind = s["kind"] if s else None
        if kind == "cond":
            prev_fall = s["executed"] - s["taken"]
        elif kind in ("call", "icall"):
            prev_fall = s["executed"]  # the callee returns here (exit() aside)
        elif kind in ("jmp", "ijmp", "ret", "far", "trap"):
            prev_fall = 0
        elif kind == "syscall":
            prev_fall = s["executed"]
        elif mn in ("jmp", "ret", "hlt", "ud2") or mn.startswith("ret"):
            prev_fall = 0  # never ran (no site), or cannot fall through
        else:
            prev_fall = n
        prev_end = insns[i + 1][0] if i + 1 < len(insns) else None
    return counts


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2.0 + 1
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    if n < 2:
        return float("nan")
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va and vb else float("nan")


def main():
    args = sys.argv[1:]
    opts = {"--min-exec": 1000, "--max-dp": 0.02, "--min-block": 100, "--min-rho": 0.95}
    do_assert = False
    assert_dp = assert_rho = True
    dp_noise = 0.0
    indirect_path = paths_path = None
    pos = []
    while args:
        a = args.pop(0)
        if a == "--assert":
            do_assert = True
        elif a == "--no-assert-dp":
            assert_dp = False
        elif a == "--no-assert-rho":
            assert_rho = False
        elif a == "--dp-noise":
            dp_noise = float(args.pop(0))
        elif a == "--indirect":
            indirect_path = args.pop(0)
        elif a == "--paths":
            paths_path = args.pop(0)
        elif a in opts:
            opts[a] = float(args.pop(0))
        else:
            pos.append(a)
    if len(pos) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    name, exact_path, binary, probs_path, blocks_path = pos
    sites = load_exact(exact_path)
    by_off = {int(s["offset"], 16): s for s in sites
              if same_module(s["module"], binary) and s["kind"] == "cond"}
    probs = json.load(open(probs_path))
    blocks = json.load(open(blocks_path))

    # branches
    worst, worst_row, n_br, missing, inside = 0.0, None, 0, 0, 0
    over = []  # branches beyond the allowed error
    for r in probs:
        if not same_module(r.get("module"), binary) or r.get("executions", 0) < opts["--min-exec"]:
            continue
        s = by_off.get(int(r["offset"], 16))
        if s is None or s["executed"] == 0:
            missing += 1
            continue
        n_br += 1
        p = s["taken"] / s["executed"]
        est = r["taken_percent"] / 100
        d = abs(est - p)
        lo, hi = r["taken_low_percent"] / 100, r["taken_high_percent"] / 100
        inside += lo <= p <= hi
        if d > worst:
            worst, worst_row = d, (r["offset"], r["executions"], est, p)
        allowed = max(opts["--max-dp"], dp_noise * (p * (1 - p) / r["executions"]) ** 0.5)
        if d > allowed:
            over.append(f"{r['offset']}: |dp| {d:.4f} > {allowed:.4f} ({r['executions']} sampled)")

    # blocks
    counts = exact_insn_counts(binary, sites)
    est, ex, no_insn = [], [], 0
    for b in blocks:
        if not same_module(b.get("module"), binary) or b.get("count", 0) < opts["--min-block"]:
            continue
        if b.get("vaddr") is None or int(b["vaddr"], 16) not in counts:
            no_insn += 1
            continue
        est.append(b["count"])
        ex.append(counts[int(b["vaddr"], 16)])
    rho = spearman(est, ex)
    # Sampling noise: with r = sampled / exact over these blocks, a block's
    # estimate is about Poisson(r * exact); the spread of its z-score says
    # whether the differences are noise (about 1) or a systematic error.
    r = sum(est) / sum(ex) if ex and sum(ex) else 0
    zs = [(a - r * e) / (r * e) ** 0.5 for a, e in zip(est, ex) if r * e > 0]
    zstd = (sum(z * z for z in zs) / len(zs)) ** 0.5 if zs else float("nan")

    # indirect targets
    n_ind, worst_share, ind_over = 0, 0.0, []
    if indirect_path:
        exact_t = {}
        for s in sites:
            if same_module(s["module"], binary) and s["kind"] in ("ijmp", "icall"):
                tot = sum(t["count"] for t in s.get("targets", []))
                exact_t[int(s["offset"], 16)] = {
                    (os.path.realpath(t["module"]), int(t["offset"], 16)): t["count"] / tot
                    for t in s.get("targets", []) if tot}
        seen = set()
        for r in json.load(open(indirect_path)):
            if not same_module(r.get("module"), binary) or r["site_count"] < opts["--min-exec"]:
                continue
            off = int(r["offset"], 16)
            want = exact_t.get(off, {})
            key = (os.path.realpath(r["target_module"] or ""), int(r["target_offset"], 16))
            err = abs(r["share_percent"] / 100 - want.get(key, 0))
            worst_share = max(worst_share, err)
            # the same noise allowance as the branches' (real programs)
            p = want.get(key, 0)
            if err > max(opts["--max-dp"], dp_noise * (p * (1 - p) / r["site_count"]) ** 0.5):
                ind_over.append(f"{r['offset']}->{r['target_offset']} {err:.4f}")
            if off not in seen:
                seen.add(off)
                n_ind += 1
                # targets the exact file has and the estimate lacks
                mine = [x for x in json.load(open(indirect_path)) if x.get("offset") == r["offset"]
                        and same_module(x.get("module"), binary)]
                got = {(os.path.realpath(x["target_module"] or ""), int(x["target_offset"], 16)) for x in mine}
                for k, v in want.items():
                    if k not in got:
                        worst_share = max(worst_share, v)
                        if v > opts["--max-dp"]:
                            ind_over.append(f"{r['offset']} lacks a target of share {v:.4f}")

    # paths
    n_paths, bad_paths, bad_example = 0, 0, None
    if paths_path:
        insns = decode(binary)
        at = {va: i for i, (va, mn, ops) in enumerate(insns)}
        blk = {int(b["offset"], 16): b for b in blocks if same_module(b.get("module"), binary)}
        for pth in json.load(open(paths_path)):
            if not same_module(pth.get("module"), binary):
                continue
            n_paths += 1
            offs = [int(x, 16) for x in pth["block_offsets"].split()]
            why = None
            for a, b in zip(offs, offs[1:] + [None]):
                ba = blk.get(a)
                if ba is None:
                    why = f"block 0x{a:x} not in the block table"
                    break
                if ba["count"] < pth["count"]:
                    why = f"block 0x{a:x} ran {ba['count']} times, the path {pth['count']}"
                    break
                delta = int(ba["vaddr"], 16) - a
                last = int(ba["last_offset"], 16) + delta
                i = at.get(last)
                if i is None:
                    why = f"last instruction 0x{last:x} of block 0x{a:x} is no objdump instruction"
                    break
                mn, ops = insns[i][1], insns[i][2]
                nxt = insns[i + 1][0] if i + 1 < len(insns) else None
                if b is None:
                    break  # the path may end with anything
                if mn.startswith("call") or mn.startswith("ret"):
                    why = f"{mn} at 0x{last:x} inside a path"
                    break
                vb = b + delta
                if vb <= int(ba["vaddr"], 16):
                    why = f"backward step 0x{a:x} -> 0x{b:x}"
                    break
                tgt = direct_target(ops) if mn.startswith("j") else None
                if mn.startswith("j") and "*" in ops:
                    ok = True  # an indirect jump: a switch case
                elif mn == "jmp":
                    ok = vb == tgt
                elif mn.startswith("j"):
                    ok = vb in (tgt, nxt)
                else:
                    ok = vb == nxt
                if not ok:
                    why = f"no edge from 0x{last:x} ({mn} {ops}) to 0x{vb:x}"
                    break
            if why:
                bad_paths += 1
                bad_example = bad_example or why

    print(f"{name}: {n_br} conditional branches with >= {opts['--min-exec']:.0f} sampled executions: "
          f"max |dp| {worst:.4f}" + (f" (at {worst_row[0]}: {worst_row[1]} sampled, estimated "
                                     f"{worst_row[2]:.4f}, exact {worst_row[3]:.4f})" if worst_row else "")
          + f", exact p inside the 95% interval for {inside}/{n_br}"
          + (f", {missing} not in the exact file" if missing else "")
          + f"; Spearman {rho:.4f} over {len(est)} blocks with >= {opts['--min-block']:.0f} sampled executions"
          + (f" ({no_insn} blocks at no objdump instruction)" if no_insn else "")
          + f"; z-score spread of the block estimates {zstd:.2f} (1 = sampling noise)"
          + (f"; {n_ind} indirect sites: max |d share| {worst_share:.4f}" if indirect_path else "")
          + (f"; {n_paths} paths, {bad_paths} impossible" if paths_path else ""))
    bad = 0
    if do_assert:
        checks = [
            (f"{name}_branches_present", n_br > 0, f"{n_br} branches to compare"),
            (f"{name}_dp", n_br > 0 and not over and not missing,
             (f"max |dp| {worst:.4f} <= {opts['--max-dp']} over {n_br} branches" if not dp_noise else
              f"|dp| <= max({opts['--max-dp']}, {dp_noise:g} sigma) over {n_br} branches (max |dp| {worst:.4f})")
             + (f"; {len(over)} beyond: {over[0]}" if over else "")
             + (f"; {missing} estimated branches are not conditional sites in the exact file" if missing else "")),
            (f"{name}_blocks_present", len(est) >= 5, f"{len(est)} blocks to compare"),
            (f"{name}_spearman", rho == rho and rho >= opts["--min-rho"] and not no_insn,
             f"Spearman {rho:.4f} >= {opts['--min-rho']} over {len(est)} blocks"
             + (f"; {no_insn} blocks start at no instruction" if no_insn else "")),
        ]
        checks.append((f"{name}_block_noise", zstd == zstd and zstd <= 3,
                       f"z-score spread {zstd:.2f} <= 3"))
        if indirect_path:
            checks.append((f"{name}_indirect", not ind_over,
                           (f"max |d share| {worst_share:.4f} <= {opts['--max-dp']}" if not dp_noise else
                            f"|d share| <= max({opts['--max-dp']}, {dp_noise:g} sigma) (max {worst_share:.4f})")
                           + f" over {n_ind} sites" + (f"; beyond: {ind_over[0]}" if ind_over else "")))
        if paths_path:
            checks.append((f"{name}_paths", n_paths > 0 and bad_paths == 0,
                           f"{n_paths} paths, {bad_paths} impossible" + (f": {bad_example}" if bad_example else "")))
        if not assert_dp:
            checks = [c for c in checks if not c[0].endswith("_dp")]
        if not assert_rho:
            checks = [c for c in checks if not c[0].endswith("_spearman")]
        for cname, ok, msg in checks:
            print(f"{'PASS' if ok else 'FAIL'} {cname} ({msg})")
            bad += not ok
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
