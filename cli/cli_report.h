/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the report commands (branches, mispredicts, ...). */
#ifndef HWPROF_CLI_REPORT_H
#define HWPROF_CLI_REPORT_H

#include "parse_options.h"
#include "hwprof/branch_collect.h"
#include "hwprof/pipeline.h"
#include "hwprof/symbolize.h"
#include "hwprof/table.h"

/* Options every report command takes. */
struct report_opts {
	const char *input;        /* the first of INPUTS (default perf.data) */
	const char **inputs;      /* -i, repeated, and positional files, in order (after
				     parse_options(): at least INPUT); NULL: INPUT alone */
	size_t nr_inputs;
	const char *symfs;
	enum hwp_table_format fmt;
	unsigned jobs;            /* -j: threads of the pass (0: the CPUs available) */
};

/* -i FILE (repeatable; positional inputs too) and -j N, and --symfs DIR, --json, --csv. */
#define OPT_REPORT_INPUT(ro) \
	OPT_REPORT_INPUT_AS(ro, "perf.data or perf script text (default: perf.data)"), OPT_REPORT_JOBS(ro)
#define OPT_REPORT_JOBS(ro)                                                                    \
	OPT_UINT('j', "jobs", &(ro)->jobs, "N", 1, 4096, ": the number of threads must be from 1 to 4096", \
		 "count branch entries on N threads (default: the CPUs available; the same output)")
#define OPT_REPORT_INPUT_AS(ro, h) \
	OPT_INPUT('i', "input", &(ro)->input, &(ro)->inputs, &(ro)->nr_inputs, "FILE", h)
#define OPT_REPORT_SYMFS(ro) OPT_STRING(0, "symfs", &(ro)->symfs, "DIR", "look for binaries under DIR")
#define OPT_REPORT_FORMAT(ro)                                                                  \
	OPT_SET_ENUM(0, "json", &(ro)->fmt, HWP_TABLE_JSON, 0, "machine-readable output"),     \
	OPT_SET_ENUM(0, "csv", &(ro)->fmt, HWP_TABLE_CSV, OPT_JOIN, NULL)
#define OPT_REPORT_OUTPUT(ro) OPT_REPORT_SYMFS(ro), OPT_REPORT_FORMAT(ro)
/* (the format is set through an int) */
_Static_assert(sizeof(enum hwp_table_format) == sizeof(int), "enum hwp_table_format is an int");

/* --limit N, the same in every report: at most N rows (N >= 1). */
#define OPT_REPORT_LIMIT(v)                                                                    \
	OPT_U64(0, "limit", v, "N", 1, UINT64_MAX, ": the number of rows must be a count of at least 1", \
		"show only the first N rows (default: all)")

/* --cache-line N of the memory reports (c2c, mem). */
#define OPT_CACHE_LINE(v)                                                                      \
	{ .kind = OPT_KIND_UINT, .long_name = "cache-line", .value = OPT_PTR(unsigned, v), .argh = "N", \
	  .umin = 8, .umax = 4096, .flags = OPT_POW2 | OPT_HEX, .err = ": a power of two from 8 to 4096", \
	  .help = "cache line size in bytes (default: 64)" }

void report_opts__init(struct report_opts *o);

/* The session a report reads and the branch collector it counted, both the
   pipeline's when P is set. */
struct report_input {
	struct hwp_pipeline *p;
	struct hwp_session *session;
	struct hwp_branch_collector *collector;
};

/* O's inputs and how many (at least one). */
const char *const *report_opts__inputs(const struct report_opts *o, size_t *n);

/* Runs the pipeline over O's inputs with ANALYSES (enum hwp_analysis),
   counting branch entries as COLLECT says (NULL: the analyses' needs),
   filtered by DSO and SYM. Prints the error (naming CMD for a DSO no
   branch is in) and returns non-zero on failure; report_input__close()
   in any case. */
int report_input__run(struct report_input *in, const struct report_opts *o, const char *cmd, unsigned analyses,
		      const struct hwp_branch_collect_opts *collect, const char *dso, const char *sym);

/* The same with the pipeline's options PO (its session is O's). */
int report_input__run_with(struct report_input *in, const struct report_opts *o, const char *cmd,
			   struct hwp_pipeline_opts *po);

/* Opens O's input and counts every branch entry (COLLECT says how); fails
   with one line naming the input when it has no branch stacks. Prints the
   error and returns non-zero on failure; report_input__close() in any case. */
int report_input__load_branches(struct report_input *in, const struct report_opts *o,
				const struct hwp_branch_collect_opts *collect);
/* The same in two steps, for a command that reads the session itself:
   open (session and collector) ... read ... check what was read. */
int report_input__open(struct report_input *in, const struct report_opts *o,
		       const struct hwp_branch_collect_opts *collect);
int report_input__check_read(struct report_input *in, const struct report_opts *o);
/* Fails (the error printed, naming CMD and INPUT and listing a few of the
   modules there) when DSO is the name of no module in the branch table, as
   the Shared Object columns spell them; 0 when some branch has it. */
int report_input__check_dso(struct report_input *in, const char *cmd, const char *input, const char *dso);
void report_input__close(struct report_input *in);
/* The session's symbolizer (made by the load). */
struct hwp_symbolizer *report_input__symbolizer(struct report_input *in);
/* One warning line listing modules whose binaries are missing, and those
   whose debug info is missing when the report shows SRCLINES. */
void report_input__warn_missing(struct report_input *in, bool srclines);
/* Renders T to stdout; returns the exit code. */
int report_print_table(const struct hwp_table *t, enum hwp_table_format f);
/* The same, a long text table formatted on up to JOBS threads (-j: 0 the
   CPUs available). */
int report_print_table_jobs(const struct hwp_table *t, enum hwp_table_format f, unsigned jobs);

#endif
