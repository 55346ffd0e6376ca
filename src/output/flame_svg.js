(function () {
'use strict';
/* the graph's own svg element: the document's root standalone, one element
   of the page when the SVG is inlined in HTML (hwprof report) */
var ROOT = (document.currentScript && document.currentScript.closest('svg')) || document.documentElement;
var W, PAD, TOTAL, UNIT, frames = [], details, matched, search, unzoomBtn;
function fit(g, w) {
	var t = g.lastChild, n = g.getAttribute('data-n'), c = Math.floor((w - 6) / 7.1);
	t.textContent = c < 3 ? '' : (n.length <= c ? n : n.slice(0, c - 2) + '..');
}
function pct(v) { return (100 * v / TOTAL).toFixed(2) + '%'; }
function literal(s) {
	var out = '', special = '.*+?^${}()|[]/';
	for (var i = 0; i < s.length; i++) {
		if (special.indexOf(s[i]) >= 0 || s.charCodeAt(i) === 92) out += String.fromCharCode(92);
		out += s[i];
	}
	return out;
}
function zoom(g) {
	if (g && g._d === 0) g = null;
	var x0 = g ? g._x : 0, w0 = g ? g._w : TOTAL, d0 = g ? g._d : 0, sc = (W - 2 * PAD) / w0;
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i], x, w, show = true;
		f.classList.remove('parent');
		if (f._d < d0 && f._x <= x0 && f._x + f._w >= x0 + w0) {
			x = PAD; w = W - 2 * PAD; f.classList.add('parent');
		} else if (f._d >= d0 && f._x >= x0 && f._x + f._w <= x0 + w0) {
			x = PAD + (f._x - x0) * sc; w = f._w * sc;
		} else {
			show = false;
		}
		f.style.display = show ? '' : 'none';
		if (!show) continue;
		f._r.setAttribute('x', x.toFixed(1));
		f._r.setAttribute('width', w.toFixed(1));
		f.lastChild.setAttribute('x', (x + 3).toFixed(1));
		fit(f, w);
	}
	if (g) unzoomBtn.classList.remove('hide'); else unzoomBtn.classList.add('hide');
	ROOT.setAttribute('data-zoom', g ? g.getAttribute('data-n') : '');
}
function find(term) {
	var re = null, hits = [];
	if (term) {
		try { re = new RegExp(term); } catch (e) { re = new RegExp(literal(term)); }
	}
	for (var i = 0; i < frames.length; i++) {
		var f = frames[i], m = !!re && re.test(f.getAttribute('data-n'));
		f._r.setAttribute('fill', m ? 'rgb(230,0,230)' : f._fill);
		if (m) { f.classList.add('hl'); hits.push(f); } else f.classList.remove('hl');
	}
	/* the share: a frame inside another match is counted with it */
	hits.sort(function (a, b) { return a._x - b._x || a._d - b._d; });
	var covered = 0, end = -1;
	for (var k = 0; k < hits.length; k++)
		if (hits[k]._x >= end) { covered += hits[k]._w; end = hits[k]._x + hits[k]._w; }
	matched.textContent = re ? 'Matched: ' + hits.length + ' frames, ' + pct(covered) : '';
	ROOT.setAttribute('data-matches', String(hits.length));
	ROOT.setAttribute('data-matched-share', re ? String(covered / TOTAL) : '');
}
function init() {
	var s = ROOT;
	W = +s.getAttribute('data-width'); PAD = +s.getAttribute('data-pad');
	TOTAL = +s.getAttribute('data-total'); UNIT = s.getAttribute('data-unit');
	details = ROOT.querySelector('#details'); matched = ROOT.querySelector('#matched');
	search = ROOT.querySelector('#search'); unzoomBtn = ROOT.querySelector('#unzoom');
	var gs = ROOT.querySelectorAll('g.f');
	for (var i = 0; i < gs.length; i++) {
		var g = gs[i];
		g._x = +g.getAttribute('data-x'); g._w = +g.getAttribute('data-w'); g._d = +g.getAttribute('data-d');
		g._r = g.querySelector('rect'); g._fill = g._r.getAttribute('fill');
		frames.push(g);
		g.addEventListener('mouseover', function () { details.textContent = this.querySelector('title').textContent; });
		g.addEventListener('mouseout', function () { details.textContent = ' '; });
		g.addEventListener('click', function () { zoom(this); });
	}
	unzoomBtn.addEventListener('click', function () { zoom(null); });
	search.addEventListener('input', function () { find(search.value); });
	zoom(null);
	s.setAttribute('data-ready', '1');
}
window.addEventListener('load', init);
})();
