#!/bin/bash
# hwprof fleet timing against two clickhouse-server processes on loopback
# ports (scripts/clickhouse_shards.sh, the cluster 'hwprof'): five hosts'
# emulated recordings of the fixture (different processes, load addresses
# and periods; cycles modelled) pushed with their block latencies, each in
# its own time window. 'hwprof fleet timing' (the table, and every block's
# histogram with --histograms) prints what the local 'hwprof timing' of
# the same recordings merged prints, block by block: over all five hosts,
# over --hosts h2,h3, and over the windows --since/--until select (h4, h5).
# Skips when clickhouse-server (Debian clickhouse-server) or curl is absent.
. "$(dirname "$0")/../tools/emu_lib.sh"
. "$(dirname "$0")/../tools/fleet_lib.sh"
# PLAN: 1 (the SKIP) where a requirement is missing
fleet_ready fleet_timing || exit 0
echo "PLAN 6"
emu_build basic || exit 0

fleet_start fleet_timing || exit 0
ldso=$(readlink -f /lib64/ld-linux-x86-64.so.2)
libm=$(ls /lib/x86_64-linux-gnu/libm.so.6 2>/dev/null)
"$HWPROF" fleet init "$U1" "$U2" --cluster hwprof 2>"$tmp/init.err" ||
	{ fail "fleet_timing: init: $(head -1 "$tmp/init.err")"; exit 0; }

# host N PERIOD how: records $tmp/hN.data, pushes it in the window [T+N*1000, T+N*1000+500]
# (Unix times of 10 digits: ClickHouse 18.16 reads shorter ones in TSV as dates)
T=1700000000
host() {
	local n=$1 c=$2 how=$3 cmd=("$tmp/basic")
	case $how in
	ldso) cmd=("$ldso" "$tmp/basic") ;;
	preload) cmd=("$ldso" --preload "$libm" "$tmp/basic") ;;
	esac
	emu_record h$n -c "$c" --jitter 10 -- "${cmd[@]}" || { fail "fleet_timing: record h$n: $(head -1 "$tmp/h$n.err")"; return 1; }
	"$HWPROF" push "$U1" "$tmp/h$n.data" --host h$n --window $((T + n * 1000)),$((T + n * 1000 + 500)) \
		--spool "$tmp/spool" -q 2>"$tmp/push.err" || { fail "fleet_timing: push h$n: $(head -1 "$tmp/push.err")"; return 1; }
}
host 1 1000 direct && host 2 997 ldso && host 3 1009 preload && host 4 1013 direct && host 5 991 ldso || exit 0

# lines: the table's rows, or each block's histogram (--histograms) as one line, sorted
lines() {
	awk '/^# block /{ if (s != "") print s; s = $0; next } s != "" { s = s "|" $0; next } !/^#/' | sort
}
# same NAME "FLEET FILTERS" "OPTIONS" HOSTS...: fleet timing = timing of the hosts' recordings merged
same() {
	local name=$1 filter=$2 opts=$3 files=() what
	shift 3
	for n in "$@"; do files+=("$tmp/h$n.data"); done
	# (the table's header lines differ: the fleet keeps no stacks; rows of
	# equal total cycles may come in another order: compared sorted, a
	# histogram as one line with its block's header)
	"$HWPROF" fleet timing "$U1" $filter $opts 2>"$tmp/f.err" | lines >"$tmp/f.out"
	"$HWPROF" timing $opts "${files[@]}" 2>/dev/null | lines >"$tmp/l.out"
	what="$(grep -c . "$tmp/l.out") lines"
	if [ -s "$tmp/l.out" ] && cmp -s "$tmp/f.out" "$tmp/l.out"; then
		pass "$name: fleet timing $filter $opts = timing of hosts $* merged ($what)"
	else
		fail "$name: fleet timing $filter $opts differs from timing of hosts $*: $(head -1 "$tmp/f.err") $(diff "$tmp/f.out" "$tmp/l.out" | head -4 | tr '\n' ' ')"
	fi
}
same fleet_timing_all "" "" 1 2 3 4 5
same fleet_timing_histograms "" "--histograms" 1 2 3 4 5
same fleet_timing_hosts "--hosts h2,h3" "" 2 3
same fleet_timing_hosts_histograms "--hosts h2,h3" "--histograms" 2 3
same fleet_timing_windows "--since $((T + 3600)) --until $((T + 5200))" "" 4 5
# (pushed twice: still once)
"$HWPROF" push "$U1" "$tmp/h1.data" --host h1 --window $((T + 1000)),$((T + 1500)) --spool "$tmp/spool" -q 2>/dev/null
same fleet_timing_push_twice "" "" 1 2 3 4 5
