#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks hwprof export's outputs against each other and against
independent readings (tests/e2e/export.sh):

  export_check.py formats TSV CSV JSONL     the three formats hold the same rows
  export_check.py pprof ROWS.tsv DECODED.json BRANCHES.json BUILD_ID
      DECODED: tests/tools/pprof_decode.py's reading of the pprof file;
      BRANCHES: 'hwprof branches --sort symbol_from --json'; BUILD_ID: the
      main binary's, as readelf -n prints it. The samples' total equals the
      branch report's; per source symbol too; each sample sits at a branch
      row's source (mapping build-id, module offset) with its count; the
      main binary's mapping carries its build-id.
Prints one line per failed check; exits 1 on any."""
import csv
import json
import sys
from collections import Counter

INTS = {"window_start", "window_end", "from_off", "to_off", "type", "count", "entries", "not_taken",
        "mispred", "predicted", "cycles_sum", "cycles_n"}


def norm(row):
    out = {}
    for k, v in row.items():
        if k in INTS:
            out[k] = int(v)
        elif k == "cycles_hist":
            out[k] = json.loads(v) if isinstance(v, str) else v
        else:
            out[k] = v
    return tuple(sorted((k, json.dumps(v)) for k, v in out.items()))


def tsv_rows(path):
    lines = open(path).read().split("\n")
    names = lines[0].split("\t")
    rows = []
    for ln in lines[1:]:
        if not ln:
            continue
        vals = [v.replace("\\t", "\t").replace("\\n", "\n").replace("\\\\", "\\") for v in ln.split("\t")]
        rows.append(dict(zip(names, vals)))
    return rows


def formats(tsv, csvp, jsonl):
    a = Counter(norm(r) for r in tsv_rows(tsv))
    b = Counter(norm(r) for r in csv.DictReader(open(csvp, newline="")))
    c = Counter(norm(json.loads(ln)) for ln in open(jsonl) if ln.strip())
    bad = []
    if not a:
        bad.append("no rows")
    if a != b:
        bad.append("CSV rows differ from TSV rows (%d vs %d)" % (sum(b.values()), sum(a.values())))
    if a != c:
        bad.append("JSON rows differ from TSV rows (%d vs %d)" % (sum(c.values()), sum(a.values())))
    return bad


def pprof(rows_tsv, decoded, branches, build_id):
    rows = [r for r in tsv_rows(rows_tsv) if r["kind"] == "branch"]
    d = json.load(open(decoded))
    rep = json.load(open(branches))
    bad = []
    total = sum(s["values"][0] for s in d["samples"])
    want = sum(r["count"] for r in rep)
    if total != want:
        bad.append("pprof sample total %d, hwprof branches %d" % (total, want))
    by_sym = Counter()
    for s in d["samples"]:
        loc = d["locations"][str(s["locations"][0])]
        by_sym[loc["functions"][0] if loc["functions"] else None] += s["values"][0]
    want_sym = Counter()
    for r in rep:
        want_sym[r.get("from_symbol")] += r["count"]
    if by_sym != want_sym:
        diff = [(k, by_sym.get(k), want_sym.get(k)) for k in set(by_sym) | set(want_sym)
                if by_sym.get(k) != want_sym.get(k)]
        bad.append("per-symbol totals differ (symbol, pprof, branches): %s" % diff[:5])
    got = Counter()
    for s in d["samples"]:
        loc = d["locations"][str(s["locations"][0])]
        m = d["mappings"].get(str(loc["mapping"]))
        off = loc["address"] - m["start"] + m["offset"] if m else loc["address"]
        got[(m["build_id"] if m else "", off)] += s["values"][0]
    want_loc = Counter()
    for r in rows:
        want_loc[(r["build_id"], int(r["from_off"]))] += int(r["count"])
    if got != want_loc:
        bad.append("sample locations differ from the branch rows' sources")
    if not any(m["build_id"] == build_id for m in d["mappings"].values()):
        bad.append("no mapping has the main binary's build-id %s" % build_id)
    return bad


def main():
    bad = formats(*sys.argv[2:5]) if sys.argv[1] == "formats" else pprof(*sys.argv[2:6])
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
