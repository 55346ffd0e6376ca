#!/bin/bash
# hwprof timing --svg in a real browser: the occurrence-rate chart of a
# bimodal block (tests/tools/gen_timing) is parsed by Python's XML parser,
# then opened in headless Chromium (Debian 'chromium'): its screenshot is
# not blank (decoded by tests/tools/png_pixels.py: enough non-background
# pixels, the bar and mark colours present), while a control SVG holding
# only the background is blank by the same measure; and Chromium's DOM holds
# one bar per cycle value hwprof's table lists, both axis labels, tick
# labels, and one mark per mode. The --loops chart must parse too.
set -u
root=${HWPROF_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
HWPROF=${HWPROF:-$build/hwprof}
# PLAN: 1 checks, and Chromium's 2 (1 SKIP without it)
if [ -n "$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)" ]; then
	echo "PLAN $((1 + 2))"
else
	echo "PLAN $((1 + 1))"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$build/tests/tools/gen_timing" "$tmp/t.data" "$tmp/truth.txt" --samples 400 >/dev/null || {
	echo "FAIL timing_svg: gen_timing failed"
	exit 0
}
if ! "$HWPROF" timing -q -i "$tmp/t.data" --block 0x401000 --svg "$tmp/chart.svg" --csv >"$tmp/rows.csv" ||
	! "$HWPROF" timing -q -i "$tmp/t.data" --loops --svg "$tmp/loop.svg" >/dev/null; then
	echo "FAIL timing_svg: hwprof timing --svg failed"
	exit 0
fi
values=$(($(wc -l <"$tmp/rows.csv") - 1))
modes=$("$HWPROF" timing -q -i "$tmp/t.data" --csv | awk -F, 'NR > 1 && $0 ~ /,0x401000,/ { print $15 }')
if python3 -c '
import sys, xml.etree.ElementTree as ET
for f in sys.argv[1:]:
    ET.parse(f)' "$tmp/chart.svg" "$tmp/loop.svg" 2>"$tmp/xml.err"; then
	echo "PASS timing_svg_xml (the block and loop charts parse as XML)"
else
	echo "FAIL timing_svg_xml: $(tail -1 "$tmp/xml.err")"
fi

browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
	echo "SKIP timing_svg_chromium: no chromium (apt-get install chromium)"
	exit 0
fi
shot() { # SVG PNG
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$tmp/profile" \
		--window-size=900,500 --screenshot="$2" "file://$1" >/dev/null 2>&1
}
printf '<svg xmlns="http://www.w3.org/2000/svg" width="900" height="500"><rect width="900" height="500" fill="#ffffff"/></svg>\n' >"$tmp/blank.svg"
if ! shot "$tmp/chart.svg" "$tmp/chart.png" || ! shot "$tmp/blank.svg" "$tmp/blank.png"; then
	echo "FAIL timing_svg_chromium: chromium took no screenshot"
	exit 0
fi
python3 "$root/tests/tools/png_pixels.py" "$tmp/chart.png" '#0072b2' '#d55e00' >"$tmp/chart.json"
python3 "$root/tests/tools/png_pixels.py" "$tmp/blank.png" '#0072b2' '#d55e00' >"$tmp/blank.json"
python3 - "$tmp/chart.json" "$tmp/blank.json" <<'PY'
import json, sys
c, b = (json.load(open(f)) for f in sys.argv[1:3])
def blank(p):
    return p["non_background"] < 0.02 or p["colours"] < 10
bad = []
if blank(c):
    bad.append(f"chart screenshot blank: {c}")
if not blank(b):
    bad.append(f"the control (background only) is not blank by this measure: {b}")
if c["near"]["#0072b2"] < 500:
    bad.append(f"few bar-coloured pixels: {c['near']}")
if c["near"]["#d55e00"] < 50:
    bad.append(f"few mark-coloured pixels: {c['near']}")
print(("FAIL timing_svg_screenshot: " + "; ".join(bad)) if bad else
      f"PASS timing_svg_screenshot ({c['width']}x{c['height']}, {100 * c['non_background']:.1f}% drawn, "
      f"{c['colours']} colours, {c['near']['#0072b2']} bar pixels; control {100 * b['non_background']:.2f}% drawn)")
PY
if ! timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" --dump-dom \
	"file://$tmp/chart.svg" >"$tmp/dom.xml" 2>/dev/null || [ ! -s "$tmp/dom.xml" ]; then
	echo "FAIL timing_svg_dom: chromium dumped no DOM"
	exit 0
fi
python3 - "$tmp/dom.xml" "$values" "${modes:-0}" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
values, modes = int(sys.argv[2]), int(sys.argv[3])
ns = "{http://www.w3.org/2000/svg}"
def cls(tag, c):
    return [e for e in root.iter(ns + tag) if e.get("class") == c]
bad = []
if any("parsererror" in e.tag for e in root.iter()):
    bad.append("Chromium reports a parse error")
bars = cls("rect", "bar")
if len(bars) != values:
    bad.append(f"{len(bars)} bars, hwprof lists {values} cycle values")
labels = [e.text for e in cls("text", "axis-label")]
if labels != ["cycles", "occurrence rate"]:
    bad.append(f"axis labels {labels}")
ticks = [e.text for e in cls("text", "tick-label")]
if len(ticks) < 8 or not any(t.endswith("%") for t in ticks):
    bad.append(f"tick labels {ticks}")
marks = [e.text for e in cls("text", "mark-label")]
if len(cls("line", "mark")) != modes or len(marks) != modes or not modes:
    bad.append(f"{len(marks)} mode marks, hwprof found {modes} modes")
print(("FAIL timing_svg_dom: " + "; ".join(bad)) if bad else
      f"PASS timing_svg_dom ({len(bars)} bars, axes {labels}, {len(ticks)} tick labels, marks {marks})")
PY
