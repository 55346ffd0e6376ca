#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Truncated and corrupted perf.data never crash or hang hwprof.

bad_input.py HWPROF CORPUS

For a few small corpus files and synthetic ones (tests/tools/perfdata.py), runs
`hwprof info -i F` and `hwprof script -i F` on
  - prefixes: every length in the header region, then every STRIDE-th byte
    (and every record boundary +-1), also with data_size patched to 0 (a
    recording perf never finished: read to the end of the file);
  - flips: seeded random byte flips and random 16/32/64-bit values;
  - absurd: header, attr, section, record, callchain, branch, read, string
    and feature sizes and counts patched to huge values.
Every run must end (timeout 10 s) without a signal, and either succeed, only
where success is right (a whole file, a prefix ending on a record boundary
where the format has no size), or exit non-zero with exactly one line on
stderr: "hwprof: FILE: what ... offset 0x.." naming the file and an offset
inside it (warnings are only said by commands that succeed).

Sanitizer builds start slowly (ASan+LSan cost ~25 ms a run): for them (a
"san" in HWPROF's path or $BUILD) the header region stops at the data, the
stride is 96 and there are 20 flips a file, about 3,000 runs.
Env: BAD_INPUT_STRIDE (default 8), BAD_INPUT_FLIPS (variants per file,
default 60), BAD_INPUT_QUICK (0/1), BAD_INPUT_JOBS, BAD_INPUT_SEED,
BAD_INPUT_SHOW (failures listed, default 8).
"""
import concurrent.futures
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import perfdata as pd  # noqa: E402

U64MAX = (1 << 64) - 1
TIMEOUT = 10
# "... at offset 0x1f00 (record 812)", or the text reader's "at line N (offset 0x..)"
OFFSET_RE = re.compile(r"(?:at |\()offset 0x([0-9a-fA-F]+)")


class Case:
    __slots__ = ("path", "size", "ok", "must_ok", "what")

    def __init__(self, path, size, ok, what, must_ok=False):
        self.path, self.size, self.ok, self.what, self.must_ok = path, size, ok, what, must_ok


def run_one(hwprof, case, cmd):
    """Returns None when the run keeps the contract, else a description."""
    argv = [hwprof, cmd, "-i", case.path]
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "hang (no exit after %d s)" % TIMEOUT
    rc = p.returncode
    err = p.stderr.decode("utf-8", "replace")
    lines = err.splitlines()
    if rc < 0 or rc >= 124:
        return "killed by signal / crashed (exit %d): %s" % (rc, " | ".join(lines[:3]))
    errors = [l for l in lines if not l.startswith("hwprof: warning: ")]
    if rc == 0:
        if errors:
            return "exit 0 but stderr has: %s" % errors[0]
        if not case.ok:
            return "exit 0 on an input that is not whole"
        if cmd == "info" and not p.stdout.startswith(b"# file"):
            return "exit 0 but no report"
        return None
    if case.must_ok:
        return "failed on a valid input: %s" % (errors[0] if errors else "(no message)")
    if len(lines) != 1:
        return "exit %d with %d lines on stderr: %s" % (rc, len(lines), " | ".join(lines[:4]))
    msg = lines[0]
    if not msg.startswith("hwprof: %s: " % case.path):
        return "error line does not start with 'hwprof: FILE: ': %s" % msg
    m = OFFSET_RE.search(msg)
    if not m:
        return "error line names no offset: %s" % msg
    if int(m.group(1), 16) > case.size:
        return "error offset is past the end of the file (%d bytes): %s" % (case.size, msg)
    return None


def run_all(hwprof, cases, jobs):
    bad = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        futs = {ex.submit(run_one, hwprof, c, cmd): (c, cmd) for c in cases for cmd in ("info", "script")}
        for f in concurrent.futures.as_completed(futs):
            why = f.result()
            if why:
                c, cmd = futs[f]
                bad.append("%s [%s]: hwprof %s: %s" % (os.path.basename(c.path), c.what, cmd, why))
    return sorted(bad)


def report(name, cases, bad):
    runs = 2 * len(cases)
    if bad:
        print("FAIL bad_input_%s: %d of %d runs broke the contract" % (name, len(bad), runs))
        for b in bad[:int(os.environ.get("BAD_INPUT_SHOW", "8"))]:
            sys.stderr.write("  %s\n" % b)
    else:
        print("PASS bad_input_%s: %d inputs x {info, script}: no crash, no hang, one-line errors" %
              (name, len(cases)))
    sys.stdout.flush()


def write(tmp, name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb") as fp:
        fp.write(data)
    return path


def p64(buf, off, v):
    b = bytearray(buf)
    if off + 8 <= len(b):
        struct.pack_into("<Q", b, off, v & U64MAX)
    return bytes(b)


def p32(buf, off, v):
    b = bytearray(buf)
    if off + 4 <= len(b):
        struct.pack_into("<I", b, off, v & 0xFFFFFFFF)
    return bytes(b)


def p16(buf, off, v):
    b = bytearray(buf)
    if off + 2 <= len(b):
        struct.pack_into("<H", b, off, v & 0xFFFF)
    return bytes(b)


# ---- prefixes ----

def prefix_cases(tmp, tag, data, stride, killed=False, quick=False):
    lay = pd.layout(data)
    if killed:
        # data_size 0: perf record never finished, the data runs to EOF. Only
        # the real records count: what follows them (the feature table) is
        # read as records too and may or may not parse.
        data = p64(data, 48, 0)
        lay["records"] = [r for r in pd.layout(data)["records"]
                          if r["off"] + r["size"] <= lay["data_off"] + lay["data_size"]]
    n = len(data)
    bounds = {r["off"] + r["size"] + r["extra"] for r in lay["records"]}
    compressed_from = min([r["off"] for r in lay["records"] if r["type"] in (81, 83)], default=n + 1)
    if lay["mode"] == "pipe":
        bounds.add(pd.PIPE_HEADER)
        head = 64 if quick else 512
        ok = lambda L: L in bounds  # noqa: E731
        must = lambda L: L in bounds and L <= compressed_from  # noqa: E731
    elif killed:
        start = max([lay["data_off"]] + [a["ids_off"] + a["ids_size"] for a in lay["attrs"]] +
                    [lay["attrs_off"] + lay["attrs_size"], pd.FILE_HEADER])
        bounds.add(lay["data_off"])
        head = lay["data_off"] + (0 if quick else 128)
        ok = lambda L: L >= start and (L in bounds or L > max(bounds))  # noqa: E731
        must = lambda L: L >= start and L in bounds and L <= compressed_from  # noqa: E731
    else:
        head = lay["data_off"] + (0 if quick else 128)
        ok = lambda L: L >= lay["complete_len"]  # noqa: E731
        must = lambda L: L == n  # noqa: E731
    if quick:
        # every byte of the fixed header, every 8th up to the data; a killed
        # copy only differs from there on
        lengths = set(range(0, min(128, n + 1))) | set(range(0, min(head, n + 1), 8))
        if killed:
            lengths = {L for L in lengths if L >= head - 8}
    else:
        lengths = set(range(0, min(head, n + 1)))
    lengths.update(range(head - head % stride if killed and quick else 0, n + 1, stride))
    if lay["mode"] == "pipe" or killed or not quick:  # else all fail at the header check
        for b in bounds:
            lengths.update(L for L in (b - 1, b, b + 1) if 0 <= L <= n)
    lengths.add(n)
    cases = []
    for L in sorted(lengths):
        path = write(tmp, "%s%s.%d" % (tag, "-killed" if killed else "", L), data[:L])
        cases.append(Case(path, L, ok(L), "prefix %d of %d" % (L, n), must_ok=must(L)))
    return cases


# ---- random flips ----

INTERESTING = [0, 1, 7, 8, 0x7F, 0x80, 0xFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 1 << 32, 1 << 61, 1 << 63,
               U64MAX]


def flip_cases(tmp, tag, data, count, rng):
    lay = pd.layout(data)
    hot = min(len(data), (lay.get("data_off") or 16) + 512)
    cases = []
    for i in range(count):
        b = bytearray(data)
        kind = rng.randrange(3)
        what = []
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(hot) if rng.random() < 0.5 else rng.randrange(len(b))
            if kind == 0:
                bit = 1 << rng.randrange(8)
                b[pos] ^= bit
                what.append("bit 0x%x at 0x%x" % (bit, pos))
            elif kind == 1:
                b[pos] = rng.randrange(256)
                what.append("byte 0x%x at 0x%x" % (b[pos], pos))
            else:
                width = rng.choice((2, 4, 8))
                pos &= ~(width - 1)
                if pos + width > len(b):
                    continue
                v = rng.choice(INTERESTING) & ((1 << (8 * width)) - 1)
                b[pos:pos + width] = v.to_bytes(width, "little")
                what.append("u%d 0x%x at 0x%x" % (8 * width, v, pos))
        path = write(tmp, "%s.flip%d" % (tag, i), bytes(b))
        cases.append(Case(path, len(b), True, "; ".join(what)))
    return cases


# ---- absurd sizes and counts ----

def feature(lay, feat):
    for f in lay.get("features", []):
        if f["feat"] == feat:
            return f
    return None


def first_record(lay, rtype):
    for r in lay["records"]:
        if r["type"] == rtype:
            return r
    return None


def absurd_file(data):
    """(name, bytes, must_fail) for a file-mode image."""
    lay = pd.layout(data)
    out = []
    for v in (0, 8, 79, (1 << 20) + 16 + 1, 1 << 32, U64MAX):
        out.append(("header attr_size=%#x" % v, p64(data, 16, v), True))
    out.append(("attrs offset=2^63", p64(data, 24, 1 << 63), True))
    out.append(("attrs size=2^64-8", p64(data, 32, U64MAX - 7), True))
    out.append(("attrs size=attr_size*2^40", p64(data, 32, lay["attr_size"] << 40), True))
    out.append(("data offset=2^64-1", p64(data, 40, U64MAX), True))
    out.append(("data size=2^64-1", p64(data, 48, U64MAX), True))
    out.append(("data size=file size", p64(data, 48, len(data)), True))
    out.append(("all 256 feature bits", data[:72] + b"\xff" * 32 + data[104:], True))
    a0 = lay["attrs"][0]
    out.append(("attr ids size=2^64-8", p64(data, a0["off"] + lay["attr_size"] - 8, U64MAX - 7), True))
    out.append(("attr ids offset=2^63", p64(data, a0["off"] + lay["attr_size"] - 16, 1 << 63), True))
    whole = p64(p64(data, a0["off"] + lay["attr_size"] - 16, 0), a0["off"] + lay["attr_size"] - 8,
                len(data) & ~7)
    out.append(("attr ids = the whole file", whole, False))
    out.append(("attr.size=0xffffffff", p32(data, a0["off"] + 4, 0xFFFFFFFF), False))
    # with several attrs the ids no longer match: samples are skipped, not an error
    out.append(("sample_type=~0", p64(data, a0["off"] + 24, U64MAX), len(lay["attrs"]) == 1))
    out.append(("read_format=~0", p64(data, a0["off"] + 32, U64MAX), False))
    out.append(("branch_sample_type=~0", p64(data, a0["off"] + 72, U64MAX), False))
    r0 = lay["records"][0]
    for v in (0, 7, 0xFFFF):
        out.append(("first record size=%#x" % v, p16(data, r0["off"] + 6, v), True))
    for f in lay["features"][:3]:
        out.append(("feature %d offset=2^63" % f["feat"], p64(data, f["table"], 1 << 63), True))
        out.append(("feature %d size=2^64-1" % f["feat"], p64(data, f["table"] + 8, U64MAX), True))
    s = first_record(lay, pd.REC_SAMPLE)
    if s and a0["sample_type"] & pd.BRANCH_STACK:
        fo = pd.sample_fields(data, s["off"], a0["sample_type"], a0["read_format"], a0["branch_sample_type"])
        for v in (U64MAX, 1 << 61, 1 << 32, (s["size"] // 24) + 1):
            out.append(("branch nr=%#x" % v, p64(data, fo["branch_nr"], v), True))
    return out


def absurd_rich(data):
    """Counts inside samples and feature sections of the synthetic file."""
    lay = pd.layout(data)
    out = []
    a0 = lay["attrs"][0]
    s = first_record(lay, pd.REC_SAMPLE)
    fo = pd.sample_fields(data, s["off"], a0["sample_type"], a0["read_format"], a0["branch_sample_type"])
    for v in (U64MAX, 1 << 61, 1 << 32, 0x1000):
        out.append(("callchain nr=%#x" % v, p64(data, fo["callchain_nr"], v), True))
        out.append(("read group nr=%#x" % v, p64(data, fo["read_nr"], v), True))
        out.append(("branch nr=%#x" % v, p64(data, fo["branch_nr"], v), True))
    out.append(("raw size=0xffffffff", p32(data, fo["raw_size"], 0xFFFFFFFF), True))
    for feat, name, rel, width in ((pd.FEAT_HOSTNAME, "hostname length", 0, 4),
                                   (pd.FEAT_CMDLINE, "cmdline nr", 0, 4),
                                   (pd.FEAT_CMDLINE, "cmdline string length", 4, 4),
                                   (pd.FEAT_EVENT_DESC, "event_desc nr", 0, 4),
                                   (pd.FEAT_EVENT_DESC, "event_desc attr_size", 4, 4),
                                   (pd.FEAT_PMU_MAPPINGS, "pmu_mappings nr", 0, 4),
                                   (pd.FEAT_CPU_PMU_CAPS, "cpu_pmu_caps nr", 0, 4),
                                   (pd.FEAT_PMU_CAPS, "pmu_caps nr", 0, 4),
                                   (pd.FEAT_BUILD_ID, "build_id record size", 6, 2)):
        f = feature(lay, feat)
        for v in (0xFFFFFFFF, 0x7FFFFFFF) if width == 4 else (0xFFFF, 8):
            patch = p32 if width == 4 else p16
            must = not (feat == pd.FEAT_BUILD_ID and v == 8)
            out.append(("%s=%#x" % (name, v), patch(data, f["off"] + rel, v), must))
    return out


def absurd_pipe(data):
    lay = pd.layout(data)
    out = []
    ha = first_record(lay, pd.REC_HEADER_ATTR)
    out.append(("HEADER_ATTR attr.size=0xffffffff", p32(data, ha["off"] + 12, 0xFFFFFFFF), True))
    out.append(("HEADER_ATTR attr.size=8", p32(data, ha["off"] + 12, 8), True))
    out.append(("HEADER_ATTR record size=8", p16(data, ha["off"] + 6, 8), True))
    hf = first_record(lay, pd.REC_HEADER_FEATURE)
    if hf:
        out.append(("HEADER_FEATURE id=2^64-1", p64(data, hf["off"] + 8, U64MAX), False))
        out.append(("HEADER_FEATURE record size=8", p16(data, hf["off"] + 6, 8), True))
        out.append(("HEADER_FEATURE payload u32=0xffffffff", p32(data, hf["off"] + 16, 0xFFFFFFFF), False))
    out.append(("pipe header size=17", p64(data, 8, 17), True))
    out.append(("pipe header size=2^64-1", p64(data, 8, U64MAX), True))
    r = lay["records"][-1]
    out.append(("last record size=0xffff", p16(data, r["off"] + 6, 0xFFFF), True))
    aux = first_record(lay, pd.REC_AUXTRACE)
    if aux:
        for v in (U64MAX, U64MAX - aux["off"] - aux["size"], 1 << 63, len(data)):
            out.append(("AUXTRACE payload size=%#x" % v, p64(data, aux["off"] + 8, v), True))
    return out


def absurd_compressed(data):
    lay = pd.layout(data)
    out = []
    c = first_record(lay, pd.REC_COMPRESSED2) or first_record(lay, pd.REC_COMPRESSED)
    if not c:
        return out
    if c["type"] == pd.REC_COMPRESSED2:
        for v in (U64MAX, c["size"] - 15, 0):
            out.append(("COMPRESSED2 data size=%#x" % v, p64(data, c["off"] + 8, v), v != 0))
        z = c["off"] + 16
    else:
        z = c["off"] + 8
    out.append(("zstd magic corrupted", p32(data, z, 0xDEADBEEF), True))
    out.append(("zstd frame header byte flipped", bytes(data[:z + 4]) + bytes([data[z + 4] ^ 0xFF]) +
                bytes(data[z + 5:]), True))
    rng = random.Random(7)
    for i in range(8):
        b = bytearray(data)
        for _ in range(3):
            b[rng.randrange(z + 8, c["off"] + c["size"])] ^= 1 << rng.randrange(8)
        out.append(("zstd payload flips #%d" % i, bytes(b), False))
    out.append(("COMPRESSED2 record size=24", p16(data, c["off"] + 6, 24), True))
    return out


def absurd_cases(tmp, tag, items):
    cases = []
    for i, (what, blob, must_fail) in enumerate(items):
        path = write(tmp, "%s.absurd%d" % (tag, i), blob)
        cases.append(Case(path, len(blob), not must_fail, what))
    return cases


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    hwprof, corpus = sys.argv[1], sys.argv[2]
    san = "san" in hwprof or "san" in os.environ.get("BUILD", "")
    quick = os.environ.get("BAD_INPUT_QUICK", "1" if san else "0") == "1"
    stride = int(os.environ.get("BAD_INPUT_STRIDE", "96" if quick else "8"))
    nflips = int(os.environ.get("BAD_INPUT_FLIPS", "20" if quick else "60"))
    if not os.access(hwprof, os.X_OK):
        print("FAIL bad_input: %s is not built" % hwprof)
        return 1
    jobs = int(os.environ.get("BAD_INPUT_JOBS", str(2 * (os.cpu_count() or 1))))
    rng = random.Random(int(os.environ.get("BAD_INPUT_SEED", "20240611")))

    inputs = []  # (tag, bytes)
    for rel in ("perf_data_converter/perf.data.branch-4.14", "linux-perf-data/sleep.compressed2.data",
                "perf_data_converter/perf.data.piped.header_features_aligned-6.12"):
        p = os.path.join(corpus, rel)
        if os.path.isfile(p):
            with open(p, "rb") as fp:
                inputs.append((os.path.basename(p), fp.read()))
        else:
            print("SKIP bad_input_%s: not in the corpus (%s)" % (os.path.basename(rel), corpus))
    rich_file, rich_pipe = pd.build_file(), pd.build_pipe()
    inputs += [("synth.file", rich_file), ("synth.pipe", rich_pipe),
               ("synth.pipe-zstd", pd.build_pipe(compress=True))]
    data = dict(inputs)

    with tempfile.TemporaryDirectory(prefix="hwprof-bad-input.") as tmp:
        # the originals must read cleanly (else the checks below mean nothing)
        whole = [Case(write(tmp, tag, d), len(d), True, "whole file", must_ok=True) for tag, d in inputs]
        report("whole_files", whole, run_all(hwprof, whole, jobs))

        cases = []
        for tag, d in inputs:
            cases += prefix_cases(tmp, tag, d, stride, quick=quick)
            if pd.layout(d)["mode"] == "file":
                cases += prefix_cases(tmp, tag, d, stride, killed=True, quick=quick)
        report("prefixes", cases, run_all(hwprof, cases, jobs))

        cases = []
        for tag, d in inputs:
            cases += flip_cases(tmp, tag, d, nflips, rng)
        report("byte_flips", cases, run_all(hwprof, cases, jobs))

        cases = []
        for tag, d in inputs:
            mode = pd.layout(d)["mode"]
            items = absurd_file(d) if mode == "file" else absurd_pipe(d)
            if tag == "synth.file":
                items += absurd_rich(d)
            items += absurd_compressed(d)
            cases += absurd_cases(tmp, tag, items)
        report("absurd_sizes", cases, run_all(hwprof, cases, jobs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
