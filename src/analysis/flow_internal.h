/* SPDX-License-Identifier: MIT */
/* Library-private declarations (not exported): the public side is include/hwprof/flow.h. */
#ifndef HWPROF_ANALYSIS_FLOW_INTERNAL_H
#define HWPROF_ANALYSIS_FLOW_INTERNAL_H

#include "hwprof/flow.h"

/* The block starting at START, NULL when none does. */
const struct hwp_flow_block *hwp__flow_block_at(const struct hwp_flow *f, const struct hwp_code_loc *start);

/* Sorts C[0..N) as hwp_flow__conds() returns them: executions, descending,
   then module and offset. */
void hwp__flow_sort_conds(struct hwp_flow_cond *c, size_t n);

struct hwp__cfg_block;
struct hwp__cfg_result;
/* With opts.infer: every walked block with its consistent count (N of
   them), and the functions' edges (*RES); NULL without. */
const struct hwp__cfg_block *hwp__flow_cfg_blocks(const struct hwp_flow *f, size_t *n,
						 const struct hwp__cfg_result **res);

#endif
