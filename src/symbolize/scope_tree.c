/* SPDX-License-Identifier: MIT */
/* A function's scope tree, read once, searched by address (scope_tree.h). */
#include <errno.h>
#include <stdlib.h>

#include "symbolize/dwarf_scope.h"
#include "symbolize/scope_tree.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

/* One address range of a scope, kept with its siblings' (sorted by start). */
struct child_range {
	uint64_t lo, hi;
	uint64_t max_hi; /* the largest hi of this range and its siblings' sorted before it */
	uint32_t parent, node;
	uint32_t order;  /* the scope's place among its parent's children */
};

struct node {
	Dwarf_Die die;
	uint32_t first, n; /* its children's ranges: tree.r[first..first+n) */
};

struct tree {
	Dwarf_Off fn;
	struct node *nodes; /* [0] is the function */
	size_t nn, cn;
	struct child_range *r;
	size_t nr, cr;
};

struct hwp__scope_trees {
	struct tree *t;
	size_t n, cap;
	struct hwp_hashmap map; /* function DIE offset -> t[] */
};

struct hwp__scope_trees *hwp__scope_trees_new(void)
{
	return calloc(1, sizeof(struct hwp__scope_trees));
}

void hwp__scope_trees_free(struct hwp__scope_trees *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->t[i].nodes);
		free(c->t[i].r);
	}
	free(c->t);
	hwp__hashmap_free(&c->map);
	free(c);
}

/* Adds PARENT's pc-scope children with code (and theirs, to DEPTH). */
static int read_children(struct tree *t, uint32_t parent, int depth)
{
	Dwarf_Die c, die = t->nodes[parent].die; /* (nodes may move) */
	uint32_t order = 0;

	if (depth >= HWP_SCOPE_TREE_MAX_DEPTH || dwarf_child(&die, &c) != 0)
		return 0;
	do {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;
		uint32_t self;
		size_t had = t->nr;
		struct node *nd;
		int err;

		order++;
		if (!hwp__dwarf_is_pc_scope(dwarf_tag(&c)))
			continue;
		self = (uint32_t)t->nn;
		while ((off = dwarf_ranges(&c, off, &base, &start, &end)) > 0) {
			struct child_range *r = HWP_VEC_PUSH(t->r, t->nr, t->cr);

			if (!r)
				return -ENOMEM;
			*r = (struct child_range){ .lo = start, .hi = end, .parent = parent, .node = self,
						   .order = order };
		}
		if (off < 0)
			t->nr = had; /* dwarf_haspc() fails on it: never holds an address */
		if (t->nr == had)
			continue;
		if (!(nd = HWP_VEC_PUSH(t->nodes, t->nn, t->cn)))
			return -ENOMEM;
		*nd = (struct node){ .die = c };
		if ((err = read_children(t, self, depth + 1)))
			return err;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int by_parent_lo(const void *a, const void *b)
{
	const struct child_range *x = a, *y = b;

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int build(struct tree *t, Dwarf_Die *fn)
{
	struct node *root = HWP_VEC_PUSH(t->nodes, t->nn, t->cn);
	int err;

	if (!root)
		return -ENOMEM;
	*root = (struct node){ .die = *fn };
	if ((err = read_children(t, 0, 0)))
		return err;
	if (t->nr) /* (qsort of NULL is undefined, even of nothing) */
		qsort(t->r, t->nr, sizeof(*t->r), by_parent_lo);
	for (size_t i = 0; i < t->nr; i++) {
		struct child_range *r = &t->r[i];
		struct node *p = &t->nodes[r->parent];

		if (!p->n++) {
			p->first = (uint32_t)i;
			r->max_hi = r->hi;
		} else {
			r->max_hi = r[-1].max_hi > r->hi ? r[-1].max_hi : r->hi;
		}
	}
	return 0;
}

static struct tree *tree_of(struct hwp__scope_trees *c, Dwarf_Die *fn)
{
	Dwarf_Off off = dwarf_dieoffset(fn);
	uint64_t h = hwp__hash64(off);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&c->map, h);
	struct tree *t;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (c->t[i].fn == off)
			return &c->t[i];
	if (!(t = HWP_VEC_PUSH(c->t, c->n, c->cap)))
		return NULL;
	*t = (struct tree){ .fn = off };
	if (build(t, fn) || hwp__hashmap_add(&c->map, h, c->n - 1) < 0) {
		free(t->nodes);
		free(t->r);
		c->n--;
		return NULL;
	}
	return t;
}

/* The child of node P holding ADDR: of those whose ranges hold it, the
   first in DIE order; -1 when none does. */
static int64_t child_at(const struct tree *t, uint32_t p, uint64_t addr)
{
	const struct child_range *r = t->r + t->nodes[p].first, *best = NULL;
	size_t lo = 0, hi = t->nodes[p].n;

	while (lo < hi) { /* the first range starting after ADDR */
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && r[i].max_hi > addr;)
		if (addr < r[i].hi && (!best || r[i].order < best->order))
			best = &r[i];
	return best ? (int64_t)best->node : -1;
}

size_t hwp__scope_trees_path(struct hwp__scope_trees *c, Dwarf_Die *fn, uint64_t addr, Dwarf_Die *out, size_t max)
{
	const struct tree *t = c ? tree_of(c, fn) : NULL;
	uint32_t p = 0;
	int64_t ch;
	size_t n = 0;

	if (!t) { /* out of memory: the walk over libdw's DIEs */
		Dwarf_Die cur = *fn;

		while (n < max && hwp__dwarf_scope_child(&cur, addr, &out[n]))
			cur = out[n++];
		return n;
	}
	while (n < max && (ch = child_at(t, p, addr)) >= 0) {
		p = (uint32_t)ch;
		out[n++] = t->nodes[p].die;
	}
	return n;
}
