#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Pixel facts of a PNG (8-bit RGB or RGBA, not interlaced: what Chromium's
screenshots are), decoded here with zlib only. Prints JSON: width, height,
the share of pixels that are not the background (the top-left pixel's
colour), the number of distinct colours, and how many pixels are near each
colour given as #rrggbb arguments (each channel within 40).
usage: png_pixels.py FILE.png [#rrggbb ...]"""
import json
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise SystemExit(f"{path}: unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def main():
    w, h, bpp, rows = decode(sys.argv[1])
    want = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in sys.argv[2:]]
    bg = tuple(rows[0][0:3])
    colours, other = set(), 0
    near = [0] * len(want)
    for line in rows:
        for x in range(0, w * bpp, bpp):
            px = tuple(line[x:x + 3])
            colours.add(px)
            other += px != bg
            for k, c in enumerate(want):
                if all(abs(px[i] - c[i]) <= 40 for i in range(3)):
                    near[k] += 1
    print(json.dumps({"width": w, "height": h, "non_background": other / (w * h), "colours": len(colours),
                      "near": dict(zip(sys.argv[2:], near))}))


main()
