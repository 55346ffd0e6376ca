/* SPDX-License-Identifier: MIT */
/*
 * Block and edge counts of one binary's basic blocks as its
 * .llvm_bb_addr_map defines them (symbolize/bb_addr_map.h), from the
 * collector's taken branches and fall-through ranges:
 *   - a block's count: the sampled executions of its first instruction or
 *     of its last, the larger (the ranges through each: a block with a
 *     call in it is run by two ranges, up to the call and from the return);
 *   - an edge inside a function: a taken branch from a block to the start
 *     of another, and a range running from one block on into the next;
 *   - a call edge between functions: a call (or a jump: a tail call) to a
 *     function's entry.
 */
#ifndef HWPROF_ANALYSIS_BB_PROFILE_H
#define HWPROF_ANALYSIS_BB_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/branch_collect.h"
#include "symbolize/bb_addr_map.h"

struct hwp__bb_edge {
	uint32_t from, to; /* blocks (indexes into the map's blocks) or functions (calls) */
	uint64_t count;
};

struct hwp__bb_profile {
	uint64_t *count;             /* per block of the map */
	uint32_t *func_of;           /* per block: its function */
	struct hwp__bb_edge *edges;  /* inside functions, one per (from, to), sorted */
	size_t n_edges, cap_edges;
	struct hwp__bb_edge *calls;  /* between functions, one per (from, to), sorted */
	size_t n_calls, cap_calls;
	uint64_t branches, ranges;   /* taken-branch and range counts that landed in some block */
};

/* Counts M's blocks (of MODULE, C's) into P. 0, or <0 (hwp_errmsg()). */
int hwp__bb_profile_count(struct hwp_branch_collector *c, int module, const struct hwp__bb_addr_map *m,
			  struct hwp__bb_profile *p);
void hwp__bb_profile_free(struct hwp__bb_profile *p);

#endif
