/* SPDX-License-Identifier: MIT */
/*
 * The flow analysis's blocks as per-function control-flow graphs, their
 * counts made flow-consistent (flow_infer.h) (library-private).
 */
#ifndef HWPROF_ANALYSIS_FLOW_CFG_H
#define HWPROF_ANALYSIS_FLOW_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/flow.h"

struct hwp__code_cache;
struct hwp_branch_table;
struct hwp_symbolizer;

/* One block as the walk counted it. */
struct hwp__cfg_block {
	int32_t module;
	uint64_t start, last, next; /* offsets: first and last instruction, after the last */
	uint8_t end_class;          /* enum hwp_flow_end */
	uint64_t count;             /* in: sampled; out: consistent */
	uint64_t ft_out;            /* ranges that ran on into the block at next */
	uint64_t addr;              /* start's address in the recording */
	uint8_t cpumode;
};

enum hwp__cfg_edge_kind {
	HWP__CFG_FALLTHROUGH, /* into the next block (a conditional branch not taken, no branch) */
	HWP__CFG_TAKEN,       /* a conditional branch or jump (direct or not) inside the function */
	HWP__CFG_CALL,        /* a call, to the block after it (the callee returned) */
};

/* One edge of a function's graph. */
struct hwp__cfg_edge {
	int32_t module;
	uint64_t from;       /* the source block's start */
	uint64_t from_last;  /* its last instruction */
	uint64_t to;         /* the target block's start */
	uint8_t kind;        /* enum hwp__cfg_edge_kind */
	uint64_t count;      /* sampled, as the ranges count (taken entries scaled) */
	uint64_t flow;       /* consistent */
};

struct hwp__cfg_result {
	struct hwp__cfg_edge *edges;
	size_t nedges;
	struct hwp_flow_function *fns;
	size_t nfns;
};

/*
 * Groups BLOCKS[0..NB) by function (SYM's symbols: a block outside any
 * symbol is left as it is), joins them by the edges the walk and BRANCHES
 * show (taken entries scaled by TAKEN_SCALE to the ranges' count), solves
 * each function and writes each block's consistent count. RES gets every
 * edge and one line per function with its profile bias before and after.
 * 0 or -ENOMEM.
 */
int hwp__flow_cfg_infer(struct hwp_symbolizer *sym, struct hwp__code_cache *cc, struct hwp__cfg_block *blocks,
			size_t nb, const struct hwp_branch_table *branches, double taken_scale,
			struct hwp__cfg_result *res);
void hwp__flow_cfg_result_free(struct hwp__cfg_result *res);

#endif
