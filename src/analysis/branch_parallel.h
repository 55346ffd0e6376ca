/* SPDX-License-Identifier: MIT */
/* Internal: the branch collector's parallel pass (branch_parallel.c). */
#ifndef HWPROF_ANALYSIS_BRANCH_PARALLEL_H
#define HWPROF_ANALYSIS_BRANCH_PARALLEL_H

#include <stddef.h>

#include "hwprof/branch_collect.h"
#include "hwprof/session.h"

/* The CPUs this process may run on (at least 1). */
unsigned hwp__cpus_available(void);

/* Threads for S when none are asked: the CPUs available, fewer for a small
   input (at least 1). */
unsigned hwp__default_jobs(struct hwp_session *s);

/* Why S cannot be read in parallel (several inputs, text, a pipe,
   compressed records: what does not stay mapped), NULL when it can. */
const char *hwp__parallel_refusal(struct hwp_session *s);

/*
 * Reads every record of S and counts each sample into DST (made with CO,
 * nothing counted yet) on JOBS threads (>= 2), this one included: what
 * hwp_branch_collector__add() of each sample in turn would count, to the
 * byte. S must be one file-mode input whose records stay mapped. 0 or <0
 * (hwp_errmsg(): the error the sequential pass would have met first).
 */
int hwp__parallel_collect(struct hwp_session *s, struct hwp_branch_collector *dst,
			  const struct hwp_branch_collect_opts *co, unsigned jobs);

#endif
