#!/bin/bash
# hwprof push: a recording's identity, the spool's batches and host names,
# against two clickhouse-server processes on loopback ports
# (scripts/clickhouse_shards.sh, the cluster 'hwprof'):
#  - a recording pushed, then its copy, a renamed copy and a copy touched
#    two days later pushed again: the fleet's rows are still the
#    recording's export rows (fleet_check.py), one recording in 'fleet hosts';
#  - the same recording spooled in two spools while the servers are down,
#    both drained after they restart: counted once;
#  - a batch spooled with --table T goes to T when an ordinary push drains it;
#  - push --no-spool reports the batches and rows it sent (the export's rows);
#  - a host name with a comma is pushed and selected with --hosts 'a\,b';
#    one that breaks the rule is refused with one line.
# Skips when clickhouse-server (Debian clickhouse-server) or curl is absent.
. "$(dirname "$0")/../tools/emu_lib.sh"
. "$(dirname "$0")/../tools/fleet_lib.sh"
# PLAN: 1 (the SKIP) where a requirement is missing
fleet_ready fleet_spool || exit 0
echo "PLAN 9"
emu_build basic || exit 0

fleet_start fleet_spool || exit 0
for n in 1 2; do
	emu_record h$n -c $((990 + 13 * n)) --jitter 10 -- "$tmp/basic" ||
		{ fail "fleet_spool: record h$n: $(head -1 "$tmp/h$n.err")"; exit 0; }
	"$HWPROF" export -i "$tmp/h$n.data" -o "$tmp/h$n.tsv" 2>/dev/null
done
"$HWPROF" fleet init "$U1" "$U2" --cluster hwprof 2>"$tmp/init.err" &&
	"$HWPROF" fleet init "$U1" --table onlyone 2>>"$tmp/init.err" ||
	{ fail "fleet_spool: init: $(head -1 "$tmp/init.err")"; exit 0; }

# same NAME FILTER EXPORT...: fleet rows (with FILTER, a string) = the exports' merge
same() {
	local name=$1 filter=$2 r
	shift 2
	if ! eval "\"\$HWPROF\" fleet rows \"\$U1\" $filter" >"$tmp/fleet.tsv" 2>"$tmp/rows.err"; then
		fail "$name: fleet rows: $(head -1 "$tmp/rows.err")"; return 1
	fi
	if r=$(python3 "$tools/fleet_check.py" "$tmp/fleet.tsv" "$@"); then
		pass "$name: fleet rows = the local merge (${r#ROWS } rows)"
	else
		fail "$name: $(echo "$r" | tail -1): $(echo "$r" | head -1)"; return 1
	fi
}
push() { "$HWPROF" push "$U1" "$@" 2>>"$tmp/push.err" || fail "fleet_spool: push $*: $(tail -1 "$tmp/push.err")"; }

# identity: the content, not the file
push "$tmp/h1.data" --host h1 --spool "$tmp/spool" -q
cp "$tmp/h1.data" "$tmp/copy.data"
cp -p "$tmp/h1.data" "$tmp/renamed.data"
mv "$tmp/renamed.data" "$tmp/moved.data"
cp "$tmp/h1.data" "$tmp/touched.data"
touch -d "2 days" "$tmp/touched.data"
for f in copy moved touched; do push "$tmp/$f.data" --host h1 --spool "$tmp/spool" -q; done
same fleet_identity_copies "" "$tmp/h1.tsv"
recs=$("$HWPROF" fleet hosts "$U1" 2>/dev/null | awk -F'\t' '$1 == "h1" { print $4 }')
if [ "$recs" = 1 ]; then
	pass "fleet_identity_hosts: fleet hosts counts one recording for h1 after 4 pushes of its copies"
else
	fail "fleet_identity_hosts: h1 has '$recs' recordings"
fi

# two spools, a table of its own: batches kept while the servers are down
"$root/scripts/clickhouse_shards.sh" stop "$ch" >/dev/null 2>&1
for s in A B; do
	"$HWPROF" push "$U1" "$tmp/h2.data" --host h2 --spool "$tmp/spool$s" --retries 1 -q 2>/dev/null
done
"$HWPROF" push "$U1" "$tmp/h2.data" --host t2 --table onlyone --spool "$tmp/spoolT" --retries 1 -q 2>/dev/null
kept=$(ls "$tmp"/spool[ABT]/*/ | grep -c '\.tsv$')
"$root/scripts/clickhouse_shards.sh" start "$ch" $p1 $p2 2>"$tmp/ch.err" ||
	{ fail "fleet_spool: restart: $(head -1 "$tmp/ch.err")"; exit 0; }
for s in A B T; do push --spool "$tmp/spool$s" -q; done
left=$(ls "$tmp"/spool[ABT]/*/ | grep -c '\.tsv$')
if [ "$kept" -ge 3 ] && [ "$left" -eq 0 ]; then
	pass "fleet_spool_drain: $kept batches kept in three spools while the servers were down, all sent after"
else
	fail "fleet_spool_drain: $kept kept, $left left"
fi
same fleet_two_spools "--hosts h1,h2" "$tmp/h1.tsv" "$tmp/h2.tsv"
same fleet_spool_table "--table onlyone" "$tmp/h2.tsv"
if ! "$HWPROF" fleet rows "$U1" --hosts t2 >/dev/null 2>&1; then
	pass "fleet_spool_table_default: the batch for --table onlyone is not in the default table"
else
	fail "fleet_spool_table_default: host t2's rows are in the default table"
fi

# --no-spool: what it sent (rows and block latencies), as the server counts them
"$HWPROF" push "$U1" "$tmp/h2.data" --host h3 --no-spool --batch-rows 100 2>"$tmp/ns.err"
n() { curl -s "$U1" --data-binary "SELECT count() FROM $1 FINAL WHERE host = 'h3'"; }
nrows=$(n hwprof_rows) nlat=$(n hwprof_rows_lat)
nb=$(( (nrows + 99) / 100 + (nlat + 99) / 100 ))
if [ "$nrows" -gt 0 ] && grep -q "push: $nb batches, $((nrows + nlat)) rows sent to $U1 (no spool)" "$tmp/ns.err"; then
	pass "fleet_no_spool: the server holds $nrows rows and $nlat latencies: $(cat "$tmp/ns.err")"
else
	fail "fleet_no_spool: the server holds $nrows rows and $nlat latencies, push says: $(cat "$tmp/ns.err")"
fi

# host names: a comma in one, selected escaped; one that breaks the rule
push "$tmp/h1.data" --host "c1,c2" --spool "$tmp/spool" -q
same fleet_hosts_comma "--hosts 'c1\\,c2'" "$tmp/h1.tsv"
"$HWPROF" push "$U1" "$tmp/h1.data" --host "$(printf 'a\tb')" --spool "$tmp/spool" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "no control character" "$tmp/err" &&
	"$HWPROF" push --help | grep -q "no backslash"; then
	pass "fleet_host_rule: $(cat "$tmp/err")"
else
	fail "fleet_host_rule: exit $rc: $(head -2 "$tmp/err" | tr '\n' ' ')"
fi
