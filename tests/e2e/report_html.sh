#!/bin/bash
# hwprof report --html on emulated recordings of tests/fixtures/advise_patterns.c
# and tests/fixtures/diff_branch.c:
#   - the page is self-contained, has the expected sections, consistent
#     tables, and the planted findings (tests/tools/report_page_check.py);
#   - the block latency section (modelled cycles) with its table and chart;
#   - in headless Chromium (Debian chromium): the contents list is built,
#     the latency chart is inline and laid out,
#     a click on a number column sorts it descending, a second ascending,
#     the filter box hides the rows without the text; the screenshot is not
#     blank (a harness page drives the report in an iframe, same origin);
#   - --diff: the planted change is in the Changes section;
#   - memory samples alone: the memory sections and the false-sharing finding;
#   - on a corpus recording with callchains: the flame graph section, whose
#     own script runs inside the page (frames laid out, a click zooms);
#   - usage errors: one line each.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 6 checks, then 5 in Chromium (1 SKIP without it), then
# 2 on the corpus's flame graph (1 SKIP without the corpus); 1 (the
# SKIP) where emulated recording cannot run
ready=$(emu_ready report_html) || { echo "PLAN 1"; echo "$ready"; exit 0; }
plan=6
if [ -z "$(command -v chromium || command -v chromium-browser || true)" ]; then
	plan=$((plan + 1))
elif [ ! -f "${HWPROF_CORPUS:-$root/../shared/corpus}/perf_data_converter/perf.data.callgraph_and_branch-3.8" ]; then
	plan=$((plan + 5 + 1))
else
	plan=$((plan + 5 + 2))
fi
echo "PLAN $plan"
fx=$root/tests/fixtures
cd "$tmp" || exit 1
gcc -O2 -g -o ap "$fx/advise_patterns.c" && gcc -O2 -g -o db "$fx/diff_branch.c" ||
	{ fail "report_html_build: gcc failed"; exit 0; }
emu_record ap -b -c 1009 -- ./ap && emu_record b1 -b -c 1009 -- ./db 300 && emu_record b2 -b -c 1009 -- ./db 600 ||
	{ fail "report_html_record: $(cat ./*.err | head -1)"; exit 0; }

if "$HWPROF" report --html page.html -i ap.data 2>page.err; then
	out=$(python3 "$tools/report_page_check.py" page.html Summary "Findings (hwprof advise)" \
		"Hot branches (hwprof branches)" "Mispredicts (hwprof mispredicts)" \
		"Branch probabilities (hwprof probs)" "Hot blocks (hwprof blocks)" "Block latency (hwprof timing)" \
		"Flame graph (hwprof flame)" --contains "wrong_hint+0x17" --contains "dispatch+0x1b" --contains "biased-branch" \
		--contains "multimodal-block" --contains "[.] coin..+0x" 2>&1) &&
		pass "report_html_page ($out)" || fail "report_html_page: $out"
else
	fail "report_html_page: exit $?: $(head -1 page.err)"
fi
if "$HWPROF" report --html diff.html --diff b1.data b2.data 2>diff.err; then
	out=$(python3 "$tools/report_page_check.py" diff.html "Changes (hwprof diff)" Before After \
		"Findings (hwprof advise)" --contains "diff_branch.c:38" 2>&1) &&
		pass "report_html_diff ($out)" || fail "report_html_diff: $out"
else
	fail "report_html_diff: exit $?: $(head -1 diff.err)"
fi
# memory samples alone (record --emulate --mem of the false-sharing
# fixture): the summary, the findings (false sharing first) and the memory
# sections, no branch sections
if gcc -O2 -g -pthread -o fs "$fx/mem_false_sharing.c" &&
	"$HWPROF" record -q --emulate --mem -c 211 -o fs.data -- ./fs >/dev/null 2>fs.err &&
	"$HWPROF" report -q --html fs.html -i fs.data 2>>fs.err; then
	out=$(python3 "$tools/report_page_check.py" fs.html Summary "Findings (hwprof advise)" "Memory (hwprof mem)" \
		"Memory by source line" --contains false-sharing --contains "mem_false_sharing.c:30" \
		--contains "mem_false_sharing.c:35" 2>&1) && pass "report_html_mem ($out)" || fail "report_html_mem: $out"
else
	fail "report_html_mem: $(head -1 fs.err)"
fi
for args in "-i ap.data" "--html x.html --diff b1.data" "--html /nonexistent/x.html -i ap.data"; do
	if "$HWPROF" report $args >/dev/null 2>err.txt; then
		fail "report_html_usage '$args': exit 0"
	elif [ "$(wc -l <err.txt)" -ne 1 ]; then
		fail "report_html_usage '$args': $(head -2 err.txt | tr '\n' ' ')"
	else
		pass "report_html_usage '$args' ($(cat err.txt))"
	fi
done

chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
	skip "report_html_browser: chromium not installed (apt-get install chromium)"
	exit 0
fi
cp page.html report.html
cat >harness.html <<'HTML'
<!DOCTYPE html><html><body><pre id="out">pending</pre>
<iframe id="f" src="report.html" width="1200" height="800"></iframe>
<script>
document.getElementById('f').addEventListener('load', function () {
  var d = this.contentDocument, out = [];
  out.push('nav ' + d.querySelectorAll('#contents a').length);
  var svg = d.querySelector('section:nth-of-type(7) svg');
  out.push('chart ' + (svg ? svg.querySelectorAll('rect.bar').length + ' ' + svg.getBoundingClientRect().width : '0 0'));
  var t = d.querySelectorAll('table.hwp')[4]; /* branch probabilities; column 0: executions */
  function vals() { return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[0].dataset.v; }).join(','); }
  var th = t.querySelectorAll('th')[0];
  th.click(); out.push('click1 ' + vals());
  th.click(); out.push('click2 ' + vals());
  var f = d.getElementById(t.dataset.filter);
  f.value = 'coin'; f.dispatchEvent(new Event('input'));
  var shown = Array.prototype.filter.call(t.tBodies[0].rows, function (r) { return r.style.display !== 'none'; });
  out.push('filter ' + shown.length + ' ' + t.tBodies[0].rows.length + ' ' +
           shown.every(function (r) { return r.textContent.indexOf('coin') >= 0; }));
  document.getElementById('out').textContent = out.join('\n');
});
</script></body></html>
HTML
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
	--virtual-time-budget=5000 --dump-dom "file://$tmp/harness.html" >dom.html 2>chrome.err
python3 - dom.html <<'PY'
import re, sys
m = re.search(r'<pre id="out">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
if not m or m.group(1) == "pending":
    print("FAIL report_html_browser: the harness did not run (no DOM result)"); sys.exit()
res = dict(l.split(" ", 1) for l in m.group(1).splitlines())
nav = int(res["nav"])
print(("PASS" if nav == 8 else "FAIL") + f" report_html_contents ({nav} links built by the page's script)")
d = [float(x) for x in res["click1"].split(",")]
a = [float(x) for x in res["click2"].split(",")]
ok = d == sorted(d, reverse=True) and a == sorted(a) and len(a) > 2 and a[0] < a[-1]
print(("PASS" if ok else "FAIL") + f" report_html_sort (descending then ascending over {len(a)} rows)")
bars, width = res["chart"].split()
ok = int(bars) >= 2 and float(width) > 100
print(("PASS" if ok else "FAIL") + f" report_html_chart (the latency chart inline: {bars} bars, {float(width):.0f} px wide)")
shown, total, match = res["filter"].split()
ok = match == "true" and 0 < int(shown) < int(total)
print(("PASS" if ok else "FAIL") + f" report_html_filter ({shown} of {total} rows hold 'coin')")
PY
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --window-size=1200,900 \
	--screenshot="$tmp/shot.png" "file://$tmp/page.html" >/dev/null 2>&1
python3 - "$tmp/shot.png" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read() if __import__("os").path.exists(sys.argv[1]) else b""
if data[:8] != b"\x89PNG\r\n\x1a\n":
    print("FAIL report_html_screenshot: no PNG written"); sys.exit()
idat, pos = b"", 8
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    if kind == b"IDAT":
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
distinct = len(set(raw))
print(("PASS" if distinct > 30 else "FAIL") + f" report_html_screenshot ({distinct} distinct byte values: not blank)")
PY

# the flame graph section, on a corpus recording with callchains and branch
# stacks: inlined, its own script running inside the page (frames laid
# out, a click zooms)
corpus=${HWPROF_CORPUS:-$root/../shared/corpus}
cg=$corpus/perf_data_converter/perf.data.callgraph_and_branch-3.8
if [ ! -f "$cg" ]; then
	skip "report_html_flame: corpus not found ($cg)"
	exit 0
fi
if ! "$HWPROF" report -q --html cg.html -i "$cg" 2>cg.err; then
	fail "report_html_flame: exit $?: $(head -1 cg.err)"
	exit 0
fi
out=$(python3 "$tools/report_page_check.py" cg.html Summary "Findings (hwprof advise)" \
	"Hot branches (hwprof branches)" "Mispredicts (hwprof mispredicts)" \
	"Branch probabilities (hwprof probs)" "Hot blocks (hwprof blocks)" "Block latency (hwprof timing)" \
	"Flame graph (hwprof flame)" 2>&1) && pass "report_html_flame_page ($out)" || fail "report_html_flame_page: $out"
cp cg.html report.html
cat >harness2.html <<'HTML'
<!DOCTYPE html><html><body><pre id="out">pending</pre>
<iframe id="f" src="report.html" width="1200" height="800"></iframe>
<script>
document.getElementById('f').addEventListener('load', function () {
  var d = this.contentDocument, out = [];
  var svg = d.querySelector('svg[data-total]');
  out.push('ready ' + (svg ? svg.getAttribute('data-ready') : 'none'));
  var gs = svg ? svg.querySelectorAll('g.f') : [];
  var w = gs.length ? parseFloat(gs[gs.length - 1].querySelector('rect').getAttribute('width')) : -1;
  out.push('frames ' + gs.length + ' ' + w);
  if (gs.length > 1) { gs[1].dispatchEvent(new MouseEvent('click')); out.push('zoom ' + svg.getAttribute('data-zoom')); }
  document.getElementById('out').textContent = out.join('\n');
});
</script></body></html>
HTML
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
	--virtual-time-budget=5000 --dump-dom "file://$tmp/harness2.html" >dom2.html 2>/dev/null
python3 - dom2.html <<'PY'
import re, sys
m = re.search(r'<pre id="out">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
res = dict(l.split(" ", 1) for l in m.group(1).splitlines()) if m and m.group(1) != "pending" else {}
frames = res.get("frames", "0 -1").split()
ok = res.get("ready") == "1" and int(frames[0]) > 100 and float(frames[1]) > 0 and res.get("zoom", "")
print(("PASS" if ok else "FAIL") + f" report_html_flame_browser (the flame graph's script ran inside the page: "
      f"{frames[0]} frames laid out, a click zoomed to '{res.get('zoom', '')}')")
PY
