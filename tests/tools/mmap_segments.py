#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the MMAP2 records of a recording against the modules' program
headers, as the kernel maps an ELF file: one record per executable PT_LOAD
segment (perf records only PROT_EXEC mappings unless asked for data ones),
each from the page holding p_vaddr to the page end after p_vaddr + p_filesz,
at file offset p_offset rounded down to a page, with the segment's
protection; every segment of a module in one process at the same load bias
(a multiple of the page size); a build-id in a record the one `readelf -n`
prints.

  mmap_segments.py [--build-id] SCRIPT MODULE...

--build-id: every record must carry a build-id (MMAP2 with
PERF_RECORD_MISC_MMAP_BUILD_ID, as hwprof's emulated recordings write).

SCRIPT is the output of `perf script --show-mmap-events`. Every module in
its MMAP2 records that exists as a file is checked; each MODULE must be
among them. The program headers come from `readelf -lW`, independently of
hwprof's own ELF reading. Prints one line and exits 1 on failure.
"""
import os
import re
import subprocess
import sys

PAGE = 4096
MMAP2 = re.compile(r"PERF_RECORD_MMAP2 (\d+)/\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\) @ (0x[0-9a-f]+|0)"
                   r"(?: <([0-9a-f]+)>)?[^\]]*\]: ([-rwxps]{4}) (.+)$")
LOAD = re.compile(r"^\s*LOAD\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+0x[0-9a-f]+\s+(0x[0-9a-f]+)\s+"
                  r"0x[0-9a-f]+\s+([RWE ]+?)\s+0x[0-9a-f]+\s*$")


def down(x):
    return x & ~(PAGE - 1)


def elf_facts(path):
    """(executable segments as {(pgoff, len, vaddr page, prot)}, build-id)"""
    out = subprocess.run(["readelf", "-lnW", path], capture_output=True, text=True, check=True).stdout
    segs = set()
    for line in out.splitlines():
        m = LOAD.match(line)
        if not m:
            continue
        off, vaddr, filesz = (int(m.group(i), 16) for i in (1, 2, 3))
        flags = m.group(4)
        if "E" not in flags or filesz == 0:
            continue
        prot = ("r" if "R" in flags else "-") + ("w" if "W" in flags else "-") + "x"
        length = down(vaddr + filesz + PAGE - 1) - down(vaddr)
        segs.add((down(off), length, down(vaddr), prot))
    bid = re.search(r"Build ID: ([0-9a-f]+)", out)
    return segs, bid.group(1) if bid else None


def main():
    args = sys.argv[1:]
    need_bid = bool(args) and args[0] == "--build-id"
    if need_bid:
        args = args[1:]
    if len(args) < 2:
        print("usage: mmap_segments.py [--build-id] SCRIPT MODULE...")
        return 1
    recs = {}  # (pid, path) -> [(start, len, pgoff, prot, build-id)]
    with open(args[0], errors="replace") as f:
        for line in f:
            m = MMAP2.search(line.rstrip("\n"))
            if m:
                pid, start, length, pgoff, bid, prot, path = m.groups()
                recs.setdefault((int(pid), path), []).append(
                    (int(start, 16), int(length, 16), int(pgoff, 16), prot[:3], bid))
    paths = {p for _, p in recs}
    missing = [m for m in args[1:] if m not in paths]
    if missing:
        print("no MMAP2 record of " + ", ".join(missing))
        return 1
    checked = 0
    for (pid, path), got in sorted(recs.items()):
        if not os.path.isfile(path):
            continue
        want, bid = elf_facts(path)
        if not want:
            print(f"{path}: readelf shows no executable PT_LOAD segment")
            return 1
        have = {(pgoff, length, prot) for _, length, pgoff, prot, _ in got}
        expect = {(pgoff, length, prot) for pgoff, length, _, prot in want}
        if have != expect or len(got) != len(want):
            print(f"{path} (pid {pid}): MMAP2 (pgoff, len, prot) {sorted(have)} x{len(got)}, "
                  f"program headers say {sorted(expect)}")
            return 1
        biases = set()
        for start, length, pgoff, prot, _ in got:
            seg = [s for s in want if (s[0], s[1], s[3]) == (pgoff, length, prot)][0]
            biases.add(start - seg[2])
        if len(biases) != 1 or min(biases) % PAGE:
            print(f"{path} (pid {pid}): segments at load biases {sorted(hex(b) for b in biases)}")
            return 1
        if any((b or need_bid) and b != bid for *_, b in got):
            print(f"{path}: MMAP2 build-ids {sorted({str(b) for *_, b in got})}, readelf -n says {bid}")
            return 1
        checked += 1
    print(f"{checked} module mappings match their executable PT_LOAD segments")
    return 0


if __name__ == "__main__":
    sys.exit(main())
