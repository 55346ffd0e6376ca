/* SPDX-License-Identifier: MIT */
/* Internal: locations rendered as perf renders them where the public
   hwp_loc__format_*() (hwprof/branch_report.h) do not fit. */
#ifndef HWPROF_ANALYSIS_BRANCH_LOC_H
#define HWPROF_ANALYSIS_BRANCH_LOC_H

#include <stddef.h>

struct hwp_symbolizer;
struct hwp_code_loc;

/* perf's "sym" key of a branch table: the target's symbol, or when none
   covers it the recorded address (perf's branch mode fills the entry with
   the raw address, not the one in its map, which symbol_from/symbol_to
   print: hwp_loc__format_symbol()). Rows are keyed by module offset, so
   of the addresses one offset had in several processes the first is
   shown (perf 6.1 splits such rows by address). */
void hwp__loc_format_branch_sym(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len);

#endif
