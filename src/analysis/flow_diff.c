/* SPDX-License-Identifier: MIT */
/*
 * Two flow analyses compared item by item (flow_diff.h). Each side's items
 * get a text key (build-id + offset, or module + symbol + line + rank when
 * the build-ids differ); the sorted keys are merged, and every matched pair
 * becomes a row with Newcombe's interval of the difference.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/flow_diff_internal.h"
#include "analysis/wilson.h"
#include "hwprof/branch_report.h"
#include "hwprof/flow_diff.h"
#include "hwprof/session.h"
#include "hwprof/timing.h"
#include "analysis/branch_collect_internal.h"
#include "util/opts.h"
#include "util/vec.h"
#include "util/error.h"

struct side {
	struct hwp_flow *flow;
	struct hwp_symbolizer *sym;
	const struct hwp_flow_diff_opts *o;
	double deff;        /* executions per independent observation */
	uint64_t stacks;    /* samples with a branch stack */
	uint64_t insns;     /* sampled instructions executed, all blocks */
	struct item *v[3];  /* by enum hwp_diff_kind */
	size_t nr[3], cap[3];
};


static const char *const kind_names[] = { "function", "branch", "block" };
static const char *const measure_names[] = { "share", "taken", "mispredict", "latency", "children", "self" };

const char *hwp_diff_kind__name(unsigned kind)
{
	return kind < 3 ? kind_names[kind] : NULL;
}

const char *hwp_diff_measure__name(unsigned measure)
{
	return measure < 6 ? measure_names[measure] : NULL;
}

static const char *base_name(const char *p)
{
	const char *s = p ? strrchr(p, '/') : NULL;

	return s ? s + 1 : p ? p : "";
}

/* The key of L: "B build-id offset" when BOTH has the module's build-id on
   both sides, else "S module symbol file:line" (the rank is added later). */
static char *key_of(struct side *s, const struct hwp_code_loc *l, const char *both_ids, bool function,
		    bool *by_symbol)
{
	struct hwp_loc_fields f;
	char *k = NULL;
	int r;

	hwp_loc__fields(s->sym, l, &f);
	*by_symbol = !(f.build_id && strstr(both_ids, f.build_id));
	if (function)
		r = asprintf(&k, "F %s %s", base_name(f.module), f.symbol ? f.symbol : "?");
	else if (!*by_symbol)
		r = asprintf(&k, "B %s %016" PRIx64, f.build_id, f.offset);
	else
		r = asprintf(&k, "S %s %s %s:%u", base_name(f.module), f.symbol ? f.symbol : "?", base_name(f.file),
			     f.line);
	return r < 0 ? NULL : k;
}

static struct item *push(struct side *s, int kind)
{
	struct item *it = HWP_VEC_PUSH(s->v[kind], s->nr[kind], s->cap[kind]);

	if (it)
		memset(it, 0, sizeof(*it));
	return it;
}

static int by_key_then_offset(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c)
		return c;
	return x->loc.offset < y->loc.offset ? -1 : x->loc.offset > y->loc.offset;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->key, ((const struct item *)b)->key);
}

/* Symbol keys get the item's rank among those of its line, in address
   order ("#0", "#1"): a line with two branches keeps them apart. */
static int rank_and_sort(struct side *s, int kind)
{
	struct item *v = s->v[kind];
	size_t n = s->nr[kind];

	hwp__sort(v, n, sizeof(*v), by_key_then_offset);
	for (size_t i = 0, rank = 0; i < n; i++) {
		char *k;

		rank = i && !strcmp(v[i].key, v[i - 1].key) ? rank + 1 : 0;
		if (v[i].key[0] != 'S')
			continue;
		if (asprintf(&k, "%s #%zu", v[i].key, rank) < 0)
			return -ENOMEM;
		free(v[i].key);
		v[i].key = k;
	}
	/* ranks were given over the unranked keys: re-sort for the merge */
	hwp__sort(v, n, sizeof(*v), by_key);
	return 0;
}

/* Functions sum their blocks; the items are merged by key. */
static int fold_functions(struct side *s)
{
	struct item *v = s->v[HWP_DIFF_FUNCTION];
	size_t n = s->nr[HWP_DIFF_FUNCTION], k = 0;

	hwp__sort(v, n, sizeof(*v), by_key);
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(v[k - 1].key, v[i].key)) {
			v[k - 1].k += v[i].k;
			if (v[i].top > v[k - 1].top) { /* a function is shown at its hottest block */
				v[k - 1].top = v[i].top;
				v[k - 1].loc = v[i].loc;
			}
			free(v[i].key);
			continue;
		}
		v[k++] = v[i];
	}
	s->nr[HWP_DIFF_FUNCTION] = k;
	return 0;
}

static int collect(struct side *s, const char *both_ids)
{
	size_t n;
	const struct hwp_flow_cond *c = hwp_flow__conds(s->flow, &n);
	const struct hwp_flow_block *b;

	for (size_t i = 0; i < n; i++) {
		struct item *it = push(s, HWP_DIFF_BRANCH);

		if (!it || !(it->key = key_of(s, &c[i].site, both_ids, false, &it->by_symbol)))
			return -ENOMEM;
		it->loc = c[i].site;
		it->k = c[i].taken;
		it->n = c[i].executions;
		/* taken mispredicts per execution, from the entries with bits */
		if (c[i].taken_with_info) {
			it->mn = c[i].executions;
			it->mk = (uint64_t)llround((double)c[i].taken_mispredicted * (double)c[i].taken /
						   (double)c[i].taken_with_info);
		}
	}
	b = hwp_flow__blocks(s->flow, &n);
	for (size_t i = 0; i < n; i++)
		s->insns += b[i].count * b[i].insns;
	for (size_t i = 0; i < n; i++) {
		struct item *it = push(s, HWP_DIFF_BLOCK), *fn;

		if (!it || !(it->key = key_of(s, &b[i].start, both_ids, false, &it->by_symbol)))
			return -ENOMEM;
		it->loc = b[i].start;
		it->k = b[i].count * b[i].insns;
		it->n = s->insns;
		if (!(fn = push(s, HWP_DIFF_FUNCTION)) ||
		    !(fn->key = key_of(s, &b[i].start, both_ids, true, &fn->by_symbol)))
			return -ENOMEM;
		fn->loc = b[i].start;
		fn->k = fn->top = b[i].count * b[i].insns;
		fn->n = s->insns;
	}
	if (rank_and_sort(s, HWP_DIFF_BRANCH) || rank_and_sort(s, HWP_DIFF_BLOCK))
		return -ENOMEM;
	return fold_functions(s);
}

/* Newcombe's hybrid score interval of p2 - p1 from the Wilson intervals of
   K/N, each count divided by its side's observations per count. */
static void newcombe(double k1, double n1, double k2, double n2, double z, double *d, double *lo, double *hi)
{
	double p1 = n1 > 0 ? k1 / n1 : 0, p2 = n2 > 0 ? k2 / n2 : 0, l1, u1, l2, u2;

	hwp__wilson(k1, n1, z, &l1, &u1);
	hwp__wilson(k2, n2, z, &l2, &u2);
	*d = p2 - p1;
	*lo = *d - sqrt((p2 - l2) * (p2 - l2) + (u1 - p1) * (u1 - p1));
	*hi = *d + sqrt((u2 - p2) * (u2 - p2) + (p1 - l1) * (p1 - l1));
}

int hwp__diff_add_row(struct hwp_flow_diff *d, int kind, int measure, const struct item *a, const struct item *b,
		   double d1, double d2, double weight)
{
	struct hwp_flow_diff_row *r = HWP_VEC_PUSH(d->rows, d->nr, d->cap);
	bool share = measure == HWP_DIFF_SHARE || measure == HWP_DIFF_CHILDREN || measure == HWP_DIFF_SELF;
	uint64_t ka = a ? (share ? a->k : measure == HWP_DIFF_TAKEN ? a->k : a->mk) : 0;
	uint64_t na = a ? (measure == HWP_DIFF_MISPREDICT ? a->mn : a->n) : 0;
	uint64_t kb = b ? (share ? b->k : measure == HWP_DIFF_TAKEN ? b->k : b->mk) : 0;
	uint64_t nb = b ? (measure == HWP_DIFF_MISPREDICT ? b->mn : b->n) : 0;

	if (!r)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	r->kind = (uint8_t)kind;
	r->measure = (uint8_t)measure;
	r->before = a ? a->loc : (struct hwp_code_loc){ .module = -1 };
	r->after = b ? b->loc : (struct hwp_code_loc){ .module = -1 };
	r->n_before = share ? ka : na;
	r->n_after = share ? kb : nb;
	r->v_before = na ? (double)ka / (double)na : 0;
	r->v_after = nb ? (double)kb / (double)nb : 0;
	newcombe((double)ka / d1, (double)na / d1, (double)kb / d2, (double)nb / d2, d->o.z, &r->change, &r->change_lo,
		 &r->change_hi);
	r->impact = fabs(r->change) * weight;
	r->significant = (r->change_lo > 0 || r->change_hi < 0) && fabs(r->change) >= d->o.min_change;
	d->st.significant += r->significant;
	return 0;
}

/* Merges the sorted items of one kind. */
static int compare_kind(struct hwp_flow_diff *d, struct side *x, struct side *y, int kind)
{
	struct item *a = x->v[kind], *b = y->v[kind];
	size_t na = x->nr[kind], nb = y->nr[kind], i = 0, j = 0;
	uint64_t total_a = 0, total_b = 0;

	for (size_t k = 0; kind == HWP_DIFF_BRANCH && k < na; k++)
		total_a += a[k].n;
	for (size_t k = 0; kind == HWP_DIFF_BRANCH && k < nb; k++)
		total_b += b[k].n;
	while (i < na || j < nb) {
		int c = i >= na ? 1 : j >= nb ? -1 : strcmp(a[i].key, b[j].key);
		const struct item *p = c <= 0 ? &a[i] : NULL, *q = c >= 0 ? &b[j] : NULL;
		int err = 0;

		i += c <= 0;
		j += c >= 0;
		if (kind == HWP_DIFF_BRANCH) {
			uint64_t ea = p ? p->n : 0, eb = q ? q->n : 0;

			if (ea < d->o.min_executions && eb < d->o.min_executions)
				continue;
			if (!p || !q) { /* a probability has no value where the branch is not */
				d->st.unmatched_branches++;
				continue;
			}
			double w = fmax((double)ea / (double)total_a, (double)eb / (double)total_b);

			d->st.branches++;
			d->st.matched_by_symbol += p->by_symbol;
			err = hwp__diff_add_row(d, kind, HWP_DIFF_TAKEN, p, q, x->deff, y->deff, w);
			if (!err && p->mn && q->mn)
				err = hwp__diff_add_row(d, kind, HWP_DIFF_MISPREDICT, p, q, x->deff, y->deff, w);
		} else {
			/* a share is 0 where the code is not: new and gone code compare */
			struct item za = { .n = x->insns }, zb = { .n = y->insns };
			double oa = (double)x->insns / (double)(x->stacks ? x->stacks : 1);
			double ob = (double)y->insns / (double)(y->stacks ? y->stacks : 1);

			if (kind == HWP_DIFF_BLOCK)
				d->st.blocks++;
			else
				d->st.functions++;
			d->st.matched_by_symbol += p && q && p->by_symbol && kind == HWP_DIFF_BLOCK;
			err = hwp__diff_add_row(d, kind, HWP_DIFF_SHARE, p ? p : &za, q ? q : &zb, oa, ob, 1);
			if (!err && !p)
				d->rows[d->nr - 1].before.module = -1;
			if (!err && !q)
				d->rows[d->nr - 1].after.module = -1;
		}
		if (err)
			return err;
	}
	return 0;
}

int hwp__diff_row_order(const void *a, const void *b)
{
	const struct hwp_flow_diff_row *x = a, *y = b;

	if (x->significant != y->significant)
		return y->significant - x->significant;
	return x->impact < y->impact ? 1 : x->impact > y->impact ? -1 : 0;
}

/* The build-ids both recordings hold, as one string to search. */
static char *shared_build_ids(struct side *x, struct side *y)
{
	size_t n, m, len = 1;
	const struct hwp_flow_block *a = hwp_flow__blocks(x->flow, &n), *b = hwp_flow__blocks(y->flow, &m);
	char *out = calloc(1, 1);

	for (size_t i = 0; out && i < n; i++) {
		const char *ia = hwp_symbolizer__module_build_id(x->sym, a[i].start.module);

		if (!ia || strstr(out, ia))
			continue;
		for (size_t j = 0; j < m; j++) {
			const char *ib = hwp_symbolizer__module_build_id(y->sym, b[j].start.module);

			if (ib && !strcmp(ia, ib)) {
				char *o = realloc(out, len + strlen(ia) + 1);

				if (!o) {
					free(out);
					return NULL;
				}
				out = o;
				strcat(out, ia);
				strcat(out, " ");
				len += strlen(ia) + 1;
				break;
			}
		}
	}
	return out;
}

static void side_free(struct side *s)
{
	for (int k = 0; k < 3; k++) {
		for (size_t i = 0; i < s->nr[k]; i++)
			free(s->v[k][i].key);
		free(s->v[k]);
	}
}

static void side_init(struct side *s, struct hwp_flow *f, struct hwp_branch_collector *c,
		      const struct hwp_flow_diff_opts *o)
{
	const struct hwp_branch_collect_stats *st = hwp_branch_collector__stats(c);
	double depth = st->branch_samples ? (double)st->entries / (double)st->branch_samples : 1;

	memset(s, 0, sizeof(*s));
	s->flow = f;
	s->o = o;
	s->sym = hwp__branch_collector_symbolizer(c);
	s->stacks = st->branch_samples;
	s->deff = depth > 2 ? depth - 1 : 1; /* ranges per stack: a branch runs at most once in each */
}

struct hwp_flow_diff *hwp_flow_diff__new(struct hwp_flow *before, struct hwp_branch_collector *cb,
					 struct hwp_flow *after, struct hwp_branch_collector *ca,
					 const struct hwp_flow_diff_opts *opts)
{
	struct hwp_flow_diff *d = calloc(1, sizeof(*d));
	struct side x, y;
	char *ids = NULL;
	int err = -ENOMEM;

	if (!d) {
		hwp__set_error(ENOMEM, "out of memory comparing recordings");
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &d->o, struct hwp_flow_diff_opts)) {
		free(d);
		return NULL;
	}
	d->o.sz = sizeof(d->o);
	if (!(d->o.z > 0))
		d->o.z = HWP__Z95;
	if (!(d->o.min_change > 0))
		d->o.min_change = 0.02;
	if (!d->o.min_executions)
		d->o.min_executions = 100;
	if (!(d->o.min_latency_change > 0))
		d->o.min_latency_change = 0.10;
	if (!d->o.min_latency_samples)
		d->o.min_latency_samples = 100;
	side_init(&x, before, cb, &d->o);
	side_init(&y, after, ca, &d->o);
	d->st.deff_before = x.deff;
	d->st.deff_after = y.deff;
	/* no flow on either side (recordings of call stacks alone): nothing
	   but what hwp_flow_diff__add_calls() adds */
	d->no_flow = !before && !after;
	if (!before != !after) {
		side_free(&x);
		side_free(&y);
		free(d);
		hwp__set_error(EINVAL, "comparing recordings: only one of them has branch stacks");
		errno = EINVAL;
		return NULL;
	}
	if (d->no_flow)
		err = (ids = calloc(1, 1)) ? 0 : -ENOMEM;
	else if (x.sym && y.sym && (ids = shared_build_ids(&x, &y)) && !collect(&x, ids) && !collect(&y, ids))
		err = compare_kind(d, &x, &y, HWP_DIFF_FUNCTION) || compare_kind(d, &x, &y, HWP_DIFF_BRANCH) ||
		      compare_kind(d, &x, &y, HWP_DIFF_BLOCK) ? -ENOMEM : 0;
	d->ids = ids;
	d->sym[0] = x.sym;
	d->sym[1] = y.sym;
	d->deff[0] = x.deff;
	d->deff[1] = y.deff;
	side_free(&x);
	side_free(&y);
	if (err) {
		hwp__set_error(ENOMEM, "out of memory comparing recordings");
		hwp_flow_diff__delete(d);
		errno = ENOMEM;
		return NULL;
	}
	hwp__sort(d->rows, d->nr, sizeof(*d->rows), hwp__diff_row_order);
	return d;
}

void hwp_flow_diff__delete(struct hwp_flow_diff *d)
{
	if (!d)
		return;
	free(d->rows);
	free(d->ids);
	free(d);
}

/* Mean and variance of a latency distribution. */
static void moments(const struct hwp_timing_dist *d, double *mean, double *var)
{
	double m = d->samples ? (double)d->cycles_sum / (double)d->samples : 0, ss = 0;

	for (size_t i = 0; i < d->nvalues; i++) {
		double e = (double)d->values[i].cycles - m;

		ss += e * e * (double)d->values[i].samples;
	}
	*mean = m;
	*var = d->samples > 1 ? ss / (double)(d->samples - 1) : 0;
}

static int latency_items(struct hwp_flow_diff *d, struct side *s, struct hwp_timing *t)
{
	size_t n;
	const struct hwp_timing_block *b = hwp_timing__blocks(t, &n);

	for (size_t i = 0; i < n; i++) {
		struct item *it = push(s, HWP_DIFF_BLOCK);
		char *first, *last;
		bool by_end;

		/* a timed block is a range: blocks with one start and several ends differ */
		if (!it || !(first = key_of(s, &b[i].start, d->ids, false, &it->by_symbol)))
			return -ENOMEM;
		last = key_of(s, &b[i].end, d->ids, false, &by_end);
		if (!last || asprintf(&it->key, "%s%s", first, last + 1) < 0)
			it->key = NULL;
		free(first);
		free(last);
		if (!it->key)
			return -ENOMEM;
		it->loc = b[i].start;
		it->k = b[i].d.samples;
		it->dist = &b[i].d;
	}
	return rank_and_sort(s, HWP_DIFF_BLOCK);
}

/* Welch's interval of the difference of the mean latencies, each side's
   samples counted as effective observations (DEFF per observation). */
static int latency_row(struct hwp_flow_diff *d, const struct item *p, const struct item *q, double total)
{
	struct hwp_flow_diff_row *r = HWP_VEC_PUSH(d->rows, d->nr, d->cap);
	double m1, v1, m2, v2, n1 = (double)p->k / d->deff[0], n2 = (double)q->k / d->deff[1];

	if (!r)
		return -ENOMEM;
	moments(p->dist, &m1, &v1);
	moments(q->dist, &m2, &v2);
	double se = sqrt(v1 / (n1 > 1 ? n1 : 1) + v2 / (n2 > 1 ? n2 : 1));
	*r = (struct hwp_flow_diff_row){ .kind = HWP_DIFF_BLOCK, .measure = HWP_DIFF_LATENCY, .before = p->loc,
					 .after = q->loc, .v_before = m1, .v_after = m2, .change = m2 - m1,
					 .n_before = p->k, .n_after = q->k };
	r->change_lo = r->change - d->o.z * se;
	r->change_hi = r->change + d->o.z * se;
	/* weight: the block's share of the cycles, as the larger side has it */
	r->impact = fabs(r->change) / (m1 > 0 ? m1 : 1) *
		    fmax((double)p->dist->cycles_sum, (double)q->dist->cycles_sum) / total;
	r->significant = (r->change_lo > 0 || r->change_hi < 0) && m1 > 0 &&
			 fabs(r->change) >= d->o.min_latency_change * m1;
	d->st.significant += r->significant;
	d->st.latencies++;
	return 0;
}


int hwp_flow_diff__add_timing(struct hwp_flow_diff *d, struct hwp_timing *before, struct hwp_timing *after)
{
	struct side x = { .sym = d->sym[0] }, y = { .sym = d->sym[1] };
	size_t i = 0, j = 0, n;
	double total = 0;
	int err = 0;

	if (!d->ids)
		return hwp__set_error(EINVAL, "comparing latencies: the comparison could not key its items");
	const struct hwp_timing_block *tb = hwp_timing__blocks(before, &n);
	for (size_t k = 0; k < n; k++)
		total += (double)tb[k].d.cycles_sum;
	if (latency_items(d, &x, before) || latency_items(d, &y, after)) {
		side_free(&x);
		side_free(&y);
		return hwp__set_error(ENOMEM, "out of memory comparing latencies");
	}
	while (!err && i < x.nr[HWP_DIFF_BLOCK] && j < y.nr[HWP_DIFF_BLOCK]) {
		const struct item *p = &x.v[HWP_DIFF_BLOCK][i], *q = &y.v[HWP_DIFF_BLOCK][j];
		int c = strcmp(p->key, q->key);

		i += c <= 0;
		j += c >= 0;
		if (c || p->k < d->o.min_latency_samples || q->k < d->o.min_latency_samples)
			continue;
		err = latency_row(d, p, q, total > 0 ? total : 1);
	}
	side_free(&x);
	side_free(&y);
	if (err)
		return hwp__set_error(ENOMEM, "out of memory comparing latencies");
	hwp__sort(d->rows, d->nr, sizeof(*d->rows), hwp__diff_row_order);
	return 0;
}

const struct hwp_flow_diff_row *hwp_flow_diff__rows(const struct hwp_flow_diff *d, size_t *n)
{
	*n = d->nr;
	return d->rows;
}

const struct hwp_flow_diff_stats *hwp_flow_diff__stats(const struct hwp_flow_diff *d)
{
	return &d->st;
}
