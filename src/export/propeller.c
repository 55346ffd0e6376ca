/* SPDX-License-Identifier: MIT */
/*
 * Propeller's cluster file and symbol order (hwprof/propeller.h): block
 * counts over .llvm_bb_addr_map's blocks (analysis/bb_profile.c), each
 * function's executed blocks laid out by ext-TSP, the functions by C3.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bb_profile.h"
#include "analysis/branch_collect_internal.h"
#include "hwprof/propeller.h"
#include "hwprof/symbolize.h"
#include "symbolize/bb_addr_map.h"
#include "symbolize/build_id_lookup.h"
#include "symbolize/elf_functions.h"
#include "util/error.h"
#include "util/vec.h"

/* ext-TSP's weights and distances (Newell & Pupyrev, as LLVM's CodeLayout) */
#define FALLTHROUGH_WEIGHT 1.0
#define JUMP_WEIGHT 0.1
#define FORWARD_DISTANCE 1024.0
#define BACKWARD_DISTANCE 640.0
/* C3 merges a callee's cluster into its caller's up to a page */
#define C3_CLUSTER_MAX 4096u

struct sym {
	uint64_t addr;
	const char *name;
	bool global;
};

struct fn {
	const char *name; /* NULL: no symbol, or one another function shares */
	double hot, size; /* executed bytes (count x size), bytes of executed blocks */
	uint32_t *layout; /* its hot blocks, in order */
	size_t n_layout;
	size_t cluster;   /* C3: the cluster it is in */
};

struct ctx {
	const struct hwp__bb_addr_map *m;
	const struct hwp__bb_profile *p;
	struct fn *fn;
	struct hwp_propeller_stats st;
	/* per function being laid out, indexed by local block number */
	uint32_t *chain, *pos_next; /* the block's chain; the next block in it (UINT32_MAX: last) */
	uint64_t *off;              /* its offset in its chain */
	uint32_t *local;            /* map block -> local number (UINT32_MAX: cold) */
};

static int by_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->global != y->global) /* the global name of an address first */
		return x->global ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_name(const void *a, const void *b)
{
	const struct fn *x = *(const struct fn *const *)a, *y = *(const struct fn *const *)b;

	return strcmp(x->name, y->name);
}

/*
 * Each function's name: the symbol-table function at its entry (a global
 * one first). clang's cluster file names a function by its symbol, so a
 * name two functions share (static functions of two files) cannot be
 * told apart there: those are left out.
 */
struct sym_vec {
	struct sym *v;
	size_t n, cap;
};

static int add_sym(void *ctx, const GElf_Sym *sym, const char *name)
{
	struct sym_vec *sv = ctx;
	struct sym *v = HWP_VEC_PUSH(sv->v, sv->n, sv->cap);

	if (!v)
		return -ENOMEM;
	*v = (struct sym){ sym->st_value, name, GELF_ST_BIND(sym->st_info) != STB_LOCAL };
	return 0;
}

static int name_functions(struct ctx *x, Elf *e, const char *path)
{
	struct sym *s = NULL;
	size_t n = 0;
	struct fn **by = NULL;
	int err = 0;

	struct sym_vec sv = { 0 };

	err = hwp__elf_each_function(e, add_sym, &sv);
	s = sv.v;
	n = sv.n;
	if (err) {
		err = hwp__set_error(ENOMEM, "%s: out of memory reading its symbols", path);
		goto out;
	}
	if (!n) {
		err = hwp__set_error(ENOENT, "%s: no symbol table (the cluster file names functions by it)", path);
		goto out;
	}
	hwp__sort(s, n, sizeof(*s), by_sym);
	for (size_t f = 0; f < x->m->n_funcs; f++) {
		size_t lo = 0, hi = n;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (s[mid].addr < x->m->funcs[f].addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		x->fn[f].name = lo < n && s[lo].addr == x->m->funcs[f].addr ? s[lo].name : NULL;
	}
	/* names two functions share */
	if (!(by = malloc(x->m->n_funcs * sizeof(*by) + 1))) {
		err = hwp__set_error(ENOMEM, "%s: out of memory reading its symbols", path);
		goto out;
	}
	size_t k = 0;
	for (size_t f = 0; f < x->m->n_funcs; f++)
		if (x->fn[f].name)
			by[k++] = &x->fn[f];
	hwp__sort(by, k, sizeof(*by), by_name);
	for (size_t i = 0; i < k;) {
		size_t j = i + 1;

		while (j < k && !strcmp(by[i]->name, by[j]->name))
			j++;
		if (j - i > 1)
			for (size_t q = i; q < j; q++)
				by[q]->name = NULL;
		i = j;
	}
out:
	free(by);
	free(s);
	return err; /* the names point into E's string tables: E stays open */
}

/* ext-TSP's score of an edge of weight W from a block ending at SRC_END
   to one starting at DST (offsets in one layout). */
static double edge_score(uint64_t src_end, uint64_t dst, double w)
{
	if (dst == src_end)
		return FALLTHROUGH_WEIGHT * w;
	if (dst > src_end)
		return dst - src_end <= FORWARD_DISTANCE ? JUMP_WEIGHT * w * (1 - (double)(dst - src_end) / FORWARD_DISTANCE)
							 : 0;
	return src_end - dst <= BACKWARD_DISTANCE ? JUMP_WEIGHT * w * (1 - (double)(src_end - dst) / BACKWARD_DISTANCE)
						  : 0;
}

struct cand {
	uint32_t a, b;       /* chains, a < b */
	double ab, ba;       /* the gain of a then b, of b then a */
};

static int by_pair(const void *p, const void *q)
{
	const struct cand *x = p, *y = q;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return x->b < y->b ? -1 : x->b > y->b;
}

struct chain {
	uint32_t head, tail; /* local blocks; UINT32_MAX: merged away */
	uint64_t size;
	double hot;          /* executed bytes */
};

static int by_density(const void *p, const void *q, void *arg)
{
	const struct chain *c = arg;
	uint32_t x = *(const uint32_t *)p, y = *(const uint32_t *)q;
	double dx = c[x].hot / (double)(c[x].size ? c[x].size : 1), dy = c[y].hot / (double)(c[y].size ? c[y].size : 1);

	if (x == 0 || y == 0) /* the entry's chain first */
		return x == 0 ? (y == 0 ? 0 : -1) : 1;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x < y ? -1 : x > y; /* chains are numbered in address order */
}

/*
 * Lays out function F's executed blocks: each its own chain, then the two
 * chains whose concatenation gains the most ext-TSP score merged, while
 * some merge gains (a concatenation changes no distance inside either
 * chain, so only the edges between them count); the entry's chain stays
 * first. The chains left are then ordered by density.
 */
static int layout_function(struct ctx *x, size_t f)
{
	const struct hwp__bb_func *hf = &x->m->funcs[f];
	const struct hwp__bb *bl = x->m->blocks;
	const struct hwp__bb_profile *p = x->p;
	uint32_t *hot = NULL, *order = NULL;
	struct chain *ch = NULL;
	struct cand *cd = NULL;
	struct hwp__bb_edge *ed = NULL;
	size_t nh = 0, ne = 0, lo = 0, hi = p->n_edges;
	int err = 0;

	hot = malloc((hf->n + 1) * sizeof(*hot));
	if (!hot)
		goto oom;
	/* the executed blocks in address order, the entry first */
	for (size_t b = hf->first; b < hf->first + hf->n; b++) {
		x->local[b] = UINT32_MAX;
		if (b == hf->first || p->count[b])
			hot[nh++] = (uint32_t)b;
	}
	for (size_t i = 1; i < nh; i++) /* insertion: blocks are mostly in order already */
		for (size_t j = i; j > 1 && bl[hot[j]].addr < bl[hot[j - 1]].addr; j--) {
			uint32_t t = hot[j];

			hot[j] = hot[j - 1];
			hot[j - 1] = t;
		}
	for (size_t i = 0; i < nh; i++)
		x->local[hot[i]] = (uint32_t)i;
	/* its edges between executed blocks, in local numbers */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->edges[mid].from < hf->first)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < p->n_edges && p->edges[i].from < hf->first + hf->n; i++)
		if (x->local[p->edges[i].from] != UINT32_MAX && x->local[p->edges[i].to] != UINT32_MAX &&
		    p->edges[i].from != p->edges[i].to)
			ne++;
	if (!(ed = malloc((ne + 1) * sizeof(*ed))) || !(cd = malloc((ne + 1) * sizeof(*cd))) ||
	    !(ch = malloc(nh * sizeof(*ch))) || !(order = malloc(nh * sizeof(*order))))
		goto oom;
	ne = 0;
	for (size_t i = lo; i < p->n_edges && p->edges[i].from < hf->first + hf->n; i++)
		if (x->local[p->edges[i].from] != UINT32_MAX && x->local[p->edges[i].to] != UINT32_MAX &&
		    p->edges[i].from != p->edges[i].to)
			ed[ne++] = (struct hwp__bb_edge){ x->local[p->edges[i].from], x->local[p->edges[i].to],
							  p->edges[i].count };
	/* the score of the address order (the blocks as the compiler laid them out) */
	for (size_t i = 0; i < ne; i++)
		x->st.score_before += edge_score(bl[hot[ed[i].from]].addr + bl[hot[ed[i].from]].size,
						 bl[hot[ed[i].to]].addr, (double)ed[i].count);
	for (uint32_t i = 0; i < nh; i++) {
		ch[i] = (struct chain){ i, i, bl[hot[i]].size, (double)p->count[hot[i]] * (double)bl[hot[i]].size };
		x->chain[i] = i;
		x->pos_next[i] = UINT32_MAX;
		x->off[i] = 0;
	}
	/* ext-TSP's greedy merging rescans every edge per merge: a huge
	   function (an interpreter's dispatch loop) keeps its executed blocks
	   in the compiler's order, one chain (the cold ones still split off) */
	if (nh > HWP_PROPELLER_MAX_TSP_BLOCKS) {
		for (uint32_t i = 1; i < nh; i++) {
			x->chain[i] = 0;
			x->off[i] = ch[0].size;
			x->pos_next[i - 1] = i;
			ch[0].size += ch[i].size;
			ch[0].hot += ch[i].hot;
			ch[i].head = ch[i].tail = UINT32_MAX;
		}
		ch[0].tail = nh - 1;
		x->st.address_order++;
	}
	for (;;) {
		size_t nc = 0;
		double best = 0;
		uint32_t ba = 0, bb = 0;

		for (size_t i = 0; i < ne; i++) {
			uint32_t s = ed[i].from, t = ed[i].to, cs = x->chain[s], ct = x->chain[t];
			uint64_t send = x->off[s] + bl[hot[s]].size;

			if (cs == ct)
				continue;
			/* s's chain first: t moves by its size; t's chain first: s moves */
			double g1 = edge_score(send, ch[cs].size + x->off[t], (double)ed[i].count);
			double g2 = edge_score(ch[ct].size + send, x->off[t], (double)ed[i].count);

			cd[nc++] = cs < ct ? (struct cand){ cs, ct, g1, g2 } : (struct cand){ ct, cs, g2, g1 };
		}
		hwp__sort(cd, nc, sizeof(*cd), by_pair);
		for (size_t i = 0; i < nc;) {
			struct cand sum = cd[i];
			size_t j = i + 1;

			for (; j < nc && cd[j].a == sum.a && cd[j].b == sum.b; j++)
				sum.ab += cd[j].ab, sum.ba += cd[j].ba;
			/* the entry's chain (0) is never second */
			if (sum.ab > best && sum.b != 0)
				best = sum.ab, ba = sum.a, bb = sum.b;
			if (sum.ba > best && sum.a != 0)
				best = sum.ba, ba = sum.b, bb = sum.a;
			i = j;
		}
		if (best <= 0)
			break;
		/* bb's chain after ba's */
		for (uint32_t k = ch[bb].head; k != UINT32_MAX; k = x->pos_next[k]) {
			x->chain[k] = ba;
			x->off[k] += ch[ba].size;
		}
		x->pos_next[ch[ba].tail] = ch[bb].head;
		ch[ba].tail = ch[bb].tail;
		ch[ba].size += ch[bb].size;
		ch[ba].hot += ch[bb].hot;
		ch[bb].head = ch[bb].tail = UINT32_MAX;
	}
	size_t n_ch = 0;
	for (uint32_t i = 0; i < nh; i++)
		if (ch[i].head != UINT32_MAX)
			order[n_ch++] = i;
	qsort_r(order, n_ch, sizeof(*order), by_density, ch);
	/* the final layout and its score */
	struct fn *fo = &x->fn[f];
	uint64_t at = 0;
	if (!(fo->layout = malloc(nh * sizeof(*fo->layout))))
		goto oom;
	for (size_t c = 0; c < n_ch; c++)
		for (uint32_t k = ch[order[c]].head; k != UINT32_MAX; k = x->pos_next[k]) {
			fo->layout[fo->n_layout++] = hot[k];
			x->off[k] = at;
			at += bl[hot[k]].size;
		}
	for (size_t i = 0; i < ne; i++)
		x->st.score_after += edge_score(x->off[ed[i].from] + bl[hot[ed[i].from]].size, x->off[ed[i].to],
						(double)ed[i].count);
	x->st.hot_blocks += nh;
	x->st.cold_blocks += hf->n - nh;
	goto out;
oom:
	err = hwp__set_error(ENOMEM, "out of memory laying out basic blocks");
out:
	free(hot);
	free(order);
	free(ch);
	free(cd);
	free(ed);
	return err;
}

static int by_hot(const void *p, const void *q, void *arg)
{
	const struct fn *fn = arg;
	uint32_t x = *(const uint32_t *)p, y = *(const uint32_t *)q;

	if (fn[x].hot != fn[y].hot)
		return fn[x].hot > fn[y].hot ? -1 : 1;
	return x < y ? -1 : x > y;
}

struct cluster {
	uint32_t head, tail; /* functions; UINT32_MAX: merged away */
	double hot, size;
};

static int by_cluster_density(const void *p, const void *q, void *arg)
{
	const struct cluster *c = arg;
	uint32_t x = *(const uint32_t *)p, y = *(const uint32_t *)q;
	double dx = c[x].hot / (c[x].size > 0 ? c[x].size : 1), dy = c[y].hot / (c[y].size > 0 ? c[y].size : 1);

	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * C3 (Ottoni and Maher, "Optimizing function placement for large-scale
 * data-center applications"): functions by hotness, each one's cluster
 * appended to the cluster of its hottest caller while both fit a page;
 * the clusters then by density. Writes the names of the profiled
 * functions in that order.
 */
static int write_order(struct ctx *x, const uint32_t *prof, size_t np, FILE *fp)
{
	size_t nf = x->m->n_funcs;
	uint32_t *by = malloc((np + 1) * sizeof(*by)), *next = malloc((nf + 1) * sizeof(*next));
	uint32_t *caller = malloc((nf + 1) * sizeof(*caller));
	uint64_t *cw = calloc(nf + 1, sizeof(*cw));
	struct cluster *cl = malloc((nf + 1) * sizeof(*cl));
	int err = 0;

	if (!by || !next || !caller || !cw || !cl) {
		err = hwp__set_error(ENOMEM, "out of memory ordering functions");
		goto out;
	}
	for (size_t f = 0; f < nf; f++) {
		caller[f] = UINT32_MAX;
		next[f] = UINT32_MAX;
		x->fn[f].cluster = f;
		cl[f] = (struct cluster){ (uint32_t)f, (uint32_t)f, x->fn[f].hot, x->fn[f].size };
	}
	for (size_t i = 0; i < x->p->n_calls; i++) {
		const struct hwp__bb_edge *c = &x->p->calls[i];

		if (c->count > cw[c->to] && x->fn[c->from].layout && x->fn[c->from].name)
			cw[c->to] = c->count, caller[c->to] = c->from;
	}
	memcpy(by, prof, np * sizeof(*by));
	qsort_r(by, np, sizeof(*by), by_hot, x->fn);
	for (size_t i = 0; i < np; i++) {
		uint32_t f = by[i], c = caller[f];
		size_t a, b;

		if (c == UINT32_MAX || (a = x->fn[c].cluster) == (b = x->fn[f].cluster) ||
		    cl[a].size + cl[b].size > C3_CLUSTER_MAX)
			continue;
		for (uint32_t k = cl[b].head; k != UINT32_MAX; k = next[k])
			x->fn[k].cluster = a;
		next[cl[a].tail] = cl[b].head;
		cl[a].tail = cl[b].tail;
		cl[a].hot += cl[b].hot;
		cl[a].size += cl[b].size;
		cl[b].head = UINT32_MAX;
	}
	size_t n = 0;
	for (size_t i = 0; i < np; i++)
		if (cl[prof[i]].head != UINT32_MAX && x->fn[prof[i]].cluster == prof[i])
			by[n++] = prof[i];
	qsort_r(by, n, sizeof(*by), by_cluster_density, cl);
	for (size_t i = 0; i < n; i++)
		for (uint32_t k = cl[by[i]].head; k != UINT32_MAX; k = next[k])
			fprintf(fp, "%s\n", x->fn[k].name);
out:
	free(by);
	free(next);
	free(caller);
	free(cw);
	free(cl);
	return err;
}

int hwp_propeller__write(struct hwp_branch_collector *c, int module, FILE *clusters, FILE *order,
			 struct hwp_propeller_stats *st)
{
	struct hwp_symbolizer *s = hwp__branch_collector_symbolizer(c);
	struct hwp__bb_addr_map m = { 0 };
	struct hwp__bb_profile p = { 0 };
	struct ctx x = { .m = &m, .p = &p };
	uint32_t *prof = NULL;
	size_t np = 0, maxn = 1;
	const char *path;
	Elf *e = NULL;
	int err;

	if (!s || !(path = hwp_symbolizer__module_file(s, module)))
		return -ENOENT; /* the symbolizer said why */
	if ((err = hwp__bb_addr_map_read(path, &m)) || (err = hwp__bb_profile_count(c, module, &m, &p)))
		goto out;
	for (size_t f = 0; f < m.n_funcs; f++)
		if (m.funcs[f].n > maxn)
			maxn = m.funcs[f].n;
	x.fn = calloc(m.n_funcs + 1, sizeof(*x.fn));
	x.chain = malloc(maxn * sizeof(*x.chain));
	x.pos_next = malloc(maxn * sizeof(*x.pos_next));
	x.off = malloc(maxn * sizeof(*x.off));
	x.local = malloc((m.n_blocks + 1) * sizeof(*x.local));
	prof = malloc((m.n_funcs + 1) * sizeof(*prof));
	if (!x.fn || !x.chain || !x.pos_next || !x.off || !x.local || !prof) {
		err = hwp__set_error(ENOMEM, "out of memory laying out basic blocks");
		goto out;
	}
	if (!(e = hwp__elf_open(path))) {
		err = hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
		goto out;
	}
	if ((err = name_functions(&x, e, path)))
		goto out;
	x.st.functions = m.n_funcs;
	x.st.branches = p.branches;
	x.st.ranges = p.ranges;
	fputs("v1\n", clusters);
	for (size_t f = 0; f < m.n_funcs; f++) {
		const struct hwp__bb_func *hf = &m.funcs[f];
		bool ran = false;

		for (size_t b = hf->first; b < hf->first + hf->n; b++) {
			x.fn[f].hot += (double)p.count[b] * (double)m.blocks[b].size;
			if (p.count[b]) {
				ran = true;
				x.fn[f].size += (double)m.blocks[b].size;
			}
		}
		if (!ran || !hf->n)
			continue;
		if (!x.fn[f].name) {
			x.st.ambiguous++;
			continue;
		}
		if ((err = layout_function(&x, f)))
			goto out;
		prof[np++] = (uint32_t)f;
		x.st.profiled++;
		fprintf(clusters, "f %s\nc", x.fn[f].name);
		for (size_t i = 0; i < x.fn[f].n_layout; i++)
			fprintf(clusters, " %u", m.blocks[x.fn[f].layout[i]].id);
		fputc('\n', clusters);
	}
	if (order && (err = write_order(&x, prof, np, order)))
		goto out;
	if (fflush(clusters) || ferror(clusters) || (order && (fflush(order) || ferror(order))))
		err = hwp__set_error(EIO, "writing the Propeller files: %s", strerror(errno ? errno : EIO));
	if (st)
		*st = x.st;
out:
	if (x.fn)
		for (size_t f = 0; f < m.n_funcs; f++)
			free(x.fn[f].layout);
	free(x.fn);
	free(x.chain);
	free(x.pos_next);
	free(x.off);
	free(x.local);
	free(prof);
	if (e)
		elf_end(e);
	hwp__bb_profile_free(&p);
	hwp__bb_addr_map_free(&m);
	return err;
}
