#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a 'perf script -F ip,brstack --show-mmap-events' text whose branch
stacks hold one range of each kind, for BINARY (an x86-64 PIE) as if mapped
at 0x555555554000 by pid 4242, plus /bin/true's text as a second module.
Each sample has two entries: e[1] (older) ends at the range start, e[0]
(newer) starts at the range end. The kinds, chosen from objdump -d:
  accepted   start < end in one function, no jmp/call/ret between
  crosses    a direct call strictly between start and end
  ind_jump   an indirect jump (a switch's jump table) strictly between: also
             "crosses_branch" to hwprof (llvm-profgen accepts it)
  backward   end before start
  misaligned end one byte into a multi-byte instruction, nothing between
  modules    end in /bin/true's mapping
  unmapped   end at an address no mapping holds
  zeroed     the older entry is 0x0/0x0
  duplicate  e[0] and e[1] are the same forward branch
  wrong_path the backward range with e[0] marked SPEC_WRONG_PATH (llvm-profgen,
             blind to speculation, rejects it as backward)
Writes the text to stdout and the expected count per reason (JSON) to
EXPECT; kind K appears COUNTS[K] times. With LENGTHS, writes there, for the
kinds a length limit reaches, each one's length (end - start), count and
reason.
usage: gen_range_cases.py BINARY EXPECT [LENGTHS]
"""
import json
import re
import subprocess
import sys

BASE = 0x555555554000
OTHER = 0x7f0000000000
COUNTS = {"accepted": 5, "crosses_branch": 3, "ind_jump": 9, "backward": 2, "misaligned": 4, "modules": 1,
          "unmapped": 6, "zeroed": 7, "duplicate": 8, "wrong_path": 10}


def insns(binary):
    out = subprocess.run(["objdump", "-d", "-w", "--no-show-raw-insn", "-j", ".text", binary],
                         capture_output=True, text=True, check=True).stdout
    res, func = [], None
    for l in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", l)
        if m:
            func = m.group(1)
            continue
        m = re.match(r"^\s*([0-9a-f]+):\t(.*)$", l)
        if m:
            words = [w for w in m.group(2).split() if w not in ("bnd", "notrack", "repz", "cs", "data16")]
            res.append((int(m.group(1), 16), words[0] if words else "", func,
                        words[1] if len(words) > 1 else ""))
    return res


def main():
    binary, expect = sys.argv[1:3]
    ph = subprocess.run(["readelf", "-lW", binary], capture_output=True, text=True, check=True).stdout
    seg = next(l.split() for l in ph.splitlines() if l.split()[:1] == ["LOAD"] and "E" in l.split()[6:-1])
    off, va, size = int(seg[1], 16), int(seg[2], 16), int(seg[4], 16)
    ins = insns(binary)
    uncond = lambda mn: mn.startswith(("jmp", "call", "ret"))
    addr = lambda v: BASE + v  # PIE: link-time address + load base
    cases = {}
    for i, (v, mn, fn, _) in enumerate(ins):
        nxt = [x for x in ins[i + 1:i + 40] if x[2] == fn]
        # accepted: the longest stretch from v with no uncond before its end
        if "accepted" not in cases and not uncond(mn) and len(nxt) > 4 and fn == "loop":
            end = None
            for w, mn2, _, _ in nxt:
                if uncond(mn2):
                    end = w
                    break
            if end:
                cases["accepted"] = (addr(v), addr(end))
        if "crosses_branch" not in cases and fn == "loop" and mn.startswith("call") and i > 0 and \
                ins[i - 1][2] == fn and not uncond(ins[i - 1][1]) and i + 1 < len(ins) and ins[i + 1][2] == fn:
            cases["crosses_branch"] = (addr(ins[i - 1][0]), addr(ins[i + 1][0]))
        if "ind_jump" not in cases and mn == "jmp" and i > 0 and i + 1 < len(ins) and \
                ins[i - 1][2] == fn == ins[i + 1][2] and not uncond(ins[i - 1][1]) and \
                ins[i][3].startswith("*"):
            cases["ind_jump"] = (addr(ins[i - 1][0]), addr(ins[i + 1][0]))
        if "misaligned" not in cases and fn == "loop" and i + 2 < len(ins) and not uncond(mn) and \
                not uncond(ins[i + 1][1]) and ins[i + 2][0] - ins[i + 1][0] > 1:
            cases["misaligned"] = (addr(v), addr(ins[i + 1][0]) + 1)
    a, b = cases["accepted"]
    cases["backward"] = (b, a)
    cases["modules"] = (a, OTHER + 0x10)
    cases["unmapped"] = (a, 0x1000)
    # somewhere to come from and go to: a call site and its target
    src, dst = addr(ins[1][0]), addr(ins[0][0])
    lines = [f"true 4242 PERF_RECORD_MMAP2 4242/4242: [{addr(va):#x}({size:#x}) @ {off:#x} 08:01 1 0]: r-xp {binary}",
             f"true 4242 PERF_RECORD_MMAP2 4242/4242: [{OTHER:#x}(0x10000) @ 0x1000 08:01 2 0]: r-xp /bin/true"]
    e = lambda f, t, spec="": f"{f:#x}/{t:#x}/P/-/-/0" + (f"/{spec}" if spec else "")
    for kind, n in COUNTS.items():
        for _ in range(n):
            if kind == "zeroed":
                stack = [e(b, dst), e(0, 0)]
            elif kind == "duplicate":
                stack = [e(a, b), e(a, b)]  # a < b: forward
            elif kind == "wrong_path":
                stack = [e(a, dst, "SPEC_WRONG_PATH"), e(src, b)]
            else:
                s, t = cases[kind]
                stack = [e(t, dst), e(src, s)]
            lines.append(f"{stack[0].split('/')[0][2:]} " + "  ".join(stack))
    print("\n".join(lines))
    exp = {k: v for k, v in COUNTS.items() if k != "ind_jump"}
    exp["crosses_branch"] += COUNTS["ind_jump"]
    json.dump(exp, open(expect, "w"))
    if len(sys.argv) > 3:
        reason = {"ind_jump": "crosses_branch"}
        json.dump({k: {"bytes": cases[k][1] - cases[k][0], "count": COUNTS[k], "reason": reason.get(k, k)}
                   for k in ("accepted", "crosses_branch", "ind_jump", "misaligned")}, open(sys.argv[3], "w"))


main()
