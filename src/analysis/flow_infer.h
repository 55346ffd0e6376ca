/* SPDX-License-Identifier: MIT */
/*
 * Flow-consistent counts (library-private): a function's control-flow graph
 * whose blocks and edges carry sampled counts, adjusted to the flow that
 * satisfies conservation (into a block as much as out of it, the block's
 * count) with the smallest weighted change to the samples, solved as a
 * min-cost circulation.
 *
 * The cost of a change is linear per block and per edge: a unit more or
 * less on a block's sampled count costs BLOCK, on an edge's EDGE; a count
 * that was never sampled may rise at no cost (profi's rule for unknown
 * counts). The weights were measured (docs/design.md, "Flow-consistent
 * counts"): against exact counts of a compressor, an interpreter and a
 * database, the same cost up and down (profi's 10 up / 20 down raised the
 * functions' totals and lost overlap) and edges three times the blocks
 * fitted best. Flow enters at the function's entry
 * blocks and leaves at its exit blocks for free; anywhere else only at
 * LEAK per unit (dearer than any change: in practice never). So the caller
 * marks as entries (exits) the blocks its graph gives no edge in (out),
 * e.g. code reached by a path the samples never showed, or their counts
 * would go to conserve flow.
 */
#ifndef HWPROF_ANALYSIS_FLOW_INFER_H
#define HWPROF_ANALYSIS_FLOW_INFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	HWP__INFER_BLOCK = 10,
	HWP__INFER_EDGE = 30,
	HWP__INFER_LEAK = 1000,
};

struct hwp__infer_node {
	uint64_t count; /* sampled */
	bool known;     /* count is a sample (else unknown: free to rise) */
	bool entry;     /* flow may enter here for free */
	bool exit;      /* and leave */
	uint64_t flow;  /* out: the consistent count */
};

struct hwp__infer_edge {
	uint32_t from, to; /* node indices */
	uint64_t count;
	bool known;
	uint64_t flow;  /* out */
};

/*
 * Fills every node's and edge's flow. 0, or -ENOMEM. When the samples
 * already conserve flow (and every non-entry block with flow in has an edge
 * in, ...), the flows are the counts.
 */
int hwp__infer_solve(struct hwp__infer_node *nodes, size_t nn, struct hwp__infer_edge *edges, size_t ne);

/*
 * BOLT's profile bias of one function: over the blocks that are no entry,
 * whose edges in carry at least MIN_IN and whose edges out carry some,
 * the mean of |out - in| / in, in percent, with the sampled counts
 * (AFTER false) or the solved flows; *CONSIDERED the blocks it averages
 * (0: the bias is 0).
 */
double hwp__infer_bias(const struct hwp__infer_node *nodes, size_t nn, const struct hwp__infer_edge *edges,
		       size_t ne, bool after, uint64_t min_in, size_t *considered);

#endif
