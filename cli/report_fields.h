/* SPDX-License-Identifier: MIT */
/*
 * The machine-readable columns of one code location in a report table:
 * PREFIX + module, build_id, offset, vaddr, symbol, demangled, sym_offset,
 * file, line. Shown in JSON and CSV only; text output keeps perf's display
 * strings.
 */
#ifndef HWPROF_CLI_REPORT_FIELDS_H
#define HWPROF_CLI_REPORT_FIELDS_H

#include <stddef.h>

#include "hwprof/code_loc.h"
#include "hwprof/symbolize.h"
#include "hwprof/table.h"

/* LOC_START/LOC_END: a fall-through range's first and last instruction;
   LOC_BEFORE/LOC_AFTER: one item in two recordings (hwprof diff) */
enum report_loc_prefix { LOC_NONE, LOC_FROM, LOC_TO, LOC_TARGET, LOC_START, LOC_END, LOC_BEFORE, LOC_AFTER,
			 LOC_SECOND };

#define REPORT_LOC_COLUMNS 9

/* Adds the columns; returns the first one's index. */
size_t report_fields__add_columns(struct hwp_table *t, enum report_loc_prefix p);
/* Fills them (from column FIRST) for L in the current row. */
void report_fields__set(struct hwp_table *t, size_t first, struct hwp_symbolizer *s,
			const struct hwp_code_loc *l);

#endif
