/* SPDX-License-Identifier: MIT */
/*
 * Internal: a call graph's distinct call stacks by address, for writers
 * that keep frames as addresses (the pprof profile of hwprof export): each
 * stack's frames innermost first, as the sample's chain had them (the
 * sample's own IP first where the chain starts with it, as perf's
 * callchains do), with its samples and period.
 */
#ifndef HWPROF_ANALYSIS_CALLGRAPH_STACKS_H
#define HWPROF_ANALYSIS_CALLGRAPH_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/callgraph.h"

struct hwp__cg_stack_frame {
	int32_t module;  /* symbolizer module id; -1: no map covered the address */
	uint64_t offset; /* module offset (no module: the address) */
	bool kernel;
	bool ret;        /* a return address: its source line is the call's (offset - 1) */
};

/* FN(CTX, FRAMES, N, SAMPLES, PERIOD) for each distinct stack of CG that
   samples ended in, in the order the stacks were first seen. FRAMES is
   valid during the call. Stops at FN's first nonzero return (returned). */
typedef int (*hwp__cg_stack_fn)(void *ctx, const struct hwp__cg_stack_frame *frames, size_t n,
				uint64_t samples, uint64_t period);
int hwp__call_graph_each_stack(struct hwp_call_graph *cg, hwp__cg_stack_fn fn, void *ctx);
/* The session CG counts the samples of. */
struct hwp_session *hwp__call_graph_session(const struct hwp_call_graph *cg);

#endif
