#!/usr/bin/env python3
"""Writes an AArch64 --call-graph dwarf recording of tests/fixtures/unwind_arm64.S.

usage: gen_unwind_arm64.py LIB.so RECORDED_PATH OUT.data

LIB.so is the fixture linked as a shared object (clang --target=
aarch64-linux-gnu, ld.lld -shared); it is said to be mapped from
RECORDED_PATH (give hwprof the file with --symfs). Two samples, each with
the 33 user registers perf records on arm64 (x0-x30, sp, pc: the
kernel's arch/arm64/include/uapi/asm/perf_regs.h order) and a stack copy
laid out as the fixture's frames leave it (its comment says where each
saves what):
  1. in inner (inner + 4): x30 = middle's return address, sp = S;
     middle's frame [S, S + 48) holds x19 at S + 32 and x30 (into outer)
     at S + 40; outer's frame record at S + 48 (x29 = S + 48) holds the
     caller's x29 (0) and x30 (into entry) at S + 56.
  2. in middle after its sub (middle + 4): the same frames, x30 still
     the return address into outer.
The copy is shorter than asked for (the stack's top is reached), as the
kernel records a stack that ends. A header ARCH "aarch64" says whose
registers they are. Only the standard library (tests/tools/perfdata.py).
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfdata as pd  # noqa: E402

FEAT_ARCH = 6
BASE = 0x7F12_3400_0000        # load bias of the library
S = 0x7FFF_FFF0_0000           # sp at the sample
STACK_SIZE = 8192              # sample_stack_user
DUMP = 256                     # bytes the "kernel" could copy (the stack ends)
MASK = (1 << 33) - 1           # x0..x30, sp, pc


def elf(path):
    """Symbols (name -> value) and PT_LOADs (offset, vaddr, filesz, flags) of an ELF64 LE file."""
    b = open(path, "rb").read()
    assert b[:4] == b"\x7fELF" and b[4] == 2 and b[5] == 1, "not ELF64 little-endian"
    e_phoff, e_shoff = struct.unpack_from("<QQ", b, 0x20)
    e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack_from("<HHHH", b, 0x36)
    loads = []
    for i in range(e_phnum):
        p_type, p_flags, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", b, e_phoff + i * e_phentsize)
        if p_type == 1:
            loads.append((p_offset, p_vaddr, p_filesz, p_flags))
    shdrs = [struct.unpack_from("<IIQQQQIIQQ", b, e_shoff + i * e_shentsize) for i in range(e_shnum)]
    syms = {}
    for sh in shdrs:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = shdrs[sh[6]]
        for k in range(sh[5] // 24):
            st_name, _, _, _, st_value, _ = struct.unpack_from("<IBBHQQ", b, sh[4] + 24 * k)
            end = b.index(b"\0", strtab[4] + st_name)
            syms[b[strtab[4] + st_name:end].decode()] = st_value
    return syms, loads


def regs(pc, sp, x29, x30):
    r = [0] * 33
    r[19] = 0x1919
    r[29], r[30], r[31], r[32] = x29, x30, sp, pc
    return pd.u64(2) + b"".join(pd.u64(v) for v in r)  # PERF_SAMPLE_REGS_ABI_64


def stack(words):
    s = bytearray(DUMP)
    for off, v in words.items():
        struct.pack_into("<Q", s, off, v)
    return pd.u64(STACK_SIZE) + bytes(s) + b"\0" * (STACK_SIZE - DUMP) + pd.u64(DUMP)


def main():
    lib, recorded, out = sys.argv[1:4]
    syms, loads = elf(lib)
    text = next(l for l in loads if l[3] & 1)  # PF_X
    fn = {k: BASE + syms[k] for k in ("entry", "outer", "middle", "inner")}
    ret_entry, ret_outer, ret_middle = fn["entry"] + 4, fn["outer"] + 12, fn["middle"] + 16
    st = pd.IP | pd.TID | pd.TIME | pd.CALLCHAIN | pd.PERIOD | pd.REGS_USER | pd.STACK_USER
    ev = pd.Event(st, 0, 0, pd.F_SAMPLE_ID_ALL | pd.F_MMAP | pd.F_COMM, [], "cpu-clock")
    attr = bytearray(ev.attr())
    struct.pack_into("<QI", attr, 80, MASK, STACK_SIZE)  # sample_regs_user, sample_stack_user
    ev.attr = lambda: bytes(attr)

    page = 0x1000
    start = (BASE + text[1]) & ~(page - 1)
    pgoff = text[0] & ~(page - 1)
    size = (BASE + text[1] + text[2] + page - 1) // page * page - start
    recs = [
        pd.record(pd.REC_COMM, pd.u32(100) + pd.u32(100) + pd.pad8(b"unw\0") + pd.id_trailer(ev, 1, 100, 100)),
        pd.record(pd.REC_MMAP2, pd.u32(100) + pd.u32(100) + pd.u64(start) + pd.u64(size) + pd.u64(pgoff) +
                  pd.u32(8) + pd.u32(1) + pd.u64(4242) + pd.u64(0) + pd.u32(5) + pd.u32(2) +
                  pd.pad8(recorded.encode() + b"\0") + pd.id_trailer(ev, 2, 100, 100), 2),
    ]
    frames = {32: 0x1919, 40: ret_outer, 48: 0, 56: ret_entry}
    for t, (pc, x30) in enumerate([(fn["inner"] + 4, ret_middle), (fn["middle"] + 4, ret_outer)]):
        body = pd.u64(pc) + pd.u32(100) + pd.u32(100) + pd.u64(10 + t) + pd.u64(1000)
        body += pd.u64(0)  # no callchain: a user-mode sample, user chains excluded
        body += regs(pc, S, S + 48, x30) + stack(frames)
        recs.append(pd.record(pd.REC_SAMPLE, body, 2))
    recs.append(pd.record(pd.REC_FINISHED_ROUND, b""))
    desc = pd.u32(1) + pd.u32(len(ev.attr())) + ev.attr() + pd.u32(0) + pd.pstr(ev.name)
    feats = {
        pd.FEAT_HOSTNAME: pd.pstr("arm64host"),
        pd.FEAT_OSRELEASE: pd.pstr("6.1.0"),
        FEAT_ARCH: pd.pstr("aarch64"),
        pd.FEAT_NRCPUS: pd.u32(1) + pd.u32(1),
        pd.FEAT_EVENT_DESC: desc,
    }
    with open(out, "wb") as f:
        f.write(pd.build_file([ev], recs, feats))


if __name__ == "__main__":
    main()
