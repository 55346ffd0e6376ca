/* SPDX-License-Identifier: MIT */
/*
 * One self-contained HTML page (no network, no external script or style):
 * sections of tables, SVG charts and notes, with a contents list, each
 * table sortable by a click on its header and filtered by a text box.
 *
 *     struct hwp_html_page *p = hwp_html_page__new(&out, "hwprof report: perf.data");
 *     hwp_html_page__section(p, "Hot branches", "Taken branches by symbol.");
 *     hwp_html_page__table(p, table);
 *     hwp_html_page__finish(p);
 */
#ifndef HWPROF_HTML_PAGE_H
#define HWPROF_HTML_PAGE_H

#include <stddef.h>

#include "hwprof/hwprof.h"
#include "hwprof/outbuf.h"
#include "hwprof/table.h"

HWP_BEGIN_DECLS

struct hwp_html_page;

/* Starts the page on O (which must outlive it). NULL + errno on ENOMEM. */
HWP_API struct hwp_html_page *hwp_html_page__new(struct hwp_outbuf *o, const char *title);
/* A new section: TITLE (escaped) and a NOTE paragraph (escaped; NULL: none). */
HWP_API void hwp_html_page__section(struct hwp_html_page *p, const char *title, const char *note);
/* T's people's columns as a sortable, filterable table. */
HWP_API void hwp_html_page__table(struct hwp_html_page *p, const struct hwp_table *t);
/* An SVG document or fragment, inlined as is (it must be well-formed;
   a leading XML declaration is dropped). */
HWP_API void hwp_html_page__svg(struct hwp_html_page *p, const char *svg, size_t len);
/* Preformatted text (escaped). */
HWP_API void hwp_html_page__text(struct hwp_html_page *p, const char *text);
/* Ends the page and frees P; O's error (0 or <0). */
HWP_API int hwp_html_page__finish(struct hwp_html_page *p);

HWP_END_DECLS

#endif
