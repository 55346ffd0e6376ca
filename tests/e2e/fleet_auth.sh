#!/bin/bash
# hwprof push / fleet with credentials and TLS, against two clickhouse-server
# processes on loopback ports (scripts/clickhouse_shards.sh) whose user
# 'default' requires a password (CH_PASSWORD) and which also listen on
# HTTPS with a certificate of a CA the test makes (openssl):
#  - push and fleet rows with the password from --password-file (and from
#    $CLICKHOUSE_PASSWORD): the rows are the local export's (fleet_check.py);
#  - the password given in the URL (user:pw@ and ?password=) works and is
#    shown nowhere: grep finds it in no output, error, spool file or server log;
#    the spool's directories are 0700 and its files 0600;
#  - a wrong password and no password are one line each, exit 1;
#  - credentials over plain http to a host that is not loopback: a warning;
#  - https: push succeeds with --cacert, fails with one line without it;
#  - client certificates (--cert/--key) against a small TLS server that
#    requires one (python3 ssl; ClickHouse 18.16 checks none).
# Skips when clickhouse-server, curl or openssl is absent.
. "$(dirname "$0")/../tools/emu_lib.sh"
server=$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)
# PLAN: 1 (the SKIP) where a requirement is missing
if [ ! -x "$server" ]; then
	echo "PLAN 1"
	skip "fleet_auth: clickhouse-server not installed (apt-get install clickhouse-server)"; exit 0
fi
for t in curl openssl python3; do
	command -v $t >/dev/null || { echo "PLAN 1"; skip "fleet_auth: $t not installed"; exit 0; }
done
ready=$(emu_ready fleet_auth) || { echo "PLAN 1"; echo "$ready"; exit 0; }
echo "PLAN 15"
emu_build basic || exit 0

# the CA, the server's certificate (for 127.0.0.1) and a client's
pki=$tmp/pki
mkdir -p "$pki"
(
	cd "$pki" &&
	openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj "/CN=hwprof test CA" &&
	openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj "/CN=127.0.0.1" &&
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >srv.ext &&
	openssl x509 -req -in srv.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out srv.crt -days 2 -extfile srv.ext &&
	openssl req -newkey rsa:2048 -nodes -keyout cli.key -out cli.csr -subj "/CN=hwprof client" &&
	openssl x509 -req -in cli.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out cli.crt -days 2
) >"$tmp/pki.log" 2>&1 || { fail "fleet_auth: openssl: $(tail -1 "$tmp/pki.log")"; exit 0; }

pw="hw-$RANDOM$RANDOM-s3cret"
printf '%s\n' "$pw" >"$tmp/pwfile"
ch=$tmp/ch
p1=$((10000 + RANDOM % 9000)); p2=$((p1 + 10000))
trap '"$root/scripts/clickhouse_shards.sh" stop "$ch" >/dev/null 2>&1; [ -n "${tlspid:-}" ] && kill "$tlspid" 2>/dev/null; rm -rf "$tmp"' EXIT
if ! CH_PASSWORD=$pw CH_TLS_CERT=$pki/srv.crt CH_TLS_KEY=$pki/srv.key \
	"$root/scripts/clickhouse_shards.sh" start "$ch" $p1 $p2 2>"$tmp/ch.err"; then
	fail "fleet_auth: clickhouse-server did not start: $(head -1 "$tmp/ch.err")"; exit 0
fi
U1=http://127.0.0.1:$p1/ S1=https://127.0.0.1:$((p1 + 1))/
spool=$tmp/spool
out=$tmp/out # every output and error of hwprof's, for the grep at the end
mkdir -p "$out"

emu_record h1 -c 1000 --jitter 10 -- "$tmp/basic" || { fail "fleet_auth: record: $(head -1 "$tmp/h1.err")"; exit 0; }
"$HWPROF" export -i "$tmp/h1.data" --host h1 -o "$tmp/h1.tsv" 2>/dev/null

if ! "$HWPROF" fleet init "$U1" "http://127.0.0.1:$p2/" --cluster hwprof --password-file "$tmp/pwfile" \
	>"$out/init.out" 2>"$out/init.err"; then
	fail "fleet_auth: init: $(head -1 "$out/init.err")"; exit 0
fi
if "$HWPROF" push "$U1" "$tmp/h1.data" --host h1 --spool "$spool" --password-file "$tmp/pwfile" \
	>"$out/push.out" 2>"$out/push.err" && ! grep -q "plain http" "$out/push.err"; then
	pass "fleet_auth_push: push --password-file: $(cat "$out/push.err")"
else
	fail "fleet_auth_push: $(head -2 "$out/push.err" | tr '\n' ' ')"
fi

# rows NAME CMD...: the fleet's rows (CMD's output) are h1's local export rows
rows() {
	local name=$1 r
	shift
	if ! "$@" >"$out/$name.tsv" 2>"$out/$name.err"; then
		fail "$name: $(head -1 "$out/$name.err")"; return
	fi
	if r=$(python3 "$tools/fleet_check.py" "$out/$name.tsv" "$tmp/h1.tsv"); then
		pass "$name: fleet rows = h1's export rows (${r#ROWS } rows)"
	else
		fail "$name: $(echo "$r" | tail -1)"
	fi
}
rows fleet_auth_query_file "$HWPROF" fleet rows "$U1" --password-file "$tmp/pwfile"
CLICKHOUSE_PASSWORD=$pw rows fleet_auth_query_env "$HWPROF" fleet rows "$U1"
CLICKHOUSE_USER=default CLICKHOUSE_PASSWORD=$pw rows fleet_auth_query_env_user "$HWPROF" fleet rows "$U1"
# in the URL: accepted, shown without the password
"$HWPROF" push "http://default:$pw@127.0.0.1:$p1/" "$tmp/h1.data" --host h1 --spool "$spool" \
	>"$out/push_url.out" 2>"$out/push_url.err"; rc=$?
if [ $rc -eq 0 ] && grep -q "sent to http://127.0.0.1:$p1/" "$out/push_url.err"; then
	pass "fleet_auth_url: user:password@ in the URL: $(cat "$out/push_url.err")"
else
	fail "fleet_auth_url: exit $rc: $(head -2 "$out/push_url.err" | tr '\n' ' ')"
fi
rows fleet_auth_url_param "$HWPROF" fleet rows "$U1?user=default&password=$pw"

# one_line NAME PATTERN CMD...: exit 1 and one 'hwprof: ' line matching PATTERN
one_line() {
	local name=$1 pat=$2 rc
	shift 2
	"$@" >"$out/$name.out" 2>"$out/$name.err"; rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$out/$name.err")" -eq 1 ] && grep -q "^hwprof: .*$pat" "$out/$name.err"; then
		pass "$name: $(cat "$out/$name.err")"
	else
		fail "$name: exit $rc: $(head -3 "$out/$name.err" | tr '\n' ' ')"
	fi
}
printf 'wrong%s\n' "$pw" >"$tmp/badpw"
one_line fleet_auth_wrong_password "refused the credentials of user 'default'" \
	"$HWPROF" push "$U1" "$tmp/h1.data" --host h1 --spool "$tmp/spool_bad" --password-file "$tmp/badpw"
one_line fleet_auth_no_password "refused the credentials" "$HWPROF" fleet rows "$U1"

# plain http to a host that is not loopback: a warning (push with nothing
# to send opens no connection)
"$HWPROF" push "http://ch.example.com:8123/?password=$pw" --no-spool >"$out/warn.out" 2>"$out/warn.err"
if grep -q "warning.*plain http" "$out/warn.err" && ! grep -q "plain http" "$out/push.err"; then
	pass "fleet_auth_plain_http: $(grep "plain http" "$out/warn.err")"
else
	fail "fleet_auth_plain_http: no warning: $(head -2 "$out/warn.err" | tr '\n' ' ')"
fi

# TLS
"$HWPROF" push "$S1" "$tmp/h1.data" --host h1 --spool "$spool" --password-file "$tmp/pwfile" \
	--cacert "$pki/ca.crt" >"$out/tls.out" 2>"$out/tls.err"; rc=$?
if [ $rc -eq 0 ] && rows_now=$("$HWPROF" fleet rows "$S1" --password-file "$tmp/pwfile" --cacert "$pki/ca.crt" \
	2>"$out/tls_rows.err" | python3 "$tools/fleet_check.py" /dev/stdin "$tmp/h1.tsv"); then
	pass "fleet_auth_tls: push and rows over https with --cacert: $(cat "$out/tls.err") (${rows_now#ROWS } rows)"
else
	fail "fleet_auth_tls: exit $rc: $(head -2 "$out/tls.err" | tr '\n' ' ') $(head -1 "$out/tls_rows.err")"
fi
one_line fleet_auth_tls_untrusted "certificate is not trusted" \
	"$HWPROF" push "$S1" "$tmp/h1.data" --host h1 --spool "$tmp/spool_tls" --password-file "$tmp/pwfile" --retries 1

# client certificates: a TLS server that requires one signed by the CA
tp=$((p1 + 2))
python3 - "$tp" "$pki" >"$tmp/tls_server.log" 2>&1 <<'PY' &
import http.server, ssl, sys
port, pki = int(sys.argv[1]), sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(pki + "/srv.crt", pki + "/srv.key")
ctx.load_verify_locations(pki + "/ca.crt")
ctx.verify_mode = ssl.CERT_REQUIRED
s = http.server.HTTPServer(("127.0.0.1", port), H)
s.socket = ctx.wrap_socket(s.socket, server_side=True)
s.serve_forever()
PY
tlspid=$!
for _ in $(seq 50); do curl -sk "https://127.0.0.1:$tp/" -o /dev/null 2>/dev/null; [ $? -ne 7 ] && break; sleep 0.1; done
if "$HWPROF" fleet hosts "https://127.0.0.1:$tp/" --cacert "$pki/ca.crt" --cert "$pki/cli.crt" --key "$pki/cli.key" \
	>"$out/cc.out" 2>"$out/cc.err" && head -1 "$out/cc.out" | grep -q "^host"; then
	pass "fleet_auth_client_cert: --cert/--key: a server that requires a client certificate answers"
else
	fail "fleet_auth_client_cert: $(head -2 "$out/cc.err" | tr '\n' ' ')"
fi
one_line fleet_auth_client_cert_missing "TLS failed\|request failed" \
	"$HWPROF" fleet hosts "https://127.0.0.1:$tp/" --cacert "$pki/ca.crt"

# the password: in no output, error or spool file (the wrong-password push
# kept its batches), nor in the servers' logs (their users.xml holds it);
# spool directories 0700, files 0600
leaks=$(grep -rl -F -- "$pw" "$out" "$spool" "$tmp/spool_bad" "$tmp/spool_tls" "$ch"/s*/*.log 2>/dev/null)
nfiles=$(find "$out" "$spool" "$tmp/spool_bad" "$ch"/s*/*.log -type f | wc -l)
if [ -z "$leaks" ] && [ "$nfiles" -gt 10 ]; then
	pass "fleet_auth_no_leak: the password is in none of $nfiles output, error, spool and server log files"
else
	fail "fleet_auth_no_leak: the password is in $(echo $leaks)"
fi
bad=$(find "$spool" "$tmp/spool_bad" "$tmp/spool_tls" -mindepth 1 \( -type d ! -perm 700 -o -type f ! -perm 600 \) -printf '%m %p\n')
kept=$(find "$tmp/spool_bad" -name '*.tsv' | wc -l)
if [ -z "$bad" ] && [ "$kept" -gt 0 ]; then
	pass "fleet_auth_spool_modes: spool directories 0700, files 0600 ($kept batches kept after the wrong password)"
else
	fail "fleet_auth_spool_modes: $kept batches kept; $(echo "$bad" | head -3 | tr '\n' ' ')"
fi
