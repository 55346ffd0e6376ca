/* SPDX-License-Identifier: MIT */
/* llvm-profgen's CS pre-inliner (cs_preinline.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/cs_preinline.h"
#include "util/error.h"
#include "util/md5.h"
#include "util/vec.h"

/* SampleContext's states: bits, set and never cleared */
#define ST_SYNTH 2u
#define ST_INLINED 4u
#define ST_MERGED 8u

struct cprof;

struct tnode {
	uint32_t name, off, disc; /* off, disc: the call site in the parent */
	uint64_t hash;
	struct tnode *parent;
	struct tnode **kids; /* by hash */
	size_t nkids, ckids;
	struct cprof *prof;
};

struct cprof {
	struct hwp__cs_fs *fs;
	struct tnode *node;
	unsigned state;
};

struct edge {
	uint32_t src, dst; /* graph nodes: 0 the root, then the functions by name */
	uint64_t w;
};

struct cand {
	struct cprof *p;
	uint64_t count, size, guid;
};

struct pi {
	char *const *names;
	uint64_t *md5; /* per name (0: not yet) */
	uint32_t nnames;
	struct tnode root;
	struct cprof *profs;
	size_t nprofs;
	uint32_t *ctx_first, *ctx; /* per function name: its profiles, in breadth-first trie order */
	const struct hwp__cs_summary *sum;
	const struct hwp__cs_sizes *sizes;
	uint64_t *path;
	size_t cpath;
	struct cand *heap;
	size_t nheap, cheap;
	bool oom;
};

static uint64_t md5_of(struct pi *p, uint32_t name)
{
	if (!p->md5[name])
		p->md5[name] = hwp__md5_guid(p->names[name], strlen(p->names[name]));
	return p->md5[name];
}

/* A[0..N) in reverse order. */
static void reverse_u32(uint32_t *a, size_t n)
{
	for (size_t i = 0; i < n / 2; i++) {
		uint32_t t = a[i];

		a[i] = a[n - 1 - i];
		a[n - 1 - i] = t;
	}
}

/* ---- the context trie ---- */

static struct tnode *kid_find(const struct tnode *nd, uint64_t h, size_t *at)
{
	size_t lo = 0, hi = nd->nkids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (nd->kids[mid]->hash < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (at)
		*at = lo;
	return lo < nd->nkids && nd->kids[lo]->hash == h ? nd->kids[lo] : NULL;
}

static bool kid_insert(struct tnode *nd, struct tnode *k)
{
	size_t at;

	kid_find(nd, k->hash, &at);
	if (HWP_VEC_RESERVE(nd->kids, nd->ckids, nd->nkids + 1))
		return false;
	memmove(nd->kids + at + 1, nd->kids + at, (nd->nkids - at) * sizeof(*nd->kids));
	nd->kids[at] = k;
	nd->nkids++;
	k->parent = nd;
	return true;
}

static void kid_remove(struct tnode *nd, struct tnode *k)
{
	size_t at;

	if (kid_find(nd, k->hash, &at) == k) {
		memmove(nd->kids + at, nd->kids + at + 1, (nd->nkids - at - 1) * sizeof(*nd->kids));
		nd->nkids--;
	}
}

static struct tnode *node_child(struct pi *p, struct tnode *nd, uint32_t off, uint32_t disc, uint32_t name)
{
	uint64_t h = hwp__cs_site_hash(md5_of(p, name), off, disc);
	struct tnode *k = kid_find(nd, h, NULL);

	if (k)
		return k;
	if (!(k = calloc(1, sizeof(*k))))
		return NULL;
	*k = (struct tnode){ .name = name, .off = off, .disc = disc, .hash = h };
	if (!kid_insert(nd, k)) {
		free(k);
		return NULL;
	}
	return k;
}

static void tnode_free(struct tnode *nd)
{
	for (size_t i = 0; i < nd->nkids; i++) {
		tnode_free(nd->kids[i]);
		free(nd->kids[i]);
	}
	free(nd->kids);
}

/* ---- sizes and candidates ---- */

/* getFuncSizeForContext(): the context of ND, leaf first. */
static uint32_t func_size(struct pi *p, const struct tnode *nd)
{
	size_t n = 0;
	uint32_t off = 0, disc = 0;

	for (const struct tnode *t = nd; t->parent; t = t->parent) {
		if (HWP_VEC_RESERVE(p->path, p->cpath, n + 1)) {
			p->oom = true;
			return 0;
		}
		p->path[n++] = hwp__cs_site_hash(md5_of(p, t->name), off, disc);
		off = t->off;
		disc = t->disc;
	}
	return hwp__cs_sizes_for(p->sizes, p->path, n);
}

/* std::priority_queue's order: true when A comes out after B */
static bool cand_less(const struct cand *a, const struct cand *b)
{
	if ((!a->size || !b->size) && a->size != b->size)
		return !b->size; /* zero-sized callees first: they cost nothing */
	if (a->count != b->count)
		return a->count < b->count;
	if (a->size != b->size)
		return a->size > b->size;
	return a->guid < b->guid;
}

/* libstdc++'s push_heap and pop_heap, so that ties leave in its order */
static void sift_up(struct cand *h, size_t hole, size_t top, struct cand v)
{
	size_t parent = (hole - 1) / 2;

	while (hole > top && cand_less(&h[parent], &v)) {
		h[hole] = h[parent];
		hole = parent;
		parent = (hole - 1) / 2;
	}
	h[hole] = v;
}

static void heap_push(struct pi *p, struct cand c)
{
	if (HWP_VEC_RESERVE(p->heap, p->cheap, p->nheap + 1)) {
		p->oom = true;
		return;
	}
	p->heap[p->nheap++] = c;
	sift_up(p->heap, p->nheap - 1, 0, c);
}

static struct cand heap_pop(struct pi *p)
{
	struct cand *h = p->heap, top = h[0], v = h[p->nheap - 1];
	size_t len = --p->nheap, hole = 0, second = 0;

	if (!len)
		return top;
	while (len > 2 && second < (len - 1) / 2) {
		second = 2 * (second + 1);
		if (cand_less(&h[second], &h[second - 1]))
			second--;
		h[hole] = h[second];
		hole = second;
	}
	if ((len & 1) == 0 && second == (len - 2) / 2) {
		second = 2 * (second + 1);
		h[hole] = h[second - 1];
		hole = second - 1;
	}
	sift_up(h, hole, 0, v);
	return top;
}

/* getInlineCandidates(): the callee contexts under CALLER's node. */
static void candidates(struct pi *p, struct cprof *caller)
{
	struct tnode *nd = caller->node;

	for (size_t i = 0; i < nd->nkids; i++) {
		struct cprof *c = nd->kids[i]->prof;
		const struct hwp__cs_rec *r;
		uint64_t site = 0;

		if (!c)
			continue;
		if ((r = hwp__cs_fs_find(caller->fs, nd->kids[i]->off, nd->kids[i]->disc)))
			for (size_t k = 0; k < r->nt; k++)
				if (r->t[k].name == c->fs->name)
					site = r->t[k].count;
		uint64_t entry = hwp__cs_fs_head_estimate(c->fs, true);
		heap_push(p, (struct cand){ c, site > entry ? site : entry, func_size(p, nd->kids[i]),
					    md5_of(p, c->fs->name) });
	}
}

static bool should_inline(const struct pi *p, const struct cand *c)
{
	uint64_t cold = p->sum->cold;
	unsigned threshold = 0; /* a cold call site's: none is small enough, not even one of size 0 */

	if (c->count > cold) {
		/* hotness normalized between the cold threshold and the 10% cutoff's count */
		double hot = ((double)c->count - (double)cold) / ((double)p->sum->p10 - (double)cold);

		if (hot > 1.0)
			hot = 1.0;
		threshold = (unsigned)(1500 * hot * 100 + 0 + 1); /* + 1: a hot site's is never 0 */
		if (c->p->fs->attrs & HWP__CS_ATTR_INLINED)
			threshold *= 100; /* the compiler had inlined it */
	}
	return c->size < threshold;
}

/* ---- promotion of contexts into base profiles ---- */

static void mark_synthetic(struct tnode *nd)
{
	if (nd->prof)
		nd->prof->state |= ST_SYNTH;
	for (size_t i = 0; i < nd->nkids; i++)
		mark_synthetic(nd->kids[i]);
}

static int merge_node(struct tnode *from, struct tnode *to)
{
	if (from->prof && to->prof) {
		if (hwp__cs_fs_merge(to->prof->fs, from->prof->fs))
			return -ENOMEM;
		to->prof->state |= ST_SYNTH;
		from->prof->state |= ST_MERGED;
		to->prof->fs->attrs |= from->prof->fs->attrs & HWP__CS_ATTR_SHOULD_INLINE;
	} else if (from->prof) {
		to->prof = from->prof;
		to->prof->node = to;
		to->prof->state |= ST_SYNTH;
		from->prof = NULL;
	}
	return 0;
}

/* promoteMergeContextSamplesTree(): FROM's subtree moved under TO_PARENT
   (at the top level without its call site), merged into what is there. */
static struct tnode *promote(struct pi *p, struct tnode *from, struct tnode *to_parent)
{
	bool to_root = to_parent == &p->root;
	uint32_t off = to_root ? 0 : from->off, disc = to_root ? 0 : from->disc;
	struct tnode *old_parent = from->parent;
	struct tnode *to = kid_find(to_parent, hwp__cs_site_hash(md5_of(p, from->name), off, disc), NULL);

	if (!to) {
		kid_remove(old_parent, from);
		from->off = off;
		from->disc = disc;
		from->hash = hwp__cs_site_hash(md5_of(p, from->name), off, disc);
		if (!kid_insert(to_parent, from))
			p->oom = true;
		mark_synthetic(from);
		return from;
	}
	if (merge_node(from, to))
		p->oom = true;
	struct tnode **kids = from->kids;
	size_t nk = from->nkids;
	from->kids = NULL;
	from->nkids = from->ckids = 0;
	for (size_t i = 0; i < nk; i++)
		promote(p, kids[i], to);
	free(kids);
	kid_remove(old_parent, from);
	free(from);
	return to;
}

/* getBaseSamplesFor(): the top-level profile of NAME with its contexts
   not inlined nor merged yet merged into it. */
static struct cprof *base_profile(struct pi *p, uint32_t name)
{
	struct tnode *nd = kid_find(&p->root, hwp__cs_site_hash(md5_of(p, name), 0, 0), NULL);

	for (uint32_t i = p->ctx_first[name]; i < p->ctx_first[name + 1]; i++) {
		struct cprof *c = &p->profs[p->ctx[i]];

		if (c->state & (ST_INLINED | ST_MERGED) || c->node == nd)
			continue;
		nd = promote(p, c->node, &p->root);
	}
	return nd ? nd->prof : NULL;
}

/* processFunction() */
static void process(struct pi *p, uint32_t name)
{
	struct cprof *base = base_profile(p, name);

	if (!base)
		return;
	unsigned size = func_size(p, base->node), final = size, limit = size * 12;
	if (limit > 50000)
		limit = 50000;
	if (limit < 100)
		limit = 100;
	p->nheap = 0;
	candidates(p, base);
	while (p->nheap && final < limit && !p->oom) {
		struct cand c = heap_pop(p);

		if (!should_inline(p, &c))
			continue;
		c.p->state |= ST_INLINED;
		c.p->fs->attrs |= HWP__CS_ATTR_SHOULD_INLINE;
		final += (unsigned)c.size;
		candidates(p, c.p);
	}
}

/* ---- the profiled call graph and its top-down order ---- */

struct graph {
	uint32_t nnodes;
	uint32_t *of_name; /* name -> graph node (0: none) */
	uint32_t *name_of;
	struct edge *e; /* by source, then target */
	size_t ne;
	uint32_t *first; /* per node, its edges */
};

static const struct pi *sort_pi;

static int by_name(const void *x, const void *y)
{
	return strcmp(sort_pi->names[*(const uint32_t *)x], sort_pi->names[*(const uint32_t *)y]);
}

static int by_edge(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;

	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	return a->dst < b->dst ? -1 : a->dst > b->dst;
}

/* A breadth-first walk of the trie; F called on each node but the root. */
static int bfs(struct pi *p, void (*f)(struct pi *, struct tnode *, void *), void *ctx)
{
	struct tnode **q = NULL;
	size_t nq = 0, cq = 0;

	for (size_t i = 0; i < p->root.nkids; i++) {
		struct tnode **s = HWP_VEC_PUSH(q, nq, cq);

		if (!s) {
			free(q);
			return -ENOMEM;
		}
		*s = p->root.kids[i];
	}
	for (size_t i = 0; i < nq; i++) {
		f(p, q[i], ctx);
		for (size_t k = 0; k < q[i]->nkids; k++) {
			struct tnode **s = HWP_VEC_PUSH(q, nq, cq);

			if (!s) {
				free(q);
				return -ENOMEM;
			}
			*s = q[i]->kids[k];
		}
	}
	free(q);
	return 0;
}

struct edges {
	struct edge *v;
	size_t n, c;
	const struct graph *g;
};

static void add_edge(struct pi *p, struct tnode *callee, void *ctx)
{
	struct edges *es = ctx;
	struct tnode *caller = callee->parent;
	uint64_t w = 0;
	struct edge *e;

	if (caller == &p->root)
		return;
	if (callee->prof && caller->prof) {
		const struct hwp__cs_rec *r = hwp__cs_fs_find(caller->prof->fs, callee->off, callee->disc);
		uint64_t site = 0, entry = hwp__cs_fs_head_estimate(callee->prof->fs, true);

		if (r)
			for (size_t k = 0; k < r->nt; k++)
				if (r->t[k].name == callee->prof->fs->name)
					site = r->t[k].count;
		w = site > entry ? site : entry;
	}
	if (!(e = HWP_VEC_PUSH(es->v, es->n, es->c))) {
		p->oom = true;
		return;
	}
	*e = (struct edge){ es->g->of_name[caller->name], es->g->of_name[callee->name], w };
}

static void note_name(struct pi *p, struct tnode *nd, void *ctx)
{
	(void)p;
	((bool *)ctx)[nd->name] = true;
}

static int build_graph(struct pi *p, struct graph *g)
{
	bool *seen = calloc(p->nnames ? p->nnames : 1, sizeof(*seen));
	struct edges es = { .g = g };
	int err;

	g->of_name = calloc(p->nnames ? p->nnames : 1, sizeof(*g->of_name));
	g->name_of = malloc((p->nnames + 1) * sizeof(*g->name_of));
	if (!seen || !g->of_name || !g->name_of || (err = bfs(p, note_name, seen))) {
		free(seen);
		return -ENOMEM;
	}
	g->nnodes = 1;
	for (uint32_t k = 0; k < p->nnames; k++)
		if (seen[k])
			g->name_of[g->nnodes++] = k;
	free(seen);
	sort_pi = p;
	hwp__sort(g->name_of + 1, g->nnodes - 1, sizeof(*g->name_of), by_name);
	for (uint32_t k = 1; k < g->nnodes; k++)
		g->of_name[g->name_of[k]] = k;
	/* the root calls every function */
	for (uint32_t k = 1; k < g->nnodes; k++) {
		struct edge *e = HWP_VEC_PUSH(es.v, es.n, es.c);

		if (!e) {
			free(es.v);
			return -ENOMEM;
		}
		*e = (struct edge){ 0, k, 0 };
	}
	if (bfs(p, add_edge, &es) || p->oom) {
		free(es.v);
		return -ENOMEM;
	}
	hwp__sort(es.v, es.n, sizeof(*es.v), by_edge);
	size_t m = 0;
	for (size_t i = 0; i < es.n; i++) {
		if (m && !by_edge(&es.v[i], &es.v[m - 1]))
			es.v[m - 1].w += es.v[i].w;
		else
			es.v[m++] = es.v[i];
	}
	/* cold edges trimmed (the root's stay) */
	size_t k = 0;
	for (size_t i = 0; i < m; i++)
		if (!es.v[i].src || !p->sum->cold || es.v[i].w > p->sum->cold)
			es.v[k++] = es.v[i];
	g->e = es.v;
	g->ne = k;
	if (!(g->first = calloc(g->nnodes + 1, sizeof(*g->first))))
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		g->first[g->e[i].src + 1]++;
	for (uint32_t i = 0; i < g->nnodes; i++)
		g->first[i + 1] += g->first[i];
	return 0;
}

static uint32_t uf_find(uint32_t *group, uint32_t x)
{
	while (group[x] != x) {
		group[x] = group[group[x]];
		x = group[x];
	}
	return x;
}

struct wedge {
	const struct edge *e;
	size_t seq;
};

static int by_weight(const void *x, const void *y)
{
	const struct wedge *a = x, *b = y;

	if (a->e->w != b->e->w)
		return a->e->w > b->e->w ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq; /* a multiset keeps insertion order */
}

/* scc_member_iterator: SCC[0..N) ordered along the maximum spanning tree
   of its edges, in place. */
static int order_scc(const struct graph *g, uint32_t *scc, size_t n, uint32_t *in_scc, uint32_t mark)
{
	struct wedge *w = NULL;
	size_t nw = 0, cw = 0, nout = 0;
	uint32_t *group = malloc(g->nnodes * sizeof(*group)), *rank = calloc(g->nnodes, sizeof(*rank)),
		 *incoming = calloc(g->nnodes, sizeof(*incoming)), *queue = malloc(n * sizeof(*queue));
	bool *mst = calloc(g->ne ? g->ne : 1, sizeof(*mst)), *visited = calloc(g->nnodes, sizeof(*visited));
	int err = 0;

	if (!group || !rank || !incoming || !queue || !mst || !visited) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		in_scc[scc[i]] = mark;
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = g->first[scc[i]]; k < g->first[scc[i] + 1]; k++)
			if (in_scc[g->e[k].dst] == mark) {
				struct wedge *x = HWP_VEC_PUSH(w, nw, cw);

				if (!x) {
					err = -ENOMEM;
					goto out;
				}
				*x = (struct wedge){ &g->e[k], nw - 1 };
			}
	hwp__sort(w, nw, sizeof(*w), by_weight);
	for (uint32_t i = 0; i < g->nnodes; i++)
		group[i] = i;
	for (size_t i = 0; i < nw; i++) {
		uint32_t a = uf_find(group, w[i].e->src), b = uf_find(group, w[i].e->dst);

		if (a == b)
			continue;
		if (rank[a] < rank[b]) {
			group[a] = b;
		} else {
			group[b] = a;
			if (rank[a] == rank[b])
				rank[a]++;
		}
		mst[w[i].e - g->e] = true;
		incoming[w[i].e->dst]++;
	}
	size_t qh = 0, qt = 0;
	for (size_t i = 0; i < nw; i++) {
		uint32_t s = w[i].e->src;

		if (!visited[s] && !incoming[s]) {
			visited[s] = true;
			queue[qt++] = s;
		}
	}
	while (qh < qt) {
		uint32_t x = queue[qh++];

		scc[nout++] = x;
		for (uint32_t k = g->first[x]; k < g->first[x + 1]; k++)
			if (mst[k] && !--incoming[g->e[k].dst] && qt < n)
				queue[qt++] = g->e[k].dst;
	}
	/* reversed */
	reverse_u32(scc, nout);
out:
	free(w);
	free(group);
	free(rank);
	free(incoming);
	free(queue);
	free(mst);
	free(visited);
	return err;
}

struct visit {
	uint32_t node, next, min;
};

/* buildTopDownOrder(): function names, into ORDER (nnodes - 1 of them). */
static int top_down(const struct graph *g, uint32_t *order)
{
	uint32_t *num = calloc(g->nnodes, sizeof(*num)), *stack = malloc(g->nnodes * sizeof(*stack)),
		 *in_scc = calloc(g->nnodes, sizeof(*in_scc)), visit_num = 0, mark = 0;
	struct visit *vs = malloc(g->nnodes * sizeof(*vs));
	size_t nstack = 0, nvs = 0, norder = 0;
	int err = 0;

	if (!num || !stack || !in_scc || !vs) {
		err = -ENOMEM;
		goto out;
	}
	/* LLVM's scc_iterator: an iterative Tarjan from the root */
	num[0] = ++visit_num;
	stack[nstack++] = 0;
	vs[nvs++] = (struct visit){ 0, g->first[0], visit_num };
	while (nvs) {
		while (vs[nvs - 1].next < g->first[vs[nvs - 1].node + 1]) {
			uint32_t c = g->e[vs[nvs - 1].next++].dst;

			if (!num[c]) {
				num[c] = ++visit_num;
				stack[nstack++] = c;
				vs[nvs++] = (struct visit){ c, g->first[c], visit_num };
				continue;
			}
			if (vs[nvs - 1].min > num[c])
				vs[nvs - 1].min = num[c];
		}
		struct visit v = vs[--nvs];
		if (nvs && vs[nvs - 1].min > v.min)
			vs[nvs - 1].min = v.min;
		if (v.min != num[v.node])
			continue;
		size_t start = nstack;
		do
			num[stack[--start]] = UINT32_MAX;
		while (stack[start] != v.node);
		/* the SCC in pop order */
		size_t n = nstack - start;
		reverse_u32(stack + start, n);
		if (n > 1 && (err = order_scc(g, stack + start, n, in_scc, ++mark)))
			goto out;
		for (size_t i = start; i < nstack; i++)
			if (stack[i])
				order[norder++] = g->name_of[stack[i]];
		nstack = start;
	}
	reverse_u32(order, norder);
out:
	free(num);
	free(stack);
	free(in_scc);
	free(vs);
	return err;
}

/* ---- the whole ---- */

struct collect {
	uint32_t *count, *fill;
};

static void count_ctx(struct pi *p, struct tnode *nd, void *ctx)
{
	struct collect *c = ctx;

	if (!nd->prof)
		return;
	if (c->fill)
		p->ctx[c->fill[nd->name]++] = (uint32_t)(nd->prof - p->profs);
	else
		c->count[nd->name + 1]++;
}

static void drop_outlined(struct pi *p, struct tnode *nd, void *ctx)
{
	(void)ctx;
	if (nd->prof && nd->parent != &p->root && !(nd->prof->state & ST_INLINED))
		nd->prof = NULL;
}

/* convertToProfileMap(): the profiles left, their contexts the trie's paths. */
static int to_flats(struct pi *p, struct tnode *nd, struct hwp__cs_frame *ctx, size_t depth,
		    struct hwp__cs_flat **v, size_t *n, size_t *cap)
{
	if (nd != &p->root) {
		ctx[depth - 1] = (struct hwp__cs_frame){ nd->name, 0, 0 };
		if (nd->prof) {
			struct hwp__cs_flat *f = HWP_VEC_PUSH(*v, *n, *cap);

			if (!f || !(f->frames = malloc(depth * sizeof(*f->frames)))) {
				if (f)
					(*n)--;
				return -ENOMEM;
			}
			memcpy(f->frames, ctx, depth * sizeof(*ctx));
			f->n = depth;
			f->fs = nd->prof->fs;
			nd->prof->fs = NULL;
		}
	}
	for (size_t i = 0; i < nd->nkids; i++) {
		if (depth)
			ctx[depth - 1] = (struct hwp__cs_frame){ nd->name, nd->kids[i]->off, nd->kids[i]->disc };
		int err = to_flats(p, nd->kids[i], ctx, depth + 1, v, n, cap);

		if (err)
			return err;
	}
	return 0;
}

static size_t max_depth(const struct tnode *nd)
{
	size_t d = 0;

	for (size_t i = 0; i < nd->nkids; i++) {
		size_t k = max_depth(nd->kids[i]);

		if (k > d)
			d = k;
	}
	return d + 1;
}

int hwp__cs_preinline(struct hwp__cs_flat **pv, size_t *pn, char *const *names, const struct hwp__cs_summary *sum,
		      const struct hwp__cs_sizes *sizes)
{
	struct hwp__cs_flat *v = *pv, *out = NULL;
	size_t n = *pn, nout = 0, cout = 0;
	struct pi p = { .names = names, .sum = sum, .sizes = sizes };
	struct graph g = { 0 };
	struct collect col = { 0 };
	uint32_t *order = NULL;
	struct hwp__cs_frame *ctx = NULL;
	int err = -ENOMEM;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < v[i].n; k++)
			if (v[i].frames[k].name + 1 > p.nnames)
				p.nnames = v[i].frames[k].name + 1;
	p.md5 = calloc(p.nnames + 1, sizeof(*p.md5));
	p.profs = calloc(n ? n : 1, sizeof(*p.profs));
	if (!p.md5 || !p.profs)
		goto out;
	p.nprofs = n;
	for (size_t i = 0; i < n; i++) {
		struct tnode *nd = &p.root;
		uint32_t off = 0, disc = 0;

		for (size_t k = 0; k < v[i].n && nd; k++) {
			nd = node_child(&p, nd, off, disc, v[i].frames[k].name);
			off = v[i].frames[k].off;
			disc = v[i].frames[k].disc;
		}
		if (!nd)
			goto out;
		nd->prof = &p.profs[i];
		p.profs[i] = (struct cprof){ v[i].fs, nd, 0 };
		v[i].fs = NULL;
	}
	/* populateFuncToCtxtMap(): each function's contexts, breadth first */
	col.count = calloc(p.nnames + 1, sizeof(*col.count));
	p.ctx = malloc((n ? n : 1) * sizeof(*p.ctx));
	if (!col.count || !p.ctx || bfs(&p, count_ctx, &col))
		goto out;
	for (uint32_t k = 0; k < p.nnames; k++)
		col.count[k + 1] += col.count[k];
	p.ctx_first = col.count;
	if (!(col.fill = malloc((p.nnames + 1) * sizeof(*col.fill))))
		goto out;
	memcpy(col.fill, col.count, (p.nnames + 1) * sizeof(*col.fill));
	if (bfs(&p, count_ctx, &col))
		goto out;
	if (build_graph(&p, &g) || !(order = malloc(g.nnodes * sizeof(*order))) || top_down(&g, order))
		goto out;
	for (uint32_t i = 0; i + 1 < g.nnodes && !p.oom; i++)
		process(&p, order[i]);
	if (p.oom || bfs(&p, drop_outlined, NULL))
		goto out;
	if (!(ctx = malloc(max_depth(&p.root) * sizeof(*ctx))) || to_flats(&p, &p.root, ctx, 0, &out, &nout, &cout))
		goto out;
	err = 0;
out:
	for (size_t i = 0; i < p.nprofs; i++)
		hwp__cs_fs_free(p.profs[i].fs);
	hwp__cs_flats_free(v, n);
	if (err) {
		hwp__cs_flats_free(out, nout);
		out = NULL;
		nout = 0;
		err = hwp__set_error(ENOMEM, "out of memory in the pre-inliner");
	}
	*pv = out;
	*pn = nout;
	tnode_free(&p.root);
	free(p.md5);
	free(p.profs);
	free(p.ctx);
	free(col.count);
	free(col.fill);
	free(p.path);
	free(p.heap);
	free(g.of_name);
	free(g.name_of);
	free(g.e);
	free(g.first);
	free(order);
	free(ctx);
	return err;
}
