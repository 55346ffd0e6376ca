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
#include "hwprof/c2c.h"
#include "hwprof/callgraph.h"
#include "hwprof/code_loc.h"
#include "hwprof/export.h"
#include "hwprof/flow.h"
#include "hwprof/flow_diff.h"
#include "hwprof/hwprof.h"
#include "hwprof/mem.h"
#include "hwprof/paths.h"
#include "hwprof/pipeline.h"
#include "hwprof/session.h"
#include "hwprof/skid.h"
#include "hwprof/symbolize.h"
#include "hwprof/table.h"
#include "hwprof/timing.h"

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

/* F's indirect branches, each site's targets by share (hwprof probs
   --indirect): entries, share, mispredicted, kind (call, jump, plt), the
   site (once, above its targets, in text) and the target; opts.limit
   counts sites, opts.min_executions their entries. */
HWP_API struct hwp_table *hwp_report__indirect(struct hwp_symbolizer *s, const struct hwp_flow *f,
					       const struct hwp_report_opts *o);
/* The paths P[0..N) (hwp_paths__build()): runs, share, blocks,
   instructions, the function, the blocks' offsets and source lines (hwprof
   paths); opts.min_executions counts runs. */
HWP_API struct hwp_table *hwp_report__paths(struct hwp_symbolizer *s, const struct hwp_path *p, size_t n,
					    const struct hwp_report_opts *o);

/* The fall-through ranges RANGES (hwp_branch_collector__ranges()) by count
   (hwprof ranges): count, share, bytes, start, end; opts.min_executions
   counts entries, opts.dso and opts.sym apply to the start. */
HWP_API struct hwp_table *hwp_report__ranges(struct hwp_symbolizer *s, const struct hwp_branch_table *ranges,
					     const struct hwp_report_opts *o);
/* What became of the ranges between consecutive branch records: all,
   accepted (and not decoded), rejected by reason (hwprof ranges --stats). */
HWP_API struct hwp_table *hwp_report__range_stats(const struct hwp_range_stats *st);

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
HWP_API void hwp_report__sort_conds_by_executions(struct hwp_flow_cond *c, size_t n);
/* The conditional-branch rows of E (the fleet's) as conditional branches,
   their counts and rates computed (hwp_flow_cond__finish()), in the rows'
   order, locations symbolized by SYM; *N set. Free it. NULL: out of memory. */
HWP_API struct hwp_flow_cond *hwp_report__export_conds(const struct hwp_export *e, struct hwp_symbolizer *sym,
						       size_t *n);
/* TAB's branches ranked by mispredicts (hwprof mispredicts): rate and its
   interval per execution where ES (NULL: none) knows the executions, else
   per taken execution; share, targets, the branch and its top target.
   opts.min_executions hides branches sampled fewer times. */
HWP_API struct hwp_table *hwp_report__mispredicts(struct hwp_symbolizer *s, const struct hwp_branch_table *tab,
						  const struct hwp_exec_source *es, const struct hwp_report_opts *o);
/* The '#' line text puts above that table: what its rate is per. */
HWP_API const char *hwp_report__mispredicts_note(bool per_exec);
/* The same table over the branch and range rows of E (the fleet's, summed
   over hosts): executions from the walk of the summed ranges when SYM finds
   the binaries (as for one recording of them all), else from the
   conditional branches' rows. *PER_EXEC: whether rates are per execution.
   NULL + hwp_errmsg() on failure. */
HWP_API struct hwp_table *hwp_report__export_mispredicts(const struct hwp_export *e, struct hwp_symbolizer *sym,
							 const struct hwp_report_opts *o, bool *per_exec);

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
/* Where F's function is called from (its callers, from call stacks), as
   one sentence into BUF[0..LEN): "72% of its 500 sampled stacks come from
   parse_block <- decompress <- main". False (BUF "") when F has none. */
HWP_API bool hwp_report__finding_callers(const struct hwp_finding *f, char *buf, size_t len);

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

/* hwprof timing. "measured", "modelled" or "none" (the cycles_source field). */
HWP_API const char *hwp_report__cycles_name(enum hwp_cycles_source src);
/* A block for people: "[.] main+0x10 .. +0x24 (file.c:12 - file.c:14)". */
HWP_API void hwp_report__timing_block_name(struct hwp_symbolizer *s, const struct hwp_code_loc *start,
					   const struct hwp_code_loc *end, char *buf, size_t len);
/* Keeps, in IDX[0..N) (indexes into B, or L), the blocks (loops) with at
   least opts.min_executions samples at opts.dso and opts.sym (a loop's
   branch), at most opts.limit; returns how many are kept. */
HWP_API size_t hwp_report__select_blocks(struct hwp_symbolizer *s, const struct hwp_timing_block *b, size_t *idx,
					 size_t n, const struct hwp_report_opts *o);
HWP_API size_t hwp_report__select_loops(struct hwp_symbolizer *s, const struct hwp_timing_loop *l, size_t *idx,
					size_t n, const struct hwp_report_opts *o);
/* The blocks IDX[0..N) of T (hwp_timing__blocks()) by latency: samples,
   share of the cycles, min, median, mean, p90, p99, max, modes,
   instructions and IPC, the block (hwprof timing). */
HWP_API struct hwp_table *hwp_report__timing_blocks(struct hwp_symbolizer *s, struct hwp_timing *t,
						    const size_t *idx, size_t n, const struct hwp_report_opts *o);
/* The loops IDX[0..N) of T (hwp_timing__loops()): the same measures per
   iteration, branches per iteration, the back edge (hwprof timing --loops). */
HWP_API struct hwp_table *hwp_report__timing_loops(struct hwp_symbolizer *s, struct hwp_timing *t,
						   const size_t *idx, size_t n, const struct hwp_report_opts *o);
/* The '#' lines text puts above those tables: what is shown, where the
   cycles come from, what was counted. */
HWP_API void hwp_report__print_timing_header(struct hwp_timing *t, bool loops, FILE *out);
/* The occurrence rates (cycles, samples, rate, cumulative rate, mode) of
   the blocks IDX[0..N) of BLOCKS, on OUT: text prints one table per block
   under a heading, JSON and CSV one table whose rows name their block.
   0 or <0 (out of memory, a write error). */
HWP_API int hwp_report__print_timing_rates(struct hwp_symbolizer *s, const struct hwp_timing_block *blocks,
					   const size_t *idx, size_t n, enum hwp_cycles_source src,
					   enum hwp_table_format fmt, FILE *out);
/* The occurrence-rate chart of D with its modes marked; TITLE names what
   was timed, WHAT the samples ("one basic block"). NULL: hwp_errmsg(). */
HWP_API struct hwp_chart *hwp_report__timing_chart(const char *title, const struct hwp_timing_dist *d,
						   enum hwp_cycles_source src, const char *what);

/* hwprof callgraph. F's name for people: the symbol, else
   "module+0xOFFSET" ("0xADDR" in the kernel or when no module covers it). */
HWP_API const char *hwp_report__cg_function_name(struct hwp_symbolizer *s, const struct hwp_cg_function *f,
						 char *buf, size_t size);
/* CG's functions by children, then self, as perf report --children:
   children and self shares of the period, samples, the function; only
   opts.fmt and opts.limit count. NULL: hwp_errmsg(). */
HWP_API struct hwp_table *hwp_report__callgraph(struct hwp_symbolizer *s, struct hwp_call_graph *cg,
						const struct hwp_report_opts *o);
/* The callers and the callees of the outermost calls of the function NAME
   (hwp_report__cg_function_name()), as two tables on OUT: text with a
   heading each, JSON one object (function, its counts, callers,
   callees). 0; 1 when no function on a stack has NAME; <0 on failure
   (hwp_errmsg(); CSV and HTML, which hold one table, are refused). */
HWP_API int hwp_report__print_callgraph_function(struct hwp_symbolizer *s, struct hwp_call_graph *cg,
						 const char *name, const struct hwp_report_opts *o, FILE *out);

/*
 * The HTML report (hwprof report --html): one self-contained page (no
 * network, no external scripts) of a pass: the findings first, each linked
 * to the instruction that is its evidence in the annotated code (source and
 * assembly of the hottest functions and of those the findings name, with
 * hwprof annotate's numbers in columns, the jumps' arrows and a latency
 * sparkline per timed block), the flame graph (when the samples carry call
 * stacks), then hot branches, mispredicts, probabilities, blocks, block
 * latency with its chart, memory and the summary, each table sortable,
 * filterable and showing the rows that matter first (the others behind a
 * "show all"); or the comparison of two passes (the changes, both
 * summaries, the second's findings). The sections show what the pipeline
 * ran: ask HWP_ANALYSIS_FLOW, TIMING, CALLS, MEM and IPS for the whole page
 * (FLOW and TIMING for a comparison).
 */
struct hwp_html_report_opts {
	size_t sz;          /* sizeof(struct hwp_html_report_opts) */
	uint64_t limit;     /* rows per table (0: 50) */
	const char *input;  /* the recording's name in the title and summary */
	const char *before, *after; /* the compared recordings' names */
	const char *path;   /* the page's name in a write error (NULL: none) */
	/* The annotated code: the hottest FUNCTIONS functions (0: 5) and those
	   the findings name (ask HWP_ANALYSIS_IPS: it needs every sample's IP);
	   their source lines' text found as hwprof annotate finds it. */
	size_t functions;
	const char *prefix;     /* under PREFIX, */
	unsigned prefix_strip;  /* after dropping this many leading directories */
};
/* Writes P's page to OUT. Whatever fails, the page is finished with the
   sections made so far. 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_report__html(struct hwp_pipeline *p, const struct hwp_html_report_opts *o, FILE *out);
/* Writes the comparison of BEFORE and AFTER to OUT; the same rules. */
HWP_API int hwp_report__html_diff(struct hwp_pipeline *before, struct hwp_pipeline *after,
				  const struct hwp_html_report_opts *o, FILE *out);
/* P's summary as an Item/Value table: INPUT (its name), host, events,
   samples, branch entries, fall-through ranges, instructions, memory
   samples. NULL: out of memory. */
HWP_API struct hwp_table *hwp_report__summary(struct hwp_pipeline *p, const char *input);

/* hwprof skid. K's skid distribution: bytes back to the nearest precise
   sample, by bucket, with samples and share. */
HWP_API struct hwp_table *hwp_report__skid_distribution(const struct hwp_skid *k);
/* Per source line, the precise and the non-precise event's samples and
   shares and their difference; opts.limit, opts.dso and opts.sym count. */
HWP_API struct hwp_table *hwp_report__skid_lines(struct hwp_symbolizer *s, struct hwp_skid *k,
						 const struct hwp_report_opts *o);
/* The '#' lines text puts above either: the two events of INPUT (its
   name), and the distribution in one line. */
HWP_API void hwp_report__print_skid_header(const struct hwp_skid *k, const char *input, FILE *out);

/* hwprof mem. R's samples grouped by KEY (enum hwp_mem_key): samples,
   share, loads, stores, HITM, latency, the top data source (text) or the
   count of each (JSON, CSV), then the group (a data source; the code, its
   location; or the data address and object). opts.limit counts rows,
   opts.dso and opts.sym apply to code groups. */
HWP_API struct hwp_table *hwp_report__mem_groups(struct hwp_mem_report *r, int key,
						 const struct hwp_report_opts *o);
/* R's latency histogram: samples per bucket, by data source. */
HWP_API struct hwp_table *hwp_report__mem_histogram(const struct hwp_mem_report *r);
/* The histogram of one function's (SYMBOL) or one source line's (SRCLINE,
   "FILE:LINE", FILE a path's last components) samples; NULL with *NONE
   set when no sample is there, NULL alone on failure. */
HWP_API struct hwp_table *hwp_report__mem_selected_histogram(struct hwp_mem_report *r, const char *symbol,
							     const char *srcline, bool *none);
/* The '#' lines text puts above them: totals, the data sources, and the
   latency histogram as bars; INPUT names the recording. */
HWP_API void hwp_report__print_mem_overview(const struct hwp_mem_report *r, const char *input, FILE *out);
/* One '#' line: the share of R's memory samples whose data type is known
   (hwp_mem_report__typed()), the stack operations and the unknown rest;
   nothing when R collects no code grouping. */
HWP_API void hwp_report__print_mem_typed(struct hwp_mem_report *r, FILE *out);
/* Writes C (from hwp_report__timing_chart() or hwp_report__mem_chart()) to
   FP as a standalone SVG file and deletes it (also when writing fails).
   0 or <0 (hwp_errmsg()). */
HWP_API int hwp_report__write_svg(struct hwp_chart *c, FILE *fp);
/* The same to the file PATH; C NULL (the chart could not be made): -EINVAL,
   hwp_errmsg() left saying why. 0 or <0 (hwp_errmsg() names PATH). */
HWP_API int hwp_report__write_svg_file(struct hwp_chart *c, const char *path);
/* R's latency histogram as a chart, stacked by data source, INPUT in its
   title (hwprof mem --svg). NULL: hwp_errmsg(). */
HWP_API struct hwp_chart *hwp_report__mem_chart(const struct hwp_mem_report *r, const char *input);
/* hwprof c2c: C's cache lines shared between threads, each followed by
   its offsets and the code touching them; opts.limit counts lines. */
HWP_API struct hwp_table *hwp_report__c2c(struct hwp_mem_report *r, const struct hwp_c2c *c,
					  const struct hwp_report_opts *o);
/* The '#' line text puts above it. */
HWP_API void hwp_report__print_c2c_header(struct hwp_mem_report *r, const struct hwp_c2c *c, const char *input,
					  FILE *out);

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
