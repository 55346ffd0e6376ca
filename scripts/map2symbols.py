#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the Debian symbols file of libhwprof from its version script.

    scripts/map2symbols.py libhwprof.map SONAME PACKAGE VERSION >debian/PACKAGE.symbols

The map lists every exported name under a version node, as libbpf does:

    LIBHWPROF_0 {
    	global:
    		hwp_foo;
    	local:
    		*;
    };
    LIBHWPROF_0.3 {
    	global:
    		hwp_bar;
    } LIBHWPROF_0;

Each name becomes "name@NODE MINVER": MINVER is the node's own version when
its name carries a release (LIBHWPROF_0.3 -> 0.3), else VERSION (the first
node predates the packages). The node itself is a symbol too, as
dpkg-gensymbols lists it. A pattern among the global names (hwp_*) cannot
become a symbols file: that is an error naming the line.
"""
import re
import sys


def fail(msg):
    sys.exit(f"map2symbols: {msg}")


def parse(path):
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    # comments become blanks of the same lines, so line numbers stay right
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.S)
    text = re.sub(r"#[^\n]*", "", text)
    nodes, node, scope, names = [], None, None, []
    for tok in re.finditer(r"[A-Za-z_.][A-Za-z0-9_.$*?\[\]-]*:?|[{};*]|\S", text):
        t, line = tok.group(), text.count("\n", 0, tok.start()) + 1
        where = f"{path}:{line}"
        if node is None:
            if t in ("}", ";") or t in (n for n, _ in nodes):
                continue  # "} LIBHWPROF_0;": a parent node, then ';'
            if t == "{":
                fail(f"{where}: a version node needs a name (LIBHWPROF_0 {{ ... }})")
            node = t
            names = []
            scope = None
            continue
        if t == "{":
            continue
        if t == "}":
            nodes.append((node, names))
            node = None
            continue
        if t in ("global:", "local:"):
            scope = t[:-1]
            continue
        if t == ";":
            continue
        if t == "extern":
            fail(f"{where}: extern blocks are not supported: list C names")
        if scope == "global":
            if re.search(r"[*?\[]", t):
                fail(f"{where}: '{t}' is a pattern: the symbols file (and libbpf's practice) needs "
                     "every exported name listed by itself in the map")
            names.append(t)
        elif scope is None:
            fail(f"{where}: '{t}' outside global: or local:")
    if node is not None:
        fail(f"{path}: version node {node} is not closed")
    if not nodes or not any(n for _, n in nodes):
        fail(f"{path}: no exported names")
    return nodes


def main():
    if len(sys.argv) != 5:
        fail("usage: map2symbols.py MAP SONAME PACKAGE VERSION")
    path, soname, package, version = sys.argv[1:]
    out = [f"{soname} {package} #MINVER#", f"* Build-Depends-Package: {package.rstrip('0123456789')}-dev"]
    seen = set()
    for node, names in parse(path):
        m = re.fullmatch(r"[A-Za-z_]+_(\d+(?:\.\d+)+)", node)
        minver = m.group(1) if m else version
        out.append(f" {node}@{node} {minver}")
        for n in names:
            if n in seen:
                fail(f"{path}: {n} is listed twice")
            seen.add(n)
            out.append(f" {n}@{node} {minver}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
