/* SPDX-License-Identifier: MIT */
/*
 * The pipeline: one pass over one or more recordings that feeds every
 * analysis asked for, then each one's result. It is what `hwprof report`,
 * `advise`, `probs`, `blocks`, `paths` and `timing` are built on, and what a
 * program linking libhwprof uses to get several answers from one read:
 *
 *     const char *in[] = { "a.data", "b.data" };
 *     struct hwp_pipeline_opts o = { .sz = sizeof(o),
 *                                    .analyses = HWP_ANALYSIS_FLOW | HWP_ANALYSIS_TIMING };
 *     struct hwp_pipeline *p = hwp_pipeline__open(in, 2, &o);
 *     if (!p || hwp_pipeline__run(p) < 0)
 *             fprintf(stderr, "%s\n", hwp_errmsg());
 *     ... hwp_flow__conds(hwp_pipeline__flow(p), &n) ...
 *     hwp_pipeline__delete(p);
 *
 * Several inputs are read one after the other into the same analyses (see
 * hwp_session__open_inputs()): the same binary, by build-id, is one module
 * in all of them, so their counts add up.
 */
#ifndef HWPROF_PIPELINE_H
#define HWPROF_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/advise.h"
#include "hwprof/branch_collect.h"
#include "hwprof/callgraph.h"
#include "hwprof/flow.h"
#include "hwprof/hwprof.h"
#include "hwprof/mem.h"
#include "hwprof/paths.h"
#include "hwprof/session.h"
#include "hwprof/timing.h"

HWP_BEGIN_DECLS

/* What the pass feeds. The branch collector always runs (every other
   analysis of branch stacks reads its tables). */
enum hwp_analysis {
	HWP_ANALYSIS_BRANCHES = 1u << 0, /* branch entries only (hot branches, mispredicts) */
	HWP_ANALYSIS_FLOW = 1u << 1,     /* fall-through ranges and their walk: probabilities, blocks */
	HWP_ANALYSIS_PATHS = 1u << 2,    /* hot paths (implies FLOW) */
	HWP_ANALYSIS_TIMING = 1u << 3,   /* basic-block latency (implies FLOW's ranges) */
	HWP_ANALYSIS_CALLS = 1u << 4,    /* the samples' call stacks */
	HWP_ANALYSIS_MEM = 1u << 5,      /* precise memory samples */
	/* Each branch's executions, not-taken ones included (what mispredict
	   rates divide by): the flow's walk when the stacks allow it (every
	   taken branch, binaries that decode the ranges); else no flow, and no
	   error (LBR call stacks are then counted without ranges). */
	HWP_ANALYSIS_EXECUTIONS = 1u << 6,
	/* Every sample's IP, per instruction (hwp_annotate__new(), the code
	   views of hwprof annotate and of the HTML report). */
	HWP_ANALYSIS_IPS = 1u << 7,
};

struct hwp_pipeline_opts {
	size_t sz;               /* sizeof(struct hwp_pipeline_opts) */
	unsigned analyses;       /* enum hwp_analysis bits; 0: HWP_ANALYSIS_FLOW */
	/* Where binaries are found, demangling ... (NULL: defaults). */
	const struct hwp_session_opts *session;
	/* How branch entries are counted (NULL: what the analyses asked need). */
	const struct hwp_branch_collect_opts *collect;
	const struct hwp_timing_opts *timing; /* NULL: defaults */
	/* The location filter of hwp_pipeline__keep(): only code in the module
	   DSO (spelled as hwp_loc__format_dso() spells it; hwp_pipeline__run()
	   fails when no branch is in it) and in symbols containing SYM. */
	const char *dso;
	const char *sym;
	/* Threads of the pass: 0 the CPUs this process may use (fewer on a
	   small file: one per 4 MiB), 1 one. Several count the samples of one
	   file-mode perf.data (not compressed) for the branch collector's
	   analyses (BRANCHES, FLOW, EXECUTIONS), PATHS and TIMING; the results
	   are those of one thread to the byte. Other passes take one (the log
	   says why at HWP_LOG_INFO). */
	unsigned jobs;
	/* The flow analysis's options (NULL: flow-consistent counts where
	   they help, hwp_flow__infer_helps(), as hwprof's commands do;
	   opts.infer for them always). */
	const struct hwp_flow_opts *flow;
};

struct hwp_pipeline;

/* Opens INPUTS[0..N) (see hwp_session__open_inputs()) and makes the
   analyses asked. NULL + errno (hwp_errmsg()) on failure. */
HWP_API struct hwp_pipeline *hwp_pipeline__open(const char *const *inputs, size_t n,
						const struct hwp_pipeline_opts *opts);
HWP_API void hwp_pipeline__delete(struct hwp_pipeline *p);

/*
 * The pass: every record of every input, each sample to each analysis,
 * then what each does at the end (range checks, the flow walk, timing
 * distributions). Fails (<0, hwp_errmsg() naming the input) when the
 * recordings cannot give what was asked: no samples, no branch stacks (a
 * recording of memory samples alone passes when HWP_ANALYSIS_MEM is asked,
 * one of call stacks alone when HWP_ANALYSIS_CALLS is: then there is no
 * flow), no module named opts.dso (-ENOENT), no usable
 * fall-through range for the flow.
 */
HWP_API int hwp_pipeline__run(struct hwp_pipeline *p);

/* The results, valid until the pipeline is deleted; NULL for an analysis
   not asked (or, for the flow, after a run without branch stacks). */
HWP_API struct hwp_session *hwp_pipeline__session(struct hwp_pipeline *p);
HWP_API struct hwp_symbolizer *hwp_pipeline__symbolizer(struct hwp_pipeline *p);
HWP_API struct hwp_branch_collector *hwp_pipeline__branches(struct hwp_pipeline *p);
HWP_API struct hwp_flow *hwp_pipeline__flow(struct hwp_pipeline *p);
HWP_API struct hwp_paths *hwp_pipeline__paths(struct hwp_pipeline *p);
/* hwp_timing__source() says whether the recordings carried cycle counts. */
HWP_API struct hwp_timing *hwp_pipeline__timing(struct hwp_pipeline *p);
/* NULL too when no event of the recordings samples call stacks. */
HWP_API struct hwp_call_graph *hwp_pipeline__call_graph(struct hwp_pipeline *p);
/* NULL too when the recordings hold no memory samples. */
HWP_API struct hwp_mem_report *hwp_pipeline__mem(struct hwp_pipeline *p);

/* Whether L passes opts.dso and opts.sym (see hwp_loc__matches()). */
HWP_API bool hwp_pipeline__keep(struct hwp_pipeline *p, const struct hwp_code_loc *l);

/* The findings of every analysis the run produced (flow, timing, memory),
   ranked, each with its caller chain where the call graph was asked and
   the recordings have call stacks: what `hwprof advise` prints. NULL + hwp_errmsg() on failure;
   hwp_advisor__delete() it. */
HWP_API struct hwp_advisor *hwp_pipeline__advise(struct hwp_pipeline *p, const struct hwp_advise_opts *opts);

/*
 * The checks hwp_pipeline__run() makes, for a program that reads a session
 * into a collector itself. 0 or <0 with hwp_errmsg() naming the inputs:
 * check_samples: any sample, and (BRANCHES) any with a branch stack;
 * check_module: a branch entry in the module DSO (-ENOENT, the message
 * listing the modules there, when none is).
 */
HWP_API int hwp_pipeline__check_samples(struct hwp_session *s, const struct hwp_branch_collector *c, bool branches);
HWP_API int hwp_pipeline__check_module(struct hwp_session *s, const struct hwp_branch_collector *c, const char *dso);

HWP_END_DECLS

#endif
