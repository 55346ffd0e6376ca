/* SPDX-License-Identifier: MIT */
/*
 * Counts a recording's branch-stack entries into a branch table: each
 * entry's from/to address becomes a module + file offset through the
 * session's address spaces, exactly as perf resolves branch addresses (the
 * thread's user maps first, then the kernel's).
 */
#ifndef HWPROF_BRANCH_COLLECT_H
#define HWPROF_BRANCH_COLLECT_H

#include <stdbool.h>
#include <stdint.h>

#include "hwprof/branch_table.h"
#include "hwprof/hwprof.h"
#include "hwprof/session.h"

HWP_BEGIN_DECLS

struct hwp_branch_collector;

struct hwp_branch_collect_stats {
	uint64_t samples;           /* samples seen */
	uint64_t branch_samples;    /* samples with a branch stack */
	uint64_t entries;           /* branch entries counted */
	uint64_t entries_with_flags; /* mispred or predicted bit set */
	bool no_flags_filter;       /* some event recorded with NO_FLAGS */
	/* Entries whose stacks carry no prediction information: NO_FLAGS, or
	   synthesized by 'perf inject --itrace' from Arm ETM / Intel PT (those
	   attrs select no branch filter; every entry says "predicted"). */
	uint64_t entries_without_prediction;
	bool synthesized_stacks;
	bool call_stack_mode;       /* some event recorded in LBR call-stack mode */
};

struct hwp_branch_collect_opts {
	size_t sz;      /* sizeof(struct hwp_branch_collect_opts) */
	unsigned split; /* enum hwp_branch_split bits: what splits rows besides from/to */
	/* Clear the mispred/predicted bits of synthesized and NO_FLAGS stacks
	   before counting (for mispredict rates; perf's branch views keep them). */
	bool drop_meaningless_prediction;
	/* Also count basic blocks as perf's IPC does (hist__account_cycles):
	   between consecutive entries of a stack, [older to, newer from] with
	   the newer entry's cycles, for stacks with cycles recorded in ANY
	   branch mode; see hwp_branch_collector__blocks(). */
	bool blocks;
};

/* Counts into a new table; S resolves addresses (it must outlive the
   collector). NULL + errno (hwp_errmsg()) on failure. */
HWP_API struct hwp_branch_collector *hwp_branch_collector__new(struct hwp_session *s,
							       const struct hwp_branch_collect_opts *opts);
HWP_API void hwp_branch_collector__delete(struct hwp_branch_collector *c);
/* Counts one sample of S (from hwp_session__next()); other records are ignored. */
HWP_API int hwp_branch_collector__add(struct hwp_branch_collector *c, const struct hwp_event *ev,
				      const struct hwp_thread *th);
/* Reads the rest of the session. Returns 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_branch_collector__read(struct hwp_branch_collector *c);
HWP_API const struct hwp_branch_table *hwp_branch_collector__table(const struct hwp_branch_collector *c);
HWP_API const struct hwp_branch_collect_stats *hwp_branch_collector__stats(const struct hwp_branch_collector *c);
/* The blocks counted with opts.blocks (NULL without): rows keyed from =
   block start, to = block end (the branch ending it), same module, start
   before end; count = executions, cycles_sum = their cycles. */
HWP_API const struct hwp_branch_table *hwp_branch_collector__blocks(const struct hwp_branch_collector *c);

HWP_END_DECLS

#endif
