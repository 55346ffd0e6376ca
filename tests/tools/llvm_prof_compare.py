#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares two LLVM sample profiles in text form (hwprof's and llvm-profgen's).

  llvm_prof_compare.py HWPROF.prof PROFGEN.prof [--min-share 0.01] [--tol 0.05]
                       [--min-equal-lines 1.0]

Parses the format independently of both writers (function lines
"name:total:head", body lines "offset[.disc]: count [callee:count ...]",
inlined call sites "offset[.disc]: callee:total" opening a deeper level),
then checks:
  - every function holding at least MIN_SHARE of profgen's summed totals is
    in hwprof's profile with a total within TOL;
  - the share of profgen's lines (context path + location) whose count and
    call targets hwprof has equal is at least MIN_EQUAL_LINES (at 1, the
    default, hwprof may have no line profgen lacks).
Prints one PASS/FAIL line per check (prefix $TEST_NAME) and the table of
compared functions on stderr.
"""
import os
import re
import sys

BODY = re.compile(r'^(\d+)(?:\.(\d+))?: (\d+)((?: [^ :]+:\d+)*)$')
SITE = re.compile(r'^(\d+)(?:\.(\d+))?: ([^ ]+):(\d+)$')


def parse(path):
    """-> (functions {name: (total, head)}, lines {(context, loc): (count, targets)})"""
    funcs, lines = {}, {}
    stack = []  # context per indentation depth
    for raw in open(path):
        raw = raw.rstrip('\n')
        if not raw.strip():
            continue
        depth = len(raw) - len(raw.lstrip(' '))
        text = raw.strip()
        if depth == 0:
            name, total, head = text.rsplit(':', 2)
            funcs[name] = (int(total), int(head))
            stack = [name]
            continue
        del stack[depth:]
        m = BODY.match(text)
        if m:
            loc = (int(m.group(1)), int(m.group(2) or 0))
            targets = {}
            for t in m.group(4).split():
                callee, c = t.rsplit(':', 1)
                targets[callee] = int(c)
            lines[('/'.join(stack), loc)] = (int(m.group(3)), targets)
            continue
        m = SITE.match(text)
        if not m:
            raise SystemExit('%s: cannot parse line: %r' % (path, raw))
        loc = '%s.%s' % (m.group(1), m.group(2) or 0)
        stack = stack[:depth] + ['%s@%s' % (m.group(3), loc)]
    return funcs, lines


def main():
    args = sys.argv[1:]
    opt = {'--min-share': 0.01, '--tol': 0.05, '--min-equal-lines': 1.0}
    files = []
    while args:
        a = args.pop(0)
        if a in opt:
            opt[a] = float(args.pop(0))
        else:
            files.append(a)
    name = os.environ.get('TEST_NAME', 'llvm_prof')
    hf, hl = parse(files[0])
    pf, pl = parse(files[1])
    grand = sum(t for t, _ in pf.values()) or 1
    bad, compared = [], 0
    for fn, (total, head) in sorted(pf.items(), key=lambda kv: -kv[1][0]):
        if total < opt['--min-share'] * grand:
            continue
        compared += 1
        mine = hf.get(fn, (0, 0))[0]
        err = abs(mine - total) / total
        print('%-30s profgen %10d hwprof %10d  %.2f%%' % (fn, total, mine, 100 * err), file=sys.stderr)
        if err > opt['--tol']:
            bad.append('%s %d vs %d' % (fn, mine, total))
    if compared and not bad:
        print('PASS %s_totals (%d functions with >= %g%% of samples within %g%%)'
              % (name, compared, 100 * opt['--min-share'], 100 * opt['--tol']))
    else:
        print('FAIL %s_totals: %s' % (name, '; '.join(bad) or 'no function compared'))
    equal = sum(1 for k, v in pl.items() if hl.get(k) == v)
    share = equal / len(pl) if pl else 0
    extra = len(set(hl) - set(pl))
    # with every line required equal, hwprof may not have more either
    if pl and share >= opt['--min-equal-lines'] and (opt['--min-equal-lines'] < 1 or not extra):
        print('PASS %s_lines (%d of %d profgen lines equal, %d lines only in hwprof)'
              % (name, equal, len(pl), extra))
    else:
        diff = [k for k, v in pl.items() if hl.get(k) != v][:3]
        print('FAIL %s_lines: %d of %d profgen lines equal (want %g%%), %d only in hwprof; e.g. %s'
              % (name, equal, len(pl), 100 * opt['--min-equal-lines'], extra,
                 ['%s: %s vs %s' % (k, hl.get(k), pl[k]) for k in diff]))


main()
