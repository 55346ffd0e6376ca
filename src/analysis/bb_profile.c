/* SPDX-License-Identifier: MIT */
/* Block and edge counts over .llvm_bb_addr_map's blocks (see bb_profile.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bb_profile.h"
#include "analysis/branch_collect_internal.h"
#include "decode/code_cache.h"
#include "decode/insn_starts.h"
#include "hwprof/branch_table.h"
#include "hwprof/symbolize.h"
#include "util/error.h"
#include "util/vec.h"

#define MAX_RANGE (1u << 20)

struct ctx {
	const struct hwp__bb_addr_map *m;
	struct hwp__bb_profile *p;
	struct hwp__code_cache *cc;
	struct hwp__code_file *file;
	int module;
	uint32_t *order;            /* blocks by address */
	uint64_t *cov_start, *cov_end;
};

static int by_addr(const void *a, const void *b, void *arg)
{
	const struct hwp__bb *bl = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (bl[x].addr != bl[y].addr)
		return bl[x].addr < bl[y].addr ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* The place in ORDER of the last block starting at or before A, or -1. */
static long at_or_before(const struct ctx *x, uint64_t a)
{
	size_t lo = 0, hi = x->m->n_blocks;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (x->m->blocks[x->order[mid]].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* The block holding A, or -1. */
static long block_at(const struct ctx *x, uint64_t a)
{
	long k = at_or_before(x, a);
	const struct hwp__bb *b;

	if (k < 0)
		return -1;
	b = &x->m->blocks[x->order[k]];
	return a - b->addr < b->size ? (long)x->order[k] : -1;
}

static int add_edge(struct hwp__bb_edge **v, size_t *n, size_t *cap, uint32_t from, uint32_t to, uint64_t count)
{
	struct hwp__bb_edge *e = hwp__vec_push((void **)v, n, cap, sizeof(**v));

	if (!e)
		return hwp__set_error(ENOMEM, "out of memory counting basic blocks");
	*e = (struct hwp__bb_edge){ from, to, count };
	return 0;
}

/* One range [S, E] (link-time addresses; E the last instruction's start,
   whose length is LEN) run COUNT times. */
static int add_range(struct ctx *x, uint64_t s, uint64_t e, unsigned len, uint64_t count)
{
	const struct hwp__bb *bl = x->m->blocks;
	long k = at_or_before(x, s);
	bool landed = false;
	int err;

	if (k < 0 || s - bl[x->order[k]].addr >= bl[x->order[k]].size)
		k++; /* in padding: from the next block on */
	for (; (size_t)k < x->m->n_blocks && bl[x->order[k]].addr <= e; k++) {
		uint32_t b = x->order[k];
		uint64_t end = bl[b].addr + bl[b].size;

		landed = true;
		if (s <= bl[b].addr)
			x->cov_start[b] += count;
		/* through its last instruction: the range goes on past it, or
		   ends at an instruction reaching the block's end */
		if (e >= end || e + len >= end)
			x->cov_end[b] += count;
		if ((size_t)k + 1 < x->m->n_blocks) {
			uint32_t n = x->order[k + 1];

			if (bl[n].addr <= e && x->p->func_of[n] == x->p->func_of[b] &&
			    (err = add_edge(&x->p->edges, &x->p->n_edges, &x->p->cap_edges, b, n, count)))
				return err;
		}
	}
	if (landed)
		x->p->ranges += count;
	return 0;
}

static int ranges(struct ctx *x, struct hwp_branch_collector *c)
{
	size_t n;
	const struct hwp_branch_row *r = hwp_branch_table__rows(hwp_branch_collector__ranges(c), &n);
	int err;

	for (size_t i = 0; i < n; i++) {
		uint64_t s, e;
		struct hwp__insn in;

		/* a range longer than any straight-line code (one left unchecked
		   without a decoder) would only walk blocks it never ran */
		if (r[i].key.from.module != x->module || r[i].key.to.module != x->module ||
		    hwp__code_file_offset_to_vaddr(x->file, r[i].key.from.offset, &s) ||
		    hwp__code_file_offset_to_vaddr(x->file, r[i].key.to.offset, &e) || s > e || e - s > MAX_RANGE)
			continue;
		if (hwp__code_cache_insn(x->cc, x->module, r[i].key.to.offset, &in))
			in.len = 1;
		if ((err = add_range(x, s, e, in.len, r[i].c.count)))
			return err;
	}
	return 0;
}

static int branches(struct ctx *x, struct hwp_branch_collector *c)
{
	size_t n;
	const struct hwp_branch_row *r = hwp_branch_table__rows(hwp_branch_collector__table(c), &n);
	const struct hwp__bb *bl = x->m->blocks;
	int err;

	for (size_t i = 0; i < n; i++) {
		const struct hwp_branch_key *k = &r[i].key;
		uint64_t f, t;
		long bf, bt;
		struct hwp__insn in;

		if (k->from.module != x->module || k->to.module != x->module ||
		    hwp__code_file_offset_to_vaddr(x->file, k->from.offset, &f) ||
		    hwp__code_file_offset_to_vaddr(x->file, k->to.offset, &t) || (bf = block_at(x, f)) < 0 ||
		    (bt = block_at(x, t)) < 0 || bl[bt].addr != t ||
		    hwp__code_cache_insn(x->cc, x->module, k->from.offset, &in) || in.cls == HWP_INSN_RET)
			continue;
		uint32_t ff = x->p->func_of[bf], tf = x->p->func_of[bt];
		bool entry = x->m->funcs[tf].addr == t;

		x->p->branches += r[i].c.count;
		if (in.cls == HWP_INSN_CALL || in.cls == HWP_INSN_IND_CALL || ff != tf) {
			/* a call, or a jump to another function's entry (a tail call) */
			if (entry && ff != tf &&
			    (err = add_edge(&x->p->calls, &x->p->n_calls, &x->p->cap_calls, ff, tf, r[i].c.count)))
				return err;
			continue;
		}
		if ((err = add_edge(&x->p->edges, &x->p->n_edges, &x->p->cap_edges, (uint32_t)bf, (uint32_t)bt,
				    r[i].c.count)))
			return err;
	}
	return 0;
}

static int by_ends(const void *a, const void *b)
{
	const struct hwp__bb_edge *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* Sorts the edges and sums those of one (from, to). */
static void merge_edges(struct hwp__bb_edge *e, size_t *n)
{
	size_t k = 0;

	hwp__sort(e, *n, sizeof(*e), by_ends);
	for (size_t i = 0; i < *n; i++) {
		if (k && e[k - 1].from == e[i].from && e[k - 1].to == e[i].to)
			e[k - 1].count += e[i].count;
		else
			e[k++] = e[i];
	}
	*n = k;
}

int hwp__bb_profile_count(struct hwp_branch_collector *c, int module, const struct hwp__bb_addr_map *m,
			  struct hwp__bb_profile *p)
{
	struct hwp_symbolizer *s = hwp__branch_collector_symbolizer(c);
	struct ctx x = { .m = m, .p = p, .module = module };
	size_t nb = m->n_blocks ? m->n_blocks : 1;
	const char *path;
	int err = 0;

	memset(p, 0, sizeof(*p));
	if (!hwp_branch_collector__ranges(c))
		return hwp__set_error(EINVAL, "block counts: the branch collector counted no ranges");
	if (!s || !(path = hwp_symbolizer__module_file(s, module)))
		return -ENOENT; /* the symbolizer said why */
	if (!(x.cc = hwp__branch_collector_code_cache(c)))
		return hwp__set_error(ENOMEM, "out of memory counting basic blocks");
	if (!(x.file = hwp__code_file_open(path)))
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
	p->count = calloc(nb, sizeof(*p->count));
	p->func_of = calloc(nb, sizeof(*p->func_of));
	x.order = calloc(nb, sizeof(*x.order));
	x.cov_start = calloc(nb, sizeof(*x.cov_start));
	x.cov_end = calloc(nb, sizeof(*x.cov_end));
	if (!p->count || !p->func_of || !x.order || !x.cov_start || !x.cov_end) {
		err = hwp__set_error(ENOMEM, "out of memory counting basic blocks");
		goto out;
	}
	for (size_t f = 0; f < m->n_funcs; f++)
		for (size_t b = m->funcs[f].first; b < m->funcs[f].first + m->funcs[f].n; b++)
			p->func_of[b] = (uint32_t)f;
	for (size_t b = 0; b < m->n_blocks; b++)
		x.order[b] = (uint32_t)b;
	if (m->n_blocks > 1)
		qsort_r(x.order, m->n_blocks, sizeof(*x.order), by_addr, (void *)m->blocks);
	if ((err = ranges(&x, c)) || (err = branches(&x, c)))
		goto out;
	for (size_t b = 0; b < m->n_blocks; b++)
		p->count[b] = x.cov_start[b] > x.cov_end[b] ? x.cov_start[b] : x.cov_end[b];
	merge_edges(p->edges, &p->n_edges);
	merge_edges(p->calls, &p->n_calls);
out:
	free(x.order);
	free(x.cov_start);
	free(x.cov_end);
	hwp__code_file_close(x.file);
	if (err)
		hwp__bb_profile_free(p);
	return err;
}

void hwp__bb_profile_free(struct hwp__bb_profile *p)
{
	free(p->count);
	free(p->func_of);
	free(p->edges);
	free(p->calls);
	memset(p, 0, sizeof(*p));
}
