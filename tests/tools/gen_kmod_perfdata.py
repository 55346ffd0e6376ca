#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a perf.data whose kernel samples lie in a kernel module, for the
test of a module's symbols read from its .ko (tests/e2e/kernel_module_ko.sh).

usage: gen_kmod_perfdata.py OUT KO MODULE_PATH BASE LEN

The recording holds what perf record writes for a loaded module: an MMAP
of pid -1 (the kernel) naming MODULE_PATH (the .ko's path on the recording
machine) at BASE for LEN bytes, and its build-id in the header (read from
KO's note); then samples whose branch stacks go from and to addresses all
over the module's map: every 7th byte, so each symbol of .text, the
addresses past .text and those past its last symbol are all hit."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfdata as pd  # noqa: E402


def build_id(ko):
    out = subprocess.run(["readelf", "-n", ko], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return bytes.fromhex(line.split(":", 1)[1].strip())
    sys.exit("gen_kmod_perfdata: %s has no build-id note" % ko)


def build_id_feature(bid, path):
    body = pd.u32(0xFFFFFFFF) + bid + b"\0" * (24 - len(bid)) + pd.pad8(path.encode() + b"\0")
    # perf_event_header: type 0, misc KERNEL | BUILD_ID_SIZE (1 << 15), size; then the size byte's
    # place is the 21st byte of the id field (perf >= 5.12)
    misc = 1 | (1 << 15)
    body = bytearray(body)
    body[4 + 20] = len(bid)
    return bytes(bytearray(b"\0\0\0\0") + misc.to_bytes(2, "little") +
                 (8 + len(body)).to_bytes(2, "little") + body)


class Event(pd.Event):
    """An attr of perf 6.1's size (128 bytes): it refuses larger ones."""

    def attr(self):
        return pd.attr_bytes(self.sample_type, self.read_format, self.branch_sample_type, self.flags, size=128)


def main(argv):
    out, ko, mod_path, base, length = argv[1], argv[2], argv[3], int(argv[4], 0), int(argv[5], 0)
    ev = Event(pd.IP | pd.TID | pd.TIME | pd.PERIOD | pd.BRANCH_STACK, 0, pd.BR_ANY,
               pd.F_MMAP | pd.F_COMM, [], "cycles")
    recs = [pd.record(pd.REC_COMM, pd.u32(100) + pd.u32(101) + pd.pad8(b"insmod\0")),
            pd.record(pd.REC_MMAP, pd.u32(0xFFFFFFFF) + pd.u32(0) + pd.u64(base) + pd.u64(length) +
                      pd.u64(0) + pd.pad8(mod_path.encode() + b"\0"), misc=1)]
    addrs = [base + off for off in range(0, length, 7)]
    t = 1000
    for i in range(0, len(addrs) - 1, 4):
        branches = [(addrs[j], addrs[(j * 5 + 3) % len(addrs)], 0) for j in range(i, min(i + 4, len(addrs)))]
        recs.append(pd.sample(ev, addrs[i], t, branches=branches, misc=1))
        t += 10
    recs.append(pd.record(pd.REC_FINISHED_ROUND, b""))
    feats = pd.features([ev])
    feats[pd.FEAT_BUILD_ID] = build_id_feature(build_id(ko), mod_path)
    feats[pd.FEAT_OSRELEASE] = pd.pstr("6.1.0-hwptest")
    feats[pd.FEAT_EVENT_DESC] = pd.u32(1) + pd.u32(128) + ev.attr() + pd.u32(0) + pd.pstr(ev.name)
    for drop in (200, pd.FEAT_COMPRESSED, pd.FEAT_PMU_CAPS):
        feats.pop(drop, None)
    with open(out, "wb") as f:
        f.write(pd.build_file([ev], recs, feats))


if __name__ == "__main__":
    main(sys.argv)
