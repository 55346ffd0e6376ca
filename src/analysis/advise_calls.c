/* SPDX-License-Identifier: MIT */
/*
 * The caller chain of each finding (hwp_advisor__add_calls(), advise.h):
 * in the call graph's function tree, every outermost node of the finding's
 * function (a stack counted once, however deep a recursion) is reached by
 * a path of callers; the paths, cut after main or at 4 callers, are summed
 * by their samples and the largest is the finding's. Stacks in which the
 * function has no caller are not counted: a sample without a call stack
 * (of an event that records none, or of another input) is its IP alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/advise_internal.h"
#include "analysis/callgraph_stacks.h"
#include "hwprof/callgraph.h"
#include "hwprof/session.h"
#include "hwprof/symbolize.h"
#include "util/error.h"
#include "util/vec.h"

#define MAX_CALLERS 4

/* The samples through one function by one chain of callers. */
struct via {
	uint32_t fn;
	uint32_t chain[MAX_CALLERS]; /* function ids, innermost first; UINT32_MAX past the end */
	uint64_t samples;
};

static int by_fn_chain(const void *a, const void *b)
{
	const struct via *x = a, *y = b;

	if (x->fn != y->fn)
		return x->fn < y->fn ? -1 : 1;
	return memcmp(x->chain, y->chain, sizeof(x->chain));
}

/* The call graph's function holding LOC (not an inlined one), or UINT32_MAX. */
static uint32_t function_of(struct hwp_symbolizer *sym, const struct hwp_cg_function *f, size_t nf,
			    const struct hwp_code_loc *loc)
{
	struct hwp_symbol_info si;

	if (loc->module < 0 || hwp_symbolizer__lookup(sym, loc->module, loc->offset, &si) < 0 || !si.symbol)
		return UINT32_MAX;
	uint64_t start = loc->offset - si.sym_offset;
	for (size_t i = 0; i < nf; i++)
		if (f[i].module == loc->module && !f[i].inlined && f[i].name && f[i].offset == start)
			return (uint32_t)i;
	return UINT32_MAX;
}

/* The chain V names as text, "a <- b <- main". */
static void chain_text(const struct hwp_cg_function *f, const struct via *v, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int k = 0; k < MAX_CALLERS && v->chain[k] != UINT32_MAX && at < len; k++) {
		const char *name = f[v->chain[k]].name ? f[v->chain[k]].name : "?";

		at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? " <- " : "", name);
	}
}

int hwp_advisor__add_calls(struct hwp_advisor *a, struct hwp_call_graph *cg)
{
	size_t nfind, nf, nt, nv = 0, cap = 0;
	struct hwp_finding *fd = hwp__advisor_findings_rw(a, &nfind);
	const struct hwp_cg_function *f;
	const struct hwp_cg_node *t;
	struct hwp_symbolizer *sym = hwp_session__symbolizer(hwp__call_graph_session(cg));
	struct via *v = NULL;
	uint32_t *of = NULL; /* per finding: its function */
	uint8_t *wanted = NULL;
	int rc = -ENOMEM;

	if (!nfind || !sym)
		return 0;
	nf = hwp_call_graph__functions(cg, &f);
	if (!f)
		return -1;
	nt = hwp_call_graph__tree(cg, &t);
	if (!t)
		return -1;
	if (!(of = malloc(nfind * sizeof(*of))) || !(wanted = calloc(nf + 1, 1)))
		goto out;
	for (size_t i = 0; i < nfind; i++)
		if ((of[i] = function_of(sym, f, nf, &fd[i].loc)) != UINT32_MAX)
			wanted[of[i]] = 1;
	for (size_t i = 1; i < nt; i++) {
		uint32_t fn = t[i].function, p;
		struct via w = { .fn = fn, .samples = t[i].total_samples };
		int k = 0;

		if (fn >= nf || !wanted[fn] || !t[i].total_samples)
			continue;
		/* the outermost frame of the function only (recursion) */
		for (p = t[i].parent; p && t[p].function != fn; p = t[p].parent)
			;
		if (p)
			continue;
		memset(w.chain, 0xff, sizeof(w.chain));
		for (p = t[i].parent; p && k < MAX_CALLERS; p = t[p].parent) {
			if (f[t[p].function].inlined)
				continue;
			w.chain[k++] = t[p].function;
			if (f[t[p].function].name && !strcmp(f[t[p].function].name, "main"))
				break;
		}
		/* a sample without a call stack (an event that records none, in
		   a recording or among several inputs) says nothing of callers */
		if (!k)
			continue;
		struct via *slot = HWP_VEC_PUSH(v, nv, cap);
		if (!slot)
			goto out;
		*slot = w;
	}
	hwp__sort(v, nv, sizeof(*v), by_fn_chain);
	/* summed by (function, chain); per function the largest and the total */
	for (size_t i = 0; i < nfind; i++) {
		uint64_t best = 0, total = 0;
		size_t at = 0;

		if (of[i] == UINT32_MAX)
			continue;
		for (size_t j = 0; j < nv;) {
			size_t e = j;
			uint64_t sum = 0;

			while (e < nv && !by_fn_chain(&v[e], &v[j]))
				sum += v[e++].samples;
			if (v[j].fn == of[i]) {
				total += sum;
				/* (ties: the first chain in order, for a stable answer) */
				if (sum > best)
					best = sum, at = j;
			}
			j = e;
		}
		if (!best)
			continue;
		char buf[1024];
		chain_text(f, &v[at], buf, sizeof(buf));
		if (!(fd[i].callers = hwp__advisor_keep(a, buf)))
			goto out;
		fd[i].callers_samples = best;
		fd[i].function_samples = total;
		fd[i].callers_share = (double)best / (double)total;
	}
	rc = 0;
out:
	free(v);
	free(of);
	free(wanted);
	return rc < 0 ? hwp__set_error(ENOMEM, "out of memory naming the findings' callers") : 0;
}
