/* SPDX-License-Identifier: MIT */
/*
 * Per-function graphs over the flow analysis's blocks (see flow_cfg.h).
 *
 * Nodes are the walked blocks of one symbol. Edges and their samples:
 *  - fall-through into the next block: the ranges that ran on into it
 *    (counted by the walk, so consistent with the block counts);
 *  - taken, to a block of the same function: the branch table's entries,
 *    scaled by the ranges per entry (a stack of N entries holds N - 1
 *    ranges, so unscaled every taken edge would look N / (N - 1) too hot);
 *    a conditional branch or direct jump whose target was never seen taken
 *    gets an edge with a sample of 0;
 *  - a call, to the block after it: the call block's count (every range
 *    through it ends at the call).
 * Entries are the symbol's first block, blocks reached from outside the
 * symbol (other than by returning to a call's next block) and blocks no
 * edge reaches; exits end in a return, leave the symbol, or have no edge
 * out. Those are where flow may start and stop for free.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/flow_cfg.h"
#include "analysis/flow_infer.h"
#include "decode/code_cache.h"
#include "hwprof/branch_table.h"
#include "hwprof/symbolize.h"
#include "util/vec.h"

/* BOLT's floor for the blocks its bias measure takes */
#define BIAS_MIN_IN 100

struct fn_of {
	bool known;
	uint64_t fstart, fend; /* the symbol's offsets */
	const char *name;
};

static const struct hwp__cfg_block *sort_blocks;
static const struct fn_of *sort_fns;

static int cmp_by_fn(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct hwp__cfg_block *x = &sort_blocks[i], *y = &sort_blocks[j];
	const struct fn_of *p = &sort_fns[i], *q = &sort_fns[j];

	if (p->known != q->known)
		return p->known ? -1 : 1;
	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	if (p->fstart != q->fstart)
		return p->fstart < q->fstart ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_row_from(const void *a, const void *b)
{
	const struct hwp_branch_row *x = *(const struct hwp_branch_row *const *)a;
	const struct hwp_branch_row *y = *(const struct hwp_branch_row *const *)b;

	if (x->key.from.module != y->key.from.module)
		return x->key.from.module < y->key.from.module ? -1 : 1;
	return x->key.from.offset < y->key.from.offset ? -1 : x->key.from.offset > y->key.from.offset;
}

static int cmp_row_to(const void *a, const void *b)
{
	const struct hwp_branch_row *x = *(const struct hwp_branch_row *const *)a;
	const struct hwp_branch_row *y = *(const struct hwp_branch_row *const *)b;

	if (x->key.to.module != y->key.to.module)
		return x->key.to.module < y->key.to.module ? -1 : 1;
	return x->key.to.offset < y->key.to.offset ? -1 : x->key.to.offset > y->key.to.offset;
}

/* The first of ROWS[0..N) (sorted by from, or by to when BY_TO) at MODULE + OFF. */
static size_t rows_at(const struct hwp_branch_row *const *rows, size_t n, bool by_to, int32_t module, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hwp_code_loc *l = by_to ? &rows[mid]->key.to : &rows[mid]->key.from;

		if (l->module < module || (l->module == module && l->offset < off))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct graph {
	const struct hwp__cfg_block *blocks;
	const size_t *idx; /* the function's blocks, by start */
	size_t n;
	int32_t module;
	uint64_t fstart, fend;
	struct hwp__infer_node *nodes;
	struct hwp__infer_edge *edges;
	struct hwp__cfg_edge *meta;
	size_t ne, cap;
	bool *call_into;
};

static long node_at(const struct graph *g, uint64_t off)
{
	size_t lo = 0, hi = g->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->blocks[g->idx[mid]].start < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n && g->blocks[g->idx[lo]].start == off ? (long)lo : -1;
}

static bool inside(const struct graph *g, const struct hwp_code_loc *l)
{
	return l->module == g->module && l->offset >= g->fstart && l->offset < g->fend;
}

/* Adds COUNT to the edge FROM -> TO of KIND, made when new. */
static int add_edge(struct graph *g, size_t from, size_t to, uint8_t kind, uint64_t count)
{
	for (size_t j = g->ne; j-- > 0 && g->edges[j].from == from;)
		if (g->edges[j].to == to && g->meta[j].kind == kind) {
			g->edges[j].count += count;
			return 0;
		}
	if (g->ne == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;
		void *e = realloc(g->edges, cap * sizeof(*g->edges)), *m;

		if (!e)
			return -ENOMEM;
		g->edges = e;
		if (!(m = realloc(g->meta, cap * sizeof(*g->meta))))
			return -ENOMEM;
		g->meta = m;
		g->cap = cap;
	}
	const struct hwp__cfg_block *b = &g->blocks[g->idx[from]];
	g->edges[g->ne] = (struct hwp__infer_edge){ .from = (uint32_t)from, .to = (uint32_t)to, .count = count,
						    .known = true };
	g->meta[g->ne] = (struct hwp__cfg_edge){ .module = b->module, .from = b->start, .from_last = b->last,
						 .to = g->blocks[g->idx[to]].start, .kind = kind };
	g->ne++;
	return 0;
}

/* The edges out of node K. */
static int edges_out(struct graph *g, size_t k, struct hwp__code_cache *cc, const struct hwp_branch_row *const *by_from,
		     size_t nrows, double scale)
{
	const struct hwp__cfg_block *b = &g->blocks[g->idx[k]];
	struct hwp__infer_node *v = &g->nodes[k];
	size_t before = g->ne;
	long t;

	switch (b->end_class) {
	case HWP_FLOW_END_FALLTHROUGH:
	case HWP_FLOW_END_COND:
	case HWP_FLOW_END_OTHER:
		if ((t = node_at(g, b->next)) >= 0 && add_edge(g, k, (size_t)t, HWP__CFG_FALLTHROUGH, b->ft_out) < 0)
			return -ENOMEM;
		if (b->end_class == HWP_FLOW_END_OTHER)
			v->exit = true; /* a syscall, or where a record left */
		break;
	case HWP_FLOW_END_CALL:
	case HWP_FLOW_END_IND_CALL:
		if ((t = node_at(g, b->next)) >= 0) {
			if (add_edge(g, k, (size_t)t, HWP__CFG_CALL, b->count) < 0)
				return -ENOMEM;
			g->call_into[t] = true;
		}
		break;
	case HWP_FLOW_END_RET:
		v->exit = true;
		break;
	default:
		break;
	}
	if (b->end_class == HWP_FLOW_END_COND || b->end_class == HWP_FLOW_END_JUMP ||
	    b->end_class == HWP_FLOW_END_IND_JUMP) {
		for (size_t r = rows_at(by_from, nrows, false, b->module, b->last);
		     r < nrows && by_from[r]->key.from.module == b->module && by_from[r]->key.from.offset == b->last; r++) {
			const struct hwp_code_loc *to = &by_from[r]->key.to;

			if (!inside(g, to)) {
				v->exit = true; /* a tail call */
				continue;
			}
			if ((t = node_at(g, to->offset)) >= 0 &&
			    add_edge(g, k, (size_t)t, HWP__CFG_TAKEN,
				     (uint64_t)llround((double)by_from[r]->c.count * scale)) < 0)
				return -ENOMEM;
		}
		struct hwp__insn in;
		/* a direct target never seen taken: an edge with a sample of 0 */
		if (b->end_class != HWP_FLOW_END_IND_JUMP && hwp__code_cache_insn(cc, b->module, b->last, &in) == 0 &&
		    in.has_target && (t = node_at(g, in.target)) >= 0 &&
		    add_edge(g, k, (size_t)t, HWP__CFG_TAKEN, 0) < 0)
			return -ENOMEM;
	}
	if (g->ne == before)
		v->exit = true;
	return 0;
}

/* Entries: the symbol's first block, blocks entered from outside it (not
   by a return after a call of its own), blocks no edge reaches. */
static void mark_entries(struct graph *g, const struct hwp_branch_row *const *by_to, size_t nrows)
{
	bool *has_in = calloc(g->n ? g->n : 1, sizeof(*has_in));

	for (size_t j = 0; j < g->ne; j++)
		if (has_in)
			has_in[g->edges[j].to] = true;
	for (size_t k = 0; k < g->n; k++) {
		const struct hwp__cfg_block *b = &g->blocks[g->idx[k]];
		struct hwp__infer_node *v = &g->nodes[k];

		if (b->start == g->fstart || !has_in || !has_in[k])
			v->entry = true;
		if (v->entry || g->call_into[k])
			continue;
		for (size_t r = rows_at(by_to, nrows, true, b->module, b->start);
		     r < nrows && by_to[r]->key.to.module == b->module && by_to[r]->key.to.offset == b->start; r++)
			if (!inside(g, &by_to[r]->key.from)) {
				v->entry = true;
				break;
			}
	}
	free(has_in);
}

static int solve_function(struct graph *g, struct hwp__code_cache *cc, const struct hwp_branch_row *const *by_from,
			  const struct hwp_branch_row *const *by_to, size_t nrows, double scale,
			  struct hwp__cfg_block *blocks, struct hwp__cfg_result *res, const char *name,
			  size_t *edges_cap, size_t *fns_cap)
{
	g->ne = 0;
	g->nodes = calloc(g->n, sizeof(*g->nodes));
	g->call_into = calloc(g->n, sizeof(*g->call_into));
	if (!g->nodes || !g->call_into)
		return -ENOMEM;
	for (size_t k = 0; k < g->n; k++)
		g->nodes[k] = (struct hwp__infer_node){ .count = g->blocks[g->idx[k]].count, .known = true };
	for (size_t k = 0; k < g->n; k++)
		if (edges_out(g, k, cc, by_from, nrows, scale) < 0)
			return -ENOMEM;
	mark_entries(g, by_to, nrows);
	if (hwp__infer_solve(g->nodes, g->n, g->edges, g->ne) < 0)
		return -ENOMEM;

	struct hwp_flow_function *fn = HWP_VEC_PUSH(res->fns, res->nfns, *fns_cap);
	if (!fn)
		return -ENOMEM;
	fn->start = (struct hwp_code_loc){ .module = g->module, .offset = g->fstart };
	fn->name = name;
	fn->size = g->fend == UINT64_MAX ? UINT64_MAX : g->fend - g->fstart;
	fn->blocks = g->n;
	fn->edges = g->ne;
	fn->bias_before = hwp__infer_bias(g->nodes, g->n, g->edges, g->ne, false, BIAS_MIN_IN, &fn->considered);
	size_t considered_after;
	fn->bias_after = hwp__infer_bias(g->nodes, g->n, g->edges, g->ne, true, BIAS_MIN_IN, &considered_after);
	for (size_t k = 0; k < g->n; k++) {
		struct hwp__cfg_block *b = &blocks[g->idx[k]];

		fn->count_before += b->count;
		fn->count_after += g->nodes[k].flow;
		fn->changed += b->count > g->nodes[k].flow ? b->count - g->nodes[k].flow : g->nodes[k].flow - b->count;
		b->count = g->nodes[k].flow;
	}
	if (HWP_VEC_RESERVE(res->edges, *edges_cap, res->nedges + g->ne) < 0)
		return -ENOMEM;
	for (size_t j = 0; j < g->ne; j++) {
		struct hwp__cfg_edge *e = &res->edges[res->nedges++];

		*e = g->meta[j];
		e->count = g->edges[j].count;
		e->flow = g->edges[j].flow;
	}
	return 0;
}

int hwp__flow_cfg_infer(struct hwp_symbolizer *sym, struct hwp__code_cache *cc, struct hwp__cfg_block *blocks,
			size_t nb, const struct hwp_branch_table *branches, double taken_scale,
			struct hwp__cfg_result *res)
{
	size_t nrows, edges_cap = 0, fns_cap = 0;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(branches, &nrows);
	struct fn_of *fns = calloc(nb ? nb : 1, sizeof(*fns));
	size_t *order = malloc((nb ? nb : 1) * sizeof(*order));
	const struct hwp_branch_row **by_from = malloc((nrows ? nrows : 1) * sizeof(*by_from));
	const struct hwp_branch_row **by_to = malloc((nrows ? nrows : 1) * sizeof(*by_to));
	struct graph g = { .blocks = blocks };
	int err = -ENOMEM;

	memset(res, 0, sizeof(*res));
	if (!fns || !order || !by_from || !by_to)
		goto out;
	for (size_t i = 0; i < nrows; i++)
		by_from[i] = by_to[i] = &rows[i];
	if (nrows) {
		qsort(by_from, nrows, sizeof(*by_from), cmp_row_from);
		qsort(by_to, nrows, sizeof(*by_to), cmp_row_to);
	}
	for (size_t i = 0; i < nb; i++) {
		struct hwp_symbol_info si;

		order[i] = i;
		if (hwp_symbolizer__lookup(sym, blocks[i].module, blocks[i].start, &si) < 0 || !si.symbol ||
		    si.sym_offset > blocks[i].start)
			continue;
		fns[i].known = true;
		fns[i].fstart = blocks[i].start - si.sym_offset;
		fns[i].fend = si.sym_size ? fns[i].fstart + si.sym_size : UINT64_MAX;
		fns[i].name = si.symbol;
	}
	sort_blocks = blocks; /* (qsort has no context argument in C11) */
	sort_fns = fns;
	if (nb)
		qsort(order, nb, sizeof(*order), cmp_by_fn);
	sort_blocks = NULL;
	sort_fns = NULL;
	for (size_t i = 0; i < nb && fns[order[i]].known;) {
		size_t j = i;
		const struct fn_of *f = &fns[order[i]];

		while (j < nb && fns[order[j]].known && blocks[order[j]].module == blocks[order[i]].module &&
		       fns[order[j]].fstart == f->fstart)
			j++;
		g.idx = &order[i];
		g.n = j - i;
		g.module = blocks[order[i]].module;
		g.fstart = f->fstart;
		g.fend = f->fend;
		err = solve_function(&g, cc, by_from, by_to, nrows, taken_scale, blocks, res, f->name, &edges_cap,
				     &fns_cap);
		free(g.nodes);
		free(g.call_into);
		g.nodes = NULL;
		g.call_into = NULL;
		if (err < 0)
			goto out;
		i = j;
	}
	err = 0;
out:
	free(g.edges);
	free(g.meta);
	free(fns);
	free(order);
	free(by_from);
	free(by_to);
	if (err < 0)
		hwp__flow_cfg_result_free(res);
	return err;
}

void hwp__flow_cfg_result_free(struct hwp__cfg_result *res)
{
	free(res->edges);
	free(res->fns);
	memset(res, 0, sizeof(*res));
}
