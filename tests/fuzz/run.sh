#!/bin/bash
# Runs libFuzzer targets for SECONDS each: tests/fuzz/run.sh SECONDS BIN...
#
# Seed corpus (built in a temporary directory, never in the checkout): the
# small perf.data and perf script files of $HWPROF_CORPUS (../shared/corpus),
# the head of a few perf 6.1 script dumps, and tiny synthetic files from
# tests/tools/perfdata.py. New inputs the fuzzer finds stay in the temporary
# directory; findings (crash-*, timeout-*, oom-*) go to ARTIFACTS
# (default: build-fuzz/artifacts/) to be replayed with `BIN FILE`.
#
# Prints "PASS|FAIL fuzz_NAME: ..." per target; exits non-zero on a finding.
set -u
if [ $# -lt 2 ]; then
	echo "usage: $0 SECONDS BIN..." >&2
	exit 2
fi
seconds=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
corpus=${HWPROF_CORPUS:-$here/../../../shared/corpus}
artifacts=${FUZZ_ARTIFACTS:-$(dirname "$1")/artifacts}
mkdir -p "$artifacts"
artifacts=$(cd "$artifacts" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hwprof-fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# ---- seeds ----
bin_seeds=$tmp/seeds-bin
text_seeds=$tmp/seeds-text
mkdir -p "$bin_seeds" "$text_seeds"
if [ -d "$corpus" ]; then
	# perf.data files up to 128 KiB (file mode, pipe mode, compressed)
	printf PERFILE2 >"$tmp/magic"
	find "$corpus" -type f -size -129k | while read -r f; do
		if head -c 8 "$f" | cmp -s - "$tmp/magic"; then
			cp "$f" "$bin_seeds/$(echo "${f#"$corpus"/}" | tr / _)"
		fi
	done
	for f in "$corpus"/llvm-profgen/*.perfscript; do
		[ -f "$f" ] && head -c 65536 "$f" >"$text_seeds/$(basename "$f")"
	done
	# the first 16 KiB of a few perf 6.1 dumps (callchain and plain forms)
	for f in "$corpus"/oracles/*ip-brstack.txt.gz; do
		[ -f "$f" ] || continue
		gzip -dc "$f" 2>/dev/null | head -c 16384 >"$text_seeds/$(basename "$f" .gz)"
	done
else
	echo "note: no corpus at $corpus: synthetic seeds only"
fi
if command -v python3 >/dev/null; then
	python3 "$here/../tools/perfdata.py" seeds "$tmp/synth" >/dev/null || exit 1
	for f in "$tmp"/synth/*; do
		case $f in
		*.txt) cp "$f" "$text_seeds/" ;;
		*) cp "$f" "$bin_seeds/" ;;
		esac
	done
fi
printf 'PERFILE2' >"$bin_seeds/magic_only"

# jitdumps (both byte orders: a header, debug info, unwinding info, a load
# with code, a move, a close) and a perf map, for fuzz_jit
jit_seeds=$tmp/seeds-jit
mkdir -p "$jit_seeds"
printf '7f0000001000 40 JS:*fib /tmp/x.js:1:13\n0x2000 0 zero\n3000 10 ab\nzz 1 bad\n' >"$jit_seeds/perf.map"
if command -v python3 >/dev/null; then
	python3 - "$jit_seeds" <<'PY' || exit 1
import struct, sys
for bo, name in (("<", "jit-1.dump"), (">", "jit-2.dump")):
    rec = lambda rid, ts, body: struct.pack(bo + "IIQ", rid, 16 + len(body), ts) + body
    code = bytes([0x31, 0xc0, 0xff, 0xc0, 0x83, 0xf8, 0x64, 0x75, 0xf9, 0xc3])
    out = struct.pack(bo + "IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, 1, 1, 0)
    ent = lambda a, l: struct.pack(bo + "QII", a, l, 0) + b"a.js\0"
    out += rec(2, 2, struct.pack(bo + "QQ", 0x1000, 2) + ent(0x1000, 10) + ent(0x1007, 11))
    out += rec(4, 3, struct.pack(bo + "QQQ", 8, 4, 0) + b"\1" * 8)
    out += rec(0, 4, struct.pack(bo + "IIQQQQ", 1, 1, 0x1000, 0x1000, len(code), 7) + b"JS:*loop\0" + code)
    out += rec(1, 5, struct.pack(bo + "IIQQQQQ", 1, 1, 0x9000, 0x1000, 0x9000, len(code), 7))
    out += rec(3, 6, b"")
    open(sys.argv[1] + "/" + name, "wb").write(out)
PY
fi
# the unwinder's input (tests/fuzz/fuzz_unwind.c): perf's register mask of
# x86-64 and of AArch64, zero registers, a zeroed 512-byte copy
unwind_seeds=$tmp/seeds-unwind
mkdir -p "$unwind_seeds"
python3 -c "
import struct
for m, mask in ((0, ((1 << 24) - 1) & ~(0xf << 12)), (1, (1 << 33) - 1)):
    words = bin(mask).count('1')
    open('$unwind_seeds/seed%d' % m, 'wb').write(bytes([m, 2]) + struct.pack('<QIH', mask, 0x100, 512) +
                                                  bytes(8 * words + 512))
"
printf ' 401000 0x1/0x2/P/-/-/0/\n' >"$text_seeds/tiny.txt"
# pseudo probes (tests/fuzz/fuzz_probe.c): a clang-19 build's two sections
# and its function starts, in the target's split form; a tiny record too
probe_seeds=$tmp/seeds-probe
mkdir -p "$probe_seeds"
printf '\0\0\0\1\0\0\0\0\0\0\0\1\0\1\x80\0' >"$probe_seeds/tiny"
if command -v clang-19 >/dev/null && command -v objcopy >/dev/null && command -v nm >/dev/null &&
	clang-19 -O2 -fpseudo-probe-for-profiling -o "$tmp/probe_prog" "$here/../fixtures/pgo_llvm.c" 2>/dev/null &&
	objcopy --dump-section .pseudo_probe_desc="$tmp/pd" --dump-section .pseudo_probe="$tmp/pp" \
		"$tmp/probe_prog" "$tmp/probe_prog.o" 2>/dev/null; then
	nm "$tmp/probe_prog" | python3 -c "
import hashlib, struct, sys
starts = []
for l in sys.stdin:
    f = l.split()
    if len(f) == 3 and f[1] in 'tT':
        starts.append((struct.unpack('<Q', hashlib.md5(f[2].encode()).digest()[:8])[0], int(f[0], 16)))
starts = sorted(starts)[:7]
d, p = open('$tmp/pd', 'rb').read(), open('$tmp/pp', 'rb').read()
out = bytes([len(starts)]) + struct.pack('<H', len(d)) + b''.join(struct.pack('<QQ', g, a) for g, a in starts)
open('$probe_seeds/pgo_llvm', 'wb').write(out + d + p)
"
fi

# .llvm_bb_addr_map sections (tests/fuzz/fuzz_bbmap.c), written from LLVM's
# Extensions.rst: version 2 with one range, with two ranges (feature bit 3)
# and with the PGO analysis map (bits 0-2); version 1; and the section of
# a fixture clang-19 builds, when it is here
bbmap_seeds=$tmp/seeds-bbmap
mkdir -p "$bbmap_seeds"
python3 - "$bbmap_seeds" <<'PY' || exit 1
import struct, sys
def u(v):
    out = b""
    while True:
        b = v & 0x7f
        v >>= 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out
def blocks(bbs, ids=True):
    return u(len(bbs)) + b"".join((u(i) if ids else b"") + u(o) + u(s) + u(m) for i, o, s, m in bbs)
one = bytes([2, 0]) + struct.pack("<Q", 0x401000) + blocks([(0, 0, 8, 8), (1, 0, 16, 8), (3, 4, 5, 1)])
two = bytes([2, 8]) + u(2) + struct.pack("<Q", 0x401100) + blocks([(0, 0, 8, 8)]) + \
    struct.pack("<Q", 0x402000) + blocks([(2, 0, 12, 1), (1, 0, 3, 2)])
pgo = bytes([2, 7]) + struct.pack("<Q", 0x401200) + blocks([(0, 0, 8, 0x18), (1, 0, 4, 0)]) + \
    u(1000) + u(1000) + u(1) + u(1) + u(0x7fffffff) + u(133) + u(0)
v1 = bytes([1, 0]) + struct.pack("<Q", 0x401300) + blocks([(0, 0, 6, 8), (1, 2, 9, 1)], ids=False)
for name, data in (("one", one), ("two", two), ("pgo", pgo), ("v1", v1), ("all", one + two + pgo + v1)):
    open(sys.argv[1] + "/" + name, "wb").write(data)
PY
if command -v clang-19 >/dev/null && command -v llvm-objcopy-19 >/dev/null &&
	clang-19 -O2 -w -fbasic-block-address-map -o "$tmp/bbmap.bin" "$here/../fixtures/pgo_switch.c" 2>/dev/null; then
	llvm-objcopy-19 --dump-section .llvm_bb_addr_map="$bbmap_seeds/clang" "$tmp/bbmap.bin" 2>/dev/null
fi

# kernel modules (tests/fuzz/fuzz_kmod.c): the fixture's stand-in module as
# a .ko, a .ko.zst and a .ko.xz, each behind the byte that picks the form
kmod_seeds=$tmp/seeds-kmod
mkdir -p "$kmod_seeds"
printf '\0\177ELF' >"$kmod_seeds/tiny"
if command -v gcc >/dev/null && command -v ld >/dev/null &&
	gcc -O2 -c -fno-pic -o "$tmp/kmod.o" "$here/../fixtures/kmod_hwptest.c" 2>/dev/null &&
	ld -r --build-id=sha1 -o "$tmp/kmod.ko" "$tmp/kmod.o" 2>/dev/null; then
	{ printf '\0'; cat "$tmp/kmod.ko"; } >"$kmod_seeds/ko"
	command -v zstd >/dev/null && { printf '\1'; zstd -q -c "$tmp/kmod.ko"; } >"$kmod_seeds/zst"
	command -v xz >/dev/null && { printf '\2'; xz -c "$tmp/kmod.ko"; } >"$kmod_seeds/xz"
fi

# Dictionaries: magic, record framing and the text grammar's keywords.
cat >"$tmp/reader.dict" <<'EOF'
"PERFILE2"
"\x10\x00\x00\x00\x00\x00\x00\x00"
"h\x00\x00\x00\x00\x00\x00\x00"
"\x09\x00\x00\x00"
"\x40\x00\x00\x00"
"\x50\x00\x00\x00"
"\x53\x00\x00\x00"
"\xff\xff"
"\xff\xff\xff\xff\xff\xff\xff\xff"
"\x28\xb5\x2f\xfd"
"0x"
" 0x1/0x2/P/-/-/0/"
"PERF_RECORD_"
EOF
cat >"$tmp/unwind.dict" <<'EOF'
"\xff\xff\xff\xff"
"\x02\x00\x00\x00\x00\x00\x00\x00"
"\x00\x00\x00\x00\x00\x00\x00\x00"
EOF
cat >"$tmp/text.dict" <<'EOF'
"0x"
"/0x"
"/P/-/-/"
"/M/X/A/"
"/PN"
"/65535/"
"COND"
"SPEC_WRONG_PATH"
"ARM64_FIQ"
"N/A"
"\x0a\x09"
"PERF_RECORD_MMAP2 "
"PERF_RECORD_MMAP "
"PERF_RECORD_COMM exec: "
"PERF_RECORD_FORK("
"PERF_RECORD_EXIT("
"[0x400000(0x1000) @ 0 "
" 08:01 123 0]: r-xp "
"]: x "
"<0123456789abcdef>"
"ffffffff81000000"
"123/456"
"#"
EOF

cat >"$tmp/jit.dict" <<'EOF'
"JiTD"
"DTiJ"
"\x01\x00\x00\x00"
"\x28\x00\x00\x00"
"\x3e\x00\x00\x00"
"\x02\x00\x00\x00"
"\x04\x00\x00\x00"
"\xff\xff\xff\xff"
"0x"
" 10 "
"\x0a"
EOF

cat >"$tmp/kmod.dict" <<'EOF'
"\x7fELF"
"\x28\xb5\x2f\xfd"
"\xfd7zXZ\x00"
".text"
".symtab"
"\x01\x00\x3e\x00"
EOF

cat >"$tmp/bbmap.dict" <<'EOF'
"\x02\x00"
"\x02\x08"
"\x02\x07"
"\x01\x00"
"\xff\xff\xff\xff\xff\xff\xff\xff\x01"
"\x80\x80\x80\x80"
EOF

# ---- run ----
# The fuzz build lets UBSan recover; halting makes libFuzzer keep the input.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
fail=0
for bin in "$@"; do
	name=$(basename "$bin")
	if [ ! -x "$bin" ]; then
		echo "FAIL $name: $bin is not built"
		fail=1
		continue
	fi
	work=$tmp/corpus-$name
	mkdir -p "$work"
	case $name in
	*text*) seeds=$text_seeds; dict=$tmp/text.dict ;;
	*jit*) seeds=$jit_seeds; dict=$tmp/jit.dict ;;
	*unwind*) seeds=$unwind_seeds; dict=$tmp/unwind.dict ;;
	*bbmap*) seeds=$bbmap_seeds; dict=$tmp/bbmap.dict ;;
	*kmod*) seeds=$kmod_seeds; dict=$tmp/kmod.dict ;;
	*probe*) seeds=$probe_seeds; dict=$tmp/unwind.dict ;;
	*) seeds="$bin_seeds $text_seeds"; dict=$tmp/reader.dict ;;
	esac
	log=$tmp/$name.log
	start=$(date +%s)
	# The first directory receives new inputs; the seed directories are read only.
	# shellcheck disable=SC2086
	"$bin" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=131072 \
		-print_final_stats=1 -dict="$dict" -artifact_prefix="$artifacts/$name-" \
		"$work" $seeds >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
	if [ $rc -eq 0 ] && ! grep -q '^==[0-9]*==ERROR\|runtime error:' "$log"; then
		echo "PASS $name: ${runs:-?} runs in ${secs}s (${eps:-?} exec/s), ${cov:-cov: ?}, corpus $(ls "$work" | wc -l) new + seeds"
	else
		echo "FAIL $name: exit $rc after ${secs}s; findings in $artifacts/:"
		ls -1 "$artifacts" | grep "^$name-" | sed 's/^/    /'
		grep -m1 -B2 -A25 'ERROR\|runtime error\|deadly signal\|Timeout\|out-of-memory' "$log" | sed 's/^/    /'
		fail=1
	fi
done
exit $fail
