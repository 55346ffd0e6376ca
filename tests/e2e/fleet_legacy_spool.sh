#!/bin/bash
# A spool directory an earlier hwprof made for a URL with credentials (named
# by a hash of the URL as given, 0755, its url file 0644 holding the
# password): the next push to that URL closes it to its owner, rewrites its
# url file without the credentials and says how many batches wait there.
# The server: a stand-in that takes every POST (the rows' content is
# fleet.sh's business).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
HWPROF=${HWPROF:-$root/${BUILD:-build}/hwprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "PLAN 3"
if "$HWPROF" push http://127.0.0.1:9/ /dev/null 2>&1 | grep -q "built without libcurl"; then
	for n in url_file mode said; do echo "SKIP fleet_legacy_spool_$n: built without libcurl"; done
	exit 0
fi
# a stand-in for ClickHouse's HTTP interface: 200 to every request
python3 - "$tmp/port" <<'PY' &
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    do_GET = do_POST
    def log_message(self, *a):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$tmp"' EXIT
for i in $(seq 50); do [ -s "$tmp/port" ] && break; sleep 0.1; done
url="http://alice:s3cret-pw@127.0.0.1:$(cat "$tmp/port")/"
# the earlier hwprof's directory: FNV-1a 64 of the URL as given
h=$(python3 -c '
import sys
h = 1469598103934665603
for b in sys.argv[1].encode():
    h = ((h ^ b) * 1099511628211) % (1 << 64)
print("%016x" % h)' "$url")
old=$tmp/spool/$h
mkdir -p "$old" && chmod 755 "$old"
printf '%s\n' "$url" >"$old/url" && chmod 644 "$old/url"
printf 'x\n' >"$old/rec1-0.tsv"
printf 'x\n' >"$old/rec1-1.tsv"
# a small recording of a fixture's branches
gcc -O1 -o "$tmp/prog" "$root/tests/fixtures/branchy.c" 2>/dev/null &&
	"$root/${BUILD:-build}/tests/tools/gen_fixture_branches" "$tmp/prog" "$tmp/r.data" --samples 50 >/dev/null 2>&1 ||
	{ for n in url_file mode said; do echo "FAIL fleet_legacy_spool_$n: cannot make a recording"; done; exit 0; }
"$HWPROF" push "$url" "$tmp/r.data" --host h1 --spool "$tmp/spool" --retries 1 >"$tmp/out" 2>"$tmp/err"
clean="http://127.0.0.1:$(cat "$tmp/port")/"
if ! grep -q s3cret-pw "$old/url" && grep -qx "$clean" "$old/url"; then
	echo "PASS fleet_legacy_spool_url_file (the password is gone from $h/url)"
else
	echo "FAIL fleet_legacy_spool_url_file: $(cat "$old/url")"
fi
if [ "$(stat -c %a "$old")" = 700 ]; then
	echo "PASS fleet_legacy_spool_mode (0700)"
else
	echo "FAIL fleet_legacy_spool_mode: $(stat -c %a "$old")"
fi
if grep -q "2 batches spooled by an earlier hwprof" "$tmp/err" && ! grep -q s3cret-pw "$tmp/err" "$tmp/out"; then
	echo "PASS fleet_legacy_spool_said ($(grep 'earlier hwprof' "$tmp/err" | head -1))"
else
	echo "FAIL fleet_legacy_spool_said: $(tr '\n' '|' <"$tmp/err")"
fi
