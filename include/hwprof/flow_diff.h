/* SPDX-License-Identifier: MIT */
/*
 * What changed between two recordings of one program, branch by branch,
 * block by block and function by function, with intervals so that sampling
 * noise is not reported as change.
 *
 * Matching: code whose module has the same build-id in both recordings is
 * matched by module offset; otherwise (a rebuilt program) by module name,
 * symbol, source file name and line, and the rank among the branches (or
 * blocks) of that line in address order.
 *
 * Measures, each a proportion with a 95% (opts.z) Wilson interval per side
 * and Newcombe's interval for the difference (after - before):
 *   - a conditional branch's taken probability (taken / executions);
 *   - its taken mispredicts per execution (when both sides have the bits);
 *   - a block's and a function's share of the sampled instructions executed
 *     (executions x instructions over all of them: where the work goes).
 * Executions inside one branch stack are not independent (a loop's branch
 * runs many times in one window), so each side counts as many observations
 * as its executions divided by the recording's mean stack depth less one
 * (branches) or as its stacks (shares): conservative intervals. A change is
 * significant when its interval excludes 0 and it is at least opts.min_change.
 */
#ifndef HWPROF_FLOW_DIFF_H
#define HWPROF_FLOW_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/branch_collect.h"
#include "hwprof/code_loc.h"
#include "hwprof/flow.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

struct hwp_flow_diff;

struct hwp_flow_diff_opts {
	size_t sz;         /* sizeof(struct hwp_flow_diff_opts) */
	double z;          /* of the intervals (default 1.96: 95%) */
	double min_change; /* smallest change called significant, as a fraction (default 0.02) */
	uint64_t min_executions; /* branches with fewer executions on both sides are not compared (default 100) */
	/* Latency (hwp_flow_diff__add_timing()): the smallest change of a
	   block's mean latency called significant, as a fraction of BEFORE's
	   mean (default 0.10), and the latency samples a block needs on both
	   sides to be compared (default 100). */
	double min_latency_change;
	uint64_t min_latency_samples;
};

enum hwp_diff_kind { HWP_DIFF_FUNCTION, HWP_DIFF_BRANCH, HWP_DIFF_BLOCK };
/* SHARE, TAKEN, MISPREDICT, CHILDREN, SELF: proportions (0..1); LATENCY:
   mean cycles. CHILDREN and SELF (hwp_flow_diff__add_calls()): a
   function's share of the sampled period with it on the call stack, and
   with the sample in it, as perf report --children counts them. */
enum hwp_diff_measure { HWP_DIFF_SHARE, HWP_DIFF_TAKEN, HWP_DIFF_MISPREDICT, HWP_DIFF_LATENCY, HWP_DIFF_CHILDREN,
			HWP_DIFF_SELF };
HWP_API const char *hwp_diff_kind__name(unsigned kind);
HWP_API const char *hwp_diff_measure__name(unsigned measure);

struct hwp_flow_diff_row {
	uint8_t kind;    /* enum hwp_diff_kind */
	uint8_t measure; /* enum hwp_diff_measure */
	/* The item in each recording (module -1 where it is absent: new or gone
	   code, its share 0 there). A function's location is its hottest block. */
	struct hwp_code_loc before, after;
	double v_before, v_after;       /* the proportions (latency: mean cycles) */
	double change, change_lo, change_hi; /* after - before and its interval */
	uint64_t n_before, n_after;     /* executions (branches) or sampled instructions (shares) */
	double impact;                  /* |change| x the item's weight: the sort key */
	bool significant;
};

/*
 * Compares two flow analyses (hwp_flow__new()) made from collectors CB and
 * CA (for their stack counts) of sessions whose symbolizers stay alive.
 * Both flows may be NULL (recordings without branch stacks: the comparison
 * is then what hwp_flow_diff__add_calls() adds), not one.
 * NULL + errno (hwp_errmsg()) on failure.
 */
HWP_API struct hwp_flow_diff *hwp_flow_diff__new(struct hwp_flow *before, struct hwp_branch_collector *cb,
						 struct hwp_flow *after, struct hwp_branch_collector *ca,
						 const struct hwp_flow_diff_opts *opts);
HWP_API void hwp_flow_diff__delete(struct hwp_flow_diff *d);
/*
 * Adds the blocks' mean latencies (hwprof/timing.h, each made from the
 * same recording as the flow analysis of its side): matched as the blocks
 * are, compared by Welch's interval of the difference of the means (each
 * side's samples divided by its executions per observation, as for the
 * branches); significant when the interval excludes 0 and the change is at
 * least opts.min_latency_change of BEFORE's mean. 0 or <0 (hwp_errmsg()).
 */
struct hwp_timing;
HWP_API int hwp_flow_diff__add_timing(struct hwp_flow_diff *d, struct hwp_timing *before, struct hwp_timing *after);
/*
 * Adds the functions' call-stack shares (hwprof/callgraph.h, each call
 * graph of the same recording as its side, read): per function (not the
 * inlined ones, as perf report --children), its children share (samples
 * with it on the stack, by period, over all of them) and, where neither
 * side has a flow analysis, its self share (samples in it). Functions
 * match by module name and symbol (two symbols of one name by address
 * order), unnamed code by module and offset where the build-ids are equal.
 * Each sample is one observation (a call stack is one draw), so a side's
 * period counts as its period / its samples per observation; the interval
 * and the significance rule are the shares'. A side without call stacks
 * (NULL) compares nothing and is counted in stats.calls_missing. 0 or <0.
 */
struct hwp_call_graph;
HWP_API int hwp_flow_diff__add_calls(struct hwp_flow_diff *d, struct hwp_call_graph *before,
				     struct hwp_call_graph *after);
/* Significant rows first, then by impact, descending. */
HWP_API const struct hwp_flow_diff_row *hwp_flow_diff__rows(const struct hwp_flow_diff *d, size_t *n);

struct hwp_flow_diff_stats {
	size_t branches, blocks, functions; /* compared (matched, or with a share on one side) */
	size_t significant;
	size_t latencies;                   /* blocks whose latency was compared */
	size_t matched_by_symbol;           /* items matched by symbol and line, not by offset */
	size_t unmatched_branches;          /* branches with enough executions on one side only */
	double deff_before, deff_after;     /* the executions per observation used */
	/* hwp_flow_diff__add_calls(): functions whose children share was
	   compared; which side had no call stacks (1 BEFORE, 2 AFTER, 3
	   both; 0 also when it was not called) */
	size_t children;
	unsigned calls_missing;
};
HWP_API const struct hwp_flow_diff_stats *hwp_flow_diff__stats(const struct hwp_flow_diff *d);

HWP_END_DECLS

#endif
