#!/usr/bin/env python3
"""Checks a `hwprof flame` SVG: against folded stacks, and live in Chromium.

usage: flame_check.py totals FILE.svg FOLDED.txt
       flame_check.py browser FILE.svg FRAME_NAME SEARCH_REGEX
       flame_check.py diff DIFF.svg DIFF_FOLDED.txt BEFORE_FOLDED.txt AFTER_FOLDED.txt

totals: the SVG's frames (data-x, data-w, data-d: position and width in
counts, depth) are put back into a tree by containment, here, and each
frame's width must equal the sum of the folded lines whose stack begins with
that frame's path (frames narrower than the SVG's minimum are left out of
the SVG, not of the folded text).
browser: headless Chromium driven over its DevTools protocol (a pipe, python
stdlib only) loads the SVG, checks the page is not blank (a screenshot with
many colours), hovers the widest frame and checks the details line (name,
count, share), clicks FRAME_NAME's widest frame and checks the zoom (the
frame is now as wide as the graph), types SEARCH_REGEX into the search box
and checks the highlight count and the share shown against the frames whose
name matches, computed here from the SVG.
diff: `--diff --folded` lines ("stack BEFORE AFTER") must hold exactly the
two profiles' folded counts; the differential SVG's widths must be AFTER's
totals and each frame's colour red where its total grew (BEFORE scaled to
AFTER's total), blue where it shrank, as computed here from the folded text.
Prints PASS/FAIL/SKIP lines.
"""
import base64
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zlib
from collections import defaultdict

SVG = "{http://www.w3.org/2000/svg}"


def frames(path):
    root = ET.parse(path).getroot()
    out = []
    for g in root.iter(SVG + "g"):
        if g.get("class") == "f":
            out.append({"n": g.get("data-n"), "x": int(g.get("data-x")), "w": int(g.get("data-w")),
                        "d": int(g.get("data-d"))})
    return root, out


def paths(fr):
    """Each frame's path of names from the root, by containment."""
    by_depth = defaultdict(list)
    for f in fr:
        by_depth[f["d"]].append(f)
    for f in sorted(fr, key=lambda f: f["d"]):
        if f["d"] == 0:
            f["path"] = ()
            continue
        parent = [p for p in by_depth[f["d"] - 1] if p["x"] <= f["x"] and f["x"] + f["w"] <= p["x"] + p["w"]]
        if len(parent) != 1:
            return f"frame {f['n']} at depth {f['d']} has {len(parent)} parents"
        f["path"] = parent[0]["path"] + (f["n"],)
    return None


def totals(svg, folded):
    _, fr = frames(svg)
    err = paths(fr)
    if err:
        print(f"FAIL flame_svg_totals: {err}")
        return 1
    sums = defaultdict(int)
    total = 0
    for line in open(folded):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        names = tuple(stack.split(";"))
        total += int(n)
        for k in range(1, len(names) + 1):
            sums[names[:k]] += int(n)
    sums[()] = total
    bad = [f for f in fr if sums.get(f["path"]) != f["w"]]
    if bad or not fr:
        det = "; ".join(f"{';'.join(f['path'])[-60:]}: svg {f['w']} folded {sums.get(f['path'])}" for f in bad[:3])
        print(f"FAIL flame_svg_totals: {len(bad)} of {len(fr)} frames differ: {det}")
        return 1
    print(f"PASS flame_svg_totals ({len(fr)} frames equal their folded totals, {total} in all)")
    return 0


class Chrome:
    def __init__(self, exe, profile):
        r1, w1 = os.pipe()  # we write, chrome reads fd 3
        r2, w2 = os.pipe()  # chrome writes fd 4, we read

        def fds():
            os.dup2(r1, 3)
            os.dup2(w2, 4)
        self.p = subprocess.Popen([exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                                   "--user-data-dir=" + profile, "--window-size=1200,900", "about:blank"],
                                  preexec_fn=fds, pass_fds=sorted({3, 4, r1, w2}), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        os.close(r1)
        os.close(w2)
        self.w, self.r = os.fdopen(w1, "wb", buffering=0), os.fdopen(r2, "rb", buffering=0)
        self.buf, self.id, self.events, self.session = b"", 0, [], None

    def _read(self):
        while b"\0" not in self.buf:
            chunk = self.r.read(65536)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method, params=None, session=True):
        self.id += 1
        m = {"id": self.id, "method": method, "params": params or {}}
        if session and self.session:
            m["sessionId"] = self.session
        self.w.write(json.dumps(m).encode() + b"\0")
        while True:
            r = self._read()
            if r.get("id") == self.id:
                if "error" in r:
                    raise RuntimeError(f"{method}: {r['error']}")
                return r.get("result", {})
            self.events.append(r)

    def wait_event(self, method, timeout=20):
        end = time.time() + timeout
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e.get("method") == method:
                    del self.events[i]
                    return e
            self.events.append(self._read())
        raise RuntimeError(f"no {method} within {timeout}s")

    def js(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def png_colours(data):
    """Distinct RGB(A) pixels of a PNG (8-bit RGB/RGBA, as Chromium writes)."""
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours = set()
    i = 0
    while i < len(raw):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        for x in range(0, stride, bpp * 7):  # every 7th pixel is enough
            colours.add(bytes(line[x:x + 3]))
    return len(colours)


def browser(svg, frame_name, regex):
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not exe:
        print("SKIP flame_chromium: chromium not installed (apt-get install chromium)")
        return 0
    root, fr = frames(svg)
    profile = tempfile.mkdtemp()
    c = Chrome(exe, profile)
    ok = True
    try:
        targets = c.call("Target.getTargets", session=False)["targetInfos"]
        page = [t for t in targets if t["type"] == "page"][0]
        c.session = c.call("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True},
                           session=False)["sessionId"]
        c.call("Page.enable")
        c.call("Page.navigate", {"url": "file://" + os.path.abspath(svg)})
        c.wait_event("Page.loadEventFired")
        for _ in range(50):
            if c.js("document.documentElement.getAttribute('data-ready')") == "1":
                break
            time.sleep(0.1)
        else:
            print("FAIL flame_chromium_load: the script did not run (no data-ready)")
            return 1
        shot = base64.b64decode(c.call("Page.captureScreenshot", {"format": "png"})["data"])
        ncol = png_colours(shot)
        shown = c.js("Array.from(document.querySelectorAll('g.f rect')).filter(r => r.getBoundingClientRect().width > 0).length")
        if ncol >= 8 and shown == len(fr) and len(fr) > 3:
            print(f"PASS flame_chromium_not_blank ({shown} frames drawn, {ncol} colours in the screenshot)")
        else:
            ok = False
            print(f"FAIL flame_chromium_not_blank: {shown} of {len(fr)} frames drawn, {ncol} colours")

        # hover: the details line names the frame, its count and share
        total = int(root.get("data-total"))
        unit = root.get("data-unit")
        h = max((f for f in fr if f["d"] >= 1), key=lambda f: f["w"])
        hsel = f"g.f[data-x='{h['x']}'][data-d='{h['d']}']"
        hb = c.js(f"(() => {{ const r = document.querySelector(\"{hsel}\").querySelector('rect');"
                  f" r.scrollIntoView({{block: 'center'}}); const b = r.getBoundingClientRect();"
                  f" return [b.x + b.width / 2, b.y + b.height / 2]; }})()")
        c.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": hb[0], "y": hb[1]})
        details = c.js("document.getElementById('details').textContent")
        want = f"{h['n']} ({h['w']} {unit}, {100 * h['w'] / total:.2f}%)"
        if details == want:
            print(f"PASS flame_chromium_hover ('{details}')")
        else:
            ok = False
            print(f"FAIL flame_chromium_hover: '{details}', expected '{want}'")

        # click: the widest frame of that name, at its centre, as a user would
        cands = [f for f in fr if f["n"] == frame_name]
        if not cands:
            print(f"FAIL flame_chromium_zoom: no frame {frame_name} in the SVG")
            return 1
        f = max(cands, key=lambda f: f["w"])
        sel = f"g.f[data-x='{f['x']}'][data-d='{f['d']}']"
        # (a deep graph is taller than the window: bring the frame into view)
        box = c.js(f"(() => {{ const r = document.querySelector(\"{sel}\").querySelector('rect');"
                   f" r.scrollIntoView({{block: 'center'}}); const b = r.getBoundingClientRect();"
                   f" return [b.x + b.width / 2, b.y + b.height / 2, b.width]; }})()")
        for t in ("mouseMoved", "mousePressed", "mouseReleased"):
            c.call("Input.dispatchMouseEvent", {"type": t, "x": box[0], "y": box[1], "button": "left", "clickCount": 1})
        after = c.js(f"document.querySelector(\"{sel}\").querySelector('rect').getBoundingClientRect().width")
        full = c.js("document.querySelector(\"g.f[data-d='0']\").querySelector('rect').getBoundingClientRect().width")
        zoom = c.js("document.documentElement.getAttribute('data-zoom')")
        hidden = c.js("Array.from(document.querySelectorAll('g.f')).filter(g => g.style.display == 'none').length")
        expect_hidden = sum(1 for g in fr if not (
            (g["d"] < f["d"] and g["x"] <= f["x"] and g["x"] + g["w"] >= f["x"] + f["w"]) or
            (g["d"] >= f["d"] and g["x"] >= f["x"] and g["x"] + g["w"] <= f["x"] + f["w"])))
        if zoom == frame_name and abs(after - full) < 1 and after > box[2] + 1 and hidden == expect_hidden:
            print(f"PASS flame_chromium_zoom (clicked {frame_name}: {box[2]:.0f} -> {after:.0f} px, "
                  f"{hidden} frames outside it hidden)")
        else:
            ok = False
            print(f"FAIL flame_chromium_zoom: zoom '{zoom}', width {box[2]:.1f} -> {after:.1f} (full {full:.1f}), "
                  f"hidden {hidden} (expected {expect_hidden})")

        # search: focus the box by clicking it, type
        sb = c.js("(() => { const e = document.getElementById('search'); e.scrollIntoView({block: 'center'});"
                  " const b = e.getBoundingClientRect(); return [b.x + 5, b.y + 5]; })()")
        for t in ("mousePressed", "mouseReleased"):
            c.call("Input.dispatchMouseEvent", {"type": t, "x": sb[0], "y": sb[1], "button": "left", "clickCount": 1})
        c.call("Input.insertText", {"text": regex})
        time.sleep(0.2)
        rx = re.compile(regex)
        hits = sorted((g for g in fr if rx.search(g["n"])), key=lambda g: (g["x"], g["d"]))
        covered, end = 0, -1
        for g in hits:
            if g["x"] >= end:
                covered += g["w"]
                end = g["x"] + g["w"]
        total = int(root.get("data-total"))
        want_text = f"Matched: {len(hits)} frames, {100 * covered / total:.2f}%"
        got = c.js("document.querySelectorAll('g.f.hl').length")
        purple = c.js("Array.from(document.querySelectorAll('g.f rect')).filter(r => r.getAttribute('fill') == 'rgb(230,0,230)').length")
        text = c.js("document.getElementById('matched').textContent")
        if hits and got == len(hits) and purple == len(hits) and text == want_text:
            print(f"PASS flame_chromium_search ('{regex}': {got} frames highlighted, '{text}')")
        else:
            ok = False
            print(f"FAIL flame_chromium_search: '{regex}': {got} highlighted ({purple} purple), '{text}'; "
                  f"expected {len(hits)}, '{want_text}'")
    except Exception as e:  # a protocol failure is a failure, with its reason
        ok = False
        print(f"FAIL flame_chromium: {e}")
    finally:
        c.close()
        shutil.rmtree(profile, ignore_errors=True)
    return 0 if ok else 1


def read_folded(path):
    c = defaultdict(int)
    for line in open(path):
        stack, _, n = line.rstrip("\n").rpartition(" ")
        c[stack] += int(n)
    return c


def diff(svg, dfold, bfold, afold):
    before, after = read_folded(bfold), read_folded(afold)
    b2, a2 = defaultdict(int), defaultdict(int)
    for line in open(dfold):
        parts = line.rstrip("\n").rsplit(" ", 2)
        b2[parts[0]] += int(parts[1])
        a2[parts[0]] += int(parts[2])
    rc = 0
    strip = lambda d: {k: v for k, v in d.items() if v}
    if strip(b2) == strip(before) and strip(a2) == strip(after):
        print(f"PASS flame_diff_folded ({len(set(b2) | set(a2))} stacks, before and after columns exact)")
    else:
        print("FAIL flame_diff_folded: the BEFORE/AFTER columns are not the two profiles' folded counts")
        rc = 1
    root, fr = frames(svg)
    err = paths(fr)
    if err:
        print(f"FAIL flame_diff_svg: {err}")
        return 1
    bs, as_ = defaultdict(int), defaultdict(int)
    for src, dst in ((before, bs), (after, as_)):
        for stack, n in src.items():
            names = tuple(stack.split(";"))
            dst[()] += n
            for k in range(1, len(names) + 1):
                dst[names[:k]] += n
    scale = as_[()] / bs[()]
    fills = {}
    for g in ET.parse(svg).getroot().iter(SVG + "g"):
        if g.get("class") == "f":
            fills[(int(g.get("data-x")), int(g.get("data-d")))] = g.find(SVG + "rect").get("fill")
    bad, red, blue = [], 0, 0
    for f in fr:
        delta = as_[f["path"]] - scale * bs[f["path"]]
        fill = fills[(f["x"], f["d"])]
        m = re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", fill)
        r, g_, b = map(int, m.groups())
        colour = "red" if r == 255 and b < 255 else "blue" if b == 255 and r < 255 else "white"
        want = "red" if delta > 0.5 else "blue" if delta < -0.5 else None
        if f["w"] != as_[f["path"]] or (want and colour != want and not (colour == "white" and abs(delta) < 0.01 * as_[()])):
            bad.append((f, delta, fill))
        red += colour == "red"
        blue += colour == "blue"
    if bad or not red or not blue:
        det = "; ".join(f"{';'.join(f['path'])[-50:]}: delta {d:.1f} fill {fl}" for f, d, fl in bad[:3])
        print(f"FAIL flame_diff_svg: {len(bad)} frames wrong ({red} red, {blue} blue): {det}")
        return 1
    print(f"PASS flame_diff_svg ({len(fr)} frames: widths are AFTER's, {red} red grew, {blue} blue shrank)")
    return rc


if __name__ == "__main__":
    if sys.argv[1] == "diff":
        sys.exit(diff(*sys.argv[2:6]))
    if sys.argv[1] == "totals":
        sys.exit(totals(sys.argv[2], sys.argv[3]))
    sys.exit(browser(sys.argv[2], sys.argv[3], sys.argv[4]))
