/* SPDX-License-Identifier: MIT */
/*
 * The self-contained report page (html_page.h). Style and script are
 * inlined; the script builds the contents list from the sections, sorts a
 * table by the clicked column (numbers by their data-v value) and filters
 * its rows by the text box above it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/html_page.h"
#include "output/markup.h"
#include "output/render.h"
#include "util/error.h"

struct hwp_html_page {
	struct hwp_outbuf *o;
	unsigned sections, tables;
	bool in_section;
};

static const char style[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:0 2em 2em;color:#222}"
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccc}"
	"nav a{margin-right:1em}"
	"table.hwp{border-collapse:collapse;font:12px ui-monospace,monospace;margin:.5em 0}"
	"table.hwp th{background:#eef;cursor:pointer;position:sticky;top:0;padding:2px 6px;text-align:left}"
	"table.hwp th.n,table.hwp td.n{text-align:right}"
	"table.hwp td{padding:1px 6px;border-bottom:1px solid #eee;white-space:nowrap}"
	"table.hwp td:last-child{white-space:normal;min-width:24em}"
	"table.hwp tr:hover td{background:#ffd}"
	"table.hwp:not(.all) tr.more{display:none}"
	"table.hwp td.d{color:#555;font-size:11px}table.hwp td.d span{margin-right:.8em}"
	"table.hwp td.w{white-space:normal;min-width:18em}table.hwp td.d{min-width:12em;max-width:20em}"
	"button.more{font-size:12px;margin:0 0 .5em}"
	"input.filter{margin:.3em 0;width:24em}"
	"pre{background:#f7f7f7;padding:.5em}"
	"p.note{color:#555;max-width:60em}"
	/* the annotated code (html_annotate.c) */
	"ul.fns{font:12px ui-monospace,monospace;columns:2;max-width:80em}"
	".fn{margin:1em 0 2.5em}.fn h3{font:bold 13px ui-monospace,monospace;margin:.3em 0}"
	".fn h3 small{font-weight:normal;color:#555}"
	".code{position:relative;display:inline-block}"
	"table.asm{border-collapse:collapse;font:12px/1.4 ui-monospace,monospace}"
	"table.asm th{background:#eef;padding:2px 5px;text-align:right;position:sticky;top:0;z-index:1;font-weight:normal}"
	"table.asm th.t{text-align:left}"
	"table.asm td{padding:0 5px;white-space:nowrap;text-align:right}"
	"table.asm td.t{text-align:left}table.asm td.ad{color:#888}"
	"table.asm td.ar,table.asm th.ar{padding:0}"
	"table.asm td.x{color:#555;text-align:left;max-width:28em;overflow:hidden;text-overflow:ellipsis}"
	"table.asm tr.src td{text-align:left;color:#555;background:#f4f4ee;white-space:pre;tab-size:4;padding-top:1px}"
	"table.asm tr.src td.ln{color:#997;text-align:right}table.asm tr.src td.ar{background:none}"
	"table.asm tr.h5 td.s{color:#c00;font-weight:bold}table.asm tr.h05 td.s{color:#070}"
	"table.asm tr.i:hover td{background:#ffd}table.asm tr:target td{background:#ffd27a}"
	/* a row landed on stands clear of the sticky header */
	"table.asm tr{scroll-margin-top:30vh}"
	"table.asm a{color:inherit}"
	"tbody.fold td{text-align:left;color:#777;padding:2px 5px}"
	"svg.arrows{position:absolute;left:0;top:0;pointer-events:none}"
	"svg.arrows path{fill:none;stroke-width:1.3}"
	"svg.arrows path.fwd{stroke:#36c}svg.arrows path.back{stroke:#d50}"
	"svg.spark{vertical-align:middle;margin-right:4px}svg.spark rect{fill:#357}svg.spark rect.bg{fill:#e8ecf4}"
	"svg.spark line{stroke:#d00;stroke-width:2}";

/* The page's behaviour: the contents list; per table sorting (rows past
   the shown ones stay "more"), filtering and its "show all" button; per
   annotated function the jumps' arrows, drawn from the rows' positions
   (so source lines and folded runs may sit between them), the folded runs
   of instructions opened on a click or when a link lands inside one. */
static const char script[] =
	"(function(){"
	"var nav=document.getElementById('contents');"
	"document.querySelectorAll('section').forEach(function(s){"
	"var a=document.createElement('a');a.href='#'+s.id;a.textContent=s.querySelector('h2').textContent;"
	"nav.appendChild(a);});"
	"document.querySelectorAll('table.hwp').forEach(function(t){"
	"var body=t.tBodies[0],dir={},vis=+t.dataset.visible||0;"
	"t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){"
	"var num=th.classList.contains('n'),rows=Array.prototype.slice.call(body.rows);"
	"dir[i]=dir[i]===1?-1:1;var d=num?-dir[i]:dir[i];"
	"rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i];"
	"if(num){return d*((parseFloat(x.dataset.v)||0)-(parseFloat(y.dataset.v)||0));}"
	"return d*x.textContent.localeCompare(y.textContent);});"
	"rows.forEach(function(r,k){body.appendChild(r);if(vis)r.classList.toggle('more',k>=vis);});});});"
	"var f=document.getElementById(t.dataset.filter);"
	"if(f)f.addEventListener('input',function(){var q=f.value.toLowerCase();"
	"t.classList.toggle('all',q!==''||t.dataset.open==='1');"
	"Array.prototype.forEach.call(body.rows,function(r){"
	"r.style.display=r.textContent.toLowerCase().indexOf(q)<0?'none':'';});});"
	"var b=document.getElementById(t.dataset.more);"
	"if(b)b.addEventListener('click',function(){var o=t.dataset.open!=='1';t.dataset.open=o?'1':'';"
	"t.classList.toggle('all',o);b.textContent=o?b.dataset.less:b.dataset.all;});"
	"});"
	"var NS='http://www.w3.org/2000/svg';"
	"function pos(r){var b=r.parentNode;if(b.hidden&&b.previousElementSibling)r=b.previousElementSibling.rows[0];"
	"return r.getBoundingClientRect();}"
	"function arrows(t){var box=t.parentNode,old=box.querySelector('svg.arrows');if(old)box.removeChild(old);"
	"var c=t.querySelector('th.ar');if(!c)return;var o=box.getBoundingClientRect(),"
	"right=c.getBoundingClientRect().right-o.left-1,svg=document.createElementNS(NS,'svg'),n=0;"
	"svg.setAttribute('class','arrows');svg.setAttribute('width',o.width);svg.setAttribute('height',o.height);"
	"t.querySelectorAll('tr[data-to]').forEach(function(r){var to=document.getElementById(r.dataset.to);"
	"if(!to)return;var a=pos(r),e=pos(to);if(!a.height||!e.height)return;"
	"var y1=a.top+a.height/2-o.top,y2=e.top+e.height/2-o.top,x=right-5-6*(+r.dataset.lane||0),"
	"p=document.createElementNS(NS,'path');"
	"p.setAttribute('d','M'+right+' '+y1+'H'+x+'V'+y2+'H'+right+'m-4 -3l4 3l-4 3');"
	"p.setAttribute('class',y2<y1?'back':'fwd');if(r.dataset.p)p.style.opacity=.25+.75*r.dataset.p;"
	"svg.appendChild(p);n++;});svg.setAttribute('data-n',n);box.appendChild(svg);}"
	"function draw(){document.querySelectorAll('table.asm').forEach(arrows);}"
	"function unfold(f){var c=f.nextElementSibling;if(c&&c.hidden){c.hidden=false;f.hidden=true;}}"
	"document.querySelectorAll('tbody.fold button').forEach(function(b){b.addEventListener('click',function(){"
	"var f=b.closest('tbody');unfold(f);arrows(f.closest('table'));});});"
	"function reveal(){var id=decodeURIComponent(location.hash.slice(1)),r=id&&document.getElementById(id);"
	"if(!r||!r.closest('table.asm'))return;var b=r.parentNode;"
	"if(b.hidden&&b.previousElementSibling){unfold(b.previousElementSibling);arrows(r.closest('table'));}"
	"r.scrollIntoView({block:'center'});}"
	"draw();window.addEventListener('resize',draw);window.addEventListener('hashchange',reveal);"
	"if(location.hash)reveal();"
	"})();";

struct hwp_html_page *hwp__html_page_new(struct hwp_outbuf *o, const char *title)
{
	struct hwp_html_page *p = calloc(1, sizeof(*p));

	if (!p) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	p->o = o;
	hwp__outbuf_puts(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>");
	hwp__markup_escape(o, title);
	hwp__outbuf_printf(o, "</title>\n<style>%s</style></head>\n<body>\n<h1>", style);
	hwp__markup_escape(o, title);
	hwp__outbuf_puts(o, "</h1>\n<nav id=\"contents\"></nav>\n");
	return p;
}

static void end_section(struct hwp_html_page *p)
{
	if (p->in_section)
		hwp__outbuf_puts(p->o, "</section>\n");
	p->in_section = false;
}

void hwp__html_page_section(struct hwp_html_page *p, const char *title, const char *note)
{
	end_section(p);
	hwp__outbuf_printf(p->o, "<section id=\"s%u\"><h2>", ++p->sections);
	hwp__markup_escape(p->o, title);
	hwp__outbuf_puts(p->o, "</h2>\n");
	if (note) {
		hwp__outbuf_puts(p->o, "<p class=\"note\">");
		hwp__markup_escape(p->o, note);
		hwp__outbuf_puts(p->o, "</p>\n");
	}
	p->in_section = true;
}

void hwp__html_page_table_opts(struct hwp_html_page *p, const struct hwp_table *t,
			       const struct hwp__html_table_opts *ho)
{
	unsigned id = ++p->tables;
	size_t rows = hwp_table__rows(t);
	bool more = ho && ho->visible && ho->visible < rows;

	hwp__outbuf_printf(p->o, "<input class=\"filter\" id=\"f%u\" placeholder=\"filter rows\">\n"
			   "<div data-table=\"%u\">", id, id);
	hwp__table_render_html(t, p->o, ho);
	hwp__outbuf_puts(p->o, "</div>\n");
	if (more)
		hwp__outbuf_printf(p->o, "<button class=\"more\" id=\"m%u\" data-all=\"show all %zu rows\" "
				   "data-less=\"show the first %zu rows\">show all %zu rows</button>\n",
				   id, rows, ho->visible, rows);
	/* the table's filter box and button, found by the script through data-filter and data-more */
	hwp__outbuf_printf(p->o, "<script>(function(){var d=document.querySelector('div[data-table=\"%u\"] table');"
			   "if(d){d.dataset.filter='f%u';d.dataset.more='m%u';}})();</script>\n", id, id, id);
}

void hwp__html_page_table(struct hwp_html_page *p, const struct hwp_table *t)
{
	hwp__html_page_table_opts(p, t, NULL);
}

struct hwp_outbuf *hwp__html_page_out(struct hwp_html_page *p)
{
	return p->o;
}

void hwp__html_page_svg(struct hwp_html_page *p, const char *svg, size_t len)
{
	/* an XML declaration is not allowed inside HTML */
	if (len > 5 && !strncmp(svg, "<?xml", 5)) {
		const char *e = memchr(svg, '>', len);

		if (e) {
			len -= (size_t)(e + 1 - svg);
			svg = e + 1;
		}
	}
	hwp__outbuf_puts(p->o, "<div class=\"chart\">");
	hwp__outbuf_write(p->o, svg, len);
	hwp__outbuf_puts(p->o, "</div>\n");
}

void hwp__html_page_text(struct hwp_html_page *p, const char *text)
{
	hwp__outbuf_puts(p->o, "<pre>");
	hwp__markup_escape(p->o, text);
	hwp__outbuf_puts(p->o, "</pre>\n");
}

int hwp__html_page_finish(struct hwp_html_page *p)
{
	struct hwp_outbuf *o = p->o;

	end_section(p);
	hwp__outbuf_printf(o, "<script>%s</script>\n</body></html>\n", script);
	free(p);
	return o->err ? -o->err : 0;
}
