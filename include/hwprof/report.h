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
#include <stdio.h>

#include "hwprof/advise.h"
#include "hwprof/branch_report.h"
#include "hwprof/branch_table.h"
#include "hwprof/code_loc.h"
#include "hwprof/flow.h"
#include "hwprof/flow_diff.h"
#include "hwprof/hwprof.h"
#include "hwprof/session.h"
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

/* The branch report REP, built with the sort keys KEYS[0..NKEYS), as a table
   (hwprof branches): overhead and count, and in text one column per key
   as perf prints it; in JSON and CSV the branches counted, the flag keys
   as values (mispredict, in_tx, abort, cycles, type, ipc) and the
   location of each side the keys name. CYCLES_SOURCE (NULL: no such
   column) fills a cycles_source column (hwp_report__cycles_source()).
   The report has applied its filter: only opts.fmt and opts.limit count. */
HWP_API struct hwp_table *hwp_report__branches(struct hwp_symbolizer *s, const struct hwp_branch_report *rep,
					       const enum hwp_branch_key_id *keys, size_t nkeys,
					       const char *cycles_source, const struct hwp_report_opts *o);
/* "modelled" when KEYS show cycles (cycles, ipc_lbr) and an event of S's
   recording was emulated, "measured" when no event was; NULL when no key
   shows cycles. */
HWP_API const char *hwp_report__cycles_source(struct hwp_session *s, const enum hwp_branch_key_id *keys,
					      size_t nkeys);

/* Where hwp_report__mispredicts() learns how often a branch ran: the flow
   analysis's walk, else conditional branches sorted by site
   (hwp_report__sort_conds_by_site()), such as the fleet's rows give. */
struct hwp_exec_source {
	struct hwp_flow *flow;
	const struct hwp_flow_cond *conds;
	size_t nconds;
};
HWP_API void hwp_report__sort_conds_by_site(struct hwp_flow_cond *c, size_t n);
/* TAB's branches ranked by mispredicts (hwprof mispredicts): rate and its
   interval per execution where ES (NULL: none) knows the executions, else
   per taken execution; share, targets, the branch and its top target.
   opts.min_executions hides branches sampled fewer times. */
HWP_API struct hwp_table *hwp_report__mispredicts(struct hwp_symbolizer *s, const struct hwp_branch_table *tab,
						  const struct hwp_exec_source *es, const struct hwp_report_opts *o);
/* The '#' line text puts above that table: what its rate is per. */
HWP_API const char *hwp_report__mispredicts_note(bool per_exec);

/* The advisor's findings F[0..N) (hwp_advisor__findings()), ranked, of
   kind KIND only (enum hwp_finding_kind; -1: all): kind, share, value and
   its interval, the measures of each kind, action and technique, and the
   location, its target and its second place (hwprof advise). The advisor
   has applied its own thresholds: opts.min_executions is not used. */
HWP_API struct hwp_table *hwp_report__findings(struct hwp_symbolizer *s, const struct hwp_finding *f, size_t n,
					       int kind, const struct hwp_report_opts *o);
/* The same findings as text for people: each with its evidence and what to
   do, on OUT. <0 on bad options. */
HWP_API int hwp_report__print_findings(struct hwp_symbolizer *s, const struct hwp_finding *f, size_t n, int kind,
				       const struct hwp_report_opts *o, FILE *out);
/* The measure behind finding F, as one sentence into BUF[0..LEN). */
HWP_API void hwp_report__finding_evidence(const struct hwp_finding *f, char *buf, size_t len);

/* The changes D found from the recording BEFORE to AFTER (symbolized by SB
   and SA), largest impact first, the significant ones unless ALL (hwprof
   diff): kind, measure and unit, both values, the change and its
   interval, where; in JSON and CSV also the counts and both locations. */
HWP_API struct hwp_table *hwp_report__diff(struct hwp_symbolizer *sb, struct hwp_symbolizer *sa,
					   const struct hwp_flow_diff *d, bool all, const struct hwp_report_opts *o);
/* The two '#' lines text puts above that table: how many changes among
   how much compared, BEFORE -> AFTER (names), the intervals' design
   effects; MODELLED: the cycles are the emulator's. */
HWP_API void hwp_report__print_diff_summary(const struct hwp_flow_diff *d, const char *before, const char *after,
					    bool modelled, FILE *out);

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
