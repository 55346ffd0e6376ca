/* SPDX-License-Identifier: MIT */
/*
 * Hot paths: the basic blocks executed in sequence inside one function, as
 * branch stacks saw them. A stack is a run of straight-line ranges joined by
 * taken branches; consecutive ranges joined by a forward jump or conditional
 * branch inside one function continue one path. A path ends (and the next
 * one starts) at a call, a return, a jump into another function, and at a
 * backward branch (a loop's back edge: so a path is one trip through the
 * loop body, and loops do not make paths without end). Only paths whose
 * both ends lie inside a stack are counted: a path cut by the start or end
 * of the stack is incomplete and dropped (so long paths are sampled less
 * often than short ones: counts compare paths of similar length best).
 *
 * Memory grows with the distinct paths, not with the samples.
 */
#ifndef HWPROF_PATHS_H
#define HWPROF_PATHS_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/branch_collect.h"
#include "hwprof/code_loc.h"
#include "hwprof/flow.h"
#include "hwprof/session.h"

HWP_BEGIN_DECLS

struct hwp_paths;

struct hwp_paths_opts {
	size_t sz; /* sizeof(struct hwp_paths_opts) */
};

/* Counts the paths of S's samples; C (made with opts.ranges on S) decides
   which ranges count. NULL + errno (hwp_errmsg()) on failure. */
HWP_API struct hwp_paths *hwp_paths__new(struct hwp_session *s, struct hwp_branch_collector *c,
					 const struct hwp_paths_opts *opts);
HWP_API void hwp_paths__delete(struct hwp_paths *p);
/* One sample (after hwp_branch_collector__add() of the same sample). */
HWP_API int hwp_paths__add(struct hwp_paths *p, const struct hwp_event *ev, const struct hwp_thread *th);
/* Reads the rest of the session into both the collector and P, then runs
   the collector's range check. 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_paths__read(struct hwp_paths *p);

struct hwp_path {
	uint64_t count;       /* times the path ran in a stack */
	size_t nblocks;
	const struct hwp_code_loc *blocks; /* the blocks' starts, in order */
	struct hwp_code_loc last;          /* the last block's last instruction */
	uint64_t insns;       /* instructions along the path */
};

/* The paths, by count (descending), in blocks of F (the flow analysis of
   the same collector). Paths over a range the collector rejected are left
   out. When F inferred consistent counts, a path's count is at most its
   blocks' (it is a sampled count, which the inference does not adjust). Valid until P is deleted or built again. NULL + errno on failure. */
HWP_API const struct hwp_path *hwp_paths__build(struct hwp_paths *p, const struct hwp_flow *f, size_t *n);

struct hwp_paths_stats {
	uint64_t paths;       /* complete paths counted */
	uint64_t truncated;   /* dropped: cut by a stack's start or end or by an unusable range */
	uint64_t rejected;    /* of the distinct ones: over a range the collector rejected */
	uint64_t no_blocks;   /* of the distinct ones: a range the flow analysis did not walk */
};
HWP_API const struct hwp_paths_stats *hwp_paths__stats(const struct hwp_paths *p);

HWP_END_DECLS

#endif
