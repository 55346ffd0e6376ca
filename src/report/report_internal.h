/* SPDX-License-Identifier: MIT */
/* What the report tables share: their column specs, added in one call. */
#ifndef HWPROF_REPORT_INTERNAL_H
#define HWPROF_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "hwprof/report.h"

/* One column of a report table: its title (text, CSV), key (JSON), kind and
   where it shows. */
struct hwp__report_column {
	const char *title, *key;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
};

/* Adds COLS[0..N) to T; 0 or <0 (ENOMEM). */
int hwp__report_add_columns(struct hwp_table *t, const struct hwp__report_column *cols, size_t n);
/* Sets a real cell unless V is NaN (no data: null in JSON, blank in text). */
void hwp__report_set_real(struct hwp_table *t, size_t col, double v);
/* The options in effect (defaults filled: no limit, every row); <0 on bad options. */
int hwp__report_opts_load(const struct hwp_report_opts *in, struct hwp_report_opts *out);

/* Renders T to OUT (after what OUT's stdio buffer holds); 0 or <0
   (hwp_errmsg(): out of memory, a write error). */
int hwp__report_print(const struct hwp_table *t, enum hwp_table_format fmt, FILE *out);

/* "struct counters.y", "long", "(stack operation)" (STACK_OP), or
   "unknown" (TYPE NULL). */
void hwp__report_data_type_text(const char *type, const char *member, bool stack_op, char *buf, size_t len);

#endif
