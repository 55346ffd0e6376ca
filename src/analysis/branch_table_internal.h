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

/* FLAGS is perf_branch_entry's flags word. Returns 0, 1 when the key made
   a new row (the last), or -ENOMEM. */
int hwp__branch_table_add(struct hwp_branch_table *t, const struct hwp_code_loc *from,
			  const struct hwp_code_loc *to, uint64_t flags);

/* Hints that (FROM, TO) is added to T soon, with no flags (a table that
   splits no field: the sample IPs): STAGE 0 fetches its slot of the index,
   STAGE 1 (some work later, the slot then in the cache) its row. A large
   table of random keys (IPs) waits for two cache misses per add otherwise. */
void hwp__branch_table_prefetch(const struct hwp_branch_table *t, const struct hwp_code_loc *from,
				const struct hwp_code_loc *to, int stage);

#endif
