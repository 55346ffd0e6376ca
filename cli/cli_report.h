/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the report commands (branches, mispredicts, ...). */
#ifndef HWPROF_CLI_REPORT_H
#define HWPROF_CLI_REPORT_H

#include "hwprof/branch_collect.h"
#include "hwprof/pipeline.h"
#include "hwprof/symbolize.h"
#include "hwprof/table.h"

/* Options every report command takes. */
struct report_opts {
	const char *input;        /* the first of INPUTS */
	const char **inputs;      /* -i, repeated, and positional files; NULL: INPUT alone */
	size_t nr_inputs;
	const char *symfs;
	enum hwp_table_format fmt;
};

#define REPORT_LONGOPTS                                            \
	{ "input", required_argument, NULL, 'i' },                 \
	{ "symfs", required_argument, NULL, 'S' },                 \
	{ "json", no_argument, NULL, 'j' },                        \
	{ "csv", no_argument, NULL, 'c' },                         \
	{ "help", no_argument, NULL, 'h' }

/* --limit N, the same in every report: at most N rows (N >= 1). */
#define REPORT_LIMIT_HELP "      --limit N        show only the first N rows (default: all)\n"
/* Parses --limit's ARG into *LIMIT; prints the error (naming CMD) and
   returns the exit code when it is not a count >= 1. */
int report_parse_limit(const char *cmd, const char *arg, uint64_t *limit);

void report_opts__init(struct report_opts *o);
/* Takes option C (from getopt_long) when it is one of REPORT_LONGOPTS. */
bool report_opts__take(struct report_opts *o, int c, const char *arg);

/* The session a report reads and the branch table it counted. */
/* Text and HTML show the display strings; JSON and CSV the separate fields. */
static inline bool table_for_people(enum hwp_table_format f)
{
	return f == HWP_TABLE_TEXT || f == HWP_TABLE_HTML;
}

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

#endif
