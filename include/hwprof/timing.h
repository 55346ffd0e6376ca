/* SPDX-License-Identifier: MIT */
/*
 * Precise timing of machine code from branch stacks. An LBR entry's cycle
 * count is the time since the previous taken branch, so for consecutive
 * entries e[i] (older) and e[i-1] (newer) the newer entry's cycles are the
 * latency of the code that ran straight through from e[i].to to
 * e[i-1].from: one latency sample of that block (the fall-through range, as
 * the branch collector accepts it). A cycle count of 0 means unknown and is
 * left out.
 *
 * Per block: the distribution of its latencies (exact counts per cycle
 * value: LBR cycle counts are 16-bit, so a block holds at most 65,535
 * distinct values however long the recording), its statistics and modes,
 * and its IPC (decoded instructions over mean cycles). Per loop back edge
 * (a taken jump to an address not after it in the same function; not a
 * call or return, checked when the binary and symbols can be had): the cycles of
 * each iteration that lies whole inside one stack, summed over the entries
 * between two consecutive executions of the back edge.
 *
 * Memory grows with the distinct blocks and back edges, not the samples.
 */
#ifndef HWPROF_TIMING_H
#define HWPROF_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/branch_collect.h"
#include "hwprof/code_loc.h"
#include "hwprof/hwprof.h"
#include "hwprof/session.h"

HWP_BEGIN_DECLS

struct hwp_timing;

struct hwp_timing_opts {
	size_t sz;  /* sizeof(struct hwp_timing_opts) */
	bool loops; /* also time loop iterations (hwp_timing__loops()) */
};

/* One value of a distribution: SAMPLES latencies of exactly CYCLES. */
struct hwp_timing_value {
	uint32_t cycles;
	uint64_t samples;
};

/* A peak of a distribution. */
struct hwp_timing_mode {
	uint32_t cycles;  /* its most frequent value */
	uint32_t lo, hi;  /* the values between the valleys on either side */
	uint64_t samples; /* samples in [lo, hi] */
};

#define HWP_TIMING_MAX_MODES 6

/* A distribution of cycle counts and its summary. */
struct hwp_timing_dist {
	uint64_t samples;
	uint64_t cycles_sum;
	uint32_t min, max, median, p90, p99; /* nearest-rank percentiles */
	double mean;
	size_t nmodes; /* by samples, descending */
	struct hwp_timing_mode modes[HWP_TIMING_MAX_MODES];
	size_t nvalues;
	const struct hwp_timing_value *values; /* by cycles, ascending */
};

struct hwp_timing_block {
	struct hwp_code_loc start, end; /* first and last instruction (a taken branch's source) */
	struct hwp_timing_dist d;
	uint32_t insns; /* instructions in [start, end], decoded; 0 when not decoded */
	double ipc;     /* insns / d.mean; 0 when insns is */
};

struct hwp_timing_loop {
	struct hwp_code_loc branch, head; /* the back edge: branch -> head (head <= branch) */
	struct hwp_timing_dist d;         /* cycles per iteration */
	double entries_mean;              /* taken branches per iteration */
};

/* Where the cycle counts come from. */
enum hwp_cycles_source {
	HWP_CYCLES_NONE,     /* no branch entry carries a cycle count */
	HWP_CYCLES_MEASURED, /* hardware branch records */
	HWP_CYCLES_MODELLED, /* an emulated recording: the emulator's cost model */
};

struct hwp_timing_stats {
	uint64_t stacks;             /* samples whose stacks were read (every-branch stacks) */
	uint64_t entries;            /* their entries */
	uint64_t entries_with_cycles;
	uint64_t pairs;              /* consecutive entry pairs */
	uint64_t rejected;           /* pairs whose range the collector rejects */
	uint64_t unknown_cycles;     /* accepted pairs whose newer entry has cycles 0 */
	uint64_t latencies;          /* block latency samples counted */
	uint64_t dropped_by_decoding; /* of those: ranges decoding later rejected */
	uint64_t iterations;         /* loop iterations timed (opts.loops), over the back edges kept */
	uint64_t filtered_stacks;    /* stacks recorded with a filter other than 'any': not used */
	bool modelled;               /* some cycles are the emulator's model */
	bool measured;               /* some cycles come from hardware */
	/* Why there are no cycles (any that applies): */
	bool no_cycles_filter;       /* recorded with no_cycles */
	bool synthesized;            /* stacks synthesized from an instruction trace (Arm ETM, Intel PT) */
	bool amd;                    /* recorded on an AMD CPU (LBRv2/BRS record no cycles) */
	bool call_stack;             /* only LBR call-stack samples: call chains, not branch sequences */
};

/* Times S's samples; C (made with opts.ranges on S) decides which ranges
   count. NULL + errno (hwp_errmsg()) on failure. */
HWP_API struct hwp_timing *hwp_timing__new(struct hwp_session *s, struct hwp_branch_collector *c,
					   const struct hwp_timing_opts *opts);
HWP_API void hwp_timing__delete(struct hwp_timing *t);
/* One sample (after hwp_branch_collector__add() of the same sample). */
HWP_API int hwp_timing__add(struct hwp_timing *t, const struct hwp_event *ev, const struct hwp_thread *th);
/* Reads the rest of the session into both the collector and T, runs the
   collector's range check and builds the results. 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_timing__read(struct hwp_timing *t);
/* Builds the results after hwp_timing__add() calls (read does it). Blocks
   whose range the collector rejected are left out. 0 or <0. */
HWP_API int hwp_timing__build(struct hwp_timing *t);

/* By total cycles, descending. Valid until T is built again or deleted. */
HWP_API const struct hwp_timing_block *hwp_timing__blocks(const struct hwp_timing *t, size_t *n);
HWP_API const struct hwp_timing_loop *hwp_timing__loops(const struct hwp_timing *t, size_t *n);
HWP_API const struct hwp_timing_stats *hwp_timing__stats(const struct hwp_timing *t);
/* What the stats say of the cycle counts read. */
HWP_API enum hwp_cycles_source hwp_timing__source(const struct hwp_timing *t);
/* 0 when T timed something (block latencies, or loop iterations); else <0
   and hwp_errmsg() says why, naming INPUT: the branch records carry no cycle
   counts (and why not: the filter, the CPU, synthesized stacks), or no pair
   of entries could be used. Warns (hwp_set_log()) when modelled and measured
   cycles mix and when decoding dropped latencies. */
HWP_API int hwp_timing__check(const struct hwp_timing *t, const char *input);

/*
 * The blocks that contain WHERE: "0x4005d0" (an address as recorded, or an
 * ELF virtual address), "SYM" or "SYM+0x10" (a symbol, at an offset), or
 * "FILE:LINE" (a source line: FILE is matched as a path suffix). Fills up
 * to MAX indexes into hwp_timing__blocks() and returns how many blocks
 * match (0: none), or <0 when WHERE is malformed (hwp_errmsg()).
 */
HWP_API int hwp_timing__find(struct hwp_timing *t, const char *where, size_t *idx, size_t max);

/*
 * The peaks of a distribution (values by cycles, ascending): a peak of its
 * density smoothed by a 3-bin triangle (bins exact below 32 cycles, 16 per
 * doubling above) that
 * rises at least half its height above the valley towards any higher peak,
 * and reaches 5% of the highest, with at least 5 samples and 2% of all
 * between its valleys. Fills up to MAX modes by samples
 * (descending) and returns their count.
 */
HWP_API size_t hwp_timing__modes(const struct hwp_timing_value *v, size_t n, struct hwp_timing_mode *out,
				 size_t max);

/* One value of a block's latency distribution, as the fleet keeps it
   (hwp_export__add_timing(), hwp_fleet__fetch_timing()). */
struct hwp_timing_latency {
	struct hwp_code_loc start, end; /* the block: module (a symbolizer's) and offsets */
	uint32_t cycles;
	uint64_t samples;
	uint32_t insns;                 /* the block's instructions; 0: not decoded */
};

/*
 * The block timing of latency values V[0..N) (values of one block and
 * cycle count add up): blocks, distributions, modes and IPC as
 * hwp_timing__build() makes them, the stats' latencies and cycle source
 * (MEASURED, MODELLED: said so; both: MEASURED, as a recording mixing them)
 * set, no loops. For hwp_timing__blocks() and the report functions only
 * (no session: hwp_timing__find() and hwp_timing__check() do not apply).
 * NULL + errno (hwp_errmsg()).
 */
HWP_API struct hwp_timing *hwp_timing__from_latencies(const struct hwp_timing_latency *v, size_t n, bool measured,
						       bool modelled);

HWP_END_DECLS

#endif
