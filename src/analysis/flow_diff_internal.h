/* SPDX-License-Identifier: MIT */
/* Internal: the comparison's object and its rows, shared by the flow's
   items (flow_diff.c) and the call graph's (flow_diff_calls.c). */
#ifndef HWPROF_ANALYSIS_FLOW_DIFF_INTERNAL_H
#define HWPROF_ANALYSIS_FLOW_DIFF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hwprof/flow_diff.h"
#include "hwprof/symbolize.h"

/* One comparable item of one side. */
struct item {
	char *key;
	struct hwp_code_loc loc;
	uint64_t k, n;      /* taken / executions; or instructions / all of them */
	uint64_t mk, mn;    /* mispredicted / executions with bits (branches) */
	uint64_t top;       /* functions: the instructions of the block LOC is */
	const struct hwp_timing_dist *dist; /* latency: the block's cycles */
	bool by_symbol;
};

struct hwp_flow_diff {
	struct hwp_flow_diff_opts o;
	struct hwp_flow_diff_row *rows;
	size_t nr, cap;
	struct hwp_flow_diff_stats st;
	/* kept for hwp_flow_diff__add_timing(): how items are keyed */
	char *ids;
	struct hwp_symbolizer *sym[2];
	double deff[2];
	bool no_flow; /* neither side has a flow analysis (call stacks alone) */
};

/* A row comparing A and B (either may be NULL: absent on that side) by
   MEASURE, each side's counts divided by its counts per observation D1, D2;
   IMPACT is |change| x WEIGHT. 0 or -ENOMEM. */
int hwp__diff_add_row(struct hwp_flow_diff *d, int kind, int measure, const struct item *a, const struct item *b,
		      double d1, double d2, double weight);
/* Significant rows first, then by impact, descending (a qsort comparator). */
int hwp__diff_row_order(const void *a, const void *b);

#endif
