#!/usr/bin/env python3
"""Independent call-stack oracle from `perf script -F period,ip,sym` text.

usage: stack_oracle.py folded PERF_SCRIPT.txt HWPROF_FOLDED.txt
       stack_oracle.py folded-mem all|hitm samples|latency PERF_SCRIPT.txt HWPROF_FOLDED.txt
       stack_oracle.py children-mem all|hitm samples|latency PERF_SCRIPT.txt HWPROF.json
       stack_oracle.py function NAME PERF_SCRIPT.txt HWPROF.json

folded: perf script's callchains folded here (callers first, ';', one count
per sample, as stackcollapse-perf.pl does) must equal `hwprof flame --folded
--no-inline` line for line as multisets. Frames no symbol names are named
as hwprof names them, from perf's address: "module+0xOFFSET" (perf prints
the offset in the map), "0xADDR" in the kernel or outside every map.
folded-mem: the same for memory samples, from `perf script -F
data_src,weight,ip,sym,dso`: every sample, or those whose data source says
HitM, each counting 1 or its weight (the access latency) as the header's last
number says. A sample perf prints without frames (its chain discarded for an
unknown context marker) is in hwprof's output as a one-frame stack of its IP
(as perf report counts it): with CMP_IPS naming `perf script -F
period,ip,sym,dso -G` of the same recording, exactly those stacks more are
accepted; without it, the outputs must be equal.
children-mem: per frame, the samples (or latency) of the memory samples with
it anywhere on their stack, against `hwprof mem --children --json` (or c2c's).
function: callers and callees (in samples) of the outermost NAME on each
stack, from perf script, against `hwprof callgraph --function NAME --json`.
Prints one line: PASS/FAIL NAME ...
"""
import json
import os
import re
import sys
from collections import Counter

name = os.environ.get("CMP_NAME", "stack_oracle")


def samples(path, headers=None):
    """Each sample's frames, callee first (perf script's order); its header
    line appended to HEADERS when given."""
    cur = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        # a frame line: "\t<addr> <sym> (<dso>)"; anything else not blank
        # is a sample's header (which may be indented: a period alone).
        # <dso> is the last balanced group: C++ symbols hold " (" too
        # ("f<true, (Enum)9>"), and a dso may ("/x.so (deleted)")
        m = re.match(r"\t\s*([0-9a-f]+) (.*?) \(((?:[^()]|\([^()]*\))*)\)$", line)
        if m and cur is not None:
            sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(2))
            if sym == "[unknown]":
                # perf prints a mapped address relative to its map, as hwprof
                # names it (module+0xOFFSET); others as they are (0xADDR)
                dso = m.group(3)
                addr = int(m.group(1), 16)
                sym = f"0x{addr:x}" if dso == "[unknown]" or addr >= 1 << 63 else \
                    f"{os.path.basename(dso)}+0x{addr:x}"
            cur.append(sym)
            continue
        if cur is not None:
            yield cur
            cur = None
        if line.strip():
            cur = []
            if headers is not None:
                headers.append(line)
    if cur is not None:
        yield cur


def unnamed(f):
    return f


def sample_ips(path):
    """Each sample's own IP as `perf script -F period,ip,sym,dso -G` names it
    (one line a sample: the call graph hidden), None for an address no symbol
    names (perf prints it absolute there, not as the module offset hwprof
    names it by)."""
    out = []
    for line in open(path, errors="replace"):
        m = re.match(r"\s*\d+\s+[0-9a-f]+ (.*?) \(((?:[^()]|\([^()]*\))*)\)$", line.rstrip("\n"))
        if m:
            sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(1))
            out.append(None if sym == "[unknown]" else sym)
    return out


def folded(script, mine, keep=None, weight=None):
    want = Counter()
    headers = []
    # the samples perf prints without a frame: their callchain discarded
    # (a word no context marker is, from a garbage frame-pointer walk)
    frameless = []
    for n, fr in enumerate(samples(script, headers)):
        h = headers[-1]
        if keep is not None and not keep(h):
            continue
        if fr:
            want[";".join(reversed(fr))] += weight(h) if weight else 1
        else:
            frameless.append((n, weight(h) if weight else 1))
    got = Counter()
    for line in open(mine):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        got[";".join(unnamed(f) for f in stack.split(";"))] += int(n)
    # hwprof counts such a sample at its own IP, as perf report does: with
    # the samples' IPs (CMP_IPS: perf script -G of the same recording),
    # hwprof must have exactly those one-frame stacks more, nothing else
    ips_path = os.environ.get("CMP_IPS")
    if frameless and ips_path:
        ips = sample_ips(ips_path)
        if len(ips) != len(headers):
            print(f"FAIL {name}: {len(ips)} samples in {ips_path}, {len(headers)} in {script}")
            return 1
        named, anonymous = Counter(), 0
        for n, w in frameless:
            if ips[n] is None:
                anonymous += w
            else:
                named[ips[n]] += w
        extra = got - want
        rest = extra - named
        if not (want - got) and not (named - extra) and sum(rest.values()) == anonymous and \
                all(re.match(r"(\S+\+)?0x[0-9a-f]+$", s) for s in rest):
            print(f"PASS {name} ({len(want)} distinct stacks, {sum(want.values())} samples; "
                  f"{len(frameless)} with a discarded chain, counted at their IP: {dict(named)})")
            return 0
        print(f"FAIL {name}: {len(frameless)} samples with a discarded chain: hwprof's stacks beyond "
              f"perf's {dict(extra)}, want {dict(named)} and {anonymous} at unnamed addresses; "
              f"missing {dict(want - got)}")
        return 1
    if want == got:
        print(f"PASS {name} ({len(want)} distinct stacks, {sum(want.values())} samples)")
        return 0
    diff = [(s, want[s], got[s]) for s in set(want) | set(got) if want[s] != got[s]]
    diff.sort(key=lambda d: -abs(d[1] - d[2]))
    det = "; ".join(f"{s[-80:]}: perf {a} hwprof {b}" for s, a, b in diff[:3])
    print(f"FAIL {name}: {len(diff)} stacks differ: {det}")
    return 1


def function(fn, script, mine):
    callers, callees, total = Counter(), Counter(), 0
    for fr in samples(script):
        chain = list(reversed(fr))  # callers first
        if fn not in chain:
            continue
        i = chain.index(fn)
        total += 1
        if i > 0:
            callers[chain[i - 1]] += 1
        if i + 1 < len(chain):
            callees[chain[i + 1]] += 1
    doc = json.load(open(mine))
    got_callers = Counter({r["symbol"]: r["children_samples"] for r in doc["callers"] if r.get("symbol")})
    got_callees = Counter({r["symbol"]: r["children_samples"] for r in doc["callees"] if r.get("symbol")})
    callers = Counter({k: v for k, v in callers.items() if not re.match(r"(\S+\+)?0x[0-9a-f]+$", k)})
    callees = Counter({k: v for k, v in callees.items() if not re.match(r"(\S+\+)?0x[0-9a-f]+$", k)})
    if total and doc["children_samples"] == total and callers == got_callers and callees == got_callees:
        print(f"PASS {name} ({fn}: {total} samples, callers {dict(callers)}, callees {dict(callees)})")
        return 0
    print(f"FAIL {name}: {fn}: perf total {total} callers {dict(callers)} callees {dict(callees)}; "
          f"hwprof total {doc['children_samples']} callers {dict(got_callers)} callees {dict(got_callees)}")
    return 1


def children_mem(script, mine, keep, weight):
    want = Counter()
    headers = []
    for fr in samples(script, headers):
        h = headers[-1]
        if fr and (keep is None or keep(h)):
            for f in set(fr):
                want[f] += weight(h) if weight else 1
    got = Counter()
    for r in json.load(open(mine)):
        f = r["symbol"] or f"{os.path.basename(r['module'])}+{r['offset']}"
        got[f] += r["children_period"] if weight else r["children_samples"]
    if want == got and want:
        print(f"PASS {name} ({len(want)} frames, {max(want.values())} at most)")
        return 0
    diff = [(f, want[f], got[f]) for f in set(want) | set(got) if want[f] != got[f]]
    diff.sort(key=lambda d: -abs(d[1] - d[2]))
    print(f"FAIL {name}: {len(diff)} frames differ: " + "; ".join(f"{f}: perf {a} hwprof {b}" for f, a, b in diff[:3]))
    return 1


if __name__ == "__main__":
    if sys.argv[1] == "folded":
        sys.exit(folded(sys.argv[2], sys.argv[3]))
    if sys.argv[1] == "folded-mem":
        keep = (lambda h: "HitM" in h) if sys.argv[2] == "hitm" else None
        weight = (lambda h: int(h.split()[-1])) if sys.argv[3] == "latency" else None
        sys.exit(folded(sys.argv[4], sys.argv[5], keep, weight))
    if sys.argv[1] == "children-mem":
        keep = (lambda h: "HitM" in h) if sys.argv[2] == "hitm" else None
        weight = (lambda h: int(h.split()[-1])) if sys.argv[3] == "latency" else None
        sys.exit(children_mem(sys.argv[4], sys.argv[5], keep, weight))
    sys.exit(function(sys.argv[2], sys.argv[3], sys.argv[4]))
