/* SPDX-License-Identifier: MIT */
/*
 * A sample's call chain as perf 6.1's thread__resolve_callchain_sample()
 * rebuilds it (internal to the call graph, see include/hwprof/callgraph.h):
 * PERF_SAMPLE_CALLCHAIN with its context markers, or in LBR call-stack mode
 * the chain's kernel part, the branch stack's first target and every
 * entry's source, continued with earlier samples' callers when stitching.
 */
#ifndef HWPROF_ANALYSIS_CALLCHAIN_H
#define HWPROF_ANALYSIS_CALLCHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/session.h"
#include "util/hashmap.h"

/* per address of a chain */
#define HWP__CHAIN_KERNEL 1 /* its context is the kernel's */
#define HWP__CHAIN_RET 2    /* a return address (a frame-pointer chain's callers) */
#define HWP__CHAIN_FRAME 4  /* not an address: a frame id stitched from an earlier sample */

/* The frame of IP (FLAGS as above) in the caller's frame table. */
typedef int (*hwp__chain_frame_fn)(void *ctx, const struct hwp_thread *th, uint64_t ip, uint8_t flags,
				   uint32_t *id);

struct hwp__stitch_thread;
struct hwp__unwinder;
struct hwp__unwind_stats;

struct hwp__chain {
	/* the last sample's chain, callee first; empty: it had none (or perf
	   drops it) */
	uint64_t *ips;
	uint8_t *flags;
	size_t n, ips_cap, flags_cap;

	bool stitch_lbr;
	struct hwp__stitch_thread *threads;
	size_t nthreads, threads_cap;
	struct hwp_hashmap thread_map;
	uint64_t max_lbr; /* CPU_PMU_CAPS "branches"; 0: no stitching */
	bool max_lbr_known;

	uint64_t with_callchain, callstack_lbr, stitched, discarded;

	/* --call-graph dwarf: the unwinder of the user stack copies
	   (chain_unwind.c), made on the first one, and its frames */
	struct hwp__unwinder *unwinder;
	uint64_t *uips;

	/* during hwp__chain_build() */
	struct hwp_session *session;
	hwp__chain_frame_fn frame;
	void *frame_ctx;
};

/* Rebuilds EV's chain into C (a zeroed struct to start). FRAME(CTX, ...)
   resolves the branch sources stitching keeps. 0 or <0 (hwp_errmsg()). */
int hwp__chain_build(struct hwp__chain *c, struct hwp_session *s, const struct hwp_event *ev,
		     const struct hwp_thread *th, hwp__chain_frame_fn frame, void *ctx);
/* A plain call chain's words as recorded: the innermost address, its
   context, and the words after it (the callers, markers included). */
struct hwp__chain_raw {
	uint64_t ip;
	bool kernel;
	const uint8_t *words; /* (as they lie in the record: maybe unaligned) */
	size_t n;
};

/* Whether EV's chain is the plain one that hwp__chain_build() makes from
   its recorded words alone (no LBR call stack, no stack copy to unwind),
   with an address and callers after it: then *R says where they lie, and
   the same words in the same address spaces always build the same chain.
   An unknown marker before the first address: false (the build drops
   the chain). */
bool hwp__chain_raw(const struct hwp_event *ev, struct hwp__chain_raw *r);
/* Whether stitch_lbr could continue a chain of S with an earlier sample's
   callers: an event records LBR call stacks with their hardware index and
   the recording says its LBR depth. Pipe mode: only the events announced
   so far. */
bool hwp__chain_may_stitch(struct hwp_session *s);
/* Appends IP (FLAGS) to C's chain: 0 or -ENOMEM. */
int hwp__chain_push(struct hwp__chain *c, uint64_t ip, uint8_t flags);
void hwp__chain_free(struct hwp__chain *c);

/* Makes C's unwinder from what session S knows (where files are found, the
   recording's build-ids and architecture), which hwp__chain_build() does
   on the first stack copy; a caller building chains on other threads calls
   it first. 0 or -ENOMEM. */
int hwp__chain_unwind_setup(struct hwp__chain *c, struct hwp_session *s);
/* Appends EV's unwound user stack (when it has a copy) to C's chain. */
int hwp__chain_unwind(struct hwp__chain *c, const struct hwp_event *ev, const struct hwp_thread *th);
/* Adds what PART's unwinding met (a part of a parallel pass) to DST's,
   making DST's unwinder from S if needed. 0 or -ENOMEM. */
int hwp__chain_unwind_merge(struct hwp__chain *dst, struct hwp_session *s, const struct hwp__chain *part);
/* What the unwinding met so far; NULL when nothing was unwound. */
const struct hwp__unwind_stats *hwp__chain_unwind_stats(const struct hwp__chain *c);

#endif
