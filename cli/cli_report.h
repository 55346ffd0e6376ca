/* SPDX-License-Identifier: MIT */
/* Plumbing shared by the report commands (branches, mispredicts, ...). */
#ifndef HWPROF_CLI_REPORT_H
#define HWPROF_CLI_REPORT_H

#include "hwprof/branch_collect.h"
#include "hwprof/symbolize.h"
#include "output/table.h"

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
/* One warning line listing modules whose binaries or debug info are missing. */
void report_input__warn_missing(struct report_input *in);
/* Renders T to stdout; returns the exit code. */
int report_print_table(const struct hwp_table *t, enum hwp_table_format f);

#endif
