#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares an LLVM sample profile (text) with AutoFDO's create_llvm_prof's.

  afdo_prof_compare.py HWPROF.prof ORACLE.prof [--no-calls]
  afdo_prof_compare.py --functions PROFILE    "name: total, head" per function

Parses both independently of the writers: function lines
"name:total:head", body lines "offset[.disc]: count [callee:count ...]",
inlined call sites "offset[.disc]: callee:total" opening a deeper level
(a line read as a body line is one when the next line is deeper: a
garbage callee name can read as a count and call targets);
'#' lines are comments (LLVM's reader skips them). Every function, call
site and line must be equal (order aside): same functions, totals and
heads, same call sites with the same totals, same line counts.
create_llvm_prof 0.19 (Debian autofdo) prints the names of inlined
callees from freed memory (bytes, or pieces of other names): a call site
is keyed by its location and the callee's name is not compared (hwprof's
inline names are those of its LBR profiles, checked against llvm-profgen
in pgo_llvm.sh). --no-calls: head samples and call targets are not
compared (create_llvm_prof --use_lbr=false still takes them from the
branch stacks of a recording that has them; hwprof --ip-samples does not).
Prints PASS/FAIL lines (prefix $TEST_NAME).
"""
import os
import re
import sys

BODY = re.compile(rb'^(\d+(?:\.\d+)?): (\d+)((?: [^ :]+:\d+)*)$')
SITE = re.compile(rb'^(\d+(?:\.\d+)?): (.*):(\d+)$', re.S)


def parse(path):
    """-> {key: value}: ('F', fn) -> (total, head); ('S', fn, sites) -> (total, name);
    ('L', fn, sites, loc) -> (count, targets)"""
    out = {}
    fn, sites = None, []
    pending = b''
    prev = None  # the last body line read: its key, text, depth, the key's value before
    for raw in open(path, 'rb'):
        raw = pending + raw.rstrip(b'\n')
        pending = b''
        if not raw.strip() or raw.startswith(b'#'):
            continue
        depth = len(raw) - len(raw.lstrip(b' '))
        text = raw[depth:]
        if prev and depth > prev[2]:
            # only a call site opens a deeper level: that line was one whose
            # garbage callee name reads as a count and targets ("13: 09 `QV:0")
            key, ptext, pdepth, before = prev
            if before is None:
                del out[key]
            else:  # (a line of that offset came first)
                out[key] = before
            del sites[pdepth - 1:]
            m = SITE.match(ptext)
            sites.append(m.group(1))
            out[('S', fn, tuple(sites))] = (int(m.group(3)), m.group(2))
        prev = None
        if depth == 0:
            name, total, head = text.rsplit(b':', 2)
            fn, sites = name, []
            out[('F', fn)] = (int(total), int(head))
            continue
        del sites[depth - 1:]
        m = BODY.match(text)
        if m:
            key = ('L', fn, tuple(sites), m.group(1))
            prev = (key, text, depth, out.get(key))
            out[key] = (int(m.group(2)), m.group(3).strip())
            continue
        m = SITE.match(text)
        if not m:  # a garbage callee name holding a newline: the line goes on
            pending = raw + b'\n'
            continue
        sites.append(m.group(1))
        out[('S', fn, tuple(sites))] = (int(m.group(3)), m.group(2))
    return out


def main():
    if sys.argv[1] == '--functions':  # "name: total, head" per function, sorted
        for k, v in sorted(parse(sys.argv[2]).items()):
            if k[0] == 'F':
                print('%s: %d, %d' % (k[1].decode(errors='replace'), v[0], v[1]))
        return 0
    name = os.environ.get('TEST_NAME', 'afdo_prof')
    hw, orc = parse(sys.argv[1]), parse(sys.argv[2])
    if '--no-calls' in sys.argv[3:]:
        for d in hw, orc:
            for k, v in d.items():
                d[k] = (v[0], 0) if k[0] == 'F' else (v[0], b'') if k[0] == 'L' else v
    bad = []
    for k in sorted(set(hw) | set(orc), key=repr):
        a, b = hw.get(k), orc.get(k)
        if a is None or b is None:
            bad.append('%s only in %s' % (k, 'hwprof' if b is None else 'the oracle'))
        elif k[0] == 'S':
            if a[0] != b[0]:
                bad.append('%s: %s vs %s' % (k, a[0], b[0]))
        elif a != b:
            bad.append('%s: %s vs %s' % (k, a, b))
    nf = sum(1 for k in orc if k[0] == 'F')
    nl = sum(1 for k in orc if k[0] == 'L')
    ns = sum(1 for k in orc if k[0] == 'S')
    if orc and not bad:
        print('PASS %s (%d functions, %d inlined call sites, %d lines: equal)' % (name, nf, ns, nl))
        return 0
    print('FAIL %s: %d of %d keys differ; e.g. %s' % (name, len(bad), len(set(hw) | set(orc)),
                                                     '; '.join(bad[:3]) or 'the oracle wrote nothing'))
    return 1


sys.exit(main())
