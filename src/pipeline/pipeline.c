/* SPDX-License-Identifier: MIT */
/* The pipeline: one pass over the session into every analysis asked. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/branch_report.h"
#include "hwprof/pipeline.h"
#include "pipeline/pipeline_checks.h"
#include "analysis/callgraph_part.h"
#include "pipeline/pipeline_parallel.h"
#include "session/parallel_pass.h"
#include "util/error.h"
#include "util/opts.h"

struct hwp_pipeline {
	struct hwp_pipeline_opts o;
	char *dso, *sym;   /* the filter, copied */
	struct hwp_session *session;
	struct hwp_branch_collector *collector;
	struct hwp_flow *flow;
	struct hwp_paths *paths;
	struct hwp_timing *timing;
	struct hwp_call_graph *calls;
	struct hwp_mem_report *mem;
	struct hwp_branch_collect_opts co; /* the collector's */
	struct hwp_call_graph_opts calls_opts;
	bool ran;
};

/* The analyses reading branch stacks. */
#define BRANCH_ANALYSES (HWP_ANALYSIS_BRANCHES | HWP_ANALYSIS_FLOW | HWP_ANALYSIS_PATHS | HWP_ANALYSIS_TIMING | \
			 HWP_ANALYSIS_EXECUTIONS)

/* Whether some input's events sample a field of SAMPLE (HWP_SAMPLE_*
   bits) or record branches with a bit of BRANCH (HWP_BRANCH_*). */
static bool some_event(struct hwp_session *s, uint64_t sample, uint64_t branch)
{
	for (size_t i = 0; i < hwp_session__nr_inputs(s); i++) {
		struct hwp_reader *r = hwp_session__input_reader(s, i);

		for (size_t e = 0; e < hwp_reader__nr_evsels(r); e++) {
			const struct hwp_attr *a = &hwp_reader__evsel(r, e)->attr;

			if ((a->sample_type & sample) || (a->branch_sample_type & branch))
				return true;
		}
	}
	return false;
}

static int make_analyses(struct hwp_pipeline *p)
{
	/* mispredict bits of synthesized or NO_FLAGS stacks mean nothing */
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .drop_meaningless_prediction = true };
	unsigned a = p->o.analyses;

	/* (LBR call stacks are call chains: no fall-through ranges in them) */
	if ((a & (HWP_ANALYSIS_FLOW | HWP_ANALYSIS_PATHS | HWP_ANALYSIS_TIMING)) ||
	    ((a & HWP_ANALYSIS_EXECUTIONS) && !some_event(p->session, 0, HWP_BRANCH_CALL_STACK)))
		co.ranges = co.no_addresses = true;
	if (a & HWP_ANALYSIS_IPS)
		co.ip_samples = HWP_IP_SAMPLES_BY_EVENT;
	if (p->o.collect)
		co = *p->o.collect;
	p->co = co;
	p->collector = hwp_branch_collector__new(p->session, &co);
	if (!p->collector)
		return -1;
	if ((a & HWP_ANALYSIS_PATHS) && !(p->paths = hwp_paths__new(p->session, p->collector, NULL)))
		return -1;
	if ((a & HWP_ANALYSIS_TIMING) && !(p->timing = hwp_timing__new(p->session, p->collector, p->o.timing)))
		return -1;
	p->calls_opts = (struct hwp_call_graph_opts){ .sz = sizeof(p->calls_opts) };
	/* no stacks, no call graph: counting each sample's own function alone
	   would cost a lookup per sample for a graph nobody reads */
	if ((a & HWP_ANALYSIS_CALLS) && some_event(p->session, HWP_SAMPLE_CALLCHAIN, 0) &&
	    !(p->calls = hwp_call_graph__new(p->session, &p->calls_opts)))
		return -1;
	if ((a & HWP_ANALYSIS_MEM) && !(p->mem = hwp_mem_report__new(p->session, NULL)))
		return -1;
	return 0;
}

struct hwp_pipeline *hwp_pipeline__open(const char *const *inputs, size_t n, const struct hwp_pipeline_opts *opts)
{
	struct hwp_pipeline *p = calloc(1, sizeof(*p));
	int err = ENOMEM;

	if (!p) {
		hwp__set_error(ENOMEM, "pipeline: out of memory");
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &p->o, struct hwp_pipeline_opts)) {
		err = EINVAL;
		goto fail;
	}
	if (!p->o.analyses)
		p->o.analyses = HWP_ANALYSIS_FLOW;
	if (p->o.analyses & HWP_ANALYSIS_PATHS)
		p->o.analyses |= HWP_ANALYSIS_FLOW;
	if ((p->o.dso && !(p->dso = strdup(p->o.dso))) || (p->o.sym && !(p->sym = strdup(p->o.sym)))) {
		hwp__set_error(ENOMEM, "pipeline: out of memory");
		goto fail;
	}
	p->o.session = NULL; /* the caller's: used only here */
	p->session = hwp_session__open_inputs(inputs, n, opts->session);
	if (!p->session || make_analyses(p) < 0) {
		err = errno ? errno : EINVAL;
		goto fail;
	}
	p->o.collect = NULL;
	p->o.timing = NULL;
	return p;
fail:
	hwp_pipeline__delete(p);
	errno = err;
	return NULL;
}

void hwp_pipeline__delete(struct hwp_pipeline *p)
{
	if (!p)
		return;
	hwp_flow__delete(p->flow);
	hwp_paths__delete(p->paths);
	hwp_timing__delete(p->timing);
	hwp_call_graph__delete(p->calls);
	hwp_mem_report__delete(p->mem);
	hwp_branch_collector__delete(p->collector);
	hwp_session__delete(p->session);
	free(p->dso);
	free(p->sym);
	free(p);
}

/* The analyses a parallel pass feeds (the flow walks the collector's
   tables after the pass). */
#define PARALLEL_ANALYSES (HWP_ANALYSIS_BRANCHES | HWP_ANALYSIS_FLOW | HWP_ANALYSIS_EXECUTIONS | \
			   HWP_ANALYSIS_PATHS | HWP_ANALYSIS_TIMING | HWP_ANALYSIS_CALLS | HWP_ANALYSIS_MEM | \
			   HWP_ANALYSIS_IPS)

/* How many threads the pass may use (the log says why one when one). */
static unsigned jobs_for(struct hwp_pipeline *p)
{
	const char *why = NULL;

	if (p->o.analyses & ~PARALLEL_ANALYSES)
		why = "an analysis that counts on one thread asked";
	else if (p->calls)
		why = hwp__call_graph_part_refusal(p->session, &p->calls_opts);
	return hwp__parallel_jobs(p->session, p->o.jobs, why);
}

/* Every sample of every input to every analysis (the paths and the timing
   take a sample after the collector counted it). */
static int read_all(struct hwp_pipeline *p)
{
	struct hwp_event ev;
	const struct hwp_thread *th;
	unsigned jobs = jobs_for(p);
	int r;

	if (jobs > 1) {
		struct hwp__pipeline_analyses a = { p->session, p->collector, &p->co, p->paths, p->timing,
						    p->calls, &p->calls_opts, p->mem };

		if ((r = hwp__pipeline_parallel(&a, jobs)) < 0 ||
		    (r = hwp_branch_collector__check_ranges(p->collector)) < 0)
			return r;
		return p->timing ? hwp_timing__build(p->timing) : 0;
	}
	while ((r = hwp_session__next(p->session, &ev, &th)) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel)
			continue;
		if ((r = hwp_branch_collector__add(p->collector, &ev, th)) < 0 ||
		    (p->paths && (r = hwp_paths__add(p->paths, &ev, th)) < 0) ||
		    (p->timing && (r = hwp_timing__add(p->timing, &ev, th)) < 0) ||
		    (p->calls && (r = hwp_call_graph__add(p->calls, &ev, th)) < 0) ||
		    (p->mem && (r = hwp_mem_report__add(p->mem, &ev, th)) < 0))
			return r;
	}
	if (r < 0 || (r = hwp_branch_collector__check_ranges(p->collector)) < 0)
		return r;
	return p->timing ? hwp_timing__build(p->timing) : 0;
}

/* The flow analysis's options: the caller's, else flow-consistent counts
   where they help (hwp_flow__infer_helps()), as hwprof's commands default. */
static const struct hwp_flow_opts *flow_opts(const struct hwp_pipeline *p)
{
	static const struct hwp_flow_opts where_it_helps = { .sz = sizeof(where_it_helps),
							     .infer_depth = HWP_FLOW_INFER_DEPTH };

	return p->o.flow ? p->o.flow : &where_it_helps;
}

int hwp_pipeline__run(struct hwp_pipeline *p)
{
	int r;

	if (p->ran)
		return hwp__set_error(EINVAL, "%s: the pipeline has run already", hwp_session__path(p->session));
	p->ran = true;
	if ((r = read_all(p)) < 0)
		return r;
	if (p->mem && !hwp_mem_report__totals(p->mem)->samples) {
		hwp_mem_report__delete(p->mem);
		p->mem = NULL;
	}
	const struct hwp_branch_collect_stats *st = hwp_branch_collector__stats(p->collector);
	/* memory samples alone: no branch analysis, the memory report only;
	   plain samples (cycles, cpu-clock) where every sample's IP or their
	   call stacks were asked for (the annotated code, the call graph): no
	   branch analysis either */
	if ((p->mem || p->calls || (p->o.analyses & HWP_ANALYSIS_IPS)) && st->samples && !st->branch_samples)
		goto no_branches;
	if ((r = hwp_pipeline__check_samples(p->session, p->collector, p->o.analyses & BRANCH_ANALYSES)) < 0)
		return r;
	if (!(p->o.analyses & BRANCH_ANALYSES))
		goto no_branches;
	if (p->dso && (r = hwp_pipeline__check_module(p->session, p->collector, p->dso)) < 0)
		return r;
	if (p->o.analyses & HWP_ANALYSIS_FLOW) {
		char name[1024];

		if ((r = hwp__pipeline_check_ranges(p->collector, hwp__session_name(p->session, name, sizeof(name)))) < 0)
			return r;
		if (!(p->flow = hwp_flow__new(p->collector, flow_opts(p))))
			return -errno;
	} else if ((p->o.analyses & HWP_ANALYSIS_EXECUTIONS) && hwp_branch_collector__range_stats(p->collector)->accepted) {
		if (!(p->flow = hwp_flow__new(p->collector, flow_opts(p))))
			return -errno;
		if (!hwp_flow__stats(p->flow)->ranges_walked) { /* nothing decoded: no execution counts */
			hwp_flow__delete(p->flow);
			p->flow = NULL;
		}
	}
	return 0;
no_branches:
	hwp_paths__delete(p->paths);
	hwp_timing__delete(p->timing);
	p->paths = NULL;
	p->timing = NULL;
	return 0;
}

struct hwp_session *hwp_pipeline__session(struct hwp_pipeline *p)
{
	return p->session;
}

struct hwp_symbolizer *hwp_pipeline__symbolizer(struct hwp_pipeline *p)
{
	return hwp_session__symbolizer(p->session);
}

struct hwp_branch_collector *hwp_pipeline__branches(struct hwp_pipeline *p)
{
	return p->collector;
}

struct hwp_flow *hwp_pipeline__flow(struct hwp_pipeline *p)
{
	return p->flow;
}

struct hwp_paths *hwp_pipeline__paths(struct hwp_pipeline *p)
{
	return p->paths;
}

struct hwp_timing *hwp_pipeline__timing(struct hwp_pipeline *p)
{
	return p->timing;
}

struct hwp_call_graph *hwp_pipeline__call_graph(struct hwp_pipeline *p)
{
	return p->calls;
}

struct hwp_mem_report *hwp_pipeline__mem(struct hwp_pipeline *p)
{
	return p->mem;
}

bool hwp_pipeline__keep(struct hwp_pipeline *p, const struct hwp_code_loc *l)
{
	if (!p->dso && !p->sym)
		return true;
	return hwp_loc__matches(hwp_pipeline__symbolizer(p), l, p->dso, p->sym);
}

struct hwp_advisor *hwp_pipeline__advise(struct hwp_pipeline *p, const struct hwp_advise_opts *opts)
{
	struct hwp_advisor *a = hwp_advisor__new(opts);

	if (a && ((p->flow && hwp_advisor__add_flow(a, p->flow, p->collector) < 0) ||
		  (p->timing && hwp_timing__source(p->timing) != HWP_CYCLES_NONE &&
		   hwp_advisor__add_timing(a, p->timing) < 0) ||
		  (p->mem && hwp_advisor__add_mem(a, p->mem) < 0) ||
		  /* (last: the caller chains of every finding) */
		  (p->calls && hwp_advisor__add_calls(a, p->calls) < 0))) {
		hwp_advisor__delete(a);
		return NULL;
	}
	return a;
}
