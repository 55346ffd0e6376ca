/* SPDX-License-Identifier: MIT */
/*
 * Mispredict report: one row per branch instruction (source address), with
 * sampled executions, mispredicted ones, the rate with a 95% Wilson score
 * interval, and the branch's share of all mispredicts; sorted by mispredict
 * count, i.e. by impact.
 */
#ifndef HWPROF_MISPREDICTS_H
#define HWPROF_MISPREDICTS_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/branch_table.h"

HWP_BEGIN_DECLS

struct hwp_mispredict_row {
	struct hwp_code_loc site;  /* the branch instruction */
	struct hwp_code_loc top_target;
	uint64_t targets;          /* distinct targets seen */
	uint64_t top_target_count; /* entries to the top target */
	uint64_t sampled;          /* entries (taken executions sampled) */
	uint64_t with_info;        /* entries carrying a mispred or predicted bit */
	uint64_t mispredicted;
	double rate, rate_lo, rate_hi; /* mispredicted / with_info, 95% Wilson */
	double share;              /* of all mispredicts, 0..1 */
};

/* Rows sorted by mispredicted (then sampled) descending; *NR set. Caller
   frees. NULL + errno (EINVAL, ENOMEM) and hwp_errmsg() on failure. */
HWP_API struct hwp_mispredict_row *hwp_mispredicts__build(const struct hwp_branch_table *t, size_t *nr,
						  uint64_t *total_mispredicts);

HWP_END_DECLS

#endif
