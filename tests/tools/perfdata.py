#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Small perf.data toolkit for the robustness tests (fuzz seeds, bad input).

  perfdata.py seeds DIR          write tiny synthetic perf.data / perf script seeds
  perfdata.py layout FILE        print the layout the tests rely on (JSON)

As a module: build_file(), build_pipe(), layout(), sample_fields().
Only the standard library; zstd-compressed seeds need the zstd CLI.
"""
import json
import os
import shutil
import struct
import subprocess
import sys

MAGIC = b"PERFILE2"
FILE_HEADER = 104
PIPE_HEADER = 16

# sample_type bits
IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW, BRANCH_STACK = (
    1 << i for i in range(12))
REGS_USER, STACK_USER, WEIGHT, DATA_SRC, IDENTIFIER = (1 << i for i in range(12, 17))
# read_format bits
RF_ENABLED, RF_RUNNING, RF_ID, RF_GROUP, RF_LOST = (1 << i for i in range(5))
# branch_sample_type bits
BR_ANY, BR_CALL_STACK, BR_HW_INDEX, BR_COUNTERS = 1 << 3, 1 << 11, 1 << 17, 1 << 19
# attr flag bits
F_MMAP, F_COMM, F_SAMPLE_ID_ALL = 1 << 8, 1 << 9, 1 << 18

REC_MMAP, REC_LOST, REC_COMM, REC_EXIT, REC_SAMPLE, REC_MMAP2 = 1, 2, 3, 4, 9, 10
REC_LOST_SAMPLES = 13
REC_HEADER_ATTR, REC_TRACING_DATA, REC_FINISHED_ROUND = 64, 66, 68
REC_AUXTRACE, REC_HEADER_FEATURE, REC_COMPRESSED, REC_COMPRESSED2 = 71, 80, 81, 83

FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_NRCPUS = 2, 3, 4, 7
FEAT_TOTAL_MEM, FEAT_CMDLINE, FEAT_EVENT_DESC, FEAT_PMU_MAPPINGS = 10, 11, 12, 16
FEAT_SAMPLE_TIME, FEAT_COMPRESSED, FEAT_CPU_PMU_CAPS, FEAT_PMU_CAPS = 21, 27, 28, 31

CONTEXT_KERNEL = (1 << 64) - 128
CONTEXT_USER = (1 << 64) - 512


def u64(v):
    return struct.pack("<Q", v & ((1 << 64) - 1))


def u32(v):
    return struct.pack("<I", v & 0xFFFFFFFF)


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def record(rtype, body, misc=0):
    body = pad8(body)
    return struct.pack("<IHH", rtype, misc, 8 + len(body)) + body


def attr_bytes(sample_type, read_format=0, branch_sample_type=0, flags=0, size=136, config=0):
    a = bytearray(size)
    struct.pack_into("<IIQQQQQ", a, 0, 0, size, config, 1, sample_type, read_format, flags)
    struct.pack_into("<Q", a, 72, branch_sample_type)
    return bytes(a)


class Event:
    def __init__(self, sample_type, read_format=0, branch_sample_type=0, flags=0, ids=(), name="ev"):
        self.sample_type, self.read_format = sample_type, read_format
        self.branch_sample_type, self.flags = branch_sample_type, flags
        self.ids, self.name = list(ids), name

    def attr(self):
        return attr_bytes(self.sample_type, self.read_format, self.branch_sample_type, self.flags)


def sample(ev, ip, time, pid=100, tid=101, callchain=(), branches=(), read=(), raw=b"", sid=None,
           misc=2):
    st, out = ev.sample_type, b""
    sid = ev.ids[0] if sid is None and ev.ids else (sid or 0)
    if st & IDENTIFIER:
        out += u64(sid)
    if st & IP:
        out += u64(ip)
    if st & TID:
        out += u32(pid) + u32(tid)
    if st & TIME:
        out += u64(time)
    if st & ADDR:
        out += u64(0xDEAD000)
    if st & ID:
        out += u64(sid)
    if st & STREAM_ID:
        out += u64(sid)
    if st & CPU:
        out += u32(1) + u32(0)
    if st & PERIOD:
        out += u64(1000)
    if st & READ:
        rf = ev.read_format
        vals = list(read) or [(5, sid, 0)]
        if rf & RF_GROUP:
            out += u64(len(vals))
        if rf & RF_ENABLED:
            out += u64(10)
        if rf & RF_RUNNING:
            out += u64(9)
        for value, vid, lost in (vals if rf & RF_GROUP else vals[:1]):
            out += u64(value)
            if rf & RF_ID:
                out += u64(vid)
            if rf & RF_LOST:
                out += u64(lost)
    if st & CALLCHAIN:
        out += u64(len(callchain)) + b"".join(u64(x) for x in callchain)
    if st & RAW:
        out += u32(len(raw)) + raw
    if st & BRANCH_STACK:
        out += u64(len(branches))
        if ev.branch_sample_type & BR_HW_INDEX:
            out += u64(0)
        for frm, to, flags in branches:
            out += u64(frm) + u64(to) + u64(flags)
        if ev.branch_sample_type & BR_COUNTERS:
            out += b"".join(u64(i) for i in range(len(branches)))
    if st & REGS_USER:
        out += u64(0)
    if st & STACK_USER:
        out += u64(0)
    if st & WEIGHT:
        out += u64(42)
    if st & DATA_SRC:
        out += u64(0x1234)
    return record(REC_SAMPLE, out, misc)


def id_trailer(ev, time, pid=100, tid=101):
    """sample_id_all trailer, in the kernel's order."""
    st, out = ev.sample_type, b""
    sid = ev.ids[0] if ev.ids else 0
    if st & TID:
        out += u32(pid) + u32(tid)
    if st & TIME:
        out += u64(time)
    if st & ID:
        out += u64(sid)
    if st & STREAM_ID:
        out += u64(sid)
    if st & CPU:
        out += u32(1) + u32(0)
    if st & IDENTIFIER:
        out += u64(sid)
    return out


def pstr(s):
    b = pad8(s.encode() + b"\0")
    return u32(len(b)) + b


def features(events):
    bid = struct.pack("<IHHi", 0, 0, 0, 100) + bytes(range(20)) + b"\0" * 4 + pad8(b"/bin/true\0")
    bid = bid[:6] + struct.pack("<H", len(bid)) + bid[8:]
    desc = u32(len(events)) + u32(136)
    for e in events:
        desc += e.attr() + u32(len(e.ids)) + pstr(e.name) + b"".join(u64(i) for i in e.ids)
    caps = u32(2) + pstr("branches") + pstr("32") + pstr("max_precise") + pstr("3")
    return {
        FEAT_BUILD_ID: bid,
        FEAT_HOSTNAME: pstr("fuzzhost"),
        FEAT_OSRELEASE: pstr("6.1.0"),
        FEAT_NRCPUS: u32(4) + u32(2),
        FEAT_TOTAL_MEM: u64(1 << 20),
        FEAT_CMDLINE: u32(2) + pstr("perf") + pstr("record"),
        FEAT_EVENT_DESC: desc,
        FEAT_PMU_MAPPINGS: u32(2) + u32(4) + pstr("cpu") + u32(1) + pstr("software"),
        FEAT_SAMPLE_TIME: u64(1000) + u64(5000),
        FEAT_COMPRESSED: u32(0) + u32(1) + u32(1) + u32(4) + u32(4096),
        FEAT_CPU_PMU_CAPS: caps,
        FEAT_PMU_CAPS: u32(1) + caps + pstr("cpu_core"),
        200: b"unknown feature",
    }


def rich_events():
    st = IP | TID | TIME | READ | CALLCHAIN | ID | CPU | PERIOD | RAW | BRANCH_STACK | REGS_USER | \
        STACK_USER | WEIGHT | DATA_SRC
    fl = F_SAMPLE_ID_ALL | F_MMAP | F_COMM
    rf = RF_GROUP | RF_ID | RF_ENABLED | RF_LOST
    return [Event(st, rf, BR_ANY | BR_HW_INDEX, fl, [11, 12], "cycles"),
            Event(st, rf, BR_ANY | BR_COUNTERS, fl, [21], "instructions")]


def rich_records(events):
    a, b = events
    k = 0xFFFFFFFF81000000
    recs = [
        record(REC_COMM, u32(100) + u32(101) + pad8(b"prog\0") + id_trailer(a, 900), 0),
        record(REC_MMAP2, u32(100) + u32(101) + u64(0x400000) + u64(0x1000) + u64(0) +
               u32(8) + u32(1) + u64(1234) + u64(0) + u32(5) + u32(2) + pad8(b"/bin/prog\0") +
               id_trailer(a, 950), 2),
        sample(a, 0x401000, 3000, callchain=[CONTEXT_KERNEL, k, CONTEXT_USER, 0x401000, 0x402000],
               branches=[(0x401010, 0x401100, 0x12), (0x401200, 0x401000, 0x1)],
               read=[(5, 11, 0), (6, 21, 1)], raw=b"rawdata!"),
        sample(b, 0x401004, 2000, callchain=[CONTEXT_USER, 0x401004],
               branches=[(0x1, 0x2, 0x40 | (3 << 20))], read=[(7, 21, 0)]),
        record(REC_FINISHED_ROUND, b""),
        sample(a, k + 16, 4000, callchain=[CONTEXT_KERNEL, k + 16], branches=[], misc=1),
        record(REC_LOST, u64(11) + u64(3) + id_trailer(a, 4100)),
        record(REC_LOST_SAMPLES, u64(2) + id_trailer(a, 4200)),
        record(REC_EXIT, u32(100) + u32(1) + u32(101) + u32(1) + u64(4300) + id_trailer(a, 4300)),
        record(REC_FINISHED_ROUND, b""),
    ]
    return recs


def build_file(events=None, records=None, feats=None, data_size=None):
    events = events or rich_events()
    records = rich_records(events) if records is None else records
    feats = features(events) if feats is None else feats
    attr_size = len(events[0].attr()) + 16
    attrs_off = FILE_HEADER
    ids_off = attrs_off + attr_size * len(events)
    attrs, ids = b"", b""
    for e in events:
        idb = b"".join(u64(i) for i in e.ids)
        attrs += e.attr() + u64(ids_off + len(ids)) + u64(len(idb))
        ids += idb
    data_off = ids_off + len(ids)
    data = b"".join(records)
    table_off = data_off + len(data)
    bits = sorted(feats)
    sec_off = table_off + 16 * len(bits)
    table, secs = b"", b""
    for f in bits:
        table += u64(sec_off + len(secs)) + u64(len(feats[f]))
        secs += feats[f]
    fb = bytearray(32)
    for f in bits:
        fb[f // 8] |= 1 << (f % 8)
    hdr = MAGIC + u64(FILE_HEADER) + u64(attr_size) + u64(attrs_off) + u64(len(attrs)) + \
        u64(data_off) + u64(len(data) if data_size is None else data_size) + u64(0) + u64(0) + bytes(fb)
    return hdr + attrs + ids + data + table + secs


def build_pipe(events=None, records=None, feats=None, compress=False):
    events = events or rich_events()
    records = rich_records(events) if records is None else records
    feats = features(events) if feats is None else feats
    out = MAGIC + u64(PIPE_HEADER)
    for e in events:
        out += record(REC_HEADER_ATTR, e.attr() + b"".join(u64(i) for i in e.ids))
    for f in sorted(feats):
        out += record(REC_HEADER_FEATURE, u64(f) + pad8(feats[f]))
    # AUXTRACE: size, offset, reference, idx, tid, cpu, reserved; then the payload
    out += record(REC_AUXTRACE, u64(16) + u64(0) + u64(0) + u32(0) + u32(0) + u32(0) + u32(0))
    out += b"\xAA" * 16
    body = b"".join(records)
    if compress and shutil.which("zstd"):
        z = subprocess.run(["zstd", "-q", "-c", "-3"], input=body, capture_output=True, check=True).stdout
        half = len(z) // 2  # one zstd stream across two records, events straddle
        for part in (z[:half], z[half:]):
            out += record(REC_COMPRESSED2, u64(len(part)) + pad8(part))
    else:
        out += body
    return out


# ---- layout of existing files ----

def _le(b, off, n=8):
    return int.from_bytes(b[off:off + n], "little")


def layout(buf):
    """Header fields, section ends and record boundaries of a perf.data image."""
    lay = {"mode": None, "records": []}
    if len(buf) < 16 or buf[:8] != MAGIC:
        return lay
    if _le(buf, 8) == PIPE_HEADER:
        lay["mode"] = "pipe"
        off, end = PIPE_HEADER, len(buf)
    else:
        lay["mode"] = "file"
        h = {k: _le(buf, o) for k, o in (("hsize", 8), ("attr_size", 16), ("attrs_off", 24),
                                         ("attrs_size", 32), ("data_off", 40), ("data_size", 48))}
        lay.update(h)
        ends = [FILE_HEADER, h["attrs_off"] + h["attrs_size"]]
        nattrs = h["attrs_size"] // h["attr_size"] if h["attr_size"] else 0
        lay["attrs"] = []
        for i in range(nattrs):
            a = h["attrs_off"] + i * h["attr_size"]
            ids_off, ids_size = _le(buf, a + h["attr_size"] - 16), _le(buf, a + h["attr_size"] - 8)
            lay["attrs"].append({"off": a, "sample_type": _le(buf, a + 24), "read_format": _le(buf, a + 32),
                                 "branch_sample_type": _le(buf, a + 72), "ids_off": ids_off,
                                 "ids_size": ids_size})
            ends.append(ids_off + ids_size)
        data_end = h["data_off"] + h["data_size"]
        ends.append(data_end)
        bits = [f for f in range(256) if buf[72 + f // 8] >> (f % 8) & 1]
        lay["features"] = []
        for i, f in enumerate(bits):
            t = data_end + 16 * i
            foff, fsize = _le(buf, t), _le(buf, t + 8)
            lay["features"].append({"feat": f, "table": t, "off": foff, "size": fsize})
            ends += [t + 16, foff + fsize]
        lay["complete_len"] = max(ends)
        # data_size 0: perf record never finished; readers go to the end
        off, end = h["data_off"], data_end if h["data_size"] else len(buf)
    while off + 8 <= end:
        rtype, size = _le(buf, off, 4), _le(buf, off + 6, 2)
        if size < 8 or off + size > end:
            break
        extra = 0
        if rtype == REC_AUXTRACE:
            extra = _le(buf, off + 8)
        elif rtype == REC_TRACING_DATA and lay["mode"] == "pipe":
            extra = (_le(buf, off + 8, 4) + 7) & ~7
        lay["records"].append({"off": off, "type": rtype, "size": size, "extra": extra})
        off += size + extra
    lay["records_end"] = off
    return lay


def sample_fields(buf, rec_off, sample_type, read_format=0, branch_sample_type=0):
    """File offsets of the counts inside one SAMPLE record (None when absent)."""
    p, st, f = rec_off + 8, sample_type, {}
    for bit in (IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD):
        if st & bit:
            p += 8
    if st & READ:
        if read_format & RF_GROUP:
            f["read_nr"] = p
            nr = _le(buf, p)
            p += 8
        else:
            nr = 1
        p += 8 * (bool(read_format & RF_ENABLED) + bool(read_format & RF_RUNNING))
        p += 8 * nr * (1 + bool(read_format & RF_ID) + bool(read_format & RF_LOST))
    if st & CALLCHAIN:
        f["callchain_nr"] = p
        p += 8 + 8 * _le(buf, p)
    if st & RAW:
        f["raw_size"] = p
        p += 4 + _le(buf, p, 4)
    if st & BRANCH_STACK:
        f["branch_nr"] = p
    return f


def text_seeds():
    return {
        "text_oneline.txt": b" ffffffff81000000 0x401000/0x401100/P/-/-/3/COND 0x1/0x2/M/X/A/65535/ \n"
                            b" 401000 0x3/0x4/-/-/-/0/ 0x5/0x6/PN/-/-/7/CALL/SPEC_WRONG_PATH\n",
        "text_callchain.txt": b"prog 123/456 [001] 1.000000: cycles:\n"
                              b"\t          401000 main (/bin/prog)\n"
                              b"\tffffffff81000000 kfunc ([kernel.kallsyms])\n"
                              b" 0x401000/0x401100/P/-/-/1/  0x401100/0x401000/M/-/-/2/\n\n"
                              b"prog 123/456 [001] 1.000100: cycles:\n\t 401004 main\n\n",
        "text_sideband.txt": b"# header comment\n"
                             b"prog 1 [000] 0.5: PERF_RECORD_MMAP2 1/1: [0x400000(0x1000) @ 0 08:01 123 0]: r-xp /bin/prog\n"
                             b"PERF_RECORD_MMAP2 1/1: [0x500000(0x1000) @ 0x1000 <0123456789abcdef0123456789abcdef01234567>]: r-xp /lib/x.so\n"
                             b"PERF_RECORD_MMAP 1/1: [0x600000(0x1000) @ 0]: x /bin/y\n"
                             b"PERF_RECORD_COMM exec: prog:1/1\n"
                             b"PERF_RECORD_FORK(2:2):(1:1)\nPERF_RECORD_EXIT(2:2):(1:1)\n"
                             b"PERF_RECORD_LOST 1/1\n"
                             b"prog 1/1 401000 0x401000/0x401100/P/-/-/3/\n",
    }


def write_seeds(d):
    os.makedirs(d, exist_ok=True)
    seeds = {
        "synth_file.data": build_file(),
        "synth_file_killed.data": build_file(feats={}, data_size=0),
        "synth_pipe.data": build_pipe(),
        "synth_pipe_zstd.data": build_pipe(compress=True),
        "synth_min_file.data": build_file(events=[Event(IP | TID | BRANCH_STACK, ids=[1])],
                                          records=[], feats={}),
        "synth_min_pipe.data": MAGIC + u64(PIPE_HEADER),
    }
    seeds.update(text_seeds())
    for name, data in seeds.items():
        with open(os.path.join(d, name), "wb") as fp:
            fp.write(data)
    return sorted(seeds)


def main(argv):
    if len(argv) == 3 and argv[1] == "seeds":
        for n in write_seeds(argv[2]):
            print(n)
        return 0
    if len(argv) == 3 and argv[1] == "layout":
        with open(argv[2], "rb") as fp:
            print(json.dumps(layout(fp.read()), indent=1))
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
