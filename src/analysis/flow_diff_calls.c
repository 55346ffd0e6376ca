/* SPDX-License-Identifier: MIT */
/*
 * The functions' call-stack shares compared (hwp_flow_diff__add_calls(),
 * flow_diff.h): children and, without flow analyses, self, from each
 * side's call graph, keyed by module name and symbol and merged as the
 * flow's items are.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/flow_diff_internal.h"
#include "hwprof/callgraph.h"
#include "util/error.h"
#include "util/vec.h"

struct cside {
	struct item *v;
	size_t nr, cap;
	uint64_t period, samples;
	double per_obs; /* period per sample: one observation */
};

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "";
}

static int by_key_then_offset(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : x->loc.offset < y->loc.offset ? -1 : x->loc.offset > y->loc.offset;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->key, ((const struct item *)b)->key);
}

static void cside_free(struct cside *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i].key);
	free(s->v);
}

/* SIDE's items of CG: k = the function's children (SELF: self) period,
   n = all of it; MK holds its samples, for the row's counts. */
static int collect(struct cside *s, struct hwp_call_graph *cg, struct hwp_symbolizer *sym, const char *both_ids,
		   bool self)
{
	const struct hwp_cg_function *f;
	size_t n = hwp_call_graph__functions(cg, &f);
	struct hwp_call_graph_stats st = { .sz = sizeof(st) };

	if (!f || hwp_call_graph__stats(cg, &st) < 0)
		return -ENOMEM;
	s->period = st.period;
	s->samples = st.samples;
	s->per_obs = st.samples ? (double)st.period / (double)st.samples : 1;
	for (size_t i = 0; i < n; i++) {
		uint64_t k = self ? f[i].self_period : f[i].children_period;
		const char *mod = f[i].module >= 0 ? hwp_symbolizer__module_name(sym, f[i].module) : NULL;
		const char *bid = f[i].module >= 0 ? hwp_symbolizer__module_build_id(sym, f[i].module) : NULL;
		struct item *it;
		int r;

		/* perf 6.1's children rows have no inlined functions */
		if (f[i].inlined || !k)
			continue;
		if (!(it = HWP_VEC_PUSH(s->v, s->nr, s->cap)))
			return -ENOMEM;
		memset(it, 0, sizeof(*it));
		if (f[i].name)
			r = asprintf(&it->key, "F %s %s", base_name(mod), f[i].name);
		else if (bid && *bid && strstr(both_ids, bid))
			r = asprintf(&it->key, "B %s %016" PRIx64, bid, f[i].offset);
		else { /* unnamed code of a rebuilt binary: nothing to match it by */
			s->nr--;
			continue;
		}
		if (r < 0) {
			it->key = NULL;
			s->nr--;
			return -ENOMEM;
		}
		it->loc = (struct hwp_code_loc){ .module = f[i].module, .offset = f[i].offset };
		it->k = k;
		it->n = s->period;
		it->mk = self ? f[i].self_samples : f[i].children_samples;
	}
	/* two symbols of one name (C++ overloads as perf names them) stay two:
	   the second and later get their rank in address order */
	hwp__sort(s->v, s->nr, sizeof(*s->v), by_key_then_offset);
	char *prev = NULL; /* the previous item's key before its rank */
	for (size_t i = 0, rank = 0; i < s->nr; i++) {
		char *k;

		rank = prev && !strcmp(prev, s->v[i].key) ? rank + 1 : 0;
		free(prev);
		if (!(prev = strdup(s->v[i].key)))
			return -ENOMEM;
		if (!rank)
			continue;
		if (asprintf(&k, "%s #%zu", s->v[i].key, rank) < 0) {
			free(prev);
			return -ENOMEM;
		}
		free(s->v[i].key);
		s->v[i].key = k;
	}
	free(prev);
	hwp__sort(s->v, s->nr, sizeof(*s->v), by_key);
	return 0;
}

/* The build-ids of the modules both call graphs' functions are in. */
static char *shared_ids(struct hwp_call_graph *b, struct hwp_symbolizer *sb, struct hwp_call_graph *a,
			struct hwp_symbolizer *sa)
{
	const struct hwp_cg_function *fb, *fa;
	size_t nb = hwp_call_graph__functions(b, &fb), na;
	char *out = calloc(1, 1);
	size_t len = 1;

	if (!fb || !out)
		goto fail;
	for (size_t i = 0; i < nb; i++) {
		const char *ib = fb[i].module >= 0 ? hwp_symbolizer__module_build_id(sb, fb[i].module) : NULL;

		if (!ib || !*ib || strstr(out, ib))
			continue;
		na = hwp_call_graph__functions(a, &fa);
		if (!fa)
			goto fail;
		for (size_t j = 0; j < na; j++) {
			const char *ia = fa[j].module >= 0 ? hwp_symbolizer__module_build_id(sa, fa[j].module) : NULL;

			if (ia && !strcmp(ia, ib)) {
				char *o = realloc(out, len + strlen(ib) + 1);

				if (!o)
					goto fail;
				out = o;
				strcat(out, ib);
				strcat(out, " ");
				len += strlen(ib) + 1;
				break;
			}
		}
	}
	return out;
fail:
	free(out);
	return NULL;
}

/* Rows of one measure: the two sides' items merged by key. */
static int compare(struct hwp_flow_diff *d, struct hwp_call_graph *b, struct hwp_call_graph *a, const char *ids,
		   bool self)
{
	struct cside x = { 0 }, y = { 0 };
	size_t i = 0, j = 0;
	int err;

	if ((err = collect(&x, b, d->sym[0], ids, self)) || (err = collect(&y, a, d->sym[1], ids, self)))
		goto out;
	while (!err && (i < x.nr || j < y.nr)) {
		int c = i >= x.nr ? 1 : j >= y.nr ? -1 : strcmp(x.v[i].key, y.v[j].key);
		const struct item *p = c <= 0 ? &x.v[i] : NULL, *q = c >= 0 ? &y.v[j] : NULL;
		/* a share is 0 where the function is not: new and gone code compare */
		struct item za = { .n = x.period }, zb = { .n = y.period };

		i += c <= 0;
		j += c >= 0;
		if (!(err = hwp__diff_add_row(d, HWP_DIFF_FUNCTION, self ? HWP_DIFF_SELF : HWP_DIFF_CHILDREN, p ? p : &za,
					      q ? q : &zb, x.per_obs, y.per_obs, 1))) {
			struct hwp_flow_diff_row *r = &d->rows[d->nr - 1];

			/* (counts shown: the samples) */
			r->n_before = p ? p->mk : 0;
			r->n_after = q ? q->mk : 0;
			if (!p)
				r->before.module = -1;
			if (!q)
				r->after.module = -1;
			d->st.children += !self;
			d->st.functions += self;
		}
	}
out:
	cside_free(&x);
	cside_free(&y);
	return err;
}

int hwp_flow_diff__add_calls(struct hwp_flow_diff *d, struct hwp_call_graph *before, struct hwp_call_graph *after)
{
	char *ids;
	int err;

	d->st.calls_missing = (before ? 0 : 1) | (after ? 0 : 2);
	if (!before || !after || !d->sym[0] || !d->sym[1])
		return 0;
	if (!(ids = shared_ids(before, d->sym[0], after, d->sym[1])))
		return hwp__set_error(ENOMEM, "out of memory comparing call stacks");
	err = compare(d, before, after, ids, false);
	if (!err && d->no_flow)
		err = compare(d, before, after, ids, true);
	free(ids);
	if (err)
		return hwp__set_error(ENOMEM, "out of memory comparing call stacks");
	hwp__sort(d->rows, d->nr, sizeof(*d->rows), hwp__diff_row_order);
	return 0;
}
