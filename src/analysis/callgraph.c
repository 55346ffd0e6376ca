/* SPDX-License-Identifier: MIT */
/*
 * Call graphs (see include/hwprof/callgraph.h). Per sample the chain is
 * rebuilt as perf 6.1 does (callchain.c), each
 * address becomes a frame (module + offset, symbolized on first sight), and
 * the frames go into a trie, callers first, ending in a terminal node keyed
 * by the function of the sample's IP: perf's self column belongs to the IP's
 * function, which in call-stack mode need not be the chain's first frame.
 * Function totals and the function tree are derived from the trie on
 * demand, so the per-sample work is hashing and counting only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callgraph_struct.h"
#include "analysis/mem_internal.h"
#include "hwprof/callgraph.h"
#include "hwprof/maps.h"
#include "hwprof/perf_abi.h"
#include "session/session_internal.h"
#include "symbolize/maps_internal.h"
#include "unwind/unwind.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"
#include "util/opts.h"
#include "util/error.h"

#define TERM HWP__CG_TERM

/* The chain cache's leaf hands over what it counted. */
static void settle_leaf(void *ctx, uint32_t node, uint64_t samples, uint64_t period)
{
	struct hwp_call_graph *cg = ctx;

	cg->nodes[node].samples += samples;
	cg->nodes[node].period += period;
}

void hwp__cg_settle(struct hwp_call_graph *cg)
{
	hwp__chain_leaves_settle(&cg->chains);
}

struct hwp_call_graph *hwp_call_graph__new(struct hwp_session *s, const struct hwp_call_graph_opts *opts)
{
	struct hwp_call_graph *cg;
	struct hwp_call_graph_opts o;

	if (!s) {
		hwp__set_error(EINVAL, "callgraph: no session given");
		errno = EINVAL;
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &o, struct hwp_call_graph_opts)) {
		errno = EINVAL;
		return NULL;
	}
	cg = calloc(1, sizeof(*cg));
	if (!cg || !HWP_VEC_PUSH(cg->nodes, cg->nnodes, cg->nodes_cap)) {
		free(cg);
		hwp__set_error(ENOMEM, "out of memory making the call graph");
		errno = ENOMEM;
		return NULL;
	}
	cg->session = s;
	cg->o = o;
	cg->res = hwp__session_resolver(s);
	cg->chain.stitch_lbr = o.stitch_lbr;
	cg->chains.settle = settle_leaf;
	cg->chains.settle_ctx = cg;
	return cg;
}

void hwp_call_graph__delete(struct hwp_call_graph *cg)
{
	if (!cg)
		return;
	free(cg->frames);
	hwp__hashmap_free(&cg->frame_map);
	free(cg->fnlist);
	free(cg->funcs);
	hwp__hashmap_free(&cg->func_map);
	free(cg->nodes);
	hwp__hashmap_free(&cg->node_map);
	free(cg->frame_seq);
	free(cg->node_seq);
	hwp__chain_free(&cg->chain);
	hwp__chain_cache_free(&cg->chains);
	free(cg->tree);
	hwp__hashmap_free(&cg->tree_map);
	free(cg->stamp);
	free(cg->fmap);
	free(cg);
}

static int nomem(void)
{
	return hwp__set_error(ENOMEM, "out of memory counting call stacks");
}

/* A function by (module, name), or by (module, offset) when unnamed. */
static int func_id(struct hwp_call_graph *cg, int32_t module, bool kernel, const char *name, uint64_t offset,
		   bool inlined, uint32_t *id)
{
	uint64_t h = hwp__hash_combine(hwp__hash64((uint64_t)(uint32_t)module),
				       name ? hwp__hash_str(name) : hwp__hash64(offset) ^ 1);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&cg->func_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i)) {
		const struct hwp_cg_function *f = &cg->funcs[i];
		if (f->module != module || !f->name != !name)
			continue;
		/* two symbols of one name (C++ overloads, demangled without
		   their parameters as perf prints them) stay two rows, as
		   perf keys them by symbol; inlined copies join either */
		if (name && !inlined && !f->inlined && f->offset != offset)
			continue;
		if (name ? strcmp(f->name, name) == 0 : f->offset == offset && f->kernel == kernel) {
			if (!inlined && f->inlined) {
				cg->funcs[i].inlined = false;
				cg->funcs[i].offset = offset;
			}
			*id = i;
			return 0;
		}
	}
	if (cg->nfuncs >= TERM)
		return hwp__set_error(EOVERFLOW, "callgraph: too many distinct functions");
	struct hwp_cg_function *f = HWP_VEC_PUSH(cg->funcs, cg->nfuncs, cg->funcs_cap);
	if (!f || hwp__hashmap_add(&cg->func_map, h, cg->nfuncs - 1) < 0)
		return nomem();
	f->name = name;
	f->module = module;
	f->offset = offset;
	f->kernel = kernel;
	f->inlined = inlined;
	*id = (uint32_t)(cg->nfuncs - 1);
	return 0;
}

static int push_fn(struct hwp_call_graph *cg, uint32_t id)
{
	uint32_t *p = HWP_VEC_PUSH(cg->fnlist, cg->nfnlist, cg->fnlist_cap);

	if (!p)
		return nomem();
	*p = id;
	return 0;
}

/* Symbolizes a new frame into its function expansion. */
static int expand_frame(struct hwp_call_graph *cg, struct hwp__cg_frame *fr)
{
	struct hwp_symbolizer *sym = fr->module >= 0 ? hwp_session__symbolizer(cg->session) : NULL;
	struct hwp_symbol_info info;
	uint32_t id;
	int err;

	fr->fn_first = (uint32_t)cg->nfnlist;
	if (!sym || hwp_symbolizer__lookup(sym, fr->module, fr->offset, &info) < 0 || !info.symbol) {
		if ((err = func_id(cg, fr->module, fr->kernel, NULL, fr->offset, false, &id)) ||
		    (err = push_fn(cg, id)))
			return err;
		fr->fn_n = 1;
		return 0;
	}
	const char *outer = info.symbol;
	uint64_t start = fr->offset - info.sym_offset;
	/* a return address follows the call: the call's own inline chain is
	   one byte back (the function stays the one perf names) */
	if (!cg->o.no_inline && fr->ret && info.sym_offset > 0 &&
	    (hwp_symbolizer__lookup(sym, fr->module, fr->offset - 1, &info) < 0 || !info.symbol ||
	     fr->offset - 1 - info.sym_offset != start))
		info.n_inline = 0;
	if (!cg->o.no_inline)
		for (size_t k = 0; k < info.n_inline; k++) {
			const char *name = info.inlines[k].function;
			if (!name)
				continue;
			if ((err = func_id(cg, fr->module, fr->kernel, name, fr->offset, true, &id)) ||
			    (err = push_fn(cg, id)))
				return err;
		}
	if ((err = func_id(cg, fr->module, fr->kernel, outer, start, false, &id)) ||
	    (err = push_fn(cg, id)))
		return err;
	fr->fn_n = (uint32_t)(cg->nfnlist - fr->fn_first);
	return 0;
}

/* A part: room for the number of the sample that makes item AT of V. */
static int seq_room(uint64_t **v, size_t *cap, size_t at)
{
	return at < *cap || !hwp__vec_reserve((void **)v, cap, at + 1, sizeof(**v)) ? 0 : nomem();
}

static inline int frame_intern(struct hwp_call_graph *cg, int32_t module, uint64_t offset, bool kernel, bool ret,
			       uint32_t *id)
{
	uint64_t h = hwp__hash_combine(hwp__hash64((uint64_t)(uint32_t)module), offset);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&cg->frame_map, h);
	uint32_t i;
	int err;

	while (hwp__hashmap_next(&p, &i))
		if (cg->frames[i].module == module && cg->frames[i].offset == offset && cg->frames[i].kernel == kernel &&
		    cg->frames[i].ret == ret) {
			*id = i;
			return 0;
		}
	if (cg->nframes >= TERM)
		return hwp__set_error(EOVERFLOW, "callgraph: too many distinct frames");
	if (cg->part && (err = seq_room(&cg->frame_seq, &cg->frame_seq_cap, cg->nframes)))
		return err;
	struct hwp__cg_frame *fr = HWP_VEC_PUSH(cg->frames, cg->nframes, cg->frames_cap);
	if (fr && hwp__hashmap_add(&cg->frame_map, h, cg->nframes - 1) < 0) {
		cg->nframes--;
		fr = NULL;
	}
	if (!fr)
		return nomem();
	fr->module = module;
	fr->offset = offset;
	fr->kernel = kernel;
	fr->ret = ret;
	*id = (uint32_t)(cg->nframes - 1);
	/* a part symbolizes nothing (the merge does, in the sequential order) */
	if (cg->part) {
		cg->frame_seq[*id] = cg->seq;
		return 0;
	}
	return expand_frame(cg, &cg->frames[*id]);
}

int hwp__cg_frame(struct hwp_call_graph *cg, int32_t module, uint64_t offset, bool kernel, bool ret, uint32_t *id)
{
	return frame_intern(cg, module, offset, kernel, ret, id);
}

/* IP's frame; KERNEL_CTX: the chain's context says kernel (what an address
   no map covers is shown as). TH is the thread the resolver entered. */
static int frame_id(struct hwp_call_graph *cg, const struct hwp_thread *th, uint64_t ip, uint8_t flags,
		    bool fallback, uint32_t *id)
{
	struct hwp_code_loc loc = { .module = -1, .offset = ip, .addr = ip };
	bool kernel_ctx = flags & HWP__CHAIN_KERNEL, ret = flags & HWP__CHAIN_RET;
	int err;

	/* perf looks an address up in the maps of its context only (the
	   sample's own IP also in the other's when its address says so:
	   thread__find_map_fb()); the resolver tries both */
	const struct hwp_map *m = !th ? NULL : hwp_thread__find_map(th, kernel_ctx ? HWP_MISC_KERNEL : HWP_MISC_USER, ip);
	if (th && !m && fallback && (bool)(ip >> 63) != kernel_ctx)
		m = hwp_thread__find_map(th, kernel_ctx ? HWP_MISC_USER : HWP_MISC_KERNEL, ip);
	if ((m || !th) && (err = hwp__resolver_resolve(cg->res, 0, ip, &loc)) < 0)
		return err;
	bool kernel = loc.module >= 0 ? loc.cpumode == HWP_MISC_KERNEL : kernel_ctx;
	return frame_intern(cg, loc.module, loc.offset, kernel, ret, id);
}

static uint64_t node_hash(uint32_t parent, uint32_t key)
{
	return hwp__hash_combine(hwp__hash64(parent), key);
}

/* The index of the trie's nodes made again (a parallel pass's merge
   leaves it to the first node added after). */
static int index_nodes(struct hwp_call_graph *cg)
{
	hwp__hashmap_clear(&cg->node_map);
	if (hwp__hashmap_reserve(&cg->node_map, cg->nnodes) < 0)
		return nomem();
	for (size_t i = 1; i < cg->nnodes; i++)
		if (hwp__hashmap_add(&cg->node_map, node_hash(cg->nodes[i].parent, cg->nodes[i].key), i) < 0)
			return nomem();
	return 0;
}

static inline int child(struct hwp_call_graph *cg, uint32_t parent, uint32_t key, uint32_t *out)
{
	uint64_t h = node_hash(parent, key);
	uint32_t i;
	int err;

	/* every node but the root is indexed, or none is yet */
	if (cg->node_map.nr + 1 != cg->nnodes && (err = index_nodes(cg)))
		return err;
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&cg->node_map, h);
	while (hwp__hashmap_next(&p, &i))
		if (cg->nodes[i].parent == parent && cg->nodes[i].key == key) {
			*out = i;
			return 0;
		}
	if (cg->nnodes >= UINT32_MAX)
		return hwp__set_error(EOVERFLOW, "callgraph: too many distinct stacks");
	if (cg->part && (err = seq_room(&cg->node_seq, &cg->node_seq_cap, cg->nnodes)))
		return err;
	struct hwp__cg_tnode *n = HWP_VEC_PUSH(cg->nodes, cg->nnodes, cg->nodes_cap);
	if (n && hwp__hashmap_add(&cg->node_map, h, cg->nnodes - 1) < 0) {
		cg->nnodes--; /* (a node left out of the index would make it again) */
		n = NULL;
	}
	if (!n)
		return nomem();
	n->parent = parent;
	n->key = key;
	*out = (uint32_t)(cg->nnodes - 1);
	if (cg->part)
		cg->node_seq[*out] = cg->seq;
	return 0;
}

/* The chain's callback: a stitched branch source's frame. */
static int chain_frame(void *ctx, const struct hwp_thread *th, uint64_t ip, uint8_t flags, uint32_t *id)
{
	return frame_id(ctx, th, ip, flags, false, id);
}

/* EV's memory access into *A: 1, 0 when EV is no memory sample, <0 on
   malformed raw data (as the memory report says). */
static int memory_access(struct hwp_call_graph *cg, const struct hwp_event *ev, struct hwp_mem_access *a)
{
	if (ev->evsel != cg->mem_evsel) {
		cg->mem_evsel = ev->evsel;
		cg->mem_ibs = ev->evsel && hwp__mem_evsel_is_ibs_op(cg->session, ev->evsel);
	}
	int r = hwp__mem_access_decode(ev, cg->mem_ibs, a);
	return r < 0 ? hwp__set_error(-r, "%s: %s", hwp_session__path(cg->session), hwp_errmsg()) : r;
}

/* The callers KEY[0..N) (addresses with FLAGS, or recorded words with
   FLAGS NULL) hashed H as W says: -1 not remembered; 0 remembered, *NODE
   and *ID set; 1 when S, given where the innermost address is its IP, was
   also counted in the leaf remembered below them. */
static int callers_lookup(struct hwp_call_graph *cg, const struct hwp__chain_where *w, uint64_t h, const void *key,
			  const uint8_t *flags, size_t n, const struct hwp_sample *s, uint64_t period, uint32_t *node,
			  uint32_t *id)
{
	bool kernel = s && s->cpumode == HWP_MISC_KERNEL;

	if (s)
		hwp__chain_leaf_prefetch(&cg->chains, h, s->ip);
	if (!hwp__chain_cache_get(&cg->chains, h, w, key, flags, n, node, id))
		return -1;
	return s && hwp__chain_leaf_count(&cg->chains, h, *id, s->ip, kernel, period);
}

int hwp_call_graph__add(struct hwp_call_graph *cg, const struct hwp_event *ev, const struct hwp_thread *th)
{
	const struct hwp_sample *s = &ev->sample;
	uint64_t period = 1;
	uint32_t node = 0, fid, ipf;
	int err;

	if (ev->type != HWP_RECORD_SAMPLE)
		return 0;
	if (s->sample_type & HWP_SAMPLE_PERIOD)
		period = s->period;
	else if (ev->evsel && !hwp_attr__flag(&ev->evsel->attr, HWP_ATTR_FREQ) && ev->evsel->attr.sample_period)
		period = ev->evsel->attr.sample_period;
	if (cg->o.samples != HWP_CG_ALL || cg->o.latency) {
		struct hwp_mem_access a;

		if ((err = memory_access(cg, ev, &a)) <= 0)
			return err;
		if (cg->o.samples == HWP_CG_HITM && !a.hitm)
			return 0;
		if (cg->o.latency)
			period = a.latency;
	}
	/* every address of the sample is TH's (once: nothing else resolves
	   through this resolver until the sample is counted) */
	hwp__resolver_enter(cg->res, th);
	struct hwp__chain *c = &cg->chain;
	uint8_t ip_kernel = s->cpumode == HWP_MISC_KERNEL ? HWP__CHAIN_KERNEL : 0;
	struct hwp_machine *m = hwp_session__machine(cg->session);
	/* (a part's resolver holds the generation its samples met: the
	   machine's own is the reading thread's, changing meanwhile) */
	uint64_t gen = cg->res->pinned ? cg->res->generation : m ? hwp__machine_generation(m) : 0;
	struct hwp__chain_where w = { m, gen, th ? hwp_thread__pid(th) : -1, 0 };
	uint64_t h = 0;
	size_t inner, i;
	uint32_t chain_id = 0;
	bool ip_first;

	/* A plain chain's callers are looked up by their words as recorded,
	   before the chain is made from them (a pass over every address of
	   every sample, which a chain seen before does not need). */
	struct hwp__chain_raw raw;
	bool by_words = hwp__chain_raw(ev, &raw);

	if (by_words) {
		w.kind = 1 + raw.kernel;
		h = hwp__chain_cache_hash_words(&w, raw.words, raw.n);
		ip_first = raw.ip == s->ip && (raw.kernel ? HWP__CHAIN_KERNEL : 0) == ip_kernel;
		int found = callers_lookup(cg, &w, h, raw.words, NULL, raw.n, ip_first ? s : NULL, period, &node,
					   &chain_id);
		if (found >= 0) {
			c->with_callchain++; /* (what the chain's making counts) */
			if (found)
				goto counted;
			/* the innermost address alone, below the callers' node */
			c->n = 0;
			if ((err = hwp__chain_push(c, raw.ip, raw.kernel ? HWP__CHAIN_KERNEL : 0)))
				return err;
			inner = i = 1;
			goto walk;
		}
	}
	if ((err = hwp__chain_build(c, cg->session, ev, th, chain_frame, cg)))
		return err;
	if (!c->n && (err = hwp__chain_push(c, s->ip, ip_kernel)))
		return err;
	/* (the chain the words make, or none: dropped for an unknown marker) */
	by_words = by_words && c->n > 1;

	/* the callers (all but the innermost address, which is most often
	   the sample's own IP and differs from sample to sample) remembered,
	   and below them the leaf each IP led to */
	inner = c->n > 1;
	i = c->n;
	/* the innermost address is the IP, in its context: the leaf depends on
	   the callers and the IP only */
	ip_first = c->ips[0] == s->ip && c->flags[0] == ip_kernel;

	/* (a chain of the IP alone has no callers to remember) */
	if (inner && !by_words) {
		w.kind = 0;
		h = hwp__chain_cache_hash(&w, c->ips + 1, c->flags + 1, c->n - 1);
		int found = callers_lookup(cg, &w, h, c->ips + 1, c->flags + 1, c->n - 1, ip_first ? s : NULL, period,
					   &node, &chain_id);
		if (found > 0)
			goto counted;
		if (!found)
			i = inner;
	}
walk:;
	uint32_t fid0 = UINT32_MAX; /* the innermost address's frame, when it is the IP's */
	while (i-- > 0) {
		if (c->flags[i] & HWP__CHAIN_FRAME)
			fid = (uint32_t)c->ips[i];
		else if ((err = frame_id(cg, th, c->ips[i], c->flags[i], false, &fid)))
			return err;
		else if (!i && ip_first && cg->frames[fid].module >= 0)
			fid0 = fid; /* found in its context's maps: the fallback would change nothing */
		if ((err = child(cg, node, fid, &node)))
			return err;
		if (inner && i == 1)
			chain_id = by_words ? hwp__chain_cache_put(&cg->chains, h, &w, raw.words, NULL, raw.n, node)
					    : hwp__chain_cache_put(&cg->chains, h, &w, c->ips + 1, c->flags + 1,
								   c->n - 1, node);
	}
	/* the leaf is keyed by the IP's function: addresses in one function
	   share it (fewer nodes than one per sampled address); a part keys it
	   by the frame, which the merge maps to its function. (The chain's
	   innermost address is most often the IP itself: its frame again.) */
	if (fid0 != UINT32_MAX)
		ipf = fid0;
	else if ((err = frame_id(cg, th, s->ip, ip_kernel, true, &ipf)))
		return err;
	const struct hwp__cg_frame *fr = &cg->frames[ipf];
	if ((err = child(cg, node, (cg->part ? ipf : cg->fnlist[fr->fn_first + fr->fn_n - 1]) | TERM, &node)))
		return err;
	cg->nodes[node].samples++;
	cg->nodes[node].period += period;
	if (inner && ip_first)
		hwp__chain_leaf_put(&cg->chains, h, chain_id, s->ip, ip_kernel, node);
counted:
	cg->st.samples++;
	cg->st.period += period;
	cg->dirty = true;
	return 0;
}

int hwp_call_graph__read(struct hwp_call_graph *cg)
{
	struct hwp_event ev;
	const struct hwp_thread *th;
	int r;

	while ((r = hwp_session__next(cg->session, &ev, &th)) > 0)
		if (ev.type == HWP_RECORD_SAMPLE && (r = hwp_call_graph__add(cg, &ev, th)) < 0)
			return r;
	return r;
}

static int tree_child(struct hwp_call_graph *cg, uint32_t parent, uint32_t fn, uint32_t *out)
{
	uint64_t h = hwp__hash_combine(hwp__hash64(parent), fn);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&cg->tree_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (cg->tree[i].parent == parent && cg->tree[i].function == fn) {
			*out = i;
			return 0;
		}
	struct hwp_cg_node *n = HWP_VEC_PUSH(cg->tree, cg->ntree, cg->tree_cap);
	if (!n || hwp__hashmap_add(&cg->tree_map, h, cg->ntree - 1) < 0)
		return nomem();
	n->parent = parent;
	n->function = fn;
	*out = (uint32_t)(cg->ntree - 1);
	return 0;
}

/* What was added since the last derivation makes both stale. */
static void derived_check(struct hwp_call_graph *cg)
{
	if (cg->dirty) {
		hwp__cg_settle(cg);
		cg->funcs_derived = cg->tree_derived = false;
		cg->dirty = false;
	}
}

/* Function totals, from the frame trie (the default report needs no more:
   the tree is derived on its own, when asked for). */
static int derive_functions(struct hwp_call_graph *cg)
{
	uint32_t gen = 0;

	derived_check(cg);
	if (cg->funcs_derived)
		return 0;
	free(cg->stamp);
	if (!(cg->stamp = calloc(cg->nfuncs + 1, sizeof(*cg->stamp))))
		return nomem();
	for (size_t i = 0; i < cg->nfuncs; i++) {
		struct hwp_cg_function *f = &cg->funcs[i];
		f->self_period = f->self_samples = f->children_period = f->children_samples = 0;
	}
	for (size_t n = 1; n < cg->nnodes; n++) {
		const struct hwp__cg_tnode *t = &cg->nodes[n];
		if (!(t->key & TERM))
			continue;
		/* self: the IP's function (outer, as perf's self entry);
		   children: every function on the stack once */
		struct hwp_cg_function *f = &cg->funcs[t->key & ~TERM];
		f->self_period += t->period;
		f->self_samples += t->samples;
		gen++;
		f->children_period += t->period;
		f->children_samples += t->samples;
		cg->stamp[f - cg->funcs] = gen;
		for (uint32_t a = t->parent; a; a = cg->nodes[a].parent) {
			/* the frame's own function: perf 6.1's children rows
			   have no inlined functions (its callchain lines do) */
			const struct hwp__cg_frame *fr = &cg->frames[cg->nodes[a].key];
			uint32_t id = cg->fnlist[fr->fn_first + fr->fn_n - 1];
			if (cg->stamp[id] == gen)
				continue;
			cg->stamp[id] = gen;
			cg->funcs[id].children_period += t->period;
			cg->funcs[id].children_samples += t->samples;
		}
	}
	cg->funcs_derived = true;
	return 0;
}

/* The function tree, from the frame trie. */
static int derive_tree(struct hwp_call_graph *cg)
{
	int err;

	derived_check(cg);
	if (cg->tree_derived)
		return 0;
	free(cg->fmap);
	if (!(cg->fmap = calloc(cg->nnodes, sizeof(*cg->fmap))))
		return nomem();
	cg->ntree = 0;
	hwp__hashmap_clear(&cg->tree_map);
	if (!HWP_VEC_PUSH(cg->tree, cg->ntree, cg->tree_cap))
		return nomem();
	cg->tree[0].parent = 0;
	cg->tree[0].function = UINT32_MAX;

	for (size_t n = 1; n < cg->nnodes; n++) {
		const struct hwp__cg_tnode *t = &cg->nodes[n];
		if (t->key & TERM) {
			struct hwp_cg_node *tn = &cg->tree[cg->fmap[t->parent]];
			tn->self_period += t->period;
			tn->self_samples += t->samples;
			continue;
		}
		/* parents precede children: fmap[parent] is set */
		const struct hwp__cg_frame *fr = &cg->frames[t->key];
		uint32_t at = cg->fmap[t->parent];
		for (uint32_t k = fr->fn_n; k-- > 0;)
			if ((err = tree_child(cg, at, cg->fnlist[fr->fn_first + k], &at)))
				return err;
		cg->fmap[n] = at;
	}
	for (size_t i = 0; i < cg->ntree; i++) {
		cg->tree[i].total_period = cg->tree[i].self_period;
		cg->tree[i].total_samples = cg->tree[i].self_samples;
	}
	for (size_t i = cg->ntree; i-- > 1;) {
		struct hwp_cg_node *p = &cg->tree[cg->tree[i].parent];
		p->total_period += cg->tree[i].total_period;
		p->total_samples += cg->tree[i].total_samples;
	}
	cg->tree_derived = true;
	return 0;
}

size_t hwp_call_graph__functions(struct hwp_call_graph *cg, const struct hwp_cg_function **out)
{
	if (derive_functions(cg) < 0) {
		*out = NULL;
		return 0;
	}
	static const struct hwp_cg_function none;

	*out = cg->funcs ? cg->funcs : &none; /* NULL means failure */
	return cg->nfuncs;
}

size_t hwp__call_graph_function_names(const struct hwp_call_graph *cg, const struct hwp_cg_function **out)
{
	static const struct hwp_cg_function none;

	*out = cg->funcs ? cg->funcs : &none;
	return cg->nfuncs;
}

size_t hwp_call_graph__tree(struct hwp_call_graph *cg, const struct hwp_cg_node **out)
{
	if (derive_tree(cg) < 0) {
		*out = NULL;
		return 0;
	}
	*out = cg->tree;
	return cg->ntree;
}

int hwp_call_graph__stats(const struct hwp_call_graph *cg, struct hwp_call_graph_stats *out)
{
	struct hwp_call_graph_stats st;
	int rc;

	if ((rc = HWP_RESULT_BEGIN(out, &st, struct hwp_call_graph_stats)) < 0)
		return rc;
	st = cg->st;
	st.with_callchain = cg->chain.with_callchain;
	st.callstack_lbr = cg->chain.callstack_lbr;
	st.stitched = cg->chain.stitched;
	st.discarded = cg->chain.discarded;
	st.frames = cg->nframes;
	st.frame_nodes = cg->nnodes;
	st.unwind_missing = "";
	const struct hwp__unwind_stats *us = hwp__chain_unwind_stats(&cg->chain);
	if (us) {
		st.user_stacks = us->samples;
		st.unwound = us->stops[HWP__UNWIND_DONE];
		st.unwind_no_regs = us->stops[HWP__UNWIND_NO_REGS];
		st.unwind_no_stack = us->stops[HWP__UNWIND_NO_STACK];
		st.unwind_stack_short = us->stops[HWP__UNWIND_STACK_SHORT];
		st.unwind_no_binary = us->stops[HWP__UNWIND_NO_BINARY];
		st.unwind_stopped = us->stops[HWP__UNWIND_STOPPED] + us->stops[HWP__UNWIND_ARCH];
		st.unwind_frames = us->frames;
		st.unwind_by_rules = us->by_rules;
		st.unwind_stack_size = us->stack_size;
		st.unwind_missing = us->missing;
	}
	hwp__result_end(out, &st, sizeof(st));
	return 0;
}
