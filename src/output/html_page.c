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
	"input.filter{margin:.3em 0;width:24em}"
	"pre{background:#f7f7f7;padding:.5em}"
	"p.note{color:#555;max-width:60em}";

static const char script[] =
	"(function(){"
	"var nav=document.getElementById('contents');"
	"document.querySelectorAll('section').forEach(function(s){"
	"var a=document.createElement('a');a.href='#'+s.id;a.textContent=s.querySelector('h2').textContent;"
	"nav.appendChild(a);});"
	"document.querySelectorAll('table.hwp').forEach(function(t){"
	"var body=t.tBodies[0],dir={};"
	"t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){"
	"var num=th.classList.contains('n'),rows=Array.prototype.slice.call(body.rows);"
	"dir[i]=dir[i]===1?-1:1;var d=num?-dir[i]:dir[i];"
	"rows.sort(function(a,b){var x=a.cells[i],y=b.cells[i];"
	"if(num){return d*((parseFloat(x.dataset.v)||0)-(parseFloat(y.dataset.v)||0));}"
	"return d*x.textContent.localeCompare(y.textContent);});"
	"rows.forEach(function(r){body.appendChild(r);});});});"
	"var f=document.getElementById(t.dataset.filter);"
	"if(f)f.addEventListener('input',function(){var q=f.value.toLowerCase();"
	"Array.prototype.forEach.call(body.rows,function(r){"
	"r.style.display=r.textContent.toLowerCase().indexOf(q)<0?'none':'';});});"
	"});})();";

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

void hwp__html_page_table(struct hwp_html_page *p, const struct hwp_table *t)
{
	unsigned id = ++p->tables;

	hwp__outbuf_printf(p->o, "<input class=\"filter\" id=\"f%u\" placeholder=\"filter rows\">\n"
			   "<div data-table=\"%u\">", id, id);
	hwp__table_render(t, HWP_TABLE_HTML, p->o);
	hwp__outbuf_puts(p->o, "</div>\n");
	/* the table's filter box, found by the script through data-filter */
	hwp__outbuf_printf(p->o, "<script>(function(){var d=document.querySelector('div[data-table=\"%u\"] table');"
			   "if(d)d.dataset.filter='f%u';})();</script>\n", id, id);
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
