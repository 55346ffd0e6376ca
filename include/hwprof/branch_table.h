/* SPDX-License-Identifier: MIT */
/*
 * Branch aggregation: every branch-stack entry of every sample is counted
 * under its module-relative (from, to) pair, before any symbolization. A
 * multi-GB recording has millions of entries but only thousands of distinct
 * branches, so the table (and memory) grows with the latter only. The same
 * binary loaded at different addresses in different processes lands on the
 * same key (module = build-id, else path; offset = file offset).
 */
#ifndef HWPROF_BRANCH_TABLE_H
#define HWPROF_BRANCH_TABLE_H

#include "hwprof/hwprof.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/code_loc.h"

/* Which entry properties split rows (besides from and to). */
enum hwp_branch_split {
	HWP_SPLIT_MISPRED = 1 << 0, /* Y / N / N/A as perf's mispredict key */
	HWP_SPLIT_TYPE = 1 << 1,
	HWP_SPLIT_CYCLES = 1 << 2,
	HWP_SPLIT_TX = 1 << 3, /* in_tx and abort bits (perf's in_tx / abort keys) */
};

struct hwp_branch_key {
	struct hwp_code_loc from, to;
	uint8_t mispred_state; /* when split: bit 0 mispred, bit 1 predicted, as recorded */
	uint8_t type;          /* when split */
	uint16_t cycles;       /* when split */
	uint8_t tx;            /* when split: bit 0 in_tx, bit 1 abort, as recorded */
};

struct hwp_branch_counts {
	uint64_t count;      /* entries */
	uint64_t mispred;    /* entries with the mispred bit (and not predicted) */
	uint64_t predicted;  /* entries with the predicted bit */
	uint64_t cycles_sum; /* over entries with non-zero cycles */
	uint64_t cycles_n;
};

struct hwp_branch_row {
	struct hwp_branch_key key;
	struct hwp_branch_counts c;
};

HWP_BEGIN_DECLS

struct hwp_branch_table;

HWP_API struct hwp_branch_table *hwp_branch_table__new(unsigned split);
HWP_API void hwp_branch_table__delete(struct hwp_branch_table *t);
/* Adds R's counts under R's key (its split fields kept as the table splits):
   rows of other tables, or of many hosts, merged. 0 or -ENOMEM. */
HWP_API int hwp_branch_table__add_row(struct hwp_branch_table *t, const struct hwp_branch_row *r);
HWP_API size_t hwp_branch_table__size(const struct hwp_branch_table *t);
HWP_API uint64_t hwp_branch_table__total(const struct hwp_branch_table *t); /* entries added */
/* Rows in no particular order; valid until the next add. */
HWP_API const struct hwp_branch_row *hwp_branch_table__rows(const struct hwp_branch_table *t, size_t *n);

HWP_END_DECLS

#endif
