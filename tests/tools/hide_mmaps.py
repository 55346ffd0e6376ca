#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hides a binary's mappings in a perf.data file (not pipe mode), as if the
recording had missed them (a process attached to late):

  hide_mmaps.py IN OUT NAME    MMAP/MMAP2 records whose file name ends with
                               /NAME get an unknown record type (readers skip
                               it); everything else, the build-id list
                               included, stays byte for byte.
Prints how many records it hid."""
import struct
import sys

MMAP, MMAP2, HIDDEN = 1, 10, 0x7f00


def main(argv):
    src, dst, name = argv[1:4]
    buf = bytearray(open(src, "rb").read())
    if buf[:8] != b"PERFILE2":
        sys.exit(f"{src}: not a perf.data file")
    off, size = struct.unpack_from("<QQ", buf, 40)
    end, hidden = off + size, 0
    while off + 8 <= end:
        rtype, _misc, rsize = struct.unpack_from("<IHH", buf, off)
        if rsize < 8:
            sys.exit(f"{src}: record of size {rsize} at offset {off:#x}")
        fname_at = {MMAP: off + 8 + 32, MMAP2: off + 8 + 64}.get(rtype)
        if fname_at is not None:
            fname = bytes(buf[fname_at:off + rsize]).split(b"\0", 1)[0].decode(errors="replace")
            if fname.endswith("/" + name):
                struct.pack_into("<I", buf, off, HIDDEN)
                hidden += 1
        off += rsize
    open(dst, "wb").write(buf)
    print(hidden)


if __name__ == "__main__":
    main(sys.argv)
