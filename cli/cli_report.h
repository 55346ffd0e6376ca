/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the report commands (branches, mispredicts, ...). */
#ifndef HWPROF_CLI_REPORT_H
#define HWPROF_CLI_REPORT_H

#include "hwprof/branch_collect.h"
#include "hwprof/symbolize.h"
#include "hwprof/table.h"

/* Options every report command takes. */
struct report_opts {
	const char *input;
	const char *symfs;
	enum hwp_table_format fmt;
};

#define REPORT_LONGOPTS                                            \
	{ "input", required_argument, NULL, 'i' },                 \
	{ "symfs", required_argument, NULL, 'S' },                 \
	{ "json", no_argument, NULL, 'j' },                        \
	{ "csv", no_argument, NULL, 'c' },                         \
	{ "help", no_argument, NULL, 'h' }

void report_opts__init(struct report_opts *o);
/* Takes option C (from getopt_long) when it is one of REPORT_LONGOPTS. */
bool report_opts__take(struct report_opts *o, int c, const char *arg);

struct report_input {
	struct hwp_reader *reader;
	struct hwp_symbolizer *sym;
	struct hwp_branch_collector *collector;
};

/* Opens INPUT, reads every branch entry into a table split by SPLIT
   (FOR_MISPREDICTS: without meaningless prediction bits).
   Prints the error and returns non-zero on failure. */
int report_input__load(struct report_input *in, const char *input, const char *symfs,
		       unsigned split, bool for_mispredicts);
void report_input__close(struct report_input *in);
/* report_input__load() for a command that needs branch stacks: also fails
   (one line naming CMD's input) when the recording has none. */
int report_input__load_branches(struct report_input *in, const struct report_opts *o,
				unsigned split, bool for_mispredicts);
/* One warning line listing modules whose binaries or debug info are missing. */
void report_input__warn_missing(struct report_input *in);
/* Renders T to stdout; returns the exit code. */
int report_print_table(const struct hwp_table *t, enum hwp_table_format f);

#endif
