/* SPDX-License-Identifier: MIT */
/* Internal: what the timing's other files need of it. */
#ifndef HWPROF_ANALYSIS_TIMING_INTERNAL_H
#define HWPROF_ANALYSIS_TIMING_INTERNAL_H

#include "hwprof/timing.h"

/* The session and the collector T was made with. */
struct hwp_session *hwp__timing_session(const struct hwp_timing *t);
struct hwp_branch_collector *hwp__timing_collector(const struct hwp_timing *t);

/*
 * A parallel pass (session/parallel_pass.h): parts time shares of one
 * session's samples as WHOLE would, each after its own collector part (C)
 * added the sample, then merge into WHOLE, which timed nothing (before
 * hwp_timing__build()). SEQ: the sample's number in the sequential order.
 */
struct hwp__module_ids;
struct hwp_timing *hwp__timing_new_part(struct hwp_timing *whole, struct hwp_branch_collector *c);
int hwp__timing_add_at(struct hwp_timing *t, const struct hwp_event *ev, const struct hwp_thread *th,
		       uint64_t seq);
int hwp__timing_merge(struct hwp_timing *dst, struct hwp_timing *const *parts, struct hwp__module_ids *const *ids,
		      size_t n);

#endif
