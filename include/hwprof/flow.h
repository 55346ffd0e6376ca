/* SPDX-License-Identifier: MIT */
/*
 * The fall-through between branch records: branch stacks hold only taken
 * branches, but between an older entry's target and the newer entry's source
 * the code ran straight through. Walking each distinct such range once
 * (hwp_branch_collector__ranges()) over the decoded instructions gives:
 *
 *  - basic blocks with execution counts and instruction counts (blocks split
 *    at every branch target the records hold and after every branch);
 *  - per conditional branch: taken executions (ranges that end at it) and
 *    not-taken ones (ranges that run over it), so executions, the taken
 *    probability with a 95% Wilson interval, and mispredicts per execution;
 *  - per indirect jump and call: the distribution of its targets;
 *  - hot paths: the blocks executed in sequence inside one function, from
 *    the ranges of a stack and the taken branches between them.
 *
 * Counts are sampled counts: every execution inside a stack's window counts
 * once, so they are proportional to the true ones (one sample period apart);
 * ratios (probabilities, shares, rates) need no scaling.
 */
#ifndef HWPROF_FLOW_H
#define HWPROF_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/branch_collect.h"
#include "hwprof/branch_table.h"
#include "hwprof/code_loc.h"
#include "hwprof/symbolize.h"

HWP_BEGIN_DECLS

struct hwp_flow;

struct hwp_flow_opts {
	size_t sz; /* sizeof(struct hwp_flow_opts) */
	/* z of the intervals (default 1.96: 95%) */
	double z;
	/* Flow-consistent counts: each function's block counts and branch
	   directions adjusted to conserve flow (as much into a block as out of
	   it) with the least weighted change to the samples (a min-cost flow,
	   as LLVM's profi and BOLT's stale-profile inference solve it); the
	   profile bias before and after per function: hwp_flow__functions(). */
	bool infer;
	/* Infer too when the recording's branch stacks hold at most this many
	   entries (HWP_FLOW_INFER_DEPTH: where it helps, hwprof's commands'
	   default, hwp_flow__infer_helps(); 0: only with .infer). (A whole
	   word after the bool, so that the struct grows and sz tells callers
	   built before it apart.) */
	uint64_t infer_depth;
};

/*
 * Branch stacks of at most this many entries: flow-consistent counts by
 * default. Measured against exact counts (docs/hwprof-blocks.md): with 8 or
 * 16 entries the sampled profile's bias is 3-7% and inference cuts the
 * per-function error by a third to a half; with 32 it moves counts by
 * hundredths to a fifth of a point, and the sampled profile (equal to
 * llvm-profgen's and perf2bolt's) stays the default.
 */
#define HWP_FLOW_INFER_DEPTH 16

/* Whether C's branch stacks are short enough that inference helps: some
   entries were counted and no stack holds more than HWP_FLOW_INFER_DEPTH. */
HWP_API bool hwp_flow__infer_helps(const struct hwp_branch_collector *c);

/*
 * Builds the analysis from C's ranges (C made with opts.ranges and read:
 * hwp_branch_collector__ranges()) and its branch table (the taken entries
 * with their mispredict bits), decoding each module's binary as the
 * session's symbolizer finds it (with C's instruction cache: what its range
 * check decoded is not decoded again). Ranges whose code cannot be decoded
 * (no binary, bytes that do not decode to the range's end) are skipped and
 * counted in the stats. C must outlive the result. NULL + errno
 * (hwp_errmsg()) on failure.
 */
HWP_API struct hwp_flow *hwp_flow__new(struct hwp_branch_collector *c, const struct hwp_flow_opts *opts);
HWP_API void hwp_flow__delete(struct hwp_flow *f);

/* One conditional branch. */
struct hwp_flow_cond {
	struct hwp_code_loc site;   /* the branch instruction */
	struct hwp_code_loc target; /* its direct target (module -1 when not decoded) */
	uint64_t taken;             /* ranges that end at it: taken executions in the windows */
	uint64_t not_taken;         /* ranges that run over it */
	uint64_t executions;        /* taken + not_taken */
	double p_taken, p_taken_lo, p_taken_hi; /* taken / executions, Wilson interval */
	/* The taken entries of the branch table (every entry of a stack: one more
	   per stack than the ranges hold) with their mispredict bits. */
	uint64_t taken_entries;
	uint64_t taken_with_info;   /* entries with the mispred or predicted bit */
	uint64_t taken_mispredicted;
	/* Mispredicted among taken executions (from the bits), Wilson interval;
	   NaN without bits. */
	double mispred_taken, mispred_taken_lo, mispred_taken_hi;
	/* Taken mispredicts per execution: mispred_taken * p_taken. Branch
	   records hold no not-taken branch, so a not-taken execution that was
	   mispredicted is never seen: this is a lower bound of the branch's
	   mispredict rate. The interval combines both 95% intervals (so it holds
	   with at least 90%). NaN without bits. */
	double mispred_per_exec, mispred_per_exec_lo, mispred_per_exec_hi;
	/* The hot direction is the taken one (the lower bound of p_taken is
	   above 1/2): a layout that makes the hot path fall through (inverting
	   the condition, moving the block) saves a taken branch per execution. */
	bool hot_taken;
};

/* Fills C's probabilities, intervals and hot flag from its counts (taken,
   not_taken, taken_entries, taken_with_info, taken_mispredicted) as the
   analysis does, at normal quantile Z (<= 0: 95%, as the analysis): for counts summed over
   recordings (hwprof's fleet rows). */
HWP_API void hwp_flow_cond__finish(struct hwp_flow_cond *c, double z);

/* Sorted by executions, descending (then module, offset). */
HWP_API const struct hwp_flow_cond *hwp_flow__conds(const struct hwp_flow *f, size_t *n);
/* The one at SITE, NULL when it is no conditional branch seen in a range. */
HWP_API const struct hwp_flow_cond *hwp_flow__cond_at(const struct hwp_flow *f, const struct hwp_code_loc *site);

/* One basic block: [start, last], as ranges ran through it. */
struct hwp_flow_block {
	struct hwp_code_loc start;
	struct hwp_code_loc last;   /* its last instruction */
	uint64_t size;              /* bytes: last + its length - start */
	uint32_t insns;             /* instructions */
	uint64_t count;             /* sampled executions */
	uint8_t end_class;          /* how it ends: enum hwp_flow_end */
};

enum hwp_flow_end {
	HWP_FLOW_END_FALLTHROUGH, /* the next instruction starts another block */
	HWP_FLOW_END_COND,
	HWP_FLOW_END_JUMP,
	HWP_FLOW_END_IND_JUMP,
	HWP_FLOW_END_CALL,
	HWP_FLOW_END_IND_CALL,
	HWP_FLOW_END_RET,
	HWP_FLOW_END_OTHER,       /* a syscall, or an instruction a record left from */
};
HWP_API const char *hwp_flow_end__name(unsigned end_class);
/* What the instruction at SITE is, as a block's end (enum hwp_flow_end;
   HWP_FLOW_END_FALLTHROUGH when it is no branch), decoded; <0 when its code
   cannot be decoded (no binary). */
HWP_API int hwp_flow__branch_kind(struct hwp_flow *f, const struct hwp_code_loc *site);

/* Sorted by count, descending (then module, offset). */
HWP_API const struct hwp_flow_block *hwp_flow__blocks(const struct hwp_flow *f, size_t *n);

/* One target of an indirect jump or call. */
struct hwp_flow_target {
	struct hwp_code_loc loc;
	uint64_t count;        /* entries */
	uint64_t mispredicted; /* of them, with the mispred bit */
	double share;          /* count / the site's entries */
};

/* One indirect jump or call site (switch tables, virtual and function-pointer
   calls, PLT stubs), from the taken entries. */
struct hwp_flow_indirect {
	struct hwp_code_loc site;
	bool call;              /* an indirect call; else an indirect jump */
	uint64_t count;         /* entries */
	uint64_t mispredicted;
	size_t ntargets;
	const struct hwp_flow_target *targets; /* by count, descending */
};

/* Sorted by count, descending. */
HWP_API const struct hwp_flow_indirect *hwp_flow__indirect(const struct hwp_flow *f, size_t *n);

/* One function's graph as the inference (opts.infer) saw it. */
struct hwp_flow_function {
	struct hwp_code_loc start; /* the symbol's first byte (module and offset) */
	const char *name;          /* the symbol (valid while the symbolizer is) */
	uint64_t size;             /* the symbol's bytes (UINT64_MAX: not known) */
	size_t blocks, edges;      /* walked blocks in it; edges between them */
	/* BOLT's profile bias: over the blocks that are no entry, with at
	   least 100 sampled executions in and some out, the mean of |out - in|
	   / in, in percent; of the samples and of the consistent counts (0
	   but where flow may enter or leave: returns, tail calls, syscalls). */
	size_t considered;
	double bias_before, bias_after;
	uint64_t count_before, count_after; /* sums of its block counts */
	uint64_t changed;          /* sum of |after - before| over its blocks */
};

/* Sorted by count_before, descending; none without opts.infer. */
HWP_API const struct hwp_flow_function *hwp_flow__functions(const struct hwp_flow *f, size_t *n);

/*
 * The branch and range tables of C (which made F with opts.infer) with the
 * inferred functions' counts made consistent, as a collector the profile
 * writers read (hwp_branch_collector__from_tables(): llvm_profile.h,
 * bolt_profile.h): in those functions, one range per stretch of blocks
 * run straight through, taken branches at their consistent counts (their
 * mispredicts scaled alike); everything else as C counted it. No address
 * section (AutoFDO's). NULL + errno (EINVAL: F made without opts.infer).
 */
HWP_API struct hwp_branch_collector *hwp_flow__consistent_collector(const struct hwp_flow *f,
								    struct hwp_branch_collector *c);

struct hwp_flow_stats {
	uint64_t ranges;           /* distinct ranges given */
	uint64_t ranges_walked;    /* decoded to their end */
	uint64_t ranges_no_binary; /* module without a decodable binary */
	uint64_t ranges_bad_decode; /* decoding from the start does not reach the end */
	uint64_t range_runs;       /* sum of the walked ranges' counts */
	uint64_t range_runs_skipped; /* sum of the others' */
	uint64_t instructions;     /* instructions executed in the walked ranges */
	uint64_t decoded;          /* distinct instructions decoded */
	bool inferred;             /* counts made flow-consistent (opts) */
};
HWP_API const struct hwp_flow_stats *hwp_flow__stats(const struct hwp_flow *f);

HWP_END_DECLS

#endif
