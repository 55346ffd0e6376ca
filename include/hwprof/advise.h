/* SPDX-License-Identifier: MIT */
/*
 * Findings: the patterns the branch-record techniques point at, each with
 * the numbers behind it and what to do about it.
 *
 *   HWP_FIND_BIASED_BRANCH   a hot forward conditional branch that is taken
 *                            most of the time: every execution pays a taken
 *                            branch; inverting it (or __builtin_expect, or a
 *                            profile-guided layout) makes the hot path fall
 *                            through. Loop back edges are not reported.
 *   HWP_FIND_MISPREDICT      a branch mispredicted often per execution, with
 *                            enough executions to matter: a branchless form
 *                            (conditional move, arithmetic select) removes
 *                            the flushes.
 *   HWP_FIND_MONOMORPHIC     a hot indirect call (or tail call: a jump to
 *                            another function's entry) whose one target takes
 *                            nearly all executions: devirtualize, or promote
 *                            it (compare and call directly).
 *   HWP_FIND_MULTIMODAL_BLOCK a block whose latency has two or more peaks
 *                            (hwprof timing's modes): some executions wait
 *                            (a cache miss, a dependency, a mispredict's
 *                            refill) where others do not: look at its loads.
 *   HWP_FIND_DRAM_LOADS      a source line whose sampled loads come from DRAM
 *                            (local or remote) in a large share: prefetch,
 *                            block the loop for the cache, shrink the data.
 *   HWP_FIND_FALSE_SHARING   a cache line written by several threads at
 *                            different offsets, with HITM accesses: pad or
 *                            split the fields so each thread's has its own line.
 *   HWP_FIND_SPREAD_FUNCTION a hot function whose hot blocks touch many more
 *                            cache lines than their bytes need: block
 *                            reordering (BOLT, PGO) packs them.
 *
 * Each has an estimated share of the work it covers (of the sampled
 * instructions executed; for mispredicts, the penalty cycles over the
 * instructions at one per cycle; for a spread function, its share times
 * the fraction of its hot cache lines layout could save), its evidence (sample counts, the measure
 * and its 95% interval) and the technique it comes from.
 */
#ifndef HWPROF_ADVISE_H
#define HWPROF_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/branch_collect.h"
#include "hwprof/code_loc.h"
#include "hwprof/flow.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

enum hwp_finding_kind {
	HWP_FIND_BIASED_BRANCH,
	HWP_FIND_MISPREDICT,
	HWP_FIND_MONOMORPHIC,
	HWP_FIND_SPREAD_FUNCTION,
	HWP_FIND_MULTIMODAL_BLOCK,
	HWP_FIND_DRAM_LOADS,
	HWP_FIND_FALSE_SHARING,
	HWP_FIND_KIND_NR
};
/* "biased-branch", "mispredict", "monomorphic-call", "spread-function",
   "multimodal-block", "dram-loads", "false-sharing" */
HWP_API const char *hwp_finding_kind__name(unsigned kind);
/* What to do, one line. */
HWP_API const char *hwp_finding_kind__action(unsigned kind);
/* The technique the finding comes from, one line. */
HWP_API const char *hwp_finding_kind__technique(unsigned kind);

struct hwp_advise_opts {
	size_t sz;               /* sizeof(struct hwp_advise_opts) */
	double min_share;        /* smallest estimated share reported (default 0.005: 0.5%) */
	uint64_t min_executions; /* branches and calls with fewer sampled executions are left out (default 200) */
	double bias;             /* biased branch: taken probability's lower bound at least this (default 0.75) */
	double mispredict_rate;  /* mispredict: the rate's lower bound at least this (default 0.10) */
	double dominance;        /* monomorphic call: the top target's share's lower bound at least this (default 0.9) */
	double spread;           /* spread function: cache lines touched / lines needed at least this (default 1.5) */
	double penalty;          /* cycles per mispredict for the estimate (default 15) */
	double dram_share;       /* dram loads: the line's loads from DRAM at least this share (default 0.2) */
};

struct hwp_finding {
	uint8_t kind;               /* enum hwp_finding_kind */
	struct hwp_code_loc loc;    /* the branch, the call, the function's hottest block */
	struct hwp_code_loc target; /* monomorphic call: the dominant target (else module -1) */
	double share;               /* estimated share of the work it covers, 0..1 */
	double value, lo, hi;       /* the measure and its 95% interval: taken probability,
				       mispredicts per execution, top target share; spread:
				       lines touched / lines needed (lo = hi = value) */
	uint64_t samples;           /* sampled executions (branches, calls) or instructions (function) */
	uint64_t bytes, lines, min_lines; /* spread function: hot bytes, cache lines touched, needed */
	/* multimodal block: its last instruction (loc is its first), and its
	   two largest peaks: cycles and share of the samples */
	struct hwp_code_loc end;
	uint32_t mode_cycles[2];
	double mode_share[2];
	bool modelled;              /* the cycles (latencies) are an emulator's model */
	/* memory findings: the line's (or cache line's) samples, loads, DRAM
	   loads or HITMs, threads, and for false sharing the offsets written
	   (up to two shown) and the data address */
	uint64_t mem_samples, mem_loads, mem_events;
	uint32_t threads, offsets;
	uint32_t offset[2];
	struct hwp_code_loc code2;  /* false sharing: the second code line */
	uint64_t data_addr;
	/* With call stacks (hwp_advisor__add_calls()): the caller chain that
	   brings most of the sampled stacks through the function LOC is in,
	   its callers innermost first, " <- "-separated, up to main or 4
	   callers (inlined callers left out, as perf report --children leaves
	   them out); NULL where no stack holds the function. CALLERS_SAMPLES of
	   the FUNCTION_SAMPLES stacks with the function came that way
	   (CALLERS_SHARE = their ratio); each stack counted once, at the
	   function's outermost frame; stacks where it has no caller (samples
	   without a call stack) not counted. */
	const char *callers;
	double callers_share;
	uint64_t callers_samples, function_samples;
};

/*
 * An advisor gathers the findings of each analysis it is given, then ranks
 * them all:
 *     struct hwp_advisor *a = hwp_advisor__new(&opts);
 *     hwp_advisor__add_flow(a, flow, collector);
 *     const struct hwp_finding *f = hwp_advisor__findings(a, &n);
 */
struct hwp_advisor;
/* NULL + errno (hwp_errmsg()) on bad options or ENOMEM. */
HWP_API struct hwp_advisor *hwp_advisor__new(const struct hwp_advise_opts *opts);
HWP_API void hwp_advisor__delete(struct hwp_advisor *a);
/* The branch findings of F (made from C): biased and mispredicted branches,
   monomorphic calls, spread functions. 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_advisor__add_flow(struct hwp_advisor *a, struct hwp_flow *f, struct hwp_branch_collector *c);
/* The latency findings of T (hwprof/timing.h): blocks with two or more
   modes, their share the block's share of all cycles. 0 or <0. */
struct hwp_timing;
HWP_API int hwp_advisor__add_timing(struct hwp_advisor *a, struct hwp_timing *t);
/* The memory findings of R (hwprof/mem.h): source lines loading from DRAM,
   and falsely shared cache lines (from R's c2c table, hwprof/c2c.h); their
   share is of all sampled load latency. 0 or <0. */
struct hwp_mem_report;
HWP_API int hwp_advisor__add_mem(struct hwp_advisor *a, struct hwp_mem_report *r);
/* Names, for each finding so far, the caller chain that brings most of
   its function's samples in CG (hwprof/callgraph.h, read, of the same
   session as the findings' analyses: see struct hwp_finding's callers).
   0 or <0 (hwp_errmsg()). */
struct hwp_call_graph;
HWP_API int hwp_advisor__add_calls(struct hwp_advisor *a, struct hwp_call_graph *cg);
/* Every finding so far, most share first; valid until the next add. */
HWP_API const struct hwp_finding *hwp_advisor__findings(struct hwp_advisor *a, size_t *n);

HWP_END_DECLS

#endif
