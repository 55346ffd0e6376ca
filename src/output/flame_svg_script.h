/* SPDX-License-Identifier: MIT */
/* The flame graph's script and style, inlined into every SVG. Generated from
 * flame_svg.js by scripts/flame_js.py (edit the .js, then run it): the script
 * uses no backslash and no double quote, so each line is a plain C string. */
#define FLAME_JS \
	"(function () {\n" \
	"'use strict';\n" \
	"/* the graph's own svg element: the document's root standalone, one element\n" \
	"   of the page when the SVG is inlined in HTML (hwprof report) */\n" \
	"var ROOT = (document.currentScript && document.currentScript.closest('svg')) || document.documentElement;\n" \
	"var W, PAD, TOTAL, UNIT, frames = [], details, matched, search, unzoomBtn;\n" \
	"function fit(g, w) {\n" \
	"  var t = g.lastChild, n = g.getAttribute('data-n'), c = Math.floor((w - 6) / 7.1);\n" \
	"  t.textContent = c < 3 ? '' : (n.length <= c ? n : n.slice(0, c - 2) + '..');\n" \
	"}\n" \
	"function pct(v) { return (100 * v / TOTAL).toFixed(2) + '%'; }\n" \
	"function literal(s) {\n" \
	"  var out = '', special = '.*+?^${}()|[]/';\n" \
	"  for (var i = 0; i < s.length; i++) {\n" \
	"    if (special.indexOf(s[i]) >= 0 || s.charCodeAt(i) === 92) out += String.fromCharCode(92);\n" \
	"    out += s[i];\n" \
	"  }\n" \
	"  return out;\n" \
	"}\n" \
	"function zoom(g) {\n" \
	"  if (g && g._d === 0) g = null;\n" \
	"  var x0 = g ? g._x : 0, w0 = g ? g._w : TOTAL, d0 = g ? g._d : 0, sc = (W - 2 * PAD) / w0;\n" \
	"  for (var i = 0; i < frames.length; i++) {\n" \
	"    var f = frames[i], x, w, show = true;\n" \
	"    f.classList.remove('parent');\n" \
	"    if (f._d < d0 && f._x <= x0 && f._x + f._w >= x0 + w0) {\n" \
	"      x = PAD; w = W - 2 * PAD; f.classList.add('parent');\n" \
	"    } else if (f._d >= d0 && f._x >= x0 && f._x + f._w <= x0 + w0) {\n" \
	"      x = PAD + (f._x - x0) * sc; w = f._w * sc;\n" \
	"    } else {\n" \
	"      show = false;\n" \
	"    }\n" \
	"    f.style.display = show ? '' : 'none';\n" \
	"    if (!show) continue;\n" \
	"    f._r.setAttribute('x', x.toFixed(1));\n" \
	"    f._r.setAttribute('width', w.toFixed(1));\n" \
	"    f.lastChild.setAttribute('x', (x + 3).toFixed(1));\n" \
	"    fit(f, w);\n" \
	"  }\n" \
	"  if (g) unzoomBtn.classList.remove('hide'); else unzoomBtn.classList.add('hide');\n" \
	"  ROOT.setAttribute('data-zoom', g ? g.getAttribute('data-n') : '');\n" \
	"}\n" \
	"function find(term) {\n" \
	"  var re = null, hits = [];\n" \
	"  if (term) {\n" \
	"    try { re = new RegExp(term); } catch (e) { re = new RegExp(literal(term)); }\n" \
	"  }\n" \
	"  for (var i = 0; i < frames.length; i++) {\n" \
	"    var f = frames[i], m = !!re && re.test(f.getAttribute('data-n'));\n" \
	"    f._r.setAttribute('fill', m ? 'rgb(230,0,230)' : f._fill);\n" \
	"    if (m) { f.classList.add('hl'); hits.push(f); } else f.classList.remove('hl');\n" \
	"  }\n" \
	"  /* the share: a frame inside another match is counted with it */\n" \
	"  hits.sort(function (a, b) { return a._x - b._x || a._d - b._d; });\n" \
	"  var covered = 0, end = -1;\n" \
	"  for (var k = 0; k < hits.length; k++)\n" \
	"    if (hits[k]._x >= end) { covered += hits[k]._w; end = hits[k]._x + hits[k]._w; }\n" \
	"  matched.textContent = re ? 'Matched: ' + hits.length + ' frames, ' + pct(covered) : '';\n" \
	"  ROOT.setAttribute('data-matches', String(hits.length));\n" \
	"  ROOT.setAttribute('data-matched-share', re ? String(covered / TOTAL) : '');\n" \
	"}\n" \
	"function init() {\n" \
	"  var s = ROOT;\n" \
	"  W = +s.getAttribute('data-width'); PAD = +s.getAttribute('data-pad');\n" \
	"  TOTAL = +s.getAttribute('data-total'); UNIT = s.getAttribute('data-unit');\n" \
	"  details = ROOT.querySelector('#details'); matched = ROOT.querySelector('#matched');\n" \
	"  search = ROOT.querySelector('#search'); unzoomBtn = ROOT.querySelector('#unzoom');\n" \
	"  var gs = ROOT.querySelectorAll('g.f');\n" \
	"  for (var i = 0; i < gs.length; i++) {\n" \
	"    var g = gs[i];\n" \
	"    g._x = +g.getAttribute('data-x'); g._w = +g.getAttribute('data-w'); g._d = +g.getAttribute('data-d');\n" \
	"    g._r = g.querySelector('rect'); g._fill = g._r.getAttribute('fill');\n" \
	"    frames.push(g);\n" \
	"    g.addEventListener('mouseover', function () { details.textContent = this.querySelector('title').textContent; });\n" \
	"    g.addEventListener('mouseout', function () { details.textContent = ' '; });\n" \
	"    g.addEventListener('click', function () { zoom(this); });\n" \
	"  }\n" \
	"  unzoomBtn.addEventListener('click', function () { zoom(null); });\n" \
	"  search.addEventListener('input', function () { find(search.value); });\n" \
	"  zoom(null);\n" \
	"  s.setAttribute('data-ready', '1');\n" \
	"}\n" \
	"window.addEventListener('load', init);\n" \
	"})();\n" \
	""
#define FLAME_CSS \
	"text { font-family: Verdana, sans-serif; font-size: 12px; fill: #000; } " \
	"#title { font-size: 17px; } .f { cursor: pointer; } .f:hover rect { stroke: #000; stroke-width: 0.5; } " \
	".hide { display: none; } .btn { cursor: pointer; fill: #06c; } .parent rect { opacity: 0.5; } " \
	"#search { width: 240px; font-size: 12px; }"
