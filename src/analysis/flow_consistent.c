/* SPDX-License-Identifier: MIT */
/*
 * hwp_flow__consistent_collector(): the inferred counts as the branch and
 * range tables the profile writers read.
 *
 * Ranges: in each inferred function, blocks in address order; flow that
 * enters a block other than by falling through starts ranges there (its
 * count less its fall-through in), flow that leaves it other than by
 * falling through ends ranges at its last instruction (count less
 * fall-through out), first started first ended. Which start is paired with
 * which end does not matter to any writer: every instruction is covered by
 * its block's consistent count and every fall-through edge by its flow
 * whatever the pairing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "analysis/flow_cfg.h"
#include "analysis/flow_internal.h"
#include "hwprof/branch_collect.h"
#include "hwprof/branch_table.h"
#include "util/error.h"
#include "util/vec.h"

struct open_range {
	size_t block;
	uint64_t n;
};

struct ctx {
	const struct hwp__cfg_block *b;
	size_t nb;
	size_t *order; /* blocks by (module, start) */
	const struct hwp__cfg_edge **taken; /* TAKEN edges by (module, from_last, to) */
	size_t ntaken;
	uint64_t *ft_in, *ft_out; /* by block: fall-through flow */
	struct open_range *open;
	size_t nopen, open_cap;
	struct hwp_branch_table *ranges;
};

static const struct hwp__cfg_block *sort_b;

static int cmp_block(const void *a, const void *b)
{
	const struct hwp__cfg_block *x = &sort_b[*(const size_t *)a], *y = &sort_b[*(const size_t *)b];

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_edge(const void *a, const void *b)
{
	const struct hwp__cfg_edge *x = *(const struct hwp__cfg_edge *const *)a;
	const struct hwp__cfg_edge *y = *(const struct hwp__cfg_edge *const *)b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (x->from_last != y->from_last)
		return x->from_last < y->from_last ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* The position in order of the first block at or after MODULE + OFF. */
static size_t block_pos(const struct ctx *x, int32_t module, uint64_t off)
{
	size_t lo = 0, hi = x->nb;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hwp__cfg_block *b = &x->b[x->order[mid]];

		if (b->module < module || (b->module == module && b->start < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static long block_at(const struct ctx *x, int32_t module, uint64_t off)
{
	size_t p = block_pos(x, module, off);

	return p < x->nb && x->b[x->order[p]].module == module && x->b[x->order[p]].start == off ? (long)x->order[p]
												 : -1;
}

/* The index in taken of the edge FROM -> TO, or -1. */
static long taken_at(const struct ctx *x, int32_t module, uint64_t from, uint64_t to)
{
	size_t lo = 0, hi = x->ntaken;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hwp__cfg_edge *e = x->taken[mid];
		int c = e->module != module ? (e->module < module ? -1 : 1)
			: e->from_last != from ? (e->from_last < from ? -1 : 1)
			: e->to != to ? (e->to < to ? -1 : 1) : 0;

		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static struct hwp_code_loc loc_of(const struct hwp__cfg_block *b, uint64_t off)
{
	return (struct hwp_code_loc){ .module = b->module, .cpumode = b->cpumode, .offset = off,
				      .addr = b->addr + (off - b->start) };
}

/* Ends N of the open ranges (first opened first) at block E's last instruction. */
static int close_ranges(struct ctx *x, size_t e, uint64_t n)
{
	while (n && x->nopen) {
		struct open_range *o = &x->open[0];
		uint64_t k = o->n < n ? o->n : n;
		struct hwp_branch_row r;

		memset(&r, 0, sizeof(r));
		r.key.from = loc_of(&x->b[o->block], x->b[o->block].start);
		r.key.to = loc_of(&x->b[e], x->b[e].last);
		r.c.count = k;
		if (hwp_branch_table__add_row(x->ranges, &r) < 0)
			return -ENOMEM;
		o->n -= k;
		n -= k;
		if (!o->n)
			memmove(x->open, x->open + 1, --x->nopen * sizeof(*x->open));
	}
	return 0;
}

/* The ranges of one function: its blocks at order[i0..i1). */
static int function_ranges(struct ctx *x, size_t i0, size_t i1)
{
	x->nopen = 0;
	for (size_t i = i0; i < i1; i++) {
		size_t k = x->order[i];
		const struct hwp__cfg_block *b = &x->b[k];
		uint64_t in = b->count > x->ft_in[k] ? b->count - x->ft_in[k] : 0;
		uint64_t out = b->count > x->ft_out[k] ? b->count - x->ft_out[k] : 0;

		if (in) {
			struct open_range *o = HWP_VEC_PUSH(x->open, x->nopen, x->open_cap);

			if (!o)
				return -ENOMEM;
			*o = (struct open_range){ k, in };
		}
		if (close_ranges(x, k, out) < 0)
			return -ENOMEM;
		/* what does not fall through into the next block ends here */
		bool falls = i + 1 < i1 && x->b[x->order[i + 1]].start == b->next && x->ft_out[k];
		if (!falls && close_ranges(x, k, UINT64_MAX) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Whether OFF in MODULE is in an inferred function (FNS sorted by start). */
static bool in_function(const struct hwp_flow_function *const *fns, size_t n, int32_t module, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the last function starting at or before OFF */
		size_t mid = lo + (hi - lo) / 2;
		const struct hwp_code_loc *s = &fns[mid]->start;

		if (s->module < module || (s->module == module && s->offset <= off))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return false;
	const struct hwp_flow_function *f = fns[lo - 1];
	return f->start.module == module && (f->size == UINT64_MAX || off - f->start.offset < f->size);
}

static int cmp_fn_start(const void *a, const void *b)
{
	const struct hwp_flow_function *x = *(const struct hwp_flow_function *const *)a;
	const struct hwp_flow_function *y = *(const struct hwp_flow_function *const *)b;

	if (x->start.module != y->start.module)
		return x->start.module < y->start.module ? -1 : 1;
	return x->start.offset < y->start.offset ? -1 : x->start.offset > y->start.offset;
}

static int build(struct ctx *x, const struct hwp__cfg_result *res, struct hwp_branch_collector *c,
		 struct hwp_branch_table *branches)
{
	const struct hwp_flow_function **fns = calloc(res->nfns ? res->nfns : 1, sizeof(*fns));
	size_t nr;
	const struct hwp_branch_row *rows;
	int err = -ENOMEM;

	if (!fns)
		return -ENOMEM;
	for (size_t i = 0; i < res->nfns; i++)
		fns[i] = &res->fns[i];
	if (res->nfns)
		qsort(fns, res->nfns, sizeof(*fns), cmp_fn_start);
	/* fall-through flows, and the taken edges to look rows up in */
	for (size_t j = 0; j < res->nedges; j++) {
		const struct hwp__cfg_edge *e = &res->edges[j];

		if (e->kind == HWP__CFG_TAKEN) {
			x->taken[x->ntaken++] = e;
		} else if (e->kind == HWP__CFG_FALLTHROUGH) {
			long a = block_at(x, e->module, e->from), b = block_at(x, e->module, e->to);

			if (a >= 0 && b >= 0) {
				x->ft_out[a] += e->flow;
				x->ft_in[b] += e->flow;
			}
		}
	}
	if (x->ntaken)
		qsort(x->taken, x->ntaken, sizeof(*x->taken), cmp_edge);
	/* ranges: the inferred functions' from their blocks, the others' as counted */
	for (size_t f = 0; f < res->nfns; f++) {
		const struct hwp_flow_function *fn = fns[f];
		size_t i0 = block_pos(x, fn->start.module, fn->start.offset), i1 = i0;

		while (i1 < x->nb && x->b[x->order[i1]].module == fn->start.module &&
		       (fn->size == UINT64_MAX || x->b[x->order[i1]].start - fn->start.offset < fn->size))
			i1++;
		if (function_ranges(x, i0, i1) < 0)
			goto out;
	}
	rows = hwp_branch_table__rows(hwp_branch_collector__ranges(c), &nr);
	for (size_t i = 0; i < nr; i++)
		if (!in_function(fns, res->nfns, rows[i].key.from.module, rows[i].key.from.offset) &&
		    hwp_branch_table__add_row(x->ranges, &rows[i]) < 0)
			goto out;
	/* branches: the inferred taken edges at their flow, the rest as counted */
	rows = hwp_branch_table__rows(hwp_branch_collector__table(c), &nr);
	uint8_t *used = calloc(x->ntaken ? x->ntaken : 1, 1);
	if (!used)
		goto out;
	for (size_t i = 0; i < nr; i++) {
		struct hwp_branch_row r = rows[i];
		long k = r.key.from.module < 0 || r.key.to.module != r.key.from.module
				 ? -1 : taken_at(x, r.key.from.module, r.key.from.offset, r.key.to.offset);

		if (k >= 0) {
			const struct hwp__cfg_edge *e = x->taken[k];

			if (used[k] || !e->flow)
				continue; /* one row per edge (a split table has several) */
			used[k] = 1;
			r.c.mispred = r.c.count ? (uint64_t)((double)r.c.mispred * (double)e->flow / (double)r.c.count) : 0;
			r.c.predicted = r.c.count ? (uint64_t)((double)r.c.predicted * (double)e->flow / (double)r.c.count)
						  : 0;
			r.c.count = e->flow;
		}
		if (hwp_branch_table__add_row(branches, &r) < 0) {
			free(used);
			goto out;
		}
	}
	/* taken edges the samples never showed, which the flow now uses */
	for (size_t k = 0; k < x->ntaken; k++) {
		const struct hwp__cfg_edge *e = x->taken[k];
		long a = block_at(x, e->module, e->from), b = block_at(x, e->module, e->to);
		struct hwp_branch_row r;

		if (used[k] || !e->flow || a < 0 || b < 0)
			continue;
		memset(&r, 0, sizeof(r));
		r.key.from = loc_of(&x->b[a], e->from_last);
		r.key.to = loc_of(&x->b[b], e->to);
		r.c.count = e->flow;
		if (hwp_branch_table__add_row(branches, &r) < 0) {
			free(used);
			goto out;
		}
	}
	free(used);
	err = 0;
out:
	free(fns);
	return err;
}

struct hwp_branch_collector *hwp_flow__consistent_collector(const struct hwp_flow *f, struct hwp_branch_collector *c)
{
	const struct hwp__cfg_result *res;
	struct ctx x = { 0 };
	struct hwp_branch_table *branches = NULL;
	int err = -ENOMEM;

	x.b = hwp__flow_cfg_blocks(f, &x.nb, &res);
	if (!x.b) {
		hwp__set_error(EINVAL, "hwp_flow__consistent_collector: the flow analysis was made without inference");
		errno = EINVAL;
		return NULL;
	}
	x.order = malloc((x.nb ? x.nb : 1) * sizeof(*x.order));
	x.taken = malloc((res->nedges ? res->nedges : 1) * sizeof(*x.taken));
	x.ft_in = calloc(x.nb ? x.nb : 1, sizeof(*x.ft_in));
	x.ft_out = calloc(x.nb ? x.nb : 1, sizeof(*x.ft_out));
	x.ranges = hwp_branch_table__new(0);
	branches = hwp_branch_table__new(0);
	if (x.order && x.taken && x.ft_in && x.ft_out && x.ranges && branches) {
		for (size_t i = 0; i < x.nb; i++)
			x.order[i] = i;
		sort_b = x.b; /* (qsort has no context argument in C11) */
		if (x.nb)
			qsort(x.order, x.nb, sizeof(*x.order), cmp_block);
		sort_b = NULL;
		err = build(&x, res, c, branches);
	}
	free(x.order);
	free(x.taken);
	free(x.ft_in);
	free(x.ft_out);
	free(x.open);
	if (err < 0) {
		hwp_branch_table__delete(x.ranges);
		hwp_branch_table__delete(branches);
		hwp__set_error(ENOMEM, "out of memory making the consistent tables");
		errno = ENOMEM;
		return NULL;
	}
	return hwp_branch_collector__from_tables(hwp__branch_collector_symbolizer(c), hwp__branch_collector_name(c),
						 branches, x.ranges);
}
