#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A gzipped pprof profile decoded from the protobuf wire format alone (no
protobuf library, no hwprof code): prints JSON with the string table
resolved: {"sample_type": [[type, unit]], "samples": [{"locations":
[...], "values": [...], "labels": {k: v}}], "locations": {id: {"address",
"mapping", "functions": [name], "lines": [[name, line]]}}, "mappings": {id: {"file", "build_id",
"start", "limit", "offset"}}}.

usage: pprof_decode.py FILE.pb.gz
       pprof_decode.py FILE.pb.gz --folded TYPE
--folded: the samples' stacks folded (callers first, ";"-separated, then
the sum of the value of sample type TYPE), one line per stack, as
flamegraph's stackcollapse and `hwprof flame --folded --no-inline` write
them: a location is named by its outermost line's function (the one the
others were inlined into), one without lines as hwprof names unresolved
frames, "module+0xOFFSET" (the mapping's file name; addresses are module
offsets), "0xADDR" without a mapping. Samples whose TYPE value is 0 (the
branch samples of a profile with both) are left out.
Field numbers: github.com/google/pprof proto/profile.proto."""
import gzip
import json
import sys


def varint(b, i):
    v = shift = 0
    while True:
        if i >= len(b):
            raise ValueError("truncated varint")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def fields(b):
    """(field number, wire type, value) of one message; value is an int
    (varint) or bytes (length-delimited)."""
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        num, wt = key >> 3, key & 7
        if wt == 0:
            v, i = varint(b, i)
        elif wt == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise ValueError("truncated field %d" % num)
            v, i = b[i:i + n], i + n
        elif wt == 1:
            v, i = int.from_bytes(b[i:i + 8], "little"), i + 8
        elif wt == 5:
            v, i = int.from_bytes(b[i:i + 4], "little"), i + 4
        else:
            raise ValueError("wire type %d" % wt)
        yield num, wt, v


def ints(wt, v):
    """A repeated integer field: packed (bytes) or one varint."""
    if wt == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def signed(x):
    return x - (1 << 64) if x >= 1 << 63 else x


def msg(b, spec):
    """Fields of B by SPEC {num: (name, 'int'|'ints'|'msg')}; repeated
    messages as lists of bytes."""
    out = {}
    for num, wt, v in fields(b):
        if num not in spec:
            continue
        name, kind = spec[num]
        if kind == "int":
            out[name] = v
        elif kind == "ints":
            out.setdefault(name, []).extend(ints(wt, v))
        else:
            out.setdefault(name, []).append(v)
    return out


def main():
    data = gzip.open(sys.argv[1]).read()
    prof = msg(data, {1: ("sample_type", "msg"), 2: ("sample", "msg"), 3: ("mapping", "msg"),
                      4: ("location", "msg"), 5: ("function", "msg"), 6: ("strings", "msg")})
    st = [s.decode() for s in prof.get("strings", [])]
    if not st or st[0] != "":
        raise ValueError("string_table[0] is not empty")
    S = lambda i: st[i]
    out = {"sample_type": [], "samples": [], "locations": {}, "mappings": {}}
    for vt in prof.get("sample_type", []):
        m = msg(vt, {1: ("type", "int"), 2: ("unit", "int")})
        out["sample_type"].append([S(m.get("type", 0)), S(m.get("unit", 0))])
    funcs = {}
    for f in prof.get("function", []):
        m = msg(f, {1: ("id", "int"), 2: ("name", "int"), 3: ("system_name", "int"), 4: ("filename", "int")})
        funcs[m["id"]] = S(m.get("name", 0))
    for mp in prof.get("mapping", []):
        m = msg(mp, {1: ("id", "int"), 2: ("start", "int"), 3: ("limit", "int"), 4: ("offset", "int"),
                     5: ("file", "int"), 6: ("build_id", "int")})
        out["mappings"][m["id"]] = {"file": S(m.get("file", 0)), "build_id": S(m.get("build_id", 0)),
                                    "start": m.get("start", 0), "limit": m.get("limit", 0),
                                    "offset": m.get("offset", 0)}
    for loc in prof.get("location", []):
        m = msg(loc, {1: ("id", "int"), 2: ("mapping", "int"), 3: ("address", "int"), 4: ("line", "msg")})
        names, lines = [], []
        for ln in m.get("line", []):
            l = msg(ln, {1: ("function_id", "int"), 2: ("line", "int")})
            names.append(funcs[l["function_id"]])
            lines.append([funcs[l["function_id"]], l.get("line", 0)])
        out["locations"][m["id"]] = {"address": m.get("address", 0), "mapping": m.get("mapping", 0),
                                     "functions": names, "lines": lines}
    for s in prof.get("sample", []):
        m = msg(s, {1: ("locations", "ints"), 2: ("values", "ints"), 3: ("label", "msg")})
        labels = {}
        for lb in m.get("label", []):
            l = msg(lb, {1: ("key", "int"), 2: ("str", "int")})
            labels[S(l.get("key", 0))] = S(l.get("str", 0))
        out["samples"].append({"locations": m.get("locations", []),
                               "values": [signed(v) for v in m.get("values", [])], "labels": labels})
    if len(sys.argv) > 3 and sys.argv[2] == "--folded":
        folded(out, sys.argv[3])
    else:
        json.dump(out, sys.stdout)


def folded(d, vtype):
    import collections
    import os
    k = [t for t, _ in d["sample_type"]].index(vtype)
    c = collections.Counter()

    def name(loc):
        if loc["functions"]:
            return loc["functions"][-1]
        m = d["mappings"].get(loc["mapping"])
        if m and m["file"]:
            return "%s+0x%x" % (os.path.basename(m["file"]), loc["address"])
        return "0x%x" % loc["address"]

    for s in d["samples"]:
        if s["values"][k]:
            c[";".join(reversed([name(d["locations"][l]) for l in s["locations"]]))] += s["values"][k]
    for stack, n in sorted(c.items()):
        print(stack, n)


if __name__ == "__main__":
    main()
