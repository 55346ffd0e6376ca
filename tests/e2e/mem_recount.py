#!/usr/bin/env python3
"""Independent recount of perf 6.1's `perf script -F event,cpu,ip,addr,weight,
data_src` text, compared with `hwprof mem --json` tables.

perf_text: the dump (gz or plain); source/hist/totals: JSON files of
`hwprof mem -s source --json`, `-s hist --json`, `-s symbol --json`.
The data source of each sample is derived from perf's *decoded text*
("|LVL L3 or L3 hit|SNP HitM|...") rather than from the bits hwprof decodes.
"""
import gzip
import json
import re
import sys


def source_of(lvl, snp):
    hit = lvl.endswith(' hit') or ' hit ' in lvl
    remote = lvl.startswith('Remote ')
    hitm = 'HitM' in snp
    words = lvl.replace(' hit', '').replace(' miss', '')
    if lvl.endswith(' miss') and not hit:
        return 'unknown'
    if 'LFB' in words:
        return 'lfb'
    if re.search(r'\bL1\b', words):
        return 'l1'
    if re.search(r'\bL2\b', words):
        return 'remote_cache' if remote else 'l2'
    if re.search(r'\bL3\b', words):
        return 'remote_cache' if remote else ('l3_hitm' if hitm else 'l3')
    if 'Any cache' in words or 'Remote Cache' in words:
        return 'remote_cache' if remote or 'Remote Cache' in words else ('l3_hitm' if hitm else 'peer')
    if 'PMEM' in words:
        return 'pmem'
    if 'Local RAM' in words or words.endswith('RAM'):
        return 'remote_dram' if remote or 'Remote RAM' in words else 'local_dram'
    if 'Remote RAM' in words:
        return 'remote_dram'
    if 'I/O' in words:
        return 'io'
    if 'Uncached' in words:
        return 'uncached'
    return 'unknown'


def bucket(lat):
    b = 0
    while lat > 1 and b < 19:
        lat >>= 1
        b += 1
    return b


def main():
    path, src_json, hist_json, sym_json = sys.argv[1:5]
    opener = gzip.open if path.endswith('.gz') else open
    line_re = re.compile(r'^\[\s*(\d+)\] (.*?): +([0-9a-f]+) +([0-9a-f]+) (\|OP [^|]*\|LVL [^|]*\|SNP [^|]*\|'
                         r'TLB [^|]*\|LCK [^|]*\|BLK [^|]*?) +(\d+) +([0-9a-f]+)$')
    n = loads = stores = hitm = lat_sum = lat_max = 0
    by_src, lat_src, hist = {}, {}, {}
    with opener(path, 'rt') as f:
        for line in f:
            m = line_re.match(line.rstrip('\n'))
            if not m:
                print(f'FAIL mem_recount: unparsed perf line: {line.strip()}')
                return 1
            fields = dict(p.split(' ', 1) for p in m.group(5).strip('|').split('|'))
            lat = int(m.group(6))
            src = source_of(fields['LVL'].strip(), fields['SNP'])
            n += 1
            loads += fields['OP'] == 'LOAD'
            stores += fields['OP'] == 'STORE'
            hitm += 'HitM' in fields['SNP']
            lat_sum += lat
            lat_max = max(lat_max, lat)
            by_src[src] = by_src.get(src, 0) + 1
            lat_src[src] = lat_src.get(src, 0) + lat
            hist[bucket(lat)] = hist.get(bucket(lat), 0) + 1
    bad = []
    rows = json.load(open(src_json))
    got = {}
    for r in rows:
        keys = [k for k in ('unknown', 'l1', 'lfb', 'l2', 'l3', 'l3_hitm', 'peer', 'local_dram', 'remote_dram',
                            'remote_cache', 'pmem', 'cxl', 'io', 'uncached') if r[k]]
        if len(keys) != 1 or r[keys[0]] != r['samples']:
            bad.append(f'source row {r["source"]} mixes sources {keys}')
            continue
        got[keys[0]] = (r['samples'], r['latency_sum'])
    want = {k: (by_src[k], lat_src[k]) for k in by_src}
    if got != want:
        bad.append(f'by source: hwprof {got}, recount {want}')
    h = {}
    for r in json.load(open(hist_json)):
        h[bucket(r['min'])] = r['samples']
    if h != hist:
        bad.append(f'histogram: hwprof {h}, recount {hist}')
    syms = json.load(open(sym_json))
    tot = [sum(r[k] for r in syms) for k in ('samples', 'loads', 'stores', 'hitm', 'latency_sum')]
    if tot != [n, loads, stores, hitm, lat_sum] or max(r['max_latency'] for r in syms) != lat_max:
        bad.append(f'totals: hwprof {tot} max {max(r["max_latency"] for r in syms)}, '
                   f'recount {[n, loads, stores, hitm, lat_sum]} max {lat_max}')
    if bad:
        print('FAIL mem_recount: ' + '; '.join(bad))
        return 1
    print(f'PASS mem_recount ({n} samples, {len(want)} sources, {len(hist)} latency buckets, '
          f'latency sum {lat_sum})')
    return 0


if __name__ == '__main__':
    sys.exit(main())
