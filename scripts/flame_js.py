#!/usr/bin/env python3
"""Writes src/output/flame_svg_script.h from src/output/flame_svg.js.

usage: scripts/flame_js.py [OUT]   (default: src/output/flame_svg_script.h)

The flame graph's script is kept as plain JavaScript for reading and editing
and compiled in as C string literals; it must use no backslash, no double
quote and no "]]>" (it sits in a CDATA section), so each line is a plain
string. tests/e2e/flame_svg.sh checks the header is up to date.
"""
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
js = open(os.path.join(root, "src/output/flame_svg.js")).read()
for bad in ("\\", '"', "]]>"):
    if bad in js:
        sys.exit(f"flame_svg.js: '{bad}' cannot be in the script")
out = ["/* SPDX-License-Identifier: MIT */",
       "/* The flame graph's script and style, inlined into every SVG. Generated from",
       " * flame_svg.js by scripts/flame_js.py (edit the .js, then run it): the script",
       " * uses no backslash and no double quote, so each line is a plain C string. */",
       "#define FLAME_JS \\"]
for line in js.split("\n"):
    if line:
        out.append('\t"%s\\n" \\' % line.replace("\t", "  "))
out += ['\t""',
        "#define FLAME_CSS \\",
        '\t"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; } " \\',
        '\t"#title { font-size: 17px; } .f { cursor: pointer; } .f:hover rect { stroke: #000; stroke-width: 0.5; } " \\',
        '\t".hide { display: none; } .btn { cursor: pointer; fill: #06c; } .parent rect { opacity: 0.5; } " \\',
        '\t"#search { width: 240px; font-size: 12px; }"']
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "src/output/flame_svg_script.h")
with open(path, "w") as f:
    f.write("\n".join(out) + "\n")
