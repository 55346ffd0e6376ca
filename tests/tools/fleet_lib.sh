# SPDX-License-Identifier: MIT
# Shared by tests/e2e/fleet*.sh (sourced after emu_lib.sh): what the fleet
# tests need, and two loopback ClickHouse shards (scripts/clickhouse_shards.sh,
# the cluster 'hwprof').

# fleet_ready NAME: 0 when clickhouse-server, curl and emulated recording are
# here; else prints "PLAN 1" and the SKIP, and the test exits
fleet_ready() {
	local name=$1 server ready
	server=$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)
	if [ ! -x "$server" ]; then
		echo "PLAN 1"
		skip "$name: clickhouse-server not installed (apt-get install clickhouse-server)"
		return 1
	fi
	command -v curl >/dev/null || { echo "PLAN 1"; skip "$name: curl not installed"; return 1; }
	ready=$(emu_ready "$name") || { echo "PLAN 1"; echo "$ready"; return 1; }
}

# fleet_start NAME: the two shards in $tmp/ch on ports $p1 and $p2 (below
# the ephemeral ports), their URLs in $U1 and $U2, stopped at exit; a FAIL
# line and 1 when they do not start
fleet_start() {
	local name=$1
	ch=$tmp/ch
	p1=$((10000 + RANDOM % 9000)); p2=$((p1 + 10000))
	trap '"$root/scripts/clickhouse_shards.sh" stop "$ch" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
	if ! "$root/scripts/clickhouse_shards.sh" start "$ch" $p1 $p2 2>"$tmp/ch.err"; then
		fail "$name: clickhouse-server did not start: $(head -1 "$tmp/ch.err")"
		return 1
	fi
	U1=http://127.0.0.1:$p1/ U2=http://127.0.0.1:$p2/
}
