/* SPDX-License-Identifier: MIT */
/*
 * Feeds a recording's events (in perf's time order) into per-process address
 * spaces and a branch table: each branch entry's from/to address becomes a
 * module + file offset, exactly as perf resolves branch addresses (the
 * thread's user maps first, then the kernel's).
 */
#ifndef HWPROF_BRANCH_COLLECT_H
#define HWPROF_BRANCH_COLLECT_H

#include <stdbool.h>
#include <stdint.h>

#include "hwprof/branch_table.h"
#include "hwprof/perf_data.h"
#include "hwprof/symbolize.h"

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

/* SPLIT: enum hwp_branch_split bits. SYM is used for module ids. */
struct hwp_branch_collector *hwp_branch_collector__new(struct hwp_symbolizer *sym, unsigned split,
						       const struct hwp_header_info *hdr);
void hwp_branch_collector__delete(struct hwp_branch_collector *c);
/* Clears the mispred/predicted bits of synthesized and NO_FLAGS stacks before
   counting (for mispredict rates; perf's branch views keep them). */
void hwp_branch_collector__drop_meaningless_prediction(struct hwp_branch_collector *c);
int hwp_branch_collector__add(struct hwp_branch_collector *c, const struct hwp_event *ev);
/* Reads R to its end in time order. Returns 0 or <0 (hwp_errmsg()). */
int hwp_branch_collector__read(struct hwp_branch_collector *c, struct hwp_reader *r);
const struct hwp_branch_table *hwp_branch_collector__table(const struct hwp_branch_collector *c);
const struct hwp_branch_collect_stats *hwp_branch_collector__stats(const struct hwp_branch_collector *c);

#endif
