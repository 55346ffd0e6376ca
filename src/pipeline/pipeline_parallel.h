/* SPDX-License-Identifier: MIT */
/* Internal: the pipeline's parallel pass (pipeline_parallel.c). */
#ifndef HWPROF_PIPELINE_PIPELINE_PARALLEL_H
#define HWPROF_PIPELINE_PIPELINE_PARALLEL_H

#include "hwprof/branch_collect.h"
#include "hwprof/callgraph.h"
#include "hwprof/mem.h"
#include "hwprof/paths.h"
#include "hwprof/timing.h"

/* The analyses one pass feeds, made on the session and empty; each but
   the collector may be NULL. */
struct hwp__pipeline_analyses {
	struct hwp_session *session;
	struct hwp_branch_collector *collector;
	const struct hwp_branch_collect_opts *co; /* the collector's */
	struct hwp_paths *paths;
	struct hwp_timing *timing;
	struct hwp_call_graph *calls;
	const struct hwp_call_graph_opts *calls_opts; /* CALLS' */
	struct hwp_mem_report *mem;                   /* made with default options */
};

/* Every sample of the session into A on JOBS (>= 2) threads: afterwards A
   holds what the sequential pass would have counted (ranges unchecked,
   the timing unbuilt). 0 or <0 (hwp_errmsg()). */
int hwp__pipeline_parallel(const struct hwp__pipeline_analyses *a, unsigned jobs);

#endif
