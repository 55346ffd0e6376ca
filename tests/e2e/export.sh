#!/bin/bash
# hwprof export: an emulated recording of the fixture exported as TSV, CSV
# and JSON lines holds the same rows in each (tests/tools/export_check.py),
# the program run from a directory whose name needs escaping in TSV (a
# backslash) and quoting in CSV (a double quote);
# its pprof file, decoded from the wire format by tests/tools/pprof_decode.py
# (no protobuf library), has the sample total and the per-symbol totals of
# 'hwprof branches', each sample at its branch row's source, and the main
# binary's build-id (readelf -n) on its mapping; protoc --decode with the
# profile.proto of golang-github-google-pprof-dev reads it too (when both
# are installed).
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 1 (the SKIP) where emulated recording cannot run
ready=$(emu_ready export) || { echo "PLAN 1"; echo "$ready"; exit 0; }
echo "PLAN 4"
emu_build basic || exit 0
odd="$tmp/an \"odd\" \\dir"
mkdir -p "$odd" && cp "$tmp/basic" "$odd/basic"
if ! emu_record basic -c 1000 -- "$odd/basic"; then
	fail "export: record failed: $(head -1 "$tmp/basic.err")"; exit 0
fi
ok=1
for f in tsv csv json; do
	"$HWPROF" export -i "$tmp/basic.data" --format $f -o "$tmp/rows.$f" 2>"$tmp/export.err" ||
		{ fail "export_$f: $(head -1 "$tmp/export.err")"; ok=0; }
done
if [ $ok = 1 ]; then
	if out=$(python3 "$tools/export_check.py" formats "$tmp/rows.tsv" "$tmp/rows.csv" "$tmp/rows.json"); then
		pass "export: TSV, CSV and JSON lines hold the same $(($(wc -l <"$tmp/rows.tsv") - 1)) rows"
	else
		fail "export formats: $out"
	fi
	for k in branch range block cond; do
		grep -q "	$k	" "$tmp/rows.tsv" || fail "export: no '$k' rows"
	done
	# the module's path as each format writes it: TSV doubles the backslash,
	# CSV the quotes (the check above reads them back alike)
	if grep -qF "	${odd//\\/\\\\}/basic	" "$tmp/rows.tsv" && grep -qF ",\"${odd//\"/\"\"}/basic\"," "$tmp/rows.csv"; then
		pass "export_escapes: a module path with a backslash and quotes, escaped in TSV, quoted in CSV"
	else
		fail "export_escapes: $odd/basic not found escaped: $(grep -m1 -o 'an [^	]*basic' "$tmp/rows.tsv")"
	fi
else
	skip "export_escapes: no rows"
fi

if ! "$HWPROF" export -i "$tmp/basic.data" --format pprof -o "$tmp/p.pb.gz" 2>"$tmp/pprof.err"; then
	fail "export_pprof: $(head -1 "$tmp/pprof.err")"; exit 0
fi
python3 "$tools/pprof_decode.py" "$tmp/p.pb.gz" >"$tmp/p.json" 2>"$tmp/dec.err" ||
	{ fail "export_pprof: not decodable: $(tail -1 "$tmp/dec.err")"; exit 0; }
"$HWPROF" branches -i "$tmp/basic.data" --sort symbol_from --json >"$tmp/br.json"
bid=$(readelf -n "$tmp/basic" | sed -n 's/.*Build ID: *//p')
if out=$(python3 "$tools/export_check.py" pprof "$tmp/rows.tsv" "$tmp/p.json" "$tmp/br.json" "$bid"); then
	pass "export_pprof: totals, per-symbol totals, locations and build-id as hwprof branches and readelf"
else
	fail "export_pprof: $out"
fi
proto=/usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
if command -v protoc >/dev/null && [ -f "$proto" ]; then
	if zcat "$tmp/p.pb.gz" | protoc --decode perftools.profiles.Profile -I "$(dirname "$proto")" profile.proto \
		>"$tmp/p.txt" 2>"$tmp/protoc.err" && grep -q '^sample {' "$tmp/p.txt"; then
		pass "export_pprof: protoc --decode perftools.profiles.Profile reads it"
	else
		fail "export_pprof: protoc --decode: $(head -1 "$tmp/protoc.err")"
	fi
else
	skip "export_pprof_protoc: protoc or pprof's profile.proto not installed (protobuf-compiler, golang-github-google-pprof-dev)"
fi
