#!/bin/bash
# hwprof push / fleet against two clickhouse-server processes on loopback
# ports (scripts/clickhouse_shards.sh: two shards of the cluster 'hwprof',
# a Distributed table over them). Emulated recordings of the fixture play
# five hosts: different processes (pids), load addresses (run directly, and
# through ld.so, with and without a preloaded library) and periods.
#  - fleet rows after pushing equal the local merge of the recordings'
#    'hwprof export' rows, row by row (tests/tools/fleet_check.py); both
#    shards hold rows;
#  - 'hwprof fleet branches|probs --hosts H' print what 'hwprof branches|probs'
#    print for H's recording;
#  - pushing a recording again (through the default spool) changes nothing;
#  - fault: shard 2 is killed (-9) while a push of many small batches is
#    under way and restarted; the push fails with one line and keeps its
#    batches in the spool; the next push drains it and the totals are still
#    exact (nothing lost, nothing doubled);
#  - a malformed URL, a refused connection and a server error each give one
#    line and exit 1.
# Skips when clickhouse-server (Debian clickhouse-server) or curl is absent.
. "$(dirname "$0")/../tools/emu_lib.sh"
. "$(dirname "$0")/../tools/fleet_lib.sh"
# PLAN: 1 (the SKIP) where a requirement is missing
fleet_ready fleet || exit 0
echo "PLAN 29"
emu_build basic || exit 0

fleet_start fleet || exit 0
spool=$tmp/spool
ldso=$(readlink -f /lib64/ld-linux-x86-64.so.2)
libm=$(ls /lib/x86_64-linux-gnu/libm.so.6 2>/dev/null)

# host N PERIOD how: records $tmp/hN.data and exports $tmp/hN.tsv
host() {
	local n=$1 c=$2 how=$3 cmd=("$tmp/basic")
	case $how in
	ldso) cmd=("$ldso" "$tmp/basic") ;;
	preload) cmd=("$ldso" --preload "$libm" "$tmp/basic") ;;
	esac
	emu_record h$n -c "$c" --jitter 10 -- "${cmd[@]}" || { fail "fleet: record h$n: $(head -1 "$tmp/h$n.err")"; return 1; }
	"$HWPROF" export -i "$tmp/h$n.data" --host h$n -o "$tmp/h$n.tsv" 2>"$tmp/h$n.exerr" ||
		{ fail "fleet: export h$n: $(head -1 "$tmp/h$n.exerr")"; return 1; }
}
host 1 1000 direct && host 2 997 ldso && host 3 1009 preload && host 4 1013 direct && host 5 991 ldso || exit 0

if ! "$HWPROF" fleet init "$U1" "$U2" --cluster hwprof 2>"$tmp/init.err"; then
	fail "fleet: init: $(head -1 "$tmp/init.err")"; exit 0
fi
for n in 1 2 3 4; do
	"$HWPROF" push "$U1" "$tmp/h$n.data" --host h$n --spool "$spool" --batch-rows 40 -q 2>"$tmp/push.err" ||
		{ fail "fleet: push h$n: $(head -1 "$tmp/push.err")"; exit 0; }
done
on_shard() { curl -s "$1" --data-binary "SELECT count() FROM hwprof_rows_local"; }
c1=$(on_shard "$U1"); c2=$(on_shard "$U2")
if [ "${c1:-0}" -gt 0 ] && [ "${c2:-0}" -gt 0 ]; then
	pass "fleet: rows on both shards ($c1, $c2)"
else
	fail "fleet: rows on shard 1: '$c1', shard 2: '$c2'"
fi

# merged CHECKNAME N...: fleet rows == local merge of hosts N... ($FILTER:
# fleet options)
merged() {
	local name=$1 files=() out
	shift
	for n in "$@"; do files+=("$tmp/h$n.tsv"); done
	if ! "$HWPROF" fleet rows "$U1" ${FILTER:-} >"$tmp/fleet.tsv" 2>"$tmp/rows.err"; then
		fail "$name: fleet rows: $(head -1 "$tmp/rows.err")"; return
	fi
	if out=$(python3 "$tools/fleet_check.py" "$tmp/fleet.tsv" "${files[@]}"); then
		pass "$name: fleet rows = local merge of hosts $*, row by row (${out#ROWS } rows)"
	else
		fail "$name: $(echo "$out" | tail -1): $(echo "$out" | head -1)"
	fi
}
merged fleet_totals 1 2 3 4
FILTER="--hosts h2,h3" merged fleet_hosts_filter 2 3
FILTER="--since 1 --until 4000000000" merged fleet_time_filter 1 2 3 4
if "$HWPROF" fleet rows "$U1" --until 1 >/dev/null 2>"$tmp/err"; then
	fail "fleet_time_filter: rows of windows before 1970"
else
	pass "fleet_time_filter: --until 1: $(cat "$tmp/err")"
fi

for cmd in branches probs; do
	"$HWPROF" fleet $cmd "$U1" --hosts h3 >"$tmp/f.$cmd" 2>"$tmp/f.$cmd.err"
	"$HWPROF" $cmd -i "$tmp/h3.data" >"$tmp/l.$cmd" 2>/dev/null
	# (rows of equal counts may come in another order: modules are numbered
	# in another order; branches orders them by name, probs by number)
	[ $cmd = probs ] && { sort -o "$tmp/f.$cmd" "$tmp/f.$cmd"; sort -o "$tmp/l.$cmd" "$tmp/l.$cmd"; }
	if [ -s "$tmp/l.$cmd" ] && cmp -s "$tmp/f.$cmd" "$tmp/l.$cmd"; then
		pass "fleet $cmd --hosts h3: as hwprof $cmd of h3's recording ($(wc -l <"$tmp/l.$cmd") lines)"
	else
		fail "fleet $cmd --hosts h3 differs from hwprof $cmd: $(diff "$tmp/f.$cmd" "$tmp/l.$cmd" | head -3 | tr '\n' ' ') $(head -1 "$tmp/f.$cmd.err")"
	fi
done

# mispredicts: every number and the branch as locally; the top target of a
# branch with tied targets is the first one seen locally, the lowest key in
# the fleet: target fields other than the count are left out.
"$HWPROF" fleet mispredicts "$U1" --hosts h3 --json >"$tmp/f.misp" 2>"$tmp/f.misp.err"
"$HWPROF" mispredicts -i "$tmp/h3.data" --json >"$tmp/l.misp" 2>/dev/null
if out=$(python3 - "$tmp/f.misp" "$tmp/l.misp" <<'PY'
import json, sys
def rows(p):
    return [{k: v for k, v in r.items() if not k.startswith("target_") or k == "target_count"}
            for r in json.load(open(p))]
f, l = rows(sys.argv[1]), rows(sys.argv[2])
key = lambda r: json.dumps(r, sort_keys=True)
if not l or sorted(map(key, f)) != sorted(map(key, l)):
    print("%d fleet rows, %d local; first differing: %s" % (len(f), len(l),
          next((a for a, b in zip(sorted(map(key, f)), sorted(map(key, l))) if a != b), "-")[:200]))
    sys.exit(1)
print(len(l))
PY
); then
	pass "fleet mispredicts --hosts h3: as hwprof mispredicts of h3's recording ($out branches)"
else
	fail "fleet mispredicts --hosts h3: $out $(head -1 "$tmp/f.misp.err")"
fi

# pgo --from: one host's profile is the local one (bolt-pa's lines come in
# the recording's first-seen order locally: compared sorted); four hosts'
# BOLT profiles are the sums of theirs.
bid=$(readelf -n "$tmp/basic" | sed -n 's/.*Build ID: *//p')
for f in llvm bolt bolt-pa; do
	"$HWPROF" pgo --from "$U1" --build-id "$bid" --hosts h1 --format $f -o "$tmp/from.$f" 2>"$tmp/from.err"
	"$HWPROF" pgo -i "$tmp/h1.data" --format $f -o "$tmp/loc.$f" 2>/dev/null
	if [ -s "$tmp/loc.$f" ] && cmp -s <(sort "$tmp/from.$f") <(sort "$tmp/loc.$f"); then
		pass "fleet_pgo_$f: pgo --from --hosts h1 = pgo -i h1's recording ($(wc -l <"$tmp/loc.$f") lines)"
	else
		fail "fleet_pgo_$f: differs from the local profile: $(head -1 "$tmp/from.err") $(diff "$tmp/from.$f" "$tmp/loc.$f" | head -3 | tr '\n' ' ')"
	fi
done
# the fleet's profile of hosts 1-4 is the sum of their local profiles,
# whatever order the hosts were pushed in (a table per order): for llvm as
# llvm-profdata merges them, for bolt and bolt-pa as tests/tools/profile_sum.py
# adds their lines (merge-fdata keeps lines of one edge with different
# mispredict counts apart: no sum to compare with)
profdata=$(command -v llvm-profdata-19 || command -v llvm-profdata)
for f in llvm bolt bolt-pa; do
	for n in 1 2 3 4; do
		"$HWPROF" pgo -i "$tmp/h$n.data" --binary "$tmp/basic" --format $f -o "$tmp/loc$n.$f" 2>/dev/null
	done
done
# same_profile FORMAT FLEET: 0 when FLEET is the sum of loc1-4.FORMAT; prints why not, or the line count
same_profile() {
	local f=$1 p=$2 locals=("$tmp"/loc[1-4].$1)
	case $f in
	llvm)
		"$profdata" merge --sample --text "${locals[@]}" -o "$tmp/sum.txt" 2>&1 &&
			"$profdata" merge --sample --text "$p" -o "$tmp/fl.txt" 2>&1 || return 1
		cmp -s "$tmp/sum.txt" "$tmp/fl.txt" && echo "$(wc -l <"$tmp/sum.txt") lines" ||
			{ diff "$tmp/sum.txt" "$tmp/fl.txt" | head -4 | tr '\n' ' '; return 1; } ;;
	bolt | bolt-pa)
		python3 "$tools/profile_sum.py" $f "$p" "${locals[@]}" | tr '\n' ' ' ;;
	esac
}
for order in "1 2 3 4" "4 3 2 1" "3 1 4 2"; do
	t=ord${order// /}
	"$HWPROF" fleet init "$U1" "$U2" --cluster hwprof --table $t 2>"$tmp/init.err" ||
		{ fail "fleet_pgo_merge order $order: init: $(head -1 "$tmp/init.err")"; continue; }
	for n in $order; do
		"$HWPROF" push "$U1" "$tmp/h$n.data" --host h$n --table $t --spool "$spool" -q 2>"$tmp/push.err" ||
			fail "fleet_pgo_merge order $order: push h$n: $(head -1 "$tmp/push.err")"
	done
	for f in llvm bolt bolt-pa; do
		if [ $f = llvm ] && [ -z "$profdata" ]; then
			skip "fleet_pgo_merge_$f: no llvm-profdata (apt-get install llvm-19)"; continue
		fi
		"$HWPROF" pgo --from "$U1" --table $t --build-id "$bid" --format $f -o "$tmp/fromall.$f" 2>"$tmp/from.err"
		if [ -s "$tmp/fromall.$f" ] && out=$(same_profile $f "$tmp/fromall.$f"); then
			pass "fleet_pgo_merge_$f: pushed in the order $order, pgo --from of hosts 1-4 = the sum of their local profiles (${out#LINES })"
		else
			fail "fleet_pgo_merge_$f: pushed in the order $order: $(head -1 "$tmp/from.err") $out"
		fi
	done
done

# again, through the default spool: under $XDG_CACHE_HOME, its parents made
if XDG_CACHE_HOME="$tmp/xdg/cache" "$HWPROF" push "$U1" "$tmp/h2.data" --host h2 -q 2>"$tmp/push.err" &&
	grep -qx "$U1" "$tmp"/xdg/cache/hwprof/spool/*/url; then
	pass "fleet_default_spool: push without --spool spools under \$XDG_CACHE_HOME/hwprof/spool"
else
	fail "fleet_default_spool: $(head -1 "$tmp/push.err"); $(ls -R "$tmp/xdg" 2>&1 | head -3 | tr '\n' ' ')"
fi
merged fleet_push_twice 1 2 3 4

# Fault: shard 2 killed during a push of 5-row batches: once the spool
# shrinks (the push writes every batch first, then sends them one by one).
nb=$(( ($(wc -l <"$tmp/h5.tsv") - 1 + 4) / 5 ))
"$HWPROF" push "$U1" "$tmp/h5.data" --host h5 --spool "$spool" --batch-rows 5 --retries 2 -q \
	>"$tmp/fault.out" 2>"$tmp/fault.err" &
pushpid=$!
killed="" prev=0
for _ in $(seq 2000); do
	left=$(ls "$spool"/*/ 2>/dev/null | grep -c '\.tsv$')
	if [ "$left" -gt 0 ] && [ "$left" -lt "$prev" ]; then
		kill -9 "$(cat "$ch/s2/pid")"; killed=$left; break
	fi
	prev=$left
	sleep 0.005
done
wait $pushpid; rc=$?
left=$(ls "$spool"/*/ | grep -c '\.tsv$')
if [ -z "$killed" ]; then
	fail "fleet_fault: the push ended before shard 2 could be killed mid-push ($nb batches)"
elif [ $rc -ne 0 ] && [ "$(wc -l <"$tmp/fault.err")" -eq 1 ] && grep -q "kept in the spool" "$tmp/fault.err" && [ "$left" -gt 0 ]; then
	pass "fleet_fault: shard 2 killed with $killed of $nb batches unsent: push exits $rc, $left kept: $(cat "$tmp/fault.err")"
else
	fail "fleet_fault: push exit $rc, $left batches in the spool, stderr: $(head -2 "$tmp/fault.err" | tr '\n' ' ')"
fi
"$root/scripts/clickhouse_shards.sh" start "$ch" $p1 $p2 2>"$tmp/ch.err" ||
	{ fail "fleet_fault: shard 2 did not restart: $(head -1 "$tmp/ch.err")"; exit 0; }
if "$HWPROF" push "$U1" --spool "$spool" 2>"$tmp/drain.err" && [ "$(ls "$spool"/*/ | grep -c '\.tsv$')" -eq 0 ]; then
	pass "fleet_fault: the spool drained: $(cat "$tmp/drain.err")"
else
	fail "fleet_fault: drain: $(head -1 "$tmp/drain.err")"
fi
merged fleet_fault_totals 1 2 3 4 5

# one_line NAME CMD...: exit 1 and a single 'hwprof: ...' line
one_line() {
	local name=$1
	shift
	"$@" >/dev/null 2>"$tmp/err"
	local rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^hwprof: .*$2" "$tmp/err" 2>/dev/null ||
		{ [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^hwprof: " "$tmp/err"; }; then
		pass "fleet_errors $name: $(cat "$tmp/err")"
	else
		fail "fleet_errors $name: exit $rc: $(head -3 "$tmp/err" | tr '\n' ' ')"
	fi
}
one_line malformed_url "$HWPROF" fleet rows "htp:/127.0.0.1"
one_line malformed_url_push "$HWPROF" push "http://" "$tmp/h1.data" --spool "$spool"
one_line refused "$HWPROF" push "http://127.0.0.1:1/" "$tmp/h1.data" --host h1 --spool "$tmp/spool2" --retries 1
one_line server_error "$HWPROF" fleet rows "$U1" --table no_such_table
