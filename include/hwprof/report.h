/* SPDX-License-Identifier: MIT */
/*
 * The reports' table models: each analysis's rows as a table (hwprof/table.h)
 * of named, typed columns, defined once here, so that text, JSON, CSV, HTML
 * and the fleet's export show the same fields. A table is filled for people
 * (display strings such as "[.] main+0x10", shown in text and HTML) or for
 * programs (the location as separate fields: module, build-id, offset,
 * symbol, file, line; shown in JSON and CSV): opts.fmt says which.
 *
 *     struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = HWP_TABLE_JSON, .limit = 10 };
 *     struct hwp_table *t = hwp_report__conds(sym, conds, n, &ro);
 *     hwp_table__print(t, HWP_TABLE_JSON, stdout);
 */
#ifndef HWPROF_REPORT_H
#define HWPROF_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/advise.h"
#include "hwprof/code_loc.h"
#include "hwprof/flow.h"
#include "hwprof/hwprof.h"
#include "hwprof/symbolize.h"
#include "hwprof/table.h"

HWP_BEGIN_DECLS

struct hwp_report_opts {
	size_t sz;                /* sizeof(struct hwp_report_opts) */
	enum hwp_table_format fmt; /* the rendering the table is filled for */
	uint64_t limit;           /* at most this many rows (0: all) */
	uint64_t min_executions;  /* hide rows with fewer sampled executions */
	/* only rows at locations hwp_loc__matches(DSO, SYM) */
	const char *dso;
	const char *sym;
};

/* Text and HTML show the display strings; JSON and CSV the separate fields. */
static inline bool hwp_report__for_people(enum hwp_table_format f)
{
	return f == HWP_TABLE_TEXT || f == HWP_TABLE_HTML;
}

/* Conditional branches C[0..N) as hwp_flow__conds() sorts them: executions,
   taken probability and interval, mispredicts, the branch and its target
   (hwprof probs). NULL + hwp_errmsg() on failure. */
HWP_API struct hwp_table *hwp_report__conds(struct hwp_symbolizer *s, const struct hwp_flow_cond *c, size_t n,
					    const struct hwp_report_opts *o);
/* F's basic blocks: executions, share of instructions, size (hwprof blocks). */
HWP_API struct hwp_table *hwp_report__blocks(struct hwp_symbolizer *s, const struct hwp_flow *f,
					     const struct hwp_report_opts *o);

/* The location of a row as data columns, named PREFIX + module, build_id,
   offset, vaddr, symbol, demangled, sym_offset, file, line (shown in JSON
   and CSV only). */
enum hwp_loc_prefix {
	HWP_LOC_NONE, HWP_LOC_FROM, HWP_LOC_TO, HWP_LOC_TARGET, HWP_LOC_START, HWP_LOC_END, HWP_LOC_BEFORE,
	HWP_LOC_AFTER, HWP_LOC_SECOND
};
#define HWP_REPORT_LOC_COLUMNS 9
/* Adds the columns; returns the first one's index. */
HWP_API size_t hwp_report__add_loc_columns(struct hwp_table *t, enum hwp_loc_prefix p);
/* Fills them (from column FIRST) for L in the current row; unknown parts
   stay unset (null in JSON, empty in CSV). */
HWP_API void hwp_report__set_loc(struct hwp_table *t, size_t first, struct hwp_symbolizer *s,
				 const struct hwp_code_loc *l);

HWP_END_DECLS

#endif
