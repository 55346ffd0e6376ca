/* SPDX-License-Identifier: MIT */
/*
 * Propeller's inputs for one binary built by clang with
 * -fbasic-block-address-map (its .llvm_bb_addr_map section names every
 * basic block by the compiler's block ID), from the collector's taken
 * branches and fall-through ranges:
 *   - the cluster file that clang's -fbasic-block-sections=list=FILE reads
 *     ("v1", then per function "f NAME" and one "c ID ID ..." line): each
 *     profiled function's executed blocks, entry first, in the order
 *     ext-TSP gives them (Newell & Pupyrev's score: fall-throughs 1,
 *     jumps forward within 1024 bytes and backward within 640 bytes 0.1,
 *     falling linearly with the distance; chains of blocks merged greedily
 *     by the largest gain, then ordered by density); blocks never executed
 *     are left out, so clang puts them in the function's cold part
 *     ("NAME.cold");
 *   - the symbol order that lld's --symbol-ordering-file reads: the
 *     profiled functions, callers followed by their hottest callees (the
 *     C3 clustering of Ottoni and Maher) and clusters by density.
 * The program is then rebuilt from the same sources with the same flags
 * and -fbasic-block-sections=list=FILE -ffunction-sections, and linked by
 * lld with --symbol-ordering-file.
 */
#ifndef HWPROF_PROPELLER_H
#define HWPROF_PROPELLER_H

#include <stdint.h>
#include <stdio.h>

#include "hwprof/branch_collect.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

struct hwp_propeller_stats {
	uint64_t functions;        /* in the map */
	uint64_t profiled;         /* written: some block executed */
	uint64_t hot_blocks, cold_blocks; /* of the written functions */
	uint64_t ambiguous;        /* profiled, left out: their name is not one function's */
	uint64_t branches, ranges; /* the counts that fell in the map's blocks */
	double score_before, score_after; /* ext-TSP score of the hot blocks: address order, new order */
	uint64_t address_order;    /* functions with more executed blocks than ext-TSP takes
				      (HWP_PROPELLER_MAX_TSP_BLOCKS): in address order, cold split */
};

#define HWP_PROPELLER_MAX_TSP_BLOCKS 2048

/*
 * Writes MODULE's cluster file to CLUSTERS and, when ORDER is not NULL,
 * its symbol order to ORDER, from C (collected with opts.ranges); *ST
 * (may be NULL) says what was written. 0, or <0 (hwp_errmsg(): the binary
 * is missing, has no .llvm_bb_addr_map or a bad one, ENOMEM, a write
 * failed).
 */
HWP_API int hwp_propeller__write(struct hwp_branch_collector *c, int module, FILE *clusters, FILE *order,
				 struct hwp_propeller_stats *st);

HWP_END_DECLS

#endif
