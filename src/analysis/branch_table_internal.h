/* SPDX-License-Identifier: MIT */
/* Internal: operations on a branch table that only the library needs. */
#ifndef HWPROF_ANALYSIS_BRANCH_TABLE_INTERNAL_H
#define HWPROF_ANALYSIS_BRANCH_TABLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "hwprof/branch_table.h"

/*
 * Drops the rows from index FIRST on for which KEEP returns false; the kept
 * ones stay in their order (rows before FIRST are kept unasked), and the
 * total drops by the dropped rows' counts. Returns 0 or -ENOMEM (rows are
 * then dropped but the index is stale: the table must only be deleted).
 */
int hwp__branch_table_retain(struct hwp_branch_table *t, size_t first,
			     bool (*keep)(void *ctx, const struct hwp_branch_row *r), void *ctx);

#endif
