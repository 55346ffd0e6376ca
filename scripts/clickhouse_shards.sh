#!/bin/bash
# Two ClickHouse servers on one machine, two shards of the cluster
# 'hwprof' (for trying hwprof's fleet commands, and for its tests):
#
#   scripts/clickhouse_shards.sh start DIR [HTTP_PORT1 HTTP_PORT2]
#   scripts/clickhouse_shards.sh stop DIR
#
# Each server N (1, 2) lives in DIR/sN (config, data, log, pid), listens
# on 127.0.0.1 only: HTTP on HTTP_PORTN (default 18123, 28123), native TCP
# on HTTP_PORTN + 877 (19000, 29000). 'start' waits until both answer
# (at most 30 s). Then: hwprof fleet init http://127.0.0.1:18123 --cluster hwprof
#
# Environment: CH_PASSWORD=P makes the user 'default' require password P
# (the shards then log in to each other with it); CH_TLS_CERT=FILE and
# CH_TLS_KEY=FILE (PEM) open an HTTPS port too, HTTP_PORTN + 1.
set -eu
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR [HTTP_PORT1 HTTP_PORT2]" >&2; exit 2; }
p1=${3:-18123}; p2=${4:-28123}
server=$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)
[ -x "$server" ] || { echo "$0: clickhouse-server not installed (apt-get install clickhouse-server)" >&2; exit 1; }

config() { # N HTTP_PORT: writes DIR/sN/config.xml and users.xml
	local d=$dir/s$1 http=$2 tcp=$(($2 + 877)) pw=${CH_PASSWORD:-} tls="" cred=""
	if [ -n "${CH_TLS_CERT:-}" ]; then
		tls="<https_port>$(($2 + 1))</https_port>
  <openSSL><server><certificateFile>$CH_TLS_CERT</certificateFile><privateKeyFile>$CH_TLS_KEY</privateKeyFile>
    <verificationMode>none</verificationMode><loadDefaultCAFile>false</loadDefaultCAFile>
    <cacheSessions>true</cacheSessions><disableProtocols>sslv2,sslv3</disableProtocols>
    <preferServerCiphers>true</preferServerCiphers></server></openSSL>"
	fi
	[ -n "$pw" ] && cred="<user>default</user><password>$pw</password>"
	mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas"
	cat >"$d/config.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$d/server.log</log><errorlog>$d/server.err.log</errorlog></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>$http</http_port>
  <tcp_port>$tcp</tcp_port>
  $tls
  <max_concurrent_queries>20</max_concurrent_queries>
  <mark_cache_size>67108864</mark_cache_size>
  <uncompressed_cache_size>67108864</uncompressed_cache_size>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <remote_servers>
    <hwprof>
      <shard><replica><host>127.0.0.1</host><port>$(($p1 + 877))</port>$cred</replica></shard>
      <shard><replica><host>127.0.0.1</host><port>$(($p2 + 877))</port>$cred</replica></shard>
    </hwprof>
  </remote_servers>
</yandex>
XML
	cat >"$d/users.xml" <<XML
<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password>$pw</password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
    <profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
    <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
XML
}

start_one() { # N HTTP_PORT
	local d=$dir/s$1
	# (one that answers runs; a killed one may linger as a zombie, so its
	# pid says nothing)
	curl -sf "http://127.0.0.1:$2/ping" >/dev/null 2>&1 && return 0
	config "$1" "$2"
	"$server" --config-file="$d/config.xml" >"$d/stdout.log" 2>&1 &
	echo $! >"$d/pid"
}

alive() { # PID: running, not a zombie
	[ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat"
}

wait_one() { # N HTTP_PORT
	for _ in $(seq 300); do
		curl -sf "http://127.0.0.1:$2/ping" >/dev/null 2>&1 && return 0
		alive "$(cat "$dir/s$1/pid")" || break
		sleep 0.1
	done
	echo "$0: server $1 (port $2) did not start: $(tail -2 "$dir/s$1/server.err.log" 2>/dev/null)" >&2
	return 1
}

case $cmd in
start)
	mkdir -p "$dir"
	start_one 1 "$p1"; start_one 2 "$p2"
	wait_one 1 "$p1" && wait_one 2 "$p2" ;;
stop)
	for n in 1 2; do
		[ -f "$dir/s$n/pid" ] || continue
		pid=$(cat "$dir/s$n/pid")
		kill "$pid" 2>/dev/null || true
		for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
		kill -9 "$pid" 2>/dev/null || true
		rm -f "$dir/s$n/pid"
	done ;;
*) echo "usage: $0 start|stop DIR [HTTP_PORT1 HTTP_PORT2]" >&2; exit 2 ;;
esac
