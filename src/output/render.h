/* SPDX-License-Identifier: MIT */
/* The public objects rendered into an outbuf (the public API renders to a FILE). */
#ifndef HWPROF_OUTPUT_RENDER_H
#define HWPROF_OUTPUT_RENDER_H

#include <stdint.h>

#include "outbuf.h"
#include "hwprof/flame.h"
#include "hwprof/table.h"

void hwp__table_render(const struct hwp_table *t, enum hwp_table_format f, struct hwp_outbuf *o);

/* Room for ROWS more rows without growing (a table about to hold them).
   0 or -ENOMEM (message set). */
int hwp__table_reserve(struct hwp_table *t, size_t rows);

/* Sets cells [COL, COL + N) of T's last row as those of row FROM (an
   earlier row: text cells share its copies). 0 or <0 (message set). */
int hwp__table_copy_cells(struct hwp_table *t, size_t from, size_t col, size_t n);

/* How a page shows a table (hwp__table_render_html(); zero: as
   hwp__table_render() does). */
struct hwp__html_table_opts {
	size_t visible;     /* rows shown at first (class "more" after; 0: every row) */
	size_t main;        /* columns [0, MAIN) are columns, the others details (0: all) */
	size_t link_col;    /* with LINKS: row i's cell in this column links to */
	const char *const *links; /* LINKS[i] (NULL: no link) */
	uint64_t wrap;      /* bit j: column j's text wraps (class "w"; else on one line) */
};
/* T as an HTML table (class "hwp"), each number cell with its raw value in
   data-v; the columns that are details are listed per row in a last cell
   "Details" ("Title: value" for each set one). */
void hwp__table_render_html(const struct hwp_table *t, struct hwp_outbuf *o, const struct hwp__html_table_opts *ho);

/* The same into O (an in-memory outbuf for a page that inlines it). */
int hwp__flame_render_svg(struct hwp_flame *f, struct hwp_outbuf *o, const struct hwp_flame_svg_opts *opts);

#endif
