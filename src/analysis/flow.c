/* SPDX-License-Identifier: MIT */
/*
 * Walks each distinct fall-through range once (see include/hwprof/flow.h).
 *
 * Block boundaries must be the same whichever range runs over a block, or
 * one block would be counted under two keys. So they come from global sets
 * only: a block starts at every target the branch records hold (every range
 * starts at one) and after every branch, and ends at every branch and at
 * every 'from' the records hold (every range ends at one; a record may leave
 * from an instruction that is no branch, e.g. an interrupt). A range is
 * decoded into a scratch list first and counted only when it decodes to its
 * end, so a range that fails adds nothing.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/wilson.h"
#include "analysis/branch_collect_internal.h"
#include "analysis/loc_index.h"
#include "decode/code_cache.h"
#include "hwprof/flow.h"
#include "hwprof/mispredicts.h"
#include "util/opts.h"
#include "util/vec.h"
#include "analysis/flow_cfg.h"
#include "analysis/flow_internal.h"
#include "util/error.h"

enum { MARK_LEADER = 1, MARK_END = 2 };

struct cond_acc {
	uint64_t target;
	bool has_target;
	uint8_t cpumode;
	uint64_t addr;
	uint64_t taken, not_taken;
	uint64_t entries, with_info, mispred;
};

struct block_acc {
	uint64_t last, last_len;
	uint32_t insns;
	uint8_t end_class, cpumode;
	uint64_t addr;
	uint64_t count;
	uint64_t ft_out; /* ranges that ran on into the next block */
};

struct hwp_flow {
	struct hwp_flow_opts o;
	struct hwp_flow_stats st;
	struct hwp__code_cache *cc; /* the collector's */

	struct hwp__loc_index marks;
	uint8_t *mark; /* parallel to marks */
	size_t mark_cap;

	struct hwp__loc_index cond_ix;
	struct cond_acc *cacc;
	size_t cacc_cap;

	struct hwp__loc_index block_ix;
	struct block_acc *bacc;
	size_t bacc_cap;

	struct hwp__insn *scratch; /* one range's instructions */
	size_t nscratch, scratch_cap;

	/* results */
	struct hwp_flow_cond *conds;
	size_t nconds;
	size_t *cond_by_site; /* indices into conds, by (module, offset) */
	struct hwp_flow_block *blocks;
	size_t nblocks;
	size_t *block_pos; /* block_ix position -> index in blocks */
	struct hwp_flow_indirect *ind;
	size_t nind;
	struct hwp_flow_target *targets;
	size_t ntargets;
	struct hwp__cfg_result inferred; /* opts.infer */
	struct hwp__cfg_block *cfg;      /* opts.infer: every block, consistent counts */
	size_t ncfg;
};

/* Grows the payload array P (capacity *CAP, elements of SIZE) to hold index
   I, zeroing new elements. */
static int payload_at(void **p, size_t *cap, size_t i, size_t size)
{
	size_t old = *cap;

	if (i < old)
		return 0;
	if (hwp__vec_reserve(p, cap, i + 1, size) < 0)
		return -ENOMEM;
	memset((char *)*p + old * size, 0, (*cap - old) * size);
	return 0;
}

static int add_mark(struct hwp_flow *f, int32_t module, uint64_t offset, uint8_t bits)
{
	int added;
	long i = hwp__loc_index_get(&f->marks, module, offset, &added);

	if (i < 0 || payload_at((void **)&f->mark, &f->mark_cap, (size_t)i, 1) < 0)
		return -ENOMEM;
	f->mark[i] |= bits;
	return 0;
}

static uint8_t mark_of(const struct hwp_flow *f, int32_t module, uint64_t offset)
{
	long i = hwp__loc_index_find(&f->marks, module, offset);

	return i < 0 ? 0 : f->mark[i];
}

static struct cond_acc *cond_get(struct hwp_flow *f, int32_t module, uint64_t offset)
{
	int added;
	long i = hwp__loc_index_get(&f->cond_ix, module, offset, &added);

	if (i < 0 || payload_at((void **)&f->cacc, &f->cacc_cap, (size_t)i, sizeof(*f->cacc)) < 0)
		return NULL;
	return &f->cacc[i];
}

static int collect_insn(void *ctx, const struct hwp__insn *insn)
{
	struct hwp_flow *f = ctx;
	struct hwp__insn *d = HWP_VEC_PUSH(f->scratch, f->nscratch, f->scratch_cap);

	if (!d)
		return -ENOMEM;
	*d = *insn;
	return 0;
}

static uint8_t end_class_of(unsigned cls)
{
	switch (cls) {
	case HWP_INSN_COND: return HWP_FLOW_END_COND;
	case HWP_INSN_JUMP: return HWP_FLOW_END_JUMP;
	case HWP_INSN_IND_JUMP: return HWP_FLOW_END_IND_JUMP;
	case HWP_INSN_CALL: return HWP_FLOW_END_CALL;
	case HWP_INSN_IND_CALL: return HWP_FLOW_END_IND_CALL;
	case HWP_INSN_RET: return HWP_FLOW_END_RET;
	default: return HWP_FLOW_END_OTHER;
	}
}

/* The block of scratch[first..last] ran R's count more times (and the
   range went on into the next block when CONTINUES). */
static int add_block(struct hwp_flow *f, const struct hwp_branch_row *r, size_t first, size_t last,
		     uint8_t end_class, bool continues)
{
	const struct hwp__insn *a = &f->scratch[first], *b = &f->scratch[last];
	int added;
	long i = hwp__loc_index_get(&f->block_ix, r->key.from.module, a->offset, &added);

	if (i < 0 || payload_at((void **)&f->bacc, &f->bacc_cap, (size_t)i, sizeof(*f->bacc)) < 0)
		return -ENOMEM;
	struct block_acc *x = &f->bacc[i];
	if (added) {
		x->last = b->offset;
		x->last_len = b->len;
		x->insns = (uint32_t)(last - first + 1);
		x->end_class = end_class;
		x->cpumode = r->key.from.cpumode;
		x->addr = r->key.from.addr + (a->offset - r->key.from.offset);
	}
	x->count += r->c.count;
	if (continues)
		x->ft_out += r->c.count;
	return 0;
}

/* Counts one decoded range (scratch holds its instructions, the last at its end). */
static int count_range(struct hwp_flow *f, const struct hwp_branch_row *r)
{
	int32_t module = r->key.from.module;
	uint64_t n = r->c.count;
	size_t first = 0;

	/* It ran straight through: no unconditional branch before its end. */
	for (size_t i = 0; i + 1 < f->nscratch; i++)
		if (hwp__insn_is_uncond(f->scratch[i].cls) || f->scratch[i].cls == HWP_INSN_BAD)
			return 1;
	for (size_t i = 0; i < f->nscratch; i++) {
		const struct hwp__insn *d = &f->scratch[i];
		bool at_end = i + 1 == f->nscratch;
		uint8_t m = mark_of(f, module, d->offset);

		if (i > first && (m & MARK_LEADER)) {
			if (add_block(f, r, first, i - 1, HWP_FLOW_END_FALLTHROUGH, true) < 0)
				return -ENOMEM;
			first = i;
		}
		if (d->cls == HWP_INSN_COND) {
			struct cond_acc *c = cond_get(f, module, d->offset);

			if (!c)
				return -ENOMEM;
			if (!c->taken && !c->not_taken) {
				c->target = d->target;
				c->has_target = d->has_target;
				c->cpumode = r->key.from.cpumode;
				c->addr = r->key.from.addr + (d->offset - r->key.from.offset);
			}
			if (at_end)
				c->taken += n;
			else
				c->not_taken += n;
		}
		if (at_end || hwp__insn_is_branch(d->cls) || (m & MARK_END)) {
			if (add_block(f, r, first, i, end_class_of(d->cls), !at_end) < 0)
				return -ENOMEM;
			first = i + 1;
		}
	}
	f->st.instructions += n * f->nscratch;
	return 0;
}

static int walk_ranges(struct hwp_flow *f, const struct hwp_branch_table *ranges)
{
	size_t nr;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(ranges, &nr);

	f->st.ranges = nr;
	for (size_t i = 0; i < nr; i++) {
		const struct hwp_branch_row *r = &rows[i];
		int err = -ERANGE;

		f->nscratch = 0;
		if (r->key.from.module >= 0 && r->key.from.module == r->key.to.module &&
		    r->key.from.offset <= r->key.to.offset)
			err = hwp__code_cache_range(f->cc, r->key.from.module, r->key.from.offset,
						    r->key.to.offset, collect_insn, f);
		if (err == -ENOMEM)
			return hwp__set_error(ENOMEM, "out of memory decoding ranges");
		if (!err && f->nscratch)
			err = count_range(f, r);
		if (err == -ENOMEM)
			return hwp__set_error(ENOMEM, "out of memory counting ranges");
		if (!err) {
			f->st.ranges_walked++;
			f->st.range_runs += r->c.count;
			continue;
		}
		if (err == -ENOENT || err == -ENOTSUP)
			f->st.ranges_no_binary++;
		else
			f->st.ranges_bad_decode++;
		f->st.range_runs_skipped += r->c.count;
	}
	return 0;
}

static int cmp_cond(const void *a, const void *b)
{
	const struct hwp_flow_cond *x = a, *y = b;

	if (x->executions != y->executions)
		return x->executions < y->executions ? 1 : -1;
	if (x->site.module != y->site.module)
		return x->site.module < y->site.module ? -1 : 1;
	return x->site.offset < y->site.offset ? -1 : x->site.offset > y->site.offset;
}

void hwp__flow_sort_conds(struct hwp_flow_cond *c, size_t n)
{
	if (n)
		qsort(c, n, sizeof(*c), cmp_cond);
}

static int cmp_block(const void *a, const void *b)
{
	const struct hwp_flow_block *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->start.module != y->start.module)
		return x->start.module < y->start.module ? -1 : 1;
	return x->start.offset < y->start.offset ? -1 : x->start.offset > y->start.offset;
}

static double nan_value(void)
{
	return NAN;
}

static void finish_cond(struct hwp_flow_cond *c, const struct cond_acc *a, double z)
{
	c->taken = a->taken;
	c->not_taken = a->not_taken;
	c->executions = a->taken + a->not_taken;
	c->p_taken = c->executions ? (double)a->taken / (double)c->executions : 0;
	hwp__wilson_interval(a->taken, c->executions, z, &c->p_taken_lo, &c->p_taken_hi);
	c->taken_entries = a->entries;
	c->taken_with_info = a->with_info;
	c->taken_mispredicted = a->mispred;
	if (a->with_info) {
		c->mispred_taken = (double)a->mispred / (double)a->with_info;
		hwp__wilson_interval(a->mispred, a->with_info, z, &c->mispred_taken_lo, &c->mispred_taken_hi);
		c->mispred_per_exec = c->mispred_taken * c->p_taken;
		c->mispred_per_exec_lo = c->mispred_taken_lo * c->p_taken_lo;
		c->mispred_per_exec_hi = c->mispred_taken_hi * c->p_taken_hi;
	} else {
		c->mispred_taken = c->mispred_taken_lo = c->mispred_taken_hi = nan_value();
		c->mispred_per_exec = c->mispred_per_exec_lo = c->mispred_per_exec_hi = nan_value();
	}
	c->hot_taken = c->p_taken_lo > 0.5;
}

void hwp_flow_cond__finish(struct hwp_flow_cond *c, double z)
{
	struct cond_acc a;

	memset(&a, 0, sizeof(a));
	a.taken = c->taken;
	a.not_taken = c->not_taken;
	a.entries = c->taken_entries;
	a.with_info = c->taken_with_info;
	a.mispred = c->taken_mispredicted;
	finish_cond(c, &a, z > 0 ? z : HWP__Z95);
}

static const struct hwp_flow *sort_flow; /* for the by-site comparison */

static int cmp_cond_site(const void *a, const void *b)
{
	const struct hwp_flow_cond *x = &sort_flow->conds[*(const size_t *)a];
	const struct hwp_flow_cond *y = &sort_flow->conds[*(const size_t *)b];

	if (x->site.module != y->site.module)
		return x->site.module < y->site.module ? -1 : 1;
	return x->site.offset < y->site.offset ? -1 : x->site.offset > y->site.offset;
}

static int build_conds(struct hwp_flow *f)
{
	size_t n = f->cond_ix.nr;

	f->conds = calloc(n ? n : 1, sizeof(*f->conds));
	f->cond_by_site = calloc(n ? n : 1, sizeof(*f->cond_by_site));
	if (!f->conds || !f->cond_by_site)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct cond_acc *a = &f->cacc[i];
		struct hwp_flow_cond *c = &f->conds[i];
		int32_t m = f->cond_ix.keys[i].module;

		c->site = (struct hwp_code_loc){ .module = m, .cpumode = a->cpumode,
						 .offset = f->cond_ix.keys[i].offset, .addr = a->addr };
		c->target = (struct hwp_code_loc){ .module = a->has_target ? m : -1, .cpumode = a->cpumode,
						   .offset = a->target,
						   .addr = a->addr + (a->target - c->site.offset) };
		finish_cond(c, a, f->o.z);
	}
	hwp__flow_sort_conds(f->conds, n);
	for (size_t i = 0; i < n; i++)
		f->cond_by_site[i] = i;
	sort_flow = f; /* (qsort has no context argument in C11) */
	qsort(f->cond_by_site, n, sizeof(*f->cond_by_site), cmp_cond_site);
	sort_flow = NULL;
	f->nconds = n;
	return 0;
}

static int build_blocks(struct hwp_flow *f)
{
	size_t n = f->block_ix.nr;

	f->blocks = calloc(n ? n : 1, sizeof(*f->blocks));
	if (!f->blocks)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct block_acc *a = &f->bacc[i];
		struct hwp_flow_block *b = &f->blocks[i];
		int32_t m = f->block_ix.keys[i].module;
		uint64_t start = f->block_ix.keys[i].offset;

		b->start = (struct hwp_code_loc){ .module = m, .cpumode = a->cpumode, .offset = start, .addr = a->addr };
		b->last = (struct hwp_code_loc){ .module = m, .cpumode = a->cpumode, .offset = a->last,
						 .addr = a->addr + (a->last - start) };
		b->size = a->last + a->last_len - start;
		b->insns = a->insns;
		b->count = a->count;
		b->end_class = a->end_class;
	}
	qsort(f->blocks, n, sizeof(*f->blocks), cmp_block);
	f->nblocks = n;
	if (!(f->block_pos = calloc(n ? n : 1, sizeof(*f->block_pos))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		f->block_pos[hwp__loc_index_find(&f->block_ix, f->blocks[i].start.module, f->blocks[i].start.offset)] = i;
	return 0;
}

/* The branch table's side (after the walk, before the results): mispredict
   bits of conditional branches, and the target distributions of indirect
   sites. */
struct ind_row {
	const struct hwp_branch_row *row;
	bool call;
};

static int cmp_ind_row(const void *a, const void *b)
{
	const struct hwp_branch_row *x = ((const struct ind_row *)a)->row, *y = ((const struct ind_row *)b)->row;

	if (x->key.from.module != y->key.from.module)
		return x->key.from.module < y->key.from.module ? -1 : 1;
	if (x->key.from.offset != y->key.from.offset)
		return x->key.from.offset < y->key.from.offset ? -1 : 1;
	if (x->c.count != y->c.count)
		return x->c.count < y->c.count ? 1 : -1;
	if (x->key.to.module != y->key.to.module)
		return x->key.to.module < y->key.to.module ? -1 : 1;
	return x->key.to.offset < y->key.to.offset ? -1 : x->key.to.offset > y->key.to.offset;
}

static int cmp_ind(const void *a, const void *b)
{
	const struct hwp_flow_indirect *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->site.module != y->site.module)
		return x->site.module < y->site.module ? -1 : 1;
	return x->site.offset < y->site.offset ? -1 : x->site.offset > y->site.offset;
}

static int use_branches(struct hwp_flow *f, const struct hwp_branch_table *branches)
{
	size_t nr, nind = 0;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(branches, &nr);
	struct ind_row *ind = calloc(nr ? nr : 1, sizeof(*ind));

	if (!ind)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		const struct hwp_branch_row *r = &rows[i];
		long c = r->key.from.module < 0 ? -1
			 : hwp__loc_index_find(&f->cond_ix, r->key.from.module, r->key.from.offset);
		struct hwp__insn insn;

		if (c >= 0) {
			f->cacc[c].entries += r->c.count;
			f->cacc[c].with_info += r->c.mispred + r->c.predicted;
			f->cacc[c].mispred += r->c.mispred;
			continue;
		}
		if (r->key.from.module < 0 ||
		    hwp__code_cache_insn(f->cc, r->key.from.module, r->key.from.offset, &insn) < 0)
			continue;
		if (insn.cls == HWP_INSN_COND) {
			/* a conditional branch no walked range ends at or runs over */
			continue;
		}
		if (insn.cls == HWP_INSN_IND_JUMP || insn.cls == HWP_INSN_IND_CALL)
			ind[nind++] = (struct ind_row){ r, insn.cls == HWP_INSN_IND_CALL };
	}
	qsort(ind, nind, sizeof(*ind), cmp_ind_row);
	size_t sites = 0;
	for (size_t i = 0; i < nind; i++)
		sites += !i || ind[i - 1].row->key.from.module != ind[i].row->key.from.module ||
			 ind[i - 1].row->key.from.offset != ind[i].row->key.from.offset;
	f->ind = calloc(sites ? sites : 1, sizeof(*f->ind));
	f->targets = calloc(nind ? nind : 1, sizeof(*f->targets));
	if (!f->ind || !f->targets) {
		free(ind);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nind;) {
		struct hwp_flow_indirect *s = &f->ind[f->nind++];
		size_t j = i;

		s->site = ind[i].row->key.from;
		s->call = ind[i].call;
		s->targets = &f->targets[f->ntargets];
		for (; j < nind && ind[j].row->key.from.module == s->site.module &&
		       ind[j].row->key.from.offset == s->site.offset; j++) {
			struct hwp_flow_target *t = &f->targets[f->ntargets++];

			t->loc = ind[j].row->key.to;
			t->count = ind[j].row->c.count;
			t->mispredicted = ind[j].row->c.mispred;
			s->count += t->count;
			s->mispredicted += t->mispredicted;
			s->ntargets++;
		}
		for (size_t k = 0; k < s->ntargets; k++)
			f->targets[s->targets - f->targets + k].share =
				(double)s->targets[k].count / (double)s->count;
		i = j;
	}
	free(ind);
	qsort(f->ind, f->nind, sizeof(*f->ind), cmp_ind);
	return 0;
}

static int cmp_fn(const void *a, const void *b)
{
	const struct hwp_flow_function *x = a, *y = b;

	if (x->count_before != y->count_before)
		return x->count_before < y->count_before ? 1 : -1;
	if (x->start.module != y->start.module)
		return x->start.module < y->start.module ? -1 : 1;
	return x->start.offset < y->start.offset ? -1 : x->start.offset > y->start.offset;
}

/* opts.infer: the walked counts (blocks, branch directions) made
   flow-consistent per function, before the results are built from them. */
static int infer(struct hwp_flow *f, struct hwp_branch_collector *c)
{
	size_t n = f->block_ix.nr;
	struct hwp__cfg_block *b = calloc(n ? n : 1, sizeof(*b));
	const struct hwp_branch_collect_stats *cs = hwp_branch_collector__stats(c);
	const struct hwp_range_stats *rs = hwp_branch_collector__range_stats(c);
	/* ranges per taken entry: N - 1 of a stack of N */
	double scale = cs->entries && rs->pairs ? (double)rs->pairs / (double)cs->entries : 1;
	int err;

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct block_acc *a = &f->bacc[i];

		b[i] = (struct hwp__cfg_block){ .module = f->block_ix.keys[i].module, .start = f->block_ix.keys[i].offset,
						.last = a->last, .next = a->last + a->last_len,
						.end_class = a->end_class, .count = a->count, .ft_out = a->ft_out,
						.addr = a->addr, .cpumode = a->cpumode };
	}
	err = hwp__flow_cfg_infer(hwp__branch_collector_symbolizer(c), f->cc, b, n, hwp_branch_collector__table(c),
				  scale, &f->inferred);
	if (err < 0) {
		free(b);
		return err;
	}
	for (size_t i = 0; i < n; i++)
		f->bacc[i].count = b[i].count;
	f->cfg = b;
	f->ncfg = n;
	/* a conditional branch's directions from its block's edges: taken
	   when its target is in the function, not taken when the next block is */
	uint8_t *seen = calloc(f->cond_ix.nr ? f->cond_ix.nr : 1, 1);
	uint64_t *taken = calloc(f->cond_ix.nr ? f->cond_ix.nr : 1, sizeof(*taken));
	uint64_t *not_taken = calloc(f->cond_ix.nr ? f->cond_ix.nr : 1, sizeof(*not_taken));
	if (!seen || !taken || !not_taken) {
		free(seen);
		free(taken);
		free(not_taken);
		return -ENOMEM;
	}
	for (size_t j = 0; j < f->inferred.nedges; j++) {
		const struct hwp__cfg_edge *e = &f->inferred.edges[j];
		long k = hwp__loc_index_find(&f->cond_ix, e->module, e->from_last);

		if (k < 0)
			continue;
		if (e->kind == HWP__CFG_TAKEN) {
			seen[k] |= 1;
			taken[k] += e->flow;
		} else if (e->kind == HWP__CFG_FALLTHROUGH) {
			seen[k] |= 2;
			not_taken[k] += e->flow;
		}
	}
	for (size_t i = 0; i < f->cond_ix.nr; i++) {
		if (seen[i] & 1)
			f->cacc[i].taken = taken[i];
		if (seen[i] & 2)
			f->cacc[i].not_taken = not_taken[i];
	}
	free(seen);
	free(taken);
	free(not_taken);
	if (f->inferred.nfns)
		qsort(f->inferred.fns, f->inferred.nfns, sizeof(*f->inferred.fns), cmp_fn);
	return 0;
}

/* Every target the records hold starts a block; every source ends one. */
static int mark_branches(struct hwp_flow *f, const struct hwp_branch_table *branches)
{
	size_t nr;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(branches, &nr);

	for (size_t i = 0; i < nr; i++) {
		const struct hwp_branch_row *r = &rows[i];

		if ((r->key.to.module >= 0 && add_mark(f, r->key.to.module, r->key.to.offset, MARK_LEADER) < 0) ||
		    (r->key.from.module >= 0 && add_mark(f, r->key.from.module, r->key.from.offset, MARK_END) < 0))
			return -ENOMEM;
	}
	return 0;
}

/* Whether C counted branch entries and no stack of more than DEPTH. */
static bool stacks_at_most(const struct hwp_branch_collector *c, uint64_t depth)
{
	uint64_t deepest = hwp_branch_collector__stats(c)->deepest;

	return deepest && deepest <= depth;
}

struct hwp_flow *hwp_flow__new(struct hwp_branch_collector *c, const struct hwp_flow_opts *opts)
{
	const struct hwp_branch_table *ranges = c ? hwp_branch_collector__ranges(c) : NULL;
	const struct hwp_branch_table *branches = c ? hwp_branch_collector__table(c) : NULL;
	struct hwp_flow *f;

	if (!ranges) {
		hwp__set_error(EINVAL, "flow analysis: %s", c ? "the branch collector counted no ranges"
							     : "no branch collector given");
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		hwp__set_error(ENOMEM, "out of memory making the flow analysis");
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &f->o, struct hwp_flow_opts)) {
		free(f);
		errno = EINVAL;
		return NULL;
	}
	if (f->o.z <= 0)
		f->o.z = HWP__Z95;
	f->o.sz = sizeof(f->o);
	f->o.infer = f->o.infer || stacks_at_most(c, f->o.infer_depth);
	if (!(f->cc = hwp__branch_collector_code_cache(c)) || mark_branches(f, branches) < 0 ||
	    walk_ranges(f, ranges) < 0 || (f->o.infer && infer(f, c) < 0) || use_branches(f, branches) < 0 ||
	    build_conds(f) < 0 ||
	    build_blocks(f) < 0) {
		hwp_flow__delete(f);
		hwp__set_error(ENOMEM, "out of memory in the flow analysis");
		errno = ENOMEM;
		return NULL;
	}
	f->st.decoded = hwp__code_cache_size(f->cc);
	f->st.inferred = f->o.infer && f->st.ranges_walked; /* nothing walked: nothing adjusted */
	/* what only the walk needed */
	free(f->scratch);
	f->scratch = NULL;
	f->nscratch = f->scratch_cap = 0;
	return f;
}

void hwp_flow__delete(struct hwp_flow *f)
{
	if (!f)
		return;
	hwp__loc_index_free(&f->marks);
	free(f->mark);
	hwp__loc_index_free(&f->cond_ix);
	free(f->cacc);
	hwp__loc_index_free(&f->block_ix);
	free(f->bacc);
	free(f->scratch);
	free(f->conds);
	free(f->cond_by_site);
	free(f->blocks);
	free(f->block_pos);
	free(f->ind);
	free(f->targets);
	hwp__flow_cfg_result_free(&f->inferred);
	free(f->cfg);
	free(f);
}

const struct hwp__cfg_block *hwp__flow_cfg_blocks(const struct hwp_flow *f, size_t *n,
						 const struct hwp__cfg_result **res)
{
	*n = f->ncfg;
	*res = &f->inferred;
	return f->cfg;
}

const struct hwp_flow_function *hwp_flow__functions(const struct hwp_flow *f, size_t *n)
{
	*n = f->inferred.nfns;
	return f->inferred.fns;
}

const struct hwp_flow_cond *hwp_flow__conds(const struct hwp_flow *f, size_t *n)
{
	*n = f->nconds;
	return f->conds;
}

const struct hwp_flow_cond *hwp_flow__cond_at(const struct hwp_flow *f, const struct hwp_code_loc *site)
{
	size_t lo = 0, hi = f->nconds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hwp_flow_cond *c = &f->conds[f->cond_by_site[mid]];

		if (c->site.module == site->module && c->site.offset == site->offset)
			return c;
		if (c->site.module < site->module || (c->site.module == site->module && c->site.offset < site->offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct hwp_flow_block *hwp_flow__blocks(const struct hwp_flow *f, size_t *n)
{
	*n = f->nblocks;
	return f->blocks;
}

const struct hwp_flow_block *hwp__flow_block_at(const struct hwp_flow *f, const struct hwp_code_loc *start)
{
	long i = hwp__loc_index_find(&f->block_ix, start->module, start->offset);

	return i < 0 ? NULL : &f->blocks[f->block_pos[i]];
}

const struct hwp_flow_indirect *hwp_flow__indirect(const struct hwp_flow *f, size_t *n)
{
	*n = f->nind;
	return f->ind;
}

const struct hwp_flow_stats *hwp_flow__stats(const struct hwp_flow *f)
{
	return &f->st;
}

int hwp_flow__branch_kind(struct hwp_flow *f, const struct hwp_code_loc *site)
{
	struct hwp__insn insn;
	int err;

	if (site->module < 0)
		return -ENOENT;
	if ((err = hwp__code_cache_insn(f->cc, site->module, site->offset, &insn)) < 0)
		return err;
	return insn.cls == HWP_INSN_OTHER ? HWP_FLOW_END_FALLTHROUGH : end_class_of(insn.cls);
}

const char *hwp_flow_end__name(unsigned end_class)
{
	static const char *const names[] = { "fallthrough", "cond", "jump", "ind_jump",
					     "call", "ind_call", "ret", "other" };

	return end_class < sizeof(names) / sizeof(names[0]) ? names[end_class] : "?";
}

bool hwp_flow__infer_helps(const struct hwp_branch_collector *c)
{
	return stacks_at_most(c, HWP_FLOW_INFER_DEPTH);
}
