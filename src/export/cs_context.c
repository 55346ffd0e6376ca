/* SPDX-License-Identifier: MIT */
/* Address contexts -> CSSPGO's flat probe-based CS profile (cs_context.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/cs_binary.h"
#include "export/cs_context.h"
#include "export/cs_nest.h"
#include "export/cs_preinline.h"
#include "export/cs_sizes.h"
#include "export/cs_samples.h"
#include "export/cs_tailcall.h"
#include "export/cs_unwind.h"
#include "export/dwarf_frames.h"
#include "export/pseudo_probe.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/md5.h"
#include "util/vec.h"

#define MAX_FRAMES 64

/* A context frame: a function (interned name) at a call site (0, 0 for the leaf). */
struct cframe {
	uint32_t name, off, disc;
};

struct prof {
	uint64_t *frames; /* frame ids, outermost first */
	size_t n;
	uint64_t total, head, hash;
	bool inlined;
};

struct body {
	uint32_t prof, off, disc;
	uint64_t count;
};

struct target {
	uint32_t body, name;
	uint64_t count;
};

struct named_guid;

struct gen {
	const struct hwp__pseudo_probes *pp;
	const struct hwp__cs_binary *bin;
	struct hwp__dwarf_frames *df;
	char **names; /* interned */
	size_t nnames, cnames;
	struct hwp_hashmap namemap;
	uint32_t *desc_name; /* per descriptor: its interned name + 1 (0: not yet) */
	struct cframe *fr;
	size_t nfr, cfr;
	struct hwp_hashmap frmap;
	struct prof *p;
	size_t np, cp;
	struct hwp_hashmap pmap;
	struct body *b;
	size_t nb, cb;
	struct hwp_hashmap bmap;
	struct target *t;
	size_t nt, ct;
	struct hwp_hashmap tmap;
	uint64_t *guids; /* profiled top-level functions, sorted */
	size_t nguids;
	struct named_guid *pfuncs; /* the same with their names */
	size_t npfuncs, cpfuncs;
	uint64_t *stack, *prefix;
	size_t cstack, cprefix, nprefix;
	/* the context's sites with the tail-call frames between them inferred
	   (the last site's own inference depends on the leaf: not in it) */
	const struct hwp__cs_context *ctx;
	struct hwp__cs_tailcalls *tails;
	uint64_t *sites;
	size_t nbase, csites;
	uint64_t *zero; /* (node << 32 | profile) pairs whose probes are listed */
	size_t nzero, czero;
	uint32_t *node_probes, *node_first; /* probes by node */
};

static int nomem(void)
{
	return hwp__set_error(ENOMEM, "out of memory making the context-sensitive profile");
}

static int64_t intern(struct gen *g, const char *s, size_t len)
{
	uint64_t h = hwp__hash_bytes(s, len);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&g->namemap, h);
	uint32_t i;
	char **slot;

	while (hwp__hashmap_next(&p, &i))
		if (!strncmp(g->names[i], s, len) && !g->names[i][len])
			return i;
	if (!(slot = HWP_VEC_PUSH(g->names, g->nnames, g->cnames)))
		return nomem();
	if (!(*slot = strndup(s, len)) || hwp__hashmap_add(&g->namemap, h, g->nnames - 1) < 0) {
		free(*slot);
		g->nnames--;
		return nomem();
	}
	return (int64_t)(g->nnames - 1);
}

/* The interned name of function GUID; -ENOENT when no descriptor names it. */
static int64_t guid_name(struct gen *g, uint64_t guid)
{
	const struct hwp__probe_desc *d = hwp__pseudo_probes_desc(g->pp, guid);
	size_t k;

	if (!d)
		return -ENOENT;
	k = (size_t)(d - g->pp->descs);
	if (!g->desc_name[k]) {
		int64_t n = intern(g, d->name, d->name_len);

		if (n < 0)
			return n;
		g->desc_name[k] = (uint32_t)n + 1;
	}
	return g->desc_name[k] - 1;
}

static int64_t frame_id(struct gen *g, uint32_t name, uint32_t off, uint32_t disc)
{
	uint64_t h = hwp__hash_combine(hwp__hash_combine(hwp__hash64(name), off), disc);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&g->frmap, h);
	uint32_t i;
	struct cframe *f;

	while (hwp__hashmap_next(&p, &i))
		if (g->fr[i].name == name && g->fr[i].off == off && g->fr[i].disc == disc)
			return i;
	if (!(f = HWP_VEC_PUSH(g->fr, g->nfr, g->cfr)) || hwp__hashmap_add(&g->frmap, h, g->nfr - 1) < 0)
		return nomem();
	*f = (struct cframe){ name, off, disc };
	return (int64_t)(g->nfr - 1);
}

static int64_t profile(struct gen *g, const uint64_t *frames, size_t n)
{
	uint64_t h = hwp__hash_bytes(frames, n * sizeof(*frames)) ^ n;
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&g->pmap, h);
	uint32_t i;
	struct prof *pr;

	while (hwp__hashmap_next(&p, &i))
		if (g->p[i].n == n && !memcmp(g->p[i].frames, frames, n * sizeof(*frames)))
			return i;
	if (!(pr = HWP_VEC_PUSH(g->p, g->np, g->cp)))
		return nomem();
	if (!(pr->frames = malloc(n * sizeof(*frames))) || hwp__hashmap_add(&g->pmap, h, g->np - 1) < 0) {
		free(pr->frames);
		g->np--;
		return nomem();
	}
	memcpy(pr->frames, frames, n * sizeof(*frames));
	pr->n = n;
	return (int64_t)(g->np - 1);
}

static int64_t body(struct gen *g, uint32_t prof, uint32_t off, uint32_t disc, uint64_t count)
{
	uint64_t h = hwp__hash_combine(hwp__hash_combine(hwp__hash64(prof), off), disc);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&g->bmap, h);
	uint32_t i;
	struct body *b;

	while (hwp__hashmap_next(&p, &i))
		if (g->b[i].prof == prof && g->b[i].off == off && g->b[i].disc == disc) {
			g->b[i].count += count;
			return i;
		}
	if (!(b = HWP_VEC_PUSH(g->b, g->nb, g->cb)) || hwp__hashmap_add(&g->bmap, h, g->nb - 1) < 0)
		return nomem();
	*b = (struct body){ prof, off, disc, count };
	return (int64_t)(g->nb - 1);
}

static int add_target(struct gen *g, uint32_t prof, uint32_t off, uint32_t disc, uint32_t name, uint64_t count)
{
	int64_t bi = body(g, prof, off, disc, 0);
	uint64_t h;
	struct hwp_hashmap_probe p;
	uint32_t i;
	struct target *t;

	if (bi < 0)
		return (int)bi;
	h = hwp__hash_combine(hwp__hash64((uint64_t)bi), name);
	p = hwp__hashmap_probe(&g->tmap, h);
	while (hwp__hashmap_next(&p, &i))
		if (g->t[i].body == bi && g->t[i].name == name) {
			g->t[i].count += count;
			return 0;
		}
	if (!(t = HWP_VEC_PUSH(g->t, g->nt, g->ct)) || hwp__hashmap_add(&g->tmap, h, g->nt - 1) < 0)
		return nomem();
	*t = (struct target){ (uint32_t)bi, name, count };
	return 0;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether P's top-level function is one llvm-profgen decodes probes of. */
static bool profiled(const struct gen *g, const struct hwp__probe *p)
{
	uint64_t guid = g->pp->nodes[hwp__pseudo_probes_top(g->pp, p->node)].guid;

	return g->nguids && bsearch(&guid, g->guids, g->nguids, sizeof(guid), by_u64);
}

static size_t probes_at(const struct hwp__pseudo_probes *pp, uint64_t a, size_t *first)
{
	size_t lo = 0, hi = pp->nprobes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pp->probes[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (hi < pp->nprobes && pp->probes[hi].addr == a)
		hi++;
	return hi;
}

/* The first call probe at A (of a profiled function), or NULL. */
static const struct hwp__probe *call_probe(const struct gen *g, uint64_t a)
{
	size_t k, end = probes_at(g->pp, a, &k);

	for (; k < end; k++)
		if (g->pp->probes[k].type != HWP__PROBE_BLOCK && profiled(g, &g->pp->probes[k]))
			return &g->pp->probes[k];
	return NULL;
}

/* Appends P's inline context, its own function at its index last, to
   *STACK (N frames): an inline site of index 0 (not the last frame)
   drops everything before it. */
static int push_inline_context(struct gen *g, const struct hwp__probe *p, uint64_t **stack, size_t *cap, size_t *n)
{
	uint32_t chain[MAX_FRAMES];
	size_t len = 0;

	for (uint32_t k = p->node;; k = g->pp->nodes[k].parent) {
		if (len == MAX_FRAMES)
			return hwp__set_error(EINVAL, "pseudo probes: an inline context deeper than %d functions",
					      MAX_FRAMES);
		chain[len++] = k;
		if (g->pp->nodes[k].parent == UINT32_MAX)
			break;
	}
	while (len--) {
		const struct hwp__probe_node *nd = &g->pp->nodes[chain[len]];
		uint32_t site = len ? g->pp->nodes[chain[len - 1]].site : p->index;
		int64_t name = guid_name(g, nd->guid), id;

		if (name < 0)
			return name == -ENOENT ? hwp__set_error(EINVAL, "pseudo probes: no descriptor for function "
							       "GUID %" PRIu64, nd->guid)
					       : (int)name;
		if (!site && len) {
			*n = 0;
			continue;
		}
		if ((id = frame_id(g, (uint32_t)name, site, 0)) < 0 || HWP_VEC_RESERVE(*stack, *cap, *n + 1))
			return id < 0 ? (int)id : nomem();
		(*stack)[(*n)++] = (uint64_t)id;
	}
	return 0;
}

/* The call probes of SITES[0..N) (outermost first), innermost first up
   to the first site without one, as the prefix of a profile. */
static int make_prefix(struct gen *g, const uint64_t *sites, size_t n)
{
	size_t first = n;

	while (first && call_probe(g, sites[first - 1]))
		first--;
	g->nprefix = 0;
	for (size_t i = first; i < n; i++) {
		int err = push_inline_context(g, call_probe(g, sites[i]), &g->prefix, &g->cprefix, &g->nprefix);

		if (err)
			return err;
	}
	return 0;
}

/* The context's sites with the frames of tail calls inferred up to a leaf
   at address LEAF (llvm-profgen's inferMissingFrames()), then the prefix. */
static int leaf_prefix(struct gen *g, uint64_t leaf)
{
	size_t n = g->nbase;

	if (!g->ctx->nsites)
		return make_prefix(g, g->sites, 0);
	if (hwp__cs_tailcalls_infer(g->tails, g->ctx->sites[g->ctx->nsites - 1], leaf, &g->sites, &n, &g->csites))
		return nomem();
	return make_prefix(g, g->sites, n);
}

static int context_sites(struct gen *g, const struct hwp__cs_context *c)
{
	g->ctx = c;
	g->nbase = 0;
	for (size_t i = 1; i < c->nsites; i++)
		if (hwp__cs_tailcalls_infer(g->tails, c->sites[i - 1], c->sites[i], &g->sites, &g->nbase, &g->csites))
			return nomem();
	return 0;
}

/* The profile of leaf probe P under the current prefix: its context
   without the leaf's location, recursion compressed. */
static int64_t leaf_profile(struct gen *g, const struct hwp__probe *p)
{
	int err = leaf_prefix(g, p->addr);
	size_t n = g->nprefix;
	int64_t id, pi;

	if (err)
		return err;
	if (HWP_VEC_RESERVE(g->stack, g->cstack, n + 1))
		return nomem();
	if (n)
		memcpy(g->stack, g->prefix, n * sizeof(*g->stack));
	if ((err = push_inline_context(g, p, &g->stack, &g->cstack, &n)))
		return err;
	const struct cframe leaf = g->fr[g->stack[n - 1]];
	if ((id = frame_id(g, leaf.name, 0, 0)) < 0)
		return id;
	n = hwp__cs_compress(g->stack, n - 1);
	g->stack[n++] = (uint64_t)id;
	if ((pi = profile(g, g->stack, n)) < 0)
		return pi;
	g->p[pi].hash = hwp__pseudo_probes_desc(g->pp, g->pp->nodes[p->node].guid)->hash;
	if (g->pp->nodes[p->node].parent != UINT32_MAX)
		g->p[pi].inlined = true;
	return pi;
}

static int block_probe(struct gen *g, const struct hwp__probe *p, uint64_t count)
{
	int64_t pi = leaf_profile(g, p), bi;
	uint64_t *z;

	if (pi < 0)
		return (int)pi;
	if ((bi = body(g, (uint32_t)pi, p->index, p->discriminator, count)) < 0)
		return (int)bi;
	g->p[pi].total += count;
	if (!(z = HWP_VEC_PUSH(g->zero, g->nzero, g->czero)))
		return nomem();
	*z = (uint64_t)p->node << 32 | (uint64_t)pi;
	if (p->index != 1)
		return 0;
	g->p[pi].head += count;
	/* an inlined function's entry: a call at its site in the caller's profile */
	uint32_t parent = g->pp->nodes[p->node].parent;
	size_t n = g->p[pi].n;
	if (parent == UINT32_MAX || n < 2)
		return 0;
	const struct cframe site = g->fr[g->p[pi].frames[n - 2]], callee = g->fr[g->p[pi].frames[n - 1]];
	int64_t leaf = frame_id(g, site.name, 0, 0), ci;
	if (leaf < 0 || HWP_VEC_RESERVE(g->stack, g->cstack, n))
		return leaf < 0 ? (int)leaf : nomem();
	memcpy(g->stack, g->p[pi].frames, (n - 2) * sizeof(*g->stack));
	g->stack[n - 2] = (uint64_t)leaf;
	if ((ci = profile(g, g->stack, n - 1)) < 0)
		return (int)ci;
	g->p[ci].hash = hwp__pseudo_probes_desc(g->pp, g->pp->nodes[parent].guid)->hash;
	g->p[ci].total += count;
	return (bi = body(g, (uint32_t)ci, site.off, site.disc, count)) < 0
		       ? (int)bi
		       : add_target(g, (uint32_t)ci, site.off, site.disc, callee.name, count);
}

static int branch(struct gen *g, const struct hwp__cs_count *br)
{
	const struct hwp__probe *p = call_probe(g, br->a);
	struct hwp__src_frame fr[MAX_FRAMES];
	int64_t pi, bi, name;

	if (!p)
		return 0;
	if ((pi = leaf_profile(g, p)) < 0 || (bi = body(g, (uint32_t)pi, p->index, 0, br->count)) < 0)
		return pi < 0 ? (int)pi : (int)bi;
	g->p[pi].total += br->count;
	/* a call target is a function entered at its start */
	if (br->b == HWP__CS_EXTERNAL || !hwp__dwarf_frames_at(g->df, br->b, fr, MAX_FRAMES) || fr[0].entry != br->b)
		return 0;
	if ((name = intern(g, fr[0].name, hwp__cs_canonical_len(fr[0].name))) < 0)
		return (int)name;
	return add_target(g, (uint32_t)pi, p->index, p->discriminator, (uint32_t)name, br->count);
}

struct icount {
	uint64_t addr, count;
};

static int by_icount(const void *a, const void *b)
{
	return by_u64(&((const struct icount *)a)->addr, &((const struct icount *)b)->addr);
}

static int one_context(struct gen *g, const struct hwp__cs_context *c, struct icount **ic, size_t *cic)
{
	size_t n = 0, m = 0;
	int err;

	if ((err = context_sites(g, c)))
		return err;
	/* each instruction's count: the sum of the ranges holding it */
	for (size_t i = 0; i < c->nranges; i++)
		for (size_t k = hwp__cs_binary_index(g->bin, c->ranges[i].a);
		     k < g->bin->n && g->bin->addr[k] <= c->ranges[i].b; k++) {
			if (HWP_VEC_RESERVE(*ic, *cic, n + 1))
				return nomem();
			(*ic)[n++] = (struct icount){ g->bin->addr[k], c->ranges[i].count };
		}
	hwp__sort(*ic, n, sizeof(**ic), by_icount);
	for (size_t i = 0; i < n; i++)
		if (m && (*ic)[i].addr == (*ic)[m - 1].addr)
			(*ic)[m - 1].count += (*ic)[i].count;
		else
			(*ic)[m++] = (*ic)[i];
	for (size_t i = 0; i < m; i++) {
		size_t k, end = probes_at(g->pp, (*ic)[i].addr, &k);

		for (; k < end; k++)
			if (g->pp->probes[k].type == HWP__PROBE_BLOCK && (*ic)[i].count && profiled(g, &g->pp->probes[k]) &&
			    (err = block_probe(g, &g->pp->probes[k], (*ic)[i].count)))
				return err;
	}
	for (size_t i = 0; i < c->nbranches; i++)
		if ((err = branch(g, &c->branches[i])))
			return err;
	return 0;
}

/* Every probe of each function node with a count is listed, 0 when it has none. */
static int zero_fill(struct gen *g)
{
	size_t nn = g->pp->nnodes, m = 0;

	if (!(g->node_first = calloc(nn + 1, sizeof(*g->node_first))) ||
	    !(g->node_probes = malloc((g->pp->nprobes ? g->pp->nprobes : 1) * sizeof(*g->node_probes))))
		return nomem();
	for (size_t i = 0; i < g->pp->nprobes; i++)
		g->node_first[g->pp->probes[i].node + 1]++;
	for (size_t k = 0; k < nn; k++)
		g->node_first[k + 1] += g->node_first[k];
	for (size_t i = 0; i < g->pp->nprobes; i++) {
		uint32_t k = g->pp->probes[i].node;

		g->node_probes[g->node_first[k]++] = (uint32_t)i;
	}
	for (size_t k = nn; k > 0; k--)
		g->node_first[k] = g->node_first[k - 1];
	g->node_first[0] = 0;
	hwp__sort(g->zero, g->nzero, sizeof(*g->zero), by_u64);
	for (size_t i = 0; i < g->nzero; i++) {
		if (m && g->zero[i] == g->zero[m - 1])
			continue;
		g->zero[m++] = g->zero[i];
		uint32_t node = (uint32_t)(g->zero[i] >> 32), prof = (uint32_t)g->zero[i];

		for (uint32_t j = g->node_first[node]; j < g->node_first[node + 1]; j++) {
			const struct hwp__probe *p = &g->pp->probes[g->node_probes[j]];
			int64_t bi = body(g, prof, p->index, p->discriminator, 0);

			if (bi < 0)
				return (int)bi;
		}
	}
	return 0;
}

struct named_guid {
	uint64_t guid;
	const char *name; /* the DWARF's, valid while it is open */
};

static int by_guid(const void *a, const void *b)
{
	return by_u64(&((const struct named_guid *)a)->guid, &((const struct named_guid *)b)->guid);
}

static int add_guid(struct gen *g, uint64_t a)
{
	const char *name;
	struct named_guid *p;

	if (a == HWP__CS_EXTERNAL || !(name = hwp__dwarf_frames_function(g->df, a)))
		return 0;
	if (!(p = HWP_VEC_PUSH(g->pfuncs, g->npfuncs, g->cpfuncs)))
		return nomem();
	*p = (struct named_guid){ hwp__md5_guid(name, strlen(name)), name };
	return 0;
}

/* llvm-profgen decodes the probes of the functions a context site, a
   range's start or a branch's end is in. */
static int profiled_functions(struct gen *g, const struct hwp__cs_contexts *cs)
{
	size_t m = 0;
	int err = 0;

	for (size_t i = 0; i < cs->n && !err; i++) {
		const struct hwp__cs_context *c = &cs->v[i];

		for (size_t k = 0; k < c->nsites && !err; k++)
			err = add_guid(g, c->sites[k]);
		for (size_t k = 0; k < c->nranges && !err; k++)
			err = add_guid(g, c->ranges[k].a);
		for (size_t k = 0; k < c->nbranches && !err; k++)
			if (!(err = add_guid(g, c->branches[k].a)))
				err = add_guid(g, c->branches[k].b);
	}
	if (err)
		return err;
	hwp__sort(g->pfuncs, g->npfuncs, sizeof(*g->pfuncs), by_guid);
	for (size_t i = 0; i < g->npfuncs; i++)
		if (!m || g->pfuncs[i].guid != g->pfuncs[m - 1].guid)
			g->pfuncs[m++] = g->pfuncs[i];
	g->npfuncs = m;
	if (!(g->guids = malloc((m ? m : 1) * sizeof(*g->guids))))
		return nomem();
	for (size_t i = 0; i < m; i++)
		g->guids[i] = g->pfuncs[i].guid;
	g->nguids = m;
	return 0;
}

/* ---- writing: profiles by total (most first), then by context ---- */

static const struct gen *sort_gen; /* qsort has no context argument in C11 */

static int frame_cmp(const struct gen *g, uint64_t x, uint64_t y)
{
	const struct cframe *a = &g->fr[x], *b = &g->fr[y];
	int c = a->name == b->name ? 0 : strcmp(g->names[a->name], g->names[b->name]);

	if (c)
		return c;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->disc < b->disc ? -1 : a->disc > b->disc;
}

static int by_total(const void *x, const void *y)
{
	const struct prof *a = &sort_gen->p[*(const uint32_t *)x], *b = &sort_gen->p[*(const uint32_t *)y];

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	for (size_t i = 0; i < a->n && i < b->n; i++) {
		int c = frame_cmp(sort_gen, a->frames[i], b->frames[i]);

		if (c)
			return c;
	}
	return a->n < b->n ? -1 : a->n > b->n;
}

static int by_loc_idx(const void *x, const void *y)
{
	const struct body *a = &sort_gen->b[*(const uint32_t *)x], *b = &sort_gen->b[*(const uint32_t *)y];

	if (a->prof != b->prof)
		return a->prof < b->prof ? -1 : 1;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	return a->disc < b->disc ? -1 : a->disc > b->disc;
}

static int by_count(const void *x, const void *y)
{
	const struct target *a = x, *b = y;

	if (a->body != b->body)
		return a->body < b->body ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return strcmp(sort_gen->names[a->name], sort_gen->names[b->name]);
}

static void write_loc(FILE *fp, uint32_t off, uint32_t disc)
{
	fprintf(fp, " %" PRIu32, off);
	if (disc)
		fprintf(fp, ".%" PRIu32, disc);
	fputs(": ", fp);
}

static int write_all(struct gen *g, FILE *fp)
{
	uint32_t *order = malloc((g->np ? g->np : 1) * sizeof(*order));
	size_t *bfirst = calloc(g->np + 1, sizeof(*bfirst)), *tfirst = calloc(g->nb + 1, sizeof(*tfirst));
	int err = 0;

	if (!order || !bfirst || !tfirst) {
		err = nomem();
		goto out;
	}
	sort_gen = g;
	/* bodies by profile and location (the targets follow them), targets
	   by body, then count */
	uint32_t *perm = malloc((g->nb ? g->nb : 1) * sizeof(*perm)), *rank = malloc((g->nb ? g->nb : 1) * sizeof(*rank));
	struct body *bs = malloc((g->nb ? g->nb : 1) * sizeof(*bs));
	if (!perm || !rank || !bs) {
		free(perm);
		free(rank);
		free(bs);
		err = nomem();
		goto out;
	}
	for (size_t i = 0; i < g->nb; i++)
		perm[i] = (uint32_t)i;
	hwp__sort(perm, g->nb, sizeof(*perm), by_loc_idx);
	for (size_t i = 0; i < g->nb; i++) {
		rank[perm[i]] = (uint32_t)i;
		bs[i] = g->b[perm[i]];
	}
	for (size_t i = 0; i < g->nt; i++)
		g->t[i].body = rank[g->t[i].body];
	free(perm);
	free(rank);
	free(g->b);
	g->b = bs;
	for (size_t i = 0; i < g->nb; i++)
		bfirst[bs[i].prof + 1]++;
	for (size_t i = 0; i < g->np; i++)
		bfirst[i + 1] += bfirst[i];
	hwp__sort(g->t, g->nt, sizeof(*g->t), by_count);
	for (size_t i = 0; i < g->nt; i++)
		tfirst[g->t[i].body + 1]++;
	for (size_t i = 0; i < g->nb; i++)
		tfirst[i + 1] += tfirst[i];
	for (size_t i = 0; i < g->np; i++)
		order[i] = (uint32_t)i;
	hwp__sort(order, g->np, sizeof(*order), by_total);
	for (size_t oi = 0; oi < g->np; oi++) {
		const struct prof *p = &g->p[order[oi]];

		fputc('[', fp);
		for (size_t i = 0; i < p->n; i++) {
			const struct cframe *f = &g->fr[p->frames[i]];

			fprintf(fp, "%s%s", i ? " @ " : "", g->names[f->name]);
			if (i + 1 < p->n) {
				fprintf(fp, ":%" PRIu32, f->off);
				if (f->disc)
					fprintf(fp, ".%" PRIu32, f->disc);
			}
		}
		fprintf(fp, "]:%" PRIu64 ":%" PRIu64 "\n", p->total, p->head);
		for (size_t i = bfirst[order[oi]]; i < bfirst[order[oi] + 1]; i++) {
			write_loc(fp, bs[i].off, bs[i].disc);
			fprintf(fp, "%" PRIu64, bs[i].count);
			for (size_t k = tfirst[i]; k < tfirst[i + 1]; k++)
				fprintf(fp, " %s:%" PRIu64, g->names[g->t[k].name], g->t[k].count);
			fputc('\n', fp);
		}
		fprintf(fp, " !CFGChecksum: %" PRIu64 "\n", p->hash);
		if (p->inlined)
			fputs(" !Attributes: 1\n", fp);
	}
out:
	free(order);
	free(bfirst);
	free(tfirst);
	return err;
}

/* The profiles as flat context profiles of function samples, for the
   post-processing of cs_nest.h. */
static int to_flats(struct gen *g, struct hwp__cs_flat **out)
{
	struct hwp__cs_flat *v = calloc(g->np ? g->np : 1, sizeof(*v));
	size_t *brec = malloc((g->nb ? g->nb : 1) * sizeof(*brec));
	int err = 0;

	if (!v || !brec) {
		free(v);
		free(brec);
		return nomem();
	}
	for (size_t i = 0; i < g->np && !err; i++) {
		const struct prof *p = &g->p[i];

		if (!(v[i].frames = malloc(p->n * sizeof(*v[i].frames))) ||
		    !(v[i].fs = hwp__cs_fs_new(g->fr[p->frames[p->n - 1]].name))) {
			err = nomem();
			break;
		}
		v[i].n = p->n;
		for (size_t k = 0; k < p->n; k++) {
			const struct cframe *f = &g->fr[p->frames[k]];

			v[i].frames[k] = (struct hwp__cs_frame){ f->name, k + 1 < p->n ? f->off : 0,
								 k + 1 < p->n ? f->disc : 0 };
		}
		v[i].fs->total = p->total;
		v[i].fs->head = p->head;
		v[i].fs->hash = p->hash;
		v[i].fs->attrs = p->inlined ? HWP__CS_ATTR_INLINED : 0;
	}
	for (size_t i = 0; i < g->nb && !err; i++) {
		struct hwp__cs_fs *fs = v[g->b[i].prof].fs;
		struct hwp__cs_rec *r = HWP_VEC_PUSH(fs->body, fs->nbody, fs->cbody);

		if (!r) {
			err = nomem();
			break;
		}
		*r = (struct hwp__cs_rec){ .off = g->b[i].off, .disc = g->b[i].disc, .count = g->b[i].count };
		brec[i] = fs->nbody - 1;
	}
	for (size_t i = 0; i < g->nt && !err; i++) {
		const struct body *b = &g->b[g->t[i].body];

		if (hwp__cs_rec_add_target(&v[b->prof].fs->body[brec[g->t[i].body]],
					   g->t[i].name, g->t[i].count))
			err = nomem();
	}
	free(brec);
	if (err) {
		hwp__cs_flats_free(v, g->np);
		return err;
	}
	*out = v;
	return 0;
}

/* llvm-profgen's post-processing of the flat profile (cs_nest.h), written. */
static int write_nested(struct gen *g, enum hwp__cs_stage stage, FILE *fp)
{
	struct hwp__cs_flat *v;
	struct hwp__cs_summary sum;
	size_t n = g->np;
	int err;

	if ((err = to_flats(g, &v)))
		return err;
	if ((err = hwp__cs_summary(v, n, &sum)) ||
	    (stage == HWP__CS_NESTED_MERGED && (err = hwp__cs_merge_cold(&v, &n, sum.hot)))) {
		hwp__cs_flats_free(v, n);
		return err;
	}
	if (stage == HWP__CS_PREINLINED) {
		struct hwp__cs_sizes *sizes = NULL;
		char **pn = malloc((g->npfuncs ? g->npfuncs : 1) * sizeof(*pn));

		if (!pn) {
			hwp__cs_flats_free(v, n);
			return nomem();
		}
		for (size_t i = 0; i < g->npfuncs; i++)
			pn[i] = (char *)g->pfuncs[i].name;
		err = hwp__cs_sizes_build(g->bin, g->df, g->pp, pn, g->guids, g->npfuncs, &sizes);
		free(pn);
		if (!err)
			err = hwp__cs_preinline(&v, &n, g->names, &sum, sizes);
		hwp__cs_sizes_free(sizes);
		if (err) {
			hwp__cs_flats_free(v, n);
			return err;
		}
	}
	return hwp__cs_write_nested(v, n, g->names, fp);
}

int hwp__cs_write_probe_profile(const struct hwp__cs_contexts *cs, const struct hwp__cs_binary *bin,
				const char *path, enum hwp__cs_stage stage, FILE *fp)
{
	struct gen g = { .bin = bin };
	struct hwp__pseudo_probes *pp = NULL;
	struct icount *ic = NULL;
	size_t cic = 0;
	int err;

	if ((err = hwp__pseudo_probes_load(path, &pp)))
		return err;
	g.pp = pp;
	if (!(g.df = hwp__dwarf_frames_open(path))) {
		err = -errno;
		goto out;
	}
	if (!(g.desc_name = calloc(pp->ndescs ? pp->ndescs : 1, sizeof(*g.desc_name)))) {
		err = nomem();
		goto out;
	}
	if ((err = profiled_functions(&g, cs)))
		goto out;
	if ((err = hwp__cs_tailcalls_new(bin, cs, &g.tails))) {
		err = nomem();
		goto out;
	}
	for (size_t i = 0; i < cs->n && !err; i++)
		err = one_context(&g, &cs->v[i], &ic, &cic);
	if (!err && !(err = zero_fill(&g)))
		err = stage == HWP__CS_FLAT ? write_all(&g, fp) : write_nested(&g, stage, fp);
out:
	free(ic);
	for (size_t i = 0; i < g.nnames; i++)
		free(g.names[i]);
	free(g.names);
	hwp__hashmap_free(&g.namemap);
	free(g.desc_name);
	free(g.fr);
	hwp__hashmap_free(&g.frmap);
	for (size_t i = 0; i < g.np; i++)
		free(g.p[i].frames);
	free(g.p);
	hwp__hashmap_free(&g.pmap);
	free(g.b);
	hwp__hashmap_free(&g.bmap);
	free(g.t);
	hwp__hashmap_free(&g.tmap);
	free(g.guids);
	free(g.pfuncs);
	free(g.stack);
	free(g.prefix);
	free(g.sites);
	hwp__cs_tailcalls_free(g.tails);
	free(g.zero);
	free(g.node_probes);
	free(g.node_first);
	hwp__dwarf_frames_close(g.df);
	hwp__pseudo_probes_free(pp);
	return err;
}
