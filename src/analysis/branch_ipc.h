/* SPDX-License-Identifier: MIT */
/*
 * perf's ipc_lbr sort key: the IPC of a symbol over the basic blocks the
 * branch stacks cover, and the share of its instructions they cover.
 */
#ifndef HWPROF_ANALYSIS_BRANCH_IPC_H
#define HWPROF_ANALYSIS_BRANCH_IPC_H

#include <stdbool.h>

#include "hwprof/branch_table.h"
#include "hwprof/symbolize.h"

struct hwp__ipc;

/* From the blocks of hwp_branch_collector__blocks(). NULL on ENOMEM. */
struct hwp__ipc *hwp__ipc_new(const struct hwp_branch_table *blocks, struct hwp_symbolizer *s);
void hwp__ipc_delete(struct hwp__ipc *x);
/* The symbol covering L: false when there is none (perf prints "-");
   0 and 0 for a symbol without blocks. */
bool hwp__ipc_of(const struct hwp__ipc *x, struct hwp_symbolizer *s, const struct hwp_code_loc *l,
		 double *ipc, double *coverage_percent);

#endif
