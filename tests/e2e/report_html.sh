#!/bin/bash
# hwprof report --html on emulated recordings of tests/fixtures/advise_patterns.c
# and tests/fixtures/diff_branch.c:
#   - the page is self-contained, has the expected sections (findings first,
#     then the annotated code; no flame graph: the samples carry no call
#     stacks), consistent tables, links that land, and the planted findings
#     (tests/tools/report_page_check.py);
#   - in headless Chromium (Debian chromium; a harness page drives the report
#     in an iframe, same origin): the contents list is built, the latency
#     chart is inline and laid out, a click on a number column sorts it
#     descending, a second ascending, the filter box hides the rows without
#     the text; a long table shows its rows that matter, "show all" the
#     others; the annotated code is laid out (instruction rows have a size,
#     each jump's arrow drawn from its row to the row of the address its
#     operand names), the planted two-peaked block has a two-peaked
#     sparkline; a click on each finding's place scrolls its instruction
#     (the function's start plus the place's offset) into view, a link into
#     a folded run opens it; screenshots of the top and of the code are not
#     blank;
#   - --diff: the planted change is in the Changes section, and its function
#     in AFTER's annotated code (AFTER's findings linked to it);
#   - memory samples alone: the memory sections, the false-sharing finding
#     and its link to the store;
#   - on a corpus recording with callchains: the flame graph section, whose
#     own script runs inside the page (frames laid out, a click zooms);
#   - usage errors: one line each.
# HWPROF_KEEP_SHOTS=DIR keeps the screenshots (shot.png, shot_code.png) there.
. "$(dirname "$0")/../tools/emu_lib.sh"
# PLAN: 8 checks, then 10 in Chromium (1 SKIP without it), then
# 2 on the corpus's flame graph (1 SKIP without the corpus); 1 (the
# SKIP) where emulated recording cannot run
ready=$(emu_ready report_html) || { echo "PLAN 1"; echo "$ready"; exit 0; }
plan=8
if [ -z "$(command -v chromium || command -v chromium-browser || true)" ]; then
	plan=$((plan + 1))
elif [ ! -f "${HWPROF_CORPUS:-$root/../shared/corpus}/perf_data_converter/perf.data.callgraph_and_branch-3.8" ]; then
	plan=$((plan + 10 + 1))
else
	plan=$((plan + 10 + 2))
fi
echo "PLAN $plan"
fx=$root/tests/fixtures
cd "$tmp" || exit 1
gcc -O2 -g -o ap "$fx/advise_patterns.c" && gcc -O2 -g -o db "$fx/diff_branch.c" ||
	{ fail "report_html_build: gcc failed"; exit 0; }
emu_record ap -b -c 1009 -- ./ap && emu_record b1 -b -c 1009 -- ./db 300 && emu_record b2 -b -c 1009 -- ./db 600 ||
	{ fail "report_html_record: $(cat ./*.err | head -1)"; exit 0; }

if "$HWPROF" report --html page.html -i ap.data 2>page.err; then
	out=$(python3 "$tools/report_page_check.py" page.html "Findings (hwprof advise)" \
		"Annotated code (hwprof annotate)" "Hot branches (hwprof branches)" "Mispredicts (hwprof mispredicts)" \
		"Branch probabilities (hwprof probs)" "Hot blocks (hwprof blocks)" "Block latency (hwprof timing)" \
		Summary --contains "wrong_hint+0x17" --contains "dispatch+0x1b" --contains "biased-branch" \
		--contains "multimodal-block" --contains "[.] coin..+0x" 2>&1) &&
		pass "report_html_page ($out)" || fail "report_html_page: $out"
else
	fail "report_html_page: exit $?: $(head -1 page.err)"
fi
if "$HWPROF" report --html diff.html --diff b1.data b2.data 2>diff.err; then
	# AFTER's findings link to AFTER's annotated code, which holds the
	# function of the planted change
	out=$(python3 "$tools/report_page_check.py" diff.html "Changes (hwprof diff)" Before After \
		"Findings (hwprof advise)" "Annotated code (hwprof annotate)" --contains "diff_branch.c:38" 2>&1) &&
		grep -q '<h3>step ' diff.html && pass "report_html_diff ($out; the changed function step annotated)" ||
		fail "report_html_diff: $out $(grep -c '<h3>step ' diff.html) annotated step"
else
	fail "report_html_diff: exit $?: $(head -1 diff.err)"
fi
# memory samples alone (record --emulate --mem of the false-sharing
# fixture): the summary, the findings (false sharing first) and the memory
# sections, no branch sections
if gcc -O2 -g -pthread -o fs "$fx/mem_false_sharing.c" &&
	"$HWPROF" record -q --emulate --mem -c 211 -o fs.data -- ./fs >/dev/null 2>fs.err &&
	"$HWPROF" report -q --html fs.html -i fs.data 2>>fs.err; then
	out=$(python3 "$tools/report_page_check.py" fs.html "Findings (hwprof advise)" \
		"Annotated code (hwprof annotate)" "Memory (hwprof mem)" "Memory by source line" Summary \
		--contains false-sharing --contains "mem_false_sharing.c:30" --contains "mem_false_sharing.c:35" 2>&1) &&
		grep -q '<td><a href="#a[0-9]*-[0-9a-f]*">\[\.\] bump_[ab]+0x' fs.html &&
		pass "report_html_mem ($out; the finding links to its store)" || fail "report_html_mem: $out"
else
	fail "report_html_mem: $(head -1 fs.err)"
fi
# plain samples of two events (perf record -e cpu-clock,task-clock, no
# branch stacks, no call stacks): findings, the annotated code (each sampled
# instruction's samples per event in its title, as annotate counts them)
# and the summary
if ! command -v perf >/dev/null || ! perf record -q -e cpu-clock,task-clock -c 100000 -o two.data ./db 200 \
	>/dev/null 2>two.err; then
	skip "report_html_samples: perf cannot record cpu-clock here: $(head -1 two.err)"
elif "$HWPROF" report -q --html two.html -i two.data 2>two.rerr &&
	"$HWPROF" annotate -i two.data --json >two.json 2>>two.rerr; then
	out=$(python3 "$tools/report_page_check.py" two.html "Findings (hwprof advise)" \
		"Annotated code (hwprof annotate)" Summary 2>&1) &&
		want=$(python3 -c '
import json, sys
r = [x for x in json.load(open("two.json")) if x.get("samples")]
x = max(r, key=lambda x: x["samples"])
print("cpu-clock %d (" % (x.get("samples_cpu_clock") or 0))' 2>&1) &&
		grep -q "title=\"[^\"]*; $want" two.html &&
		pass "report_html_samples ($out; the hottest instruction's $want...) per event)" ||
		fail "report_html_samples: $out ${want:-}"
else
	fail "report_html_samples: $(head -1 two.rerr)"
fi
# short branch stacks (8 entries): the summary says the counts are
# flow-consistent (inferred by default), and not with --no-infer
if "$HWPROF" record -q --emulate -b --depth 8 -c 1009 -o ap8.data -- ./ap >/dev/null 2>ap8.err &&
	"$HWPROF" report -q --html inf.html -i ap8.data 2>>ap8.err &&
	"$HWPROF" report -q --no-infer --html noinf.html -i ap8.data 2>>ap8.err; then
	if grep -q "Execution counts</td><td>flow-consistent: adjusted to conserve flow (branch stacks of up to 8 entries)" inf.html &&
		! grep -q "Execution counts" noinf.html && ! cmp -s inf.html noinf.html; then
		pass "report_html_inferred (8-entry stacks: the summary says so; --no-infer: sampled counts)"
	else
		fail "report_html_inferred: $(grep -c 'Execution counts' inf.html noinf.html | tr '\n' ' ')"
	fi
else
	fail "report_html_inferred: $(head -1 ap8.err)"
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
var out = [];
function section(d, title) {
  return Array.prototype.filter.call(d.querySelectorAll('section'), function (s) {
    return s.querySelector('h2').textContent.indexOf(title) === 0; })[0];
}
function shown(e) { var r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; }
document.getElementById('f').addEventListener('load', function () {
  var w = this.contentWindow, d = this.contentDocument;
  out.push('nav ' + d.querySelectorAll('#contents a').length + ' ' + d.querySelectorAll('section').length);
  var svg = section(d, 'Block latency').querySelector('svg');
  out.push('chart ' + (svg ? svg.querySelectorAll('rect.bar').length + ' ' + svg.getBoundingClientRect().width : '0 0'));
  /* branch probabilities; column 0: executions */
  var t = section(d, 'Branch probabilities').querySelector('table.hwp');
  function vals() { return Array.prototype.map.call(t.tBodies[0].rows, function (r) { return r.cells[0].dataset.v; }).join(','); }
  var th = t.querySelectorAll('th')[0];
  th.click(); out.push('click1 ' + vals());
  th.click(); out.push('click2 ' + vals());
  var f = d.getElementById(t.dataset.filter);
  f.value = 'coin'; f.dispatchEvent(new Event('input'));
  var rows = Array.prototype.slice.call(t.tBodies[0].rows);
  out.push('filter ' + rows.filter(shown).length + ' ' + rows.length + ' ' +
           rows.filter(shown).every(function (r) { return r.textContent.indexOf('coin') >= 0; }));
  f.value = ''; f.dispatchEvent(new Event('input'));
  /* the hot branches: the rows that matter, then all of them */
  var hb = section(d, 'Hot branches').querySelector('table.hwp'), hr = Array.prototype.slice.call(hb.tBodies[0].rows);
  var before = hr.filter(shown).length, more = d.getElementById(hb.dataset.more);
  if (more) more.click();
  out.push('rows ' + before + ' ' + hr.filter(shown).length + ' ' + hr.length + ' ' + (hb.dataset.visible || 0));
  /* the annotated code */
  var asm = d.querySelectorAll('table.asm'), insns = d.querySelectorAll('table.asm tbody:not([hidden]) tr.i');
  var flat = Array.prototype.filter.call(insns, function (r) { return !shown(r); }).length;
  out.push('code ' + asm.length + ' ' + insns.length + ' ' + flat);
  /* each jump's arrow: from its row to its target's row, the target the
     address its operand names */
  var jumps = 0, drawn = 0, wrong = [];
  asm.forEach(function (t) {
    var box = t.parentNode.getBoundingClientRect(), s = t.parentNode.querySelector('svg.arrows');
    var paths = s ? Array.prototype.map.call(s.querySelectorAll('path'), function (p) {
      return p.getAttribute('d').match(/^M([\d.]+) ([\d.]+)H([\d.]+)V([\d.]+)/).slice(2).map(Number); }) : [];
    t.querySelectorAll('tr[data-to]').forEach(function (r) {
      jumps++;
      var to = d.getElementById(r.dataset.to), op = r.cells[4].textContent.split(' ')[1];
      if (!to || parseInt(op, 16) !== parseInt(to.cells[2].textContent, 16)) { wrong.push(r.id + ' operand ' + op); return; }
      if (!shown(r) || !shown(to)) return;
      var a = r.getBoundingClientRect(), b = to.getBoundingClientRect();
      var y1 = a.top + a.height / 2 - box.top, y2 = b.top + b.height / 2 - box.top;
      if (paths.some(function (p) { return Math.abs(p[0] - y1) < 1 && Math.abs(p[2] - y2) < 1; })) drawn++;
      else wrong.push(r.id + ' no arrow');
    });
  });
  out.push('arrows ' + jumps + ' ' + drawn + ' ' + (wrong[0] || '-').replace(/ /g, '_'));
  var peaks = Array.prototype.filter.call(d.querySelectorAll('svg.spark title'), function (t) {
    return /peaks at \d+ cycles \(\d+%\), \d+ cycles/.test(t.textContent); });
  out.push('spark ' + d.querySelectorAll('svg.spark').length + ' ' + peaks.length);
  /* each finding's place: a click scrolls its instruction into view */
  var links = Array.prototype.slice.call(section(d, 'Findings').querySelectorAll('td a')), k = 0, landed = [];
  function next() {
    if (k === links.length) return fold();
    var a = links[k++];
    a.click();
    setTimeout(function () {
      var id = a.getAttribute('href').slice(1), r = d.getElementById(id), b = r.getBoundingClientRect();
      var fn = r.closest('.fn'), h = fn.querySelector('h3').textContent, m = a.textContent.match(/\] (\S+?)(\+0x([0-9a-f]+))?$/);
      var start = parseInt(h.match(/ at 0x([0-9a-f]+)/)[1], 16), addr = parseInt(r.cells[2].textContent, 16);
      var ok = w.location.hash === '#' + id && b.top >= -1 && b.bottom <= w.innerHeight && b.height > 0 &&
               h.split(' ')[0] === m[1] && addr === start + (m[3] ? parseInt(m[3], 16) : 0);
      landed.push((ok ? 'ok:' : 'bad:') + a.textContent.replace(/ /g, '_') + '@' + Math.round(b.top));
      next();
    }, 50);
  }
  /* a link into a folded run opens it */
  function fold() {
    out.push('links ' + links.length + ' ' + landed.join(','));
    var r = d.querySelector('table.asm tbody[hidden] tr.i');
    if (!r) { out.push('fold none'); return done(); }
    w.location.hash = '#' + r.id;
    setTimeout(function () {
      var b = r.getBoundingClientRect();
      out.push('fold ' + (b.height > 0 && b.top >= -1 && b.bottom <= w.innerHeight));
      done();
    }, 100);
  }
  function done() { document.getElementById('out').textContent = out.join('\n'); }
  next();
});
</script></body></html>
HTML
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --allow-file-access-from-files \
	--virtual-time-budget=10000 --dump-dom "file://$tmp/harness.html" >dom.html 2>chrome.err
python3 - dom.html <<'PY'
import re, sys
m = re.search(r'<pre id="out">(.*?)</pre>', open(sys.argv[1]).read(), re.S)
if not m or m.group(1) == "pending":
    for n in ("contents", "sort", "chart", "filter", "rows", "code", "arrows", "sparklines", "links"):
        print(f"FAIL report_html_{n}: the harness did not run (no DOM result)")
    sys.exit()
res = dict(l.split(" ", 1) for l in m.group(1).splitlines())
nav, nsec = map(int, res["nav"].split())
print(("PASS" if nav == nsec == 8 else "FAIL") + f" report_html_contents ({nav} links built by the page's script, {nsec} sections)")
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
first, after, total, visible = map(int, res["rows"].split())
ok = 0 < first == visible < total == after
print(("PASS" if ok else "FAIL") + f" report_html_rows (hot branches: {first} rows that matter shown of {total}, "
      f"{after} after 'show all')")
tables, insns, flat = map(int, res["code"].split())
ok = tables >= 3 and insns > 20 and flat == 0
print(("PASS" if ok else "FAIL") + f" report_html_code ({tables} functions annotated, {insns} instruction rows "
      f"laid out, {flat} with no size)")
jumps, drawn, wrong = res["arrows"].split()
ok = int(jumps) >= 3 and int(drawn) >= 3 and wrong == "-"
print(("PASS" if ok else "FAIL") + f" report_html_arrows ({jumps} jumps to the address their operand names, "
      f"{drawn} arrows drawn from row to row{'' if wrong == '-' else '; ' + wrong})")
spark, peaks = map(int, res["spark"].split())
ok = spark >= 3 and peaks >= 1
print(("PASS" if ok else "FAIL") + f" report_html_sparklines ({spark} block sparklines, {peaks} of two or more peaks)")
links = res["links"].split()
landed = links[1].split(",") if len(links) > 1 else []
ok = int(links[0]) >= 4 and len(landed) == int(links[0]) and all(x.startswith("ok:") for x in landed)
if ok and res["fold"] in ("true", "none"):
    print(f"PASS report_html_links ({links[0]} findings' places clicked, each scrolled its instruction into view: "
          f"{' '.join(landed[:3])} ...; a link into a folded run opened it: {res['fold']})")
else:
    print(f"FAIL report_html_links: {res['links']}; a link into a folded run: {res['fold']}")
PY
# screenshots: the page's top (findings, code) and the annotated code
# through a link (the harness's iframe; not blank)
cat >shot.html <<HTML
<!DOCTYPE html><html><body style="margin:0"><iframe src="report.html#$(grep -o 'href="#a[0-9]*-[0-9a-f]*"' page.html | head -1 | sed 's/href="#//; s/"//')" width="1200" height="880" style="border:0"></iframe></body></html>
HTML
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --window-size=1200,900 \
	--screenshot="$tmp/shot.png" "file://$tmp/page.html" >/dev/null 2>&1
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --allow-file-access-from-files --window-size=1200,900 \
	--virtual-time-budget=3000 --screenshot="$tmp/shot_code.png" "file://$tmp/shot.html" >/dev/null 2>&1
if [ -n "${HWPROF_KEEP_SHOTS:-}" ]; then cp "$tmp/shot.png" "$tmp/shot_code.png" "$HWPROF_KEEP_SHOTS/"; fi
python3 - "$tmp/shot.png" "$tmp/shot_code.png" <<'PY'
import os, struct, sys, zlib
msg = []
for path in sys.argv[1:]:
    data = open(path, "rb").read() if os.path.exists(path) else b""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        print(f"FAIL report_html_screenshot: no PNG written ({os.path.basename(path)})"); sys.exit()
    idat, pos = b"", 8
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + n]
        pos += 12 + n
    distinct = len(set(zlib.decompress(idat)))
    if distinct <= 30:
        print(f"FAIL report_html_screenshot: {os.path.basename(path)} is blank ({distinct} distinct byte values)"); sys.exit()
    msg.append(f"{os.path.basename(path)} {distinct}")
print(f"PASS report_html_screenshot (distinct byte values, not blank: {', '.join(msg)})")
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
out=$(python3 "$tools/report_page_check.py" cg.html "Findings (hwprof advise)" "Annotated code (hwprof annotate)" \
	"Flame graph (hwprof flame)" "Hot branches (hwprof branches)" "Mispredicts (hwprof mispredicts)" \
	"Branch probabilities (hwprof probs)" "Hot blocks (hwprof blocks)" "Block latency (hwprof timing)" \
	Summary 2>&1) && pass "report_html_flame_page ($out)" || fail "report_html_flame_page: $out"
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
