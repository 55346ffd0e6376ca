/* SPDX-License-Identifier: MIT */
/*
 * A result table rendered three ways: aligned text (perf --stdio style, with a
 * '#' header), JSON (an array of objects, numbers as numbers) and CSV (RFC
 * 4180). Analyses fill cells; they never format output themselves.
 */
#ifndef HWPROF_TABLE_H
#define HWPROF_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/outbuf.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

enum hwp_col_kind {
	HWP_COL_TEXT,    /* left-aligned string */
	HWP_COL_COUNT,   /* unsigned integer, right-aligned */
	HWP_COL_PERCENT, /* double, printed "12.34%" */
	HWP_COL_REAL,    /* double, printed with 4 significant decimals */
};

struct hwp_table;

HWP_API struct hwp_table *hwp_table__new(void);
HWP_API void hwp_table__delete(struct hwp_table *t);
/* Columns first: TITLE for text/CSV headers, KEY for JSON. */
HWP_API int hwp_table__add_column(struct hwp_table *t, const char *title, const char *key,
			  enum hwp_col_kind kind);
/* Then rows, cell by cell in column order. Strings are copied. */
HWP_API int hwp_table__new_row(struct hwp_table *t);
HWP_API int hwp_table__set_text(struct hwp_table *t, size_t col, const char *s);
HWP_API int hwp_table__set_count(struct hwp_table *t, size_t col, uint64_t v);
HWP_API int hwp_table__set_real(struct hwp_table *t, size_t col, double v); /* PERCENT or REAL */
HWP_API size_t hwp_table__rows(const struct hwp_table *t);

enum hwp_table_format { HWP_TABLE_TEXT, HWP_TABLE_JSON, HWP_TABLE_CSV };
HWP_API void hwp_table__render(const struct hwp_table *t, enum hwp_table_format f, struct hwp_outbuf *o);

HWP_END_DECLS

#endif
