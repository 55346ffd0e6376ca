/* SPDX-License-Identifier: MIT */
/*
 * One self-contained HTML page (no network, no external script or style):
 * sections of tables, SVG charts and notes, with a contents list, each
 * table sortable by a click on its header and filtered by a text box.
 *
 *     struct hwp_html_page *p = hwp__html_page_new(&out, "hwprof report: perf.data");
 *     hwp__html_page_section(p, "Hot branches", "Taken branches by symbol.");
 *     hwp__html_page_table(p, table);
 *     hwp__html_page_finish(p);
 */
#ifndef HWPROF_HTML_PAGE_H
#define HWPROF_HTML_PAGE_H

#include <stddef.h>

#include "hwprof/hwprof.h"
#include "hwprof/table.h"
#include "outbuf.h"

HWP_BEGIN_DECLS

struct hwp_html_page;

/* Starts the page on O (which must outlive it). NULL + errno on ENOMEM. */
struct hwp_html_page *hwp__html_page_new(struct hwp_outbuf *o, const char *title);
/* A new section: TITLE (escaped) and a NOTE paragraph (escaped; NULL: none). */
void hwp__html_page_section(struct hwp_html_page *p, const char *title, const char *note);
/* T's people's columns as a sortable, filterable table. */
void hwp__html_page_table(struct hwp_html_page *p, const struct hwp_table *t);
/* The same shown as HO says (output/render.h): the rows past HO's visible
   behind a "show all" button, the sparse columns as details, links. */
struct hwp__html_table_opts;
void hwp__html_page_table_opts(struct hwp_html_page *p, const struct hwp_table *t,
			       const struct hwp__html_table_opts *ho);
/* The page's output, for a writer of its own markup inside the current
   section (the classes it may use are the page's style's). */
struct hwp_outbuf *hwp__html_page_out(struct hwp_html_page *p);
/* An SVG document or fragment, inlined as is (it must be well-formed;
   a leading XML declaration is dropped). */
void hwp__html_page_svg(struct hwp_html_page *p, const char *svg, size_t len);
/* Preformatted text (escaped). */
void hwp__html_page_text(struct hwp_html_page *p, const char *text);
/* Ends the page and frees P; O's error (0 or <0). */
int hwp__html_page_finish(struct hwp_html_page *p);

HWP_END_DECLS

#endif
