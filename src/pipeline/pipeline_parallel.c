/* SPDX-License-Identifier: MIT */
/*
 * The pipeline's parallel pass: each thread's part is one of every
 * analysis asked, fed each sample in the sequential pass's order of
 * analyses (the collector first: the others take its resolved entries).
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/branch_collect_internal.h"
#include "analysis/callgraph_part.h"
#include "analysis/mem_internal.h"
#include "analysis/paths_internal.h"
#include "analysis/timing_internal.h"
#include "pipeline/pipeline_parallel.h"
#include "session/parallel_pass.h"
#include "session/session_internal.h"
#include "util/error.h"

struct bundle {
	struct hwp_branch_collector *collector;
	struct hwp_paths *paths;
	struct hwp_timing *timing;
	struct hwp_call_graph *calls;
	struct hwp_mem_report *mem;
};

static void bundle_delete(void *part)
{
	struct bundle *b = part;

	if (!b)
		return;
	hwp_paths__delete(b->paths);
	hwp_timing__delete(b->timing);
	hwp_call_graph__delete(b->calls);
	hwp_mem_report__delete(b->mem);
	hwp_branch_collector__delete(b->collector);
	free(b);
}

static void *bundle_new(void *ctx, struct hwp__resolver *res)
{
	const struct hwp__pipeline_analyses *a = ctx;
	struct bundle *b = calloc(1, sizeof(*b));

	if (!b) {
		hwp__set_error(ENOMEM, "out of memory starting the parallel pass");
		return NULL;
	}
	if (!(b->collector = hwp__branch_collector_new_part(a->session, a->co, res)) ||
	    (a->paths && !(b->paths = hwp__paths_new_part(a->paths, b->collector, res->ids))) ||
	    (a->timing && !(b->timing = hwp__timing_new_part(a->timing, b->collector))) ||
	    (a->calls && !(b->calls = hwp__call_graph_new_part(a->session, a->calls_opts, res))) ||
	    (a->mem && !(b->mem = hwp__mem_report_new_part(a->session, NULL, res)))) {
		bundle_delete(b);
		return NULL;
	}
	return b;
}

static int bundle_add(void *part, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq)
{
	struct bundle *b = part;
	int r;

	if (!ev->evsel) /* the sequential pass gives no analysis a sample of no known event */
		return 0;
	if ((r = hwp__branch_collector_add_at(b->collector, ev, th, seq)) < 0 ||
	    (b->paths && (r = hwp__paths_add_at(b->paths, ev, th, seq)) < 0) ||
	    (b->timing && (r = hwp__timing_add_at(b->timing, ev, th, seq)) < 0) ||
	    (b->calls && (r = hwp__call_graph_add_at(b->calls, ev, th, seq)) < 0) ||
	    (b->mem && (r = hwp__mem_report_add_at(b->mem, ev, th, seq)) < 0))
		return r;
	return 0;
}

static int bundle_merge(void *ctx, void *const *parts, struct hwp__module_ids *const *ids, size_t n)
{
	const struct hwp__pipeline_analyses *a = ctx;
	struct hwp_branch_collector **c = malloc(n * sizeof(*c));
	struct hwp_paths **p = malloc(n * sizeof(*p));
	struct hwp_timing **t = malloc(n * sizeof(*t));
	struct hwp_call_graph **g = malloc(n * sizeof(*g));
	struct hwp_mem_report **m = malloc(n * sizeof(*m));
	int r = 0;

	if (!c || !p || !t || !g || !m) {
		r = hwp__set_error(ENOMEM, "out of memory merging the parallel pass");
		goto out;
	}
	for (size_t k = 0; k < n; k++) {
		const struct bundle *b = parts[k];

		c[k] = b->collector;
		p[k] = b->paths;
		t[k] = b->timing;
		g[k] = b->calls;
		m[k] = b->mem;
	}
	if ((r = hwp__branch_collector_merge(a->collector, c, ids, n)) < 0 ||
	    (a->paths && (r = hwp__paths_merge(a->paths, p, ids, n)) < 0) ||
	    (a->timing && (r = hwp__timing_merge(a->timing, t, ids, n)) < 0) ||
	    (a->calls && (r = hwp__call_graph_merge(a->calls, g, ids, n)) < 0) ||
	    (a->mem && (r = hwp__mem_report_merge(a->mem, m, ids, n)) < 0))
		goto out;
out:
	free(c);
	free(p);
	free(t);
	free(g);
	free(m);
	return r;
}

int hwp__pipeline_parallel(const struct hwp__pipeline_analyses *a, unsigned jobs)
{
	/* (with a call graph, the samples go to the parts by IP: its leaves
	   are the bulk of what the parts would make alike) */
	const struct hwp__parallel_ops ops = { (void *)a, bundle_new, bundle_add, bundle_merge, bundle_delete,
					       a->calls != NULL };

	return hwp__parallel_pass(a->session, &ops, jobs);
}
