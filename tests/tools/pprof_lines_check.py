#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The lines of a pprof profile's locations against binutils' addr2line.

usage: pprof_lines_check.py PROFILE.json FILE...

PROFILE.json is pprof_decode.py's output of a profile whose addresses are
module offsets (hwprof export's) and whose callers' addresses are those of
their calls (a --call-graph dwarf recording: perf's unwinder gives a caller
as its return address minus one). For every location in a mapping of one of
the FILEs, `addr2line -f -i` at the address (the file offset turned into
the ELF address through the PT_LOAD headers) gives the inline chain,
innermost first, each function with its line: the location's lines must be
that chain, function for function and line for line. One normalization, of
names: the outermost function is named by the symbol table as perf names
it, which keeps GCC's clone suffixes (".constprop.0", ".isra.0",
".part.0") and picks one of the aliases at an address ("access" for
"__access"), while addr2line names it from DWARF: the suffixes are dropped,
and two names of symbols at one address (nm) are equal. A location without lines (no symbol) must have none from
addr2line either ("??"), or addr2line's is a symbol-table guess without a
line whose symbol ends before the address (addr2line names the nearest
symbol below it whatever its size: in ld.so without libc6-dbg, only its
few dynamic symbols). Prints PASS or FAIL with $CMP_NAME."""
import json
import os
import re
import subprocess
import sys

CLONE = re.compile(r"(\.(constprop|isra|part|cold)\.\d+)+$")


def loads(path):
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    segs = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    return segs


def symbols(path):
    """Name -> (address, size) of PATH's symbols (nm -S, nm -S -D), and of its
    debug file in /usr/lib/debug/.build-id (where a stripped library's
    symbols are)."""
    out = {}
    paths = [path]
    m = re.search(r"Build ID: ([0-9a-f]+)", subprocess.run(["readelf", "-n", path], capture_output=True,
                                                           text=True).stdout)
    if m:
        paths.append("/usr/lib/debug/.build-id/%s/%s.debug" % (m.group(1)[:2], m.group(1)[2:]))
    for args in [["nm", "-S", p] for p in paths if os.path.exists(p)] + [["nm", "-S", "-D", path]]:
        r = subprocess.run(args, capture_output=True, text=True).stdout
        for line in r.splitlines():
            f = line.split()
            if len(f) == 4:
                out.setdefault(f[3].split("@")[0], (int(f[0], 16), int(f[1], 16)))
            elif len(f) == 3:
                out.setdefault(f[2].split("@")[0], (int(f[0], 16), 0))
    return out


def outside(syms, chain, a):
    """addr2line's answer is its nearest-symbol guess (no line) for an
    address past the end of that symbol."""
    if len(chain) != 1 or chain[0][1] != 0 or chain[0][0] not in syms:
        return False
    start, size = syms[chain[0][0]]
    return size > 0 and not start <= a < start + size


def main():
    name = os.environ.get("CMP_NAME", "pprof_lines")
    d = json.load(open(sys.argv[1]))
    files = {os.path.realpath(f): f for f in sys.argv[2:]}
    want_at = {}
    for lid, loc in d["locations"].items():
        m = d["mappings"].get(str(loc["mapping"]))
        if not m or os.path.realpath(m["file"]) not in files:
            continue
        path = files[os.path.realpath(m["file"])]
        for off, vaddr, size in loads(path):
            if off <= loc["address"] < off + size:
                want_at.setdefault(path, []).append((loc["address"] - off + vaddr, loc))
                break
    bad, n, inl = [], 0, 0
    for path, locs in want_at.items():
        syms = symbols(path)
        for a, loc in locs:
            out = subprocess.run(["addr2line", "-f", "-i", "-e", path, "0x%x" % a],
                                 capture_output=True, text=True).stdout.splitlines()
            chain = []
            for fn, fl in zip(out[0::2], out[1::2]):
                ln = fl.rsplit(":", 1)[-1].split(" ")[0]
                chain.append([fn, int(ln) if ln.isdigit() else 0])
            if chain and chain[0][0] == "??":
                chain = []
            got = [list(x) for x in loc["lines"]]
            if got and chain:
                got[-1][0] = CLONE.sub("", got[-1][0])
                # (an alias at the same address: the symbol table's name)
                if got[-1][0] != chain[-1][0] and syms.get(got[-1][0]) is not None and \
                        syms.get(got[-1][0])[0] == syms.get(chain[-1][0], (None,))[0]:
                    got[-1][0] = chain[-1][0]
            n += 1
            inl += len(got) > 1
            if not got and outside(syms, chain, a):
                chain = []
            if got != chain:
                bad.append("%s+0x%x: %s, addr2line %s" % (os.path.basename(path), loc["address"], got, chain))
    if not n:
        print("FAIL %s: no location in %s" % (name, " ".join(sys.argv[2:])))
    elif bad:
        print("FAIL %s: %d of %d locations differ: %s" % (name, len(bad), n, "; ".join(bad[:3])))
    else:
        print("PASS %s (%d locations, %d of them with inlined frames, as addr2line -f -i)" % (name, n, inl))


if __name__ == "__main__":
    main()
