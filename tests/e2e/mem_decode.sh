#!/bin/bash
# data_src decoding against perf 6.1: tests/tools/gen_mem_perfdata writes
# precise load samples whose data_src has every perf_mem_data_src bit alone
# and thousands of random combinations (op, level bits, snoop, lock, TLB,
# lvl_num, remote, snoopx, blk, hops), with WEIGHT or WEIGHT_STRUCT; hwprof
# script -F event,cpu,ip,addr,weight,data_src must print what perf script
# prints for them, byte for byte (the decoding text, its padding and its
# 99-character cut included).
set -u
build=${BUILD:-build}
gen=$build/tests/tools/gen_mem_perfdata
if ! command -v perf >/dev/null; then
	echo "PLAN 1"
	echo "SKIP mem_decode: perf not installed"
	exit 0
fi
echo "PLAN 4"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fields=event,cpu,ip,addr,weight,data_src
for seed in 1 2 3; do
	ws=""
	[ $seed -ne 1 ] && ws=--weight-struct
	if ! "$gen" $seed "$tmp/m.data" $ws --random 2000 2>"$tmp/err"; then
		echo "FAIL mem_decode_$seed: generator: $(head -1 "$tmp/err")"
		continue
	fi
	perf script -F $fields -i "$tmp/m.data" >"$tmp/perf.txt" 2>/dev/null
	"$HWPROF" script -F $fields -i "$tmp/m.data" >"$tmp/hwprof.txt" 2>"$tmp/err"
	n=$(wc -l <"$tmp/perf.txt")
	if [ "$n" -lt 2000 ]; then
		echo "FAIL mem_decode_$seed: perf printed $n lines"
	elif cmp -s "$tmp/perf.txt" "$tmp/hwprof.txt"; then
		echo "PASS mem_decode_$seed ($n samples${ws:+, WEIGHT_STRUCT})"
	else
		echo "FAIL mem_decode_$seed: differs from perf script"
		diff "$tmp/perf.txt" "$tmp/hwprof.txt" | head -4 >&2
	fi
done

# script --json: each sample's "mem" fields put back at their uapi bit
# positions give its data_src, and "text" is perf's decoding (where perf's
# 99-character column did not cut it).
"$gen" 4 "$tmp/m.data" --random 2000 2>/dev/null
perf script -F $fields -i "$tmp/m.data" >"$tmp/perf.txt" 2>/dev/null
"$HWPROF" script --json -i "$tmp/m.data" >"$tmp/s.json"
python3 - "$tmp/perf.txt" "$tmp/s.json" <<'PY'
import json, re, sys
pos = dict(op=(0, 5), lvl=(5, 14), snoop=(19, 5), lock=(24, 2), dtlb=(26, 7), lvl_num=(33, 4),
           remote=(37, 1), snoopx=(38, 2), blk=(40, 3), hops=(43, 3))
perf = open(sys.argv[1]).read().splitlines()
js = [json.loads(l) for l in open(sys.argv[2])]
bad, texts = [], 0
for i, (p, s) in enumerate(zip(perf, js)):
    m = s['mem']
    v = 0
    for k, (sh, w) in pos.items():
        if m[k] >> w:
            bad.append(f'sample {i}: {k}={m[k]} wider than {w} bits')
        v |= m[k] << sh
    if v != int(s['data_src'], 16):
        bad.append(f'sample {i}: fields give {v:#x}, data_src {s["data_src"]}')
    # "EVENT: " + addr (16) + the column ("%16x %s", padded, cut at 99) + weight (16) + " " + ip (16)
    rest = p.split(': ', 1)[1]
    decode = rest[16:-33][17:].rstrip()
    want = m['text'][:99 - 17].rstrip()
    if decode != want:
        bad.append(f'sample {i}: text {want!r}, perf {decode!r}')
    else:
        texts += 1
if len(js) != len(perf) or bad:
    print(f'FAIL mem_json: {len(js)} JSON samples, {len(perf)} perf lines; {bad[:3]}')
else:
    print(f'PASS mem_json ({len(js)} samples: fields re-encode data_src; {texts} texts equal perf\'s, cut at 99 as perf cuts)')
PY
