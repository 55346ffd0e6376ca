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
/* The latency histogram's bucket holding the 90th percentile ("64-127"):
   the histogram keeps powers of two, so that is as close as it says. */
struct hwp_mem_stats;
void hwp__report_mem_p90(const struct hwp_mem_stats *st, char *buf, size_t len);
/* A latency distribution's modes: "12 (80%), 250 (20%)" for people, with
   DATA "12:80.0;250:20.0" for programs (timing_tables.c). */
struct hwp_timing_dist;
void hwp__timing_modes_text(const struct hwp_timing_dist *d, bool data, char *buf, size_t len);

#endif
