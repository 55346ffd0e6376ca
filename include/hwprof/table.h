/* SPDX-License-Identifier: MIT */
/*
 * A result table rendered four ways: aligned text (perf --stdio style, with a
 * '#' header), JSON (an array of objects, numbers as numbers), CSV (RFC
 * 4180) and an HTML table. Analyses fill cells; they never format output themselves.
 */
#ifndef HWPROF_TABLE_H
#define HWPROF_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

enum hwp_col_kind {
	HWP_COL_TEXT,    /* left-aligned string */
	HWP_COL_COUNT,   /* unsigned integer, right-aligned */
	HWP_COL_PERCENT, /* double, printed "12.34%" */
	HWP_COL_REAL,    /* double, printed with 4 significant decimals */
	HWP_COL_HEX,     /* unsigned integer as "0x1f" (a string in JSON: addresses exceed 2^53) */
	HWP_COL_BOOL,    /* set with hwp_table__set_count(0 or 1): true / false */
};

/* Which renderings show a column: display strings ("[.] main+0x10") are for
   people, the separate fields (module, offset, symbol, line) for programs. */
enum hwp_col_show {
	HWP_SHOW_ALL,
	HWP_SHOW_TEXT, /* text only */
	HWP_SHOW_DATA, /* JSON and CSV only */
};

struct hwp_table;

#define HWP_TABLE_MAX_COLUMNS 64

HWP_API struct hwp_table *hwp_table__new(void);
HWP_API void hwp_table__delete(struct hwp_table *t);
/* Columns first: TITLE for text/CSV headers, KEY for JSON. */
HWP_API int hwp_table__add_column(struct hwp_table *t, const char *title, const char *key,
			  enum hwp_col_kind kind);
/* The same, shown only where SHOW says. */
HWP_API int hwp_table__add_column_shown(struct hwp_table *t, const char *title, const char *key,
					enum hwp_col_kind kind, enum hwp_col_show show);
/* Then rows, cell by cell in column order. Strings are copied. A cell never
   set is null in JSON, empty in CSV and text (set_text(NULL) leaves it so). */
HWP_API int hwp_table__new_row(struct hwp_table *t);
HWP_API int hwp_table__set_text(struct hwp_table *t, size_t col, const char *s);
HWP_API int hwp_table__set_count(struct hwp_table *t, size_t col, uint64_t v);
HWP_API int hwp_table__set_real(struct hwp_table *t, size_t col, double v); /* PERCENT or REAL */
HWP_API size_t hwp_table__rows(const struct hwp_table *t);
HWP_API size_t hwp_table__columns(const struct hwp_table *t);

/* A column's unit ("%", "cycles", "bytes", ...; NULL: a count of things or
   a name). Report tables set it from the key's suffix (_percent, _cycles,
   _bytes, _ns ...), the one naming rule of their JSON members. */
HWP_API int hwp_table__set_unit(struct hwp_table *t, size_t col, const char *unit);

/* The model, for programs: each column's names, kind, where it shows and
   unit, and each cell's value. */
struct hwp_table_column {
	size_t sz;               /* sizeof(struct hwp_table_column), set by the caller */
	const char *title;       /* text and CSV header */
	const char *key;         /* JSON member */
	enum hwp_col_kind kind;
	enum hwp_col_show show;
	const char *unit;
};
/* Fills OUT for column COL. 0, or <0 (no such column, bad size). */
HWP_API int hwp_table__column(const struct hwp_table *t, size_t col, struct hwp_table_column *out);
/* Cell (ROW, COL): true and its value when set (TEXT: the string; COUNT,
   HEX, BOOL: the integer; PERCENT, REAL: the number); false when it was
   never set (null in JSON) or out of range. */
HWP_API bool hwp_table__cell_text(const struct hwp_table *t, size_t row, size_t col, const char **s);
HWP_API bool hwp_table__cell_count(const struct hwp_table *t, size_t row, size_t col, uint64_t *v);
HWP_API bool hwp_table__cell_real(const struct hwp_table *t, size_t row, size_t col, double *v);

/* HTML: a <table> of the text columns (class "hwp"; number cells carry
   their raw value in data-v), for a page to embed. */
enum hwp_table_format { HWP_TABLE_TEXT, HWP_TABLE_JSON, HWP_TABLE_CSV, HWP_TABLE_HTML };
/* Writes T in format F to FP (buffered; flushed before it returns). 0, or
   <0 on a write error or an unknown format (hwp_errmsg()). */
HWP_API int hwp_table__print(const struct hwp_table *t, enum hwp_table_format f, FILE *fp);
/* The same, the text of a table of many rows formatted on up to JOBS
   threads (0: the CPUs available; 1: this one): the same bytes. */
HWP_API int hwp_table__print_jobs(const struct hwp_table *t, enum hwp_table_format f, FILE *fp, unsigned jobs);

HWP_END_DECLS

#endif
