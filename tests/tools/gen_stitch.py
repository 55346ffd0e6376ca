#!/usr/bin/env python3
"""Writes an LBR call-stack recording on which perf 6.1 stitches (--stitch-lbr).

usage: gen_stitch.py OUT.data [SAMPLES] [SEED]

One thread walks a call tree deeper than its LBR (CPU_PMU_CAPS branches=4):
function f<k> at 0x400000 + 0x1000*k calls f<k+1> from one of two call
sites. The LBR is modelled as hardware keeps it in call-stack mode: a ring
of 4 registers, a call written at the top of stack, a return popping it; a
sample reports the top entries still holding the current stack (at most 4),
with the hardware index of the top. So deep stacks lose their callers, and
perf's stitching finds them again in earlier samples of the thread. Uses
tests/tools/perfdata.py's record helpers; attrs are 128 bytes (perf 6.1
refuses larger ones).
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfdata as pd  # noqa: E402

MAX = 4
BR_USER = 1 << 0
ST = pd.IP | pd.TID | pd.TIME | pd.CALLCHAIN | pd.PERIOD | pd.BRANCH_STACK


class Ev(pd.Event):
    def attr(self):
        return pd.attr_bytes(self.sample_type, 0, self.branch_sample_type, self.flags, size=128)


def fn(k):
    return 0x400000 + 0x1000 * k


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    ev = Ev(ST, 0, BR_USER | pd.BR_CALL_STACK | pd.BR_HW_INDEX, pd.F_SAMPLE_ID_ALL | pd.F_COMM,
            [], "cycles:u")
    regs = [None] * MAX     # the ring: (from, to) per register
    stack = []              # the real stack: (from, to) of each call, outermost first
    recs = [pd.record(pd.REC_COMM, pd.u32(100) + pd.u32(101) + pd.pad8(b"stitchme\0") +
                      pd.id_trailer(ev, 1), 0)]
    t = 10
    for _ in range(n):
        # move: mostly deeper or shallower by a few calls, bounded 1..14
        for _ in range(rnd.randint(1, 4)):
            if len(stack) > 1 and (len(stack) >= 14 or rnd.random() < 0.45):
                stack.pop()
            else:
                k = len(stack)
                call = (fn(k) + 0x10 + 0x20 * rnd.randint(0, 1), fn(k + 1))
                stack.append(call)
                regs[(len(stack) - 1) % MAX] = call
        d = len(stack)
        tos = (d - 1) % MAX
        # what the registers hold, stale or not: a deeper excursion may
        # have overwritten callers the stack still has (hardware does not
        # know); never empty (perf 6.1 reads entries[0] of an empty stack)
        entries = [regs[(d - 1 - i) % MAX] for i in range(min(d, MAX))]
        ip = fn(d) + 0x40 + rnd.randint(0, 15)
        body = pd.u64(ip) + pd.u32(100) + pd.u32(101) + pd.u64(t) + pd.u64(3)
        body += pd.u64(2) + pd.u64(pd.CONTEXT_USER) + pd.u64(ip)
        body += pd.u64(len(entries)) + pd.u64(tos)
        for frm, to in entries:
            body += pd.u64(frm) + pd.u64(to) + pd.u64(0)
        recs.append(pd.record(pd.REC_SAMPLE, body, 2))
        t += 10
    recs.append(pd.record(pd.REC_FINISHED_ROUND, b""))
    desc = pd.u32(1) + pd.u32(128) + ev.attr() + pd.u32(0) + pd.pstr(ev.name)
    feats = {
        pd.FEAT_HOSTNAME: pd.pstr("stitchhost"),
        pd.FEAT_OSRELEASE: pd.pstr("6.1.0"),
        pd.FEAT_NRCPUS: pd.u32(1) + pd.u32(1),
        pd.FEAT_EVENT_DESC: desc,
        pd.FEAT_CPU_PMU_CAPS: pd.u32(1) + pd.pstr("branches") + pd.pstr(str(MAX)),
    }
    with open(out, "wb") as f:
        f.write(pd.build_file([ev], recs, feats))


if __name__ == "__main__":
    main()
