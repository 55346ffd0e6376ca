/* SPDX-License-Identifier: MIT */
/* Plumbing shared by callgraph and flame: a recording's call graph, read. */
#ifndef HWPROF_CLI_CALLGRAPH_H
#define HWPROF_CLI_CALLGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/callgraph.h"
#include "hwprof/session.h"

struct cg_input {
	struct hwp_session *session;
	struct hwp_call_graph *cg;
};

/* Opens PATH and counts its call stacks on JOBS threads (0: the CPUs
   available); prints the error (naming CMD) and
   returns non-zero on failure. cg_input__close() in any case. */
int cg_input__load(struct cg_input *in, const char *cmd, const char *const *paths, size_t npaths, const char *symfs,
		  const struct hwp_call_graph_opts *co, unsigned jobs);

/* --memory, --hitm, --latency: which samples a call graph counts, and by what. */
#define OPT_MEMORY_SAMPLES(mem, hitm, lat)                                                              \
	OPT_BOOL(0, "memory", mem, "only memory samples (loads and stores with a data source: PEBS, IBS)"), \
	OPT_BOOL(0, "hitm", hitm, "only memory samples that hit a line modified in another cache (HITM)"), \
	OPT_BOOL(0, "latency", lat, "weigh each memory sample by its latency in cycles (memory samples only)")

/* mem/c2c --children: the call graph (perf report --children's table) of
   RO's memory samples (SAMPLES: enum hwp_cg_samples), weighted by their
   latency when LATENCY; at most LIMIT rows (0: all). The exit code. */
struct report_opts;
int cg_children_report(const char *cmd, const struct report_opts *ro, unsigned samples, bool latency,
		       uint64_t limit);
void cg_input__close(struct cg_input *in);
/* One warning line when some modules' symbols are missing. */
void cg_input__warn_missing(struct cg_input *in);
/* One warning line when user stacks (--call-graph dwarf) could not be
   unwound to their end: how many, why, what to record or give instead. */
void cg_warn_unwind(const char *path, const struct hwp_call_graph_stats *st);
#endif
