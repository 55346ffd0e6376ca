/* SPDX-License-Identifier: MIT */
/* llvm-profgen's missing-frame inference (cs_tailcall.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "decode/code_cache.h"
#include "export/cs_binary.h"
#include "export/cs_tailcall.h"
#include "export/cs_unwind.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

/* (key, value) pairs sorted by key then value: the edge sets */
struct pair {
	uint64_t k, v;
};

struct pairs {
	struct pair *v;
	size_t n, cap;
};

/* A result kept per (from, to) function pair. */
struct memo {
	uint64_t key;
	bool unique;
	uint64_t paths;     /* when not unique */
	size_t off, len;    /* when unique: the path in the arena */
};

struct hwp__cs_tailcalls {
	const struct hwp__cs_binary *bin;
	struct pairs calls;     /* call site -> callee function */
	struct pairs tails;     /* tail-call site -> target function */
	struct pairs func_tails; /* function -> its tail-call sites */
	uint64_t *targets;      /* functions some tail call reaches, sorted */
	size_t ntargets;
	uint8_t *visiting;      /* per function */
	struct memo *memo;
	size_t nmemo, cmemo;
	struct hwp_hashmap map;
	uint64_t *arena;
	size_t narena, carena;
};

static int by_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->v < y->v ? -1 : x->v > y->v;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int add(struct pairs *p, uint64_t k, uint64_t v)
{
	struct pair *e = HWP_VEC_PUSH(p->v, p->n, p->cap);

	if (!e)
		return -ENOMEM;
	*e = (struct pair){ k, v };
	return 0;
}

static void sort_unique(struct pairs *p)
{
	size_t m = 0;

	hwp__sort(p->v, p->n, sizeof(*p->v), by_pair);
	for (size_t i = 0; i < p->n; i++)
		if (!m || p->v[i].k != p->v[m - 1].k || p->v[i].v != p->v[m - 1].v)
			p->v[m++] = p->v[i];
	p->n = m;
}

/* The pairs of key K: [*first, return). */
static size_t find(const struct pairs *p, uint64_t k, size_t *first)
{
	size_t lo = 0, hi = p->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->v[mid].k < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (hi < p->n && p->v[hi].k == k)
		hi++;
	return hi;
}

static int cls_at(const struct hwp__cs_binary *b, uint64_t a, size_t *idx)
{
	size_t i = hwp__cs_binary_index(b, a);

	*idx = i;
	return i < b->n && b->addr[i] == a ? b->cls[i] : -1;
}

/* Whether A is a tail-call site: a direct jump into another function or
   an indirect jump, inside a function. */
static bool tail_site(const struct hwp__cs_binary *b, uint64_t a)
{
	size_t i;
	int c = cls_at(b, a, &i);
	const struct hwp__cs_func_range *f = c >= 0 ? hwp__cs_binary_func(b, a) : NULL, *tf;

	if (!f)
		return false;
	if (c == HWP_INSN_IND_JUMP)
		return true;
	if (c != HWP_INSN_JUMP || !b->target[i])
		return false;
	tf = hwp__cs_binary_func(b, b->target[i]);
	return tf && tf->func != f->func;
}

static bool call_site(const struct hwp__cs_binary *b, uint64_t a)
{
	size_t i;
	int c = cls_at(b, a, &i);

	return (c == HWP_INSN_CALL || c == HWP_INSN_IND_CALL) && hwp__cs_binary_func(b, a);
}

int hwp__cs_tailcalls_new(const struct hwp__cs_binary *b, const struct hwp__cs_contexts *cs,
			  struct hwp__cs_tailcalls **out)
{
	struct hwp__cs_tailcalls *t = calloc(1, sizeof(*t));
	int err = -ENOMEM;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->bin = b;
	for (size_t i = 0; i < cs->n; i++)
		for (size_t k = 0; k < cs->v[i].nbranches; k++) {
			uint64_t from = cs->v[i].branches[k].a, to = cs->v[i].branches[k].b;
			const struct hwp__cs_func_range *tf = hwp__cs_binary_func(b, to), *ff;

			if (call_site(b, from) && tf && add(&t->calls, from, tf->func))
				goto out;
			if (!tail_site(b, from))
				continue;
			ff = hwp__cs_binary_func(b, from);
			if (ff == tf) /* within its own function range: no tail call */
				continue;
			if (add(&t->func_tails, ff->func, from) || (tf && add(&t->tails, from, tf->func)))
				goto out;
		}
	sort_unique(&t->calls);
	sort_unique(&t->tails);
	sort_unique(&t->func_tails);
	if (!(t->targets = malloc((t->tails.n ? t->tails.n : 1) * sizeof(*t->targets))) ||
	    !(t->visiting = calloc(b->nfuncs ? b->nfuncs : 1, 1)))
		goto out;
	for (size_t i = 0; i < t->tails.n; i++)
		t->targets[t->ntargets++] = t->tails.v[i].v;
	hwp__sort(t->targets, t->ntargets, sizeof(*t->targets), by_u64);
	size_t m = 0;
	for (size_t i = 0; i < t->ntargets; i++)
		if (!m || t->targets[i] != t->targets[m - 1])
			t->targets[m++] = t->targets[i];
	t->ntargets = m;
	err = 0;
out:
	if (err)
		hwp__cs_tailcalls_free(t);
	else
		*out = t;
	return err;
}

void hwp__cs_tailcalls_free(struct hwp__cs_tailcalls *t)
{
	if (!t)
		return;
	free(t->calls.v);
	free(t->tails.v);
	free(t->func_tails.v);
	free(t->targets);
	free(t->visiting);
	free(t->memo);
	hwp__hashmap_free(&t->map);
	free(t->arena);
	free(t);
}

struct walk {
	struct hwp__cs_tailcalls *t;
	uint64_t **path;
	size_t *n, *cap;
	int err;
};

static void push(struct walk *w, uint64_t a)
{
	if (HWP_VEC_RESERVE(*w->path, *w->cap, *w->n + 1)) {
		w->err = -ENOMEM;
		return;
	}
	(*w->path)[(*w->n)++] = a;
}

static struct memo *memo_get(struct hwp__cs_tailcalls *t, uint64_t key)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&t->map, hwp__hash64(key));
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (t->memo[i].key == key)
			return &t->memo[i];
	return NULL;
}

static void memo_put(struct walk *w, uint64_t key, bool unique, uint64_t paths, const uint64_t *path, size_t len)
{
	struct hwp__cs_tailcalls *t = w->t;
	struct memo *m = memo_get(t, key);

	if (!m) {
		if (!(m = HWP_VEC_PUSH(t->memo, t->nmemo, t->cmemo)) ||
		    hwp__hashmap_add(&t->map, hwp__hash64(key), t->nmemo - 1) < 0) {
			w->err = -ENOMEM;
			return;
		}
	}
	*m = (struct memo){ key, unique, paths, t->narena, len };
	if (unique) {
		if (HWP_VEC_RESERVE(t->arena, t->carena, t->narena + len)) {
			w->err = -ENOMEM;
			return;
		}
		memcpy(t->arena + t->narena, path, len * sizeof(*path));
		t->narena += len;
	}
}

static uint64_t from_site(struct walk *w, uint64_t site, uint64_t to);

/* How many tail-call paths lead from function FROM to function TO (its
   sites appended when exactly one). */
static uint64_t from_func(struct walk *w, uint64_t from, uint64_t to)
{
	struct hwp__cs_tailcalls *t = w->t;
	uint64_t key = from << 32 | to, paths = 0;
	const struct memo *m;
	size_t pos = *w->n, k, end;

	if (from == to)
		return 1;
	if (t->visiting[from])
		return 0; /* a cycle */
	if ((m = memo_get(t, key))) {
		if (!m->unique)
			return m->paths;
		for (size_t i = 0; i < m->len; i++)
			push(w, t->arena[m->off + i]);
		return 1;
	}
	end = find(&t->func_tails, from, &k);
	if (k == end)
		return 0;
	t->visiting[from] = 1;
	for (; k < end && paths <= 1 && !w->err; k++)
		paths += from_site(w, t->func_tails.v[k].v, to);
	t->visiting[from] = 0;
	if (paths != 1)
		*w->n = pos;
	memo_put(w, key, paths == 1, paths, *w->path + pos, *w->n - pos);
	return paths;
}

static uint64_t from_site(struct walk *w, uint64_t site, uint64_t to)
{
	size_t k, end = find(&w->t->tails, site, &k);
	uint64_t paths = 0;

	if (k == end)
		return 0;
	push(w, site);
	for (; k < end && paths <= 1 && !w->err; k++)
		paths += from_func(w, w->t->tails.v[k].v, to);
	if (paths != 1 && *w->n)
		(*w->n)--;
	return paths;
}

static bool has(const uint64_t *v, size_t n, uint64_t x)
{
	size_t i = hwp__cs_lower_bound(v, n, x);

	return i < n && v[i] == x;
}

int hwp__cs_tailcalls_infer(struct hwp__cs_tailcalls *t, uint64_t from, uint64_t to, uint64_t **path, size_t *n,
			    size_t *cap)
{
	struct walk w = { t, path, n, cap, 0 };
	const struct hwp__cs_func_range *tf;
	size_t k, end, pos;
	uint64_t paths = 0;

	push(&w, from);
	if (w.err || !(tf = hwp__cs_binary_func(t->bin, to)))
		return w.err;
	end = find(&t->calls, from, &k);
	if (k == end)
		return 0;
	for (size_t i = k; i < end; i++)
		if (t->calls.v[i].v == tf->func)
			return 0; /* it calls that function itself */
	if (!has(t->targets, t->ntargets, tf->func))
		return 0;
	memset(t->visiting, 0, t->bin->nfuncs ? t->bin->nfuncs : 1);
	pos = *n;
	for (; k < end && paths <= 1 && !w.err; k++)
		paths += from_func(&w, t->calls.v[k].v, tf->func);
	if (paths != 1)
		*n = pos;
	return w.err;
}
