/* SPDX-License-Identifier: MIT */
/*
 * Call graphs (see include/hwprof/callgraph.h). Per sample the chain is
 * rebuilt as perf 6.1's thread__resolve_callchain_sample() does, each
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

#include "hwprof/callgraph.h"
#include "hwprof/maps.h"
#include "hwprof/perf_abi.h"
#include "util/bytes.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"
#include "util/opts.h"

#define CHAIN_MAX 127        /* perf's default kernel.perf_event_max_stack */
#define TERM 0x80000000u     /* trie key flag: the sample's IP's function, a leaf */
#define IP_KERNEL 1
#define IP_RET 2             /* a return address (a frame-pointer chain's callers) */
#define IP_FRAME 4           /* ips[i] is already a frame id (stitched from an earlier sample) */

/* perf's lbr_stitch of one thread: its previous call-stack sample's
   entries, the frames of their sources, and the callers stitched so far
   (callee first). */
struct stitch_thread {
	int32_t tid;
	bool have_prev;
	uint64_t prev_nr, prev_hw_idx;
	uint64_t *prev_raw;      /* prev_nr x {from, to, flags} */
	uint32_t *prev_from;     /* prev_nr frame ids of the entries' sources */
	size_t raw_cap, from_cap;
	uint32_t *list;
	size_t nlist, list_cap;
};

struct frame {
	int32_t module;
	bool kernel;
	bool ret; /* a return address: its inline chain is the call's (offset - 1) */
	uint64_t offset;
	uint32_t fn_first; /* expansion in fnlist: innermost inline first, outer last */
	uint32_t fn_n;
};

struct tnode {
	uint32_t parent;
	uint32_t key; /* frame id, | TERM for a leaf */
	uint64_t samples, period;
};

struct hwp_call_graph {
	struct hwp_session *session;
	struct hwp_call_graph_opts o;

	struct frame *frames;
	size_t nframes, frames_cap;
	struct hwp_hashmap frame_map;
	uint32_t *fnlist;
	size_t nfnlist, fnlist_cap;

	struct hwp_cg_function *funcs;
	size_t nfuncs, funcs_cap;
	struct hwp_hashmap func_map;

	struct tnode *nodes; /* node 0: the root */
	size_t nnodes, nodes_cap;
	struct hwp_hashmap node_map;

	uint64_t *ips; /* the sample's chain, callee first */
	size_t nips, ips_cap;
	uint8_t *ipk; /* per ip: IP_KERNEL (its context is the kernel's), IP_RET */
	size_t ipk_cap;
	uint32_t *path;
	size_t path_cap;

	/* stitch_lbr */
	struct stitch_thread *sthreads;
	size_t nsthreads, sthreads_cap;
	struct hwp_hashmap sthread_map;
	uint64_t max_lbr; /* CPU_PMU_CAPS "branches"; 0: unknown (no stitching) */
	bool max_lbr_known;

	/* derived */
	bool dirty;
	struct hwp_cg_node *tree;
	size_t ntree, tree_cap;
	struct hwp_hashmap tree_map;
	uint32_t *stamp;
	uint32_t *fmap; /* frame-trie node -> function-tree node */

	struct hwp_call_graph_stats st;
};

struct hwp_call_graph *hwp_call_graph__new(struct hwp_session *s, const struct hwp_call_graph_opts *opts)
{
	struct hwp_call_graph *cg;
	struct hwp_call_graph_opts o;

	if (!s) {
		hwp_set_error(EINVAL, "callgraph: no session given");
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
		hwp_set_error(ENOMEM, "out of memory making the call graph");
		errno = ENOMEM;
		return NULL;
	}
	cg->session = s;
	cg->o = o;
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
	free(cg->ips);
	free(cg->ipk);
	free(cg->path);
	free(cg->tree);
	hwp__hashmap_free(&cg->tree_map);
	free(cg->stamp);
	free(cg->fmap);
	for (size_t i = 0; i < cg->nsthreads; i++) {
		free(cg->sthreads[i].prev_raw);
		free(cg->sthreads[i].prev_from);
		free(cg->sthreads[i].list);
	}
	free(cg->sthreads);
	hwp__hashmap_free(&cg->sthread_map);
	free(cg);
}

static int nomem(void)
{
	return hwp_set_error(ENOMEM, "out of memory counting call stacks");
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
		if (name ? strcmp(f->name, name) == 0 : f->offset == offset && f->kernel == kernel) {
			if (!inlined)
				cg->funcs[i].inlined = false;
			*id = i;
			return 0;
		}
	}
	if (cg->nfuncs >= TERM)
		return hwp_set_error(EOVERFLOW, "callgraph: too many distinct functions");
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
static int expand_frame(struct hwp_call_graph *cg, struct frame *fr)
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

/* IP's frame; KERNEL_CTX: the chain's context says kernel (what an address
   no map covers is shown as). */
static int frame_id(struct hwp_call_graph *cg, const struct hwp_thread *th, uint64_t ip, uint8_t flags,
		    bool fallback, uint32_t *id)
{
	struct hwp_code_loc loc = { .module = -1, .offset = ip, .addr = ip };
	bool kernel_ctx = flags & IP_KERNEL, ret = flags & IP_RET;
	int err;

	/* perf looks an address up in the maps of its context only (the
	   sample's own IP also in the other's when its address says so:
	   thread__find_map_fb()); hwp_session__resolve() tries both */
	const struct hwp_map *m = !th ? NULL : hwp_thread__find_map(th, kernel_ctx ? HWP_MISC_KERNEL : HWP_MISC_USER, ip);
	if (th && !m && fallback && (bool)(ip >> 63) != kernel_ctx)
		m = hwp_thread__find_map(th, kernel_ctx ? HWP_MISC_USER : HWP_MISC_KERNEL, ip);
	if ((m || !th) && (err = hwp_session__resolve(cg->session, th, ip, 0, &loc)) < 0)
		return err;
	bool kernel = loc.module >= 0 ? loc.cpumode == HWP_MISC_KERNEL : kernel_ctx;
	uint64_t h = hwp__hash_combine(hwp__hash64((uint64_t)(uint32_t)loc.module), loc.offset);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&cg->frame_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (cg->frames[i].module == loc.module && cg->frames[i].offset == loc.offset &&
		    cg->frames[i].kernel == kernel && cg->frames[i].ret == ret) {
			*id = i;
			return 0;
		}
	if (cg->nframes >= TERM)
		return hwp_set_error(EOVERFLOW, "callgraph: too many distinct frames");
	struct frame *fr = HWP_VEC_PUSH(cg->frames, cg->nframes, cg->frames_cap);
	if (!fr || hwp__hashmap_add(&cg->frame_map, h, cg->nframes - 1) < 0)
		return nomem();
	fr->module = loc.module;
	fr->offset = loc.offset;
	fr->kernel = kernel;
	fr->ret = ret;
	*id = (uint32_t)(cg->nframes - 1);
	return expand_frame(cg, &cg->frames[*id]);
}

static int child(struct hwp_call_graph *cg, uint32_t parent, uint32_t key, uint32_t *out)
{
	uint64_t h = hwp__hash_combine(hwp__hash64(parent), key);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&cg->node_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (cg->nodes[i].parent == parent && cg->nodes[i].key == key) {
			*out = i;
			return 0;
		}
	struct tnode *n = HWP_VEC_PUSH(cg->nodes, cg->nnodes, cg->nodes_cap);
	if (!n || hwp__hashmap_add(&cg->node_map, h, cg->nnodes - 1) < 0)
		return nomem();
	n->parent = parent;
	n->key = key;
	*out = (uint32_t)(cg->nnodes - 1);
	return 0;
}

static int push_ip(struct hwp_call_graph *cg, uint64_t ip, uint8_t flags)
{
	if (HWP_VEC_RESERVE(cg->ipk, cg->ipk_cap, cg->nips + 1))
		return nomem();
	uint64_t *p = HWP_VEC_PUSH(cg->ips, cg->nips, cg->ips_cap);
	if (!p)
		return nomem();
	*p = ip;
	cg->ipk[cg->nips - 1] = flags;
	return 0;
}

/* A callchain word: 1 an address, 0 a known context marker, -1 a marker
   that makes perf discard the chain (perf's add_callchain_ip()). */
static int chain_word(uint64_t ip)
{
	if (ip < HWP_CONTEXT_MAX)
		return 1;
	return ip == HWP_CONTEXT_HV || ip == HWP_CONTEXT_KERNEL || ip == HWP_CONTEXT_USER ? 0 : -1;
}

/* The context a marker sets (*KERNEL), for the addresses after it. */
static void chain_context(uint64_t ip, bool *kernel)
{
	if (ip == HWP_CONTEXT_KERNEL)
		*kernel = true;
	else if (ip == HWP_CONTEXT_USER || ip == HWP_CONTEXT_HV)
		*kernel = false;
}

/* perf's plain path: markers dropped, at most CHAIN_MAX addresses, the
   whole chain dropped on an unknown marker. */
static int plain_chain(struct hwp_call_graph *cg, const struct hwp_sample *s)
{
	unsigned n = 0;
	int err;

	for (uint64_t i = 0; i < s->callchain_nr && n < CHAIN_MAX; i++) {
		int r = chain_word(hwp_sample__callchain_ip(s, i));
		if (r < 0) {
			cg->st.discarded++;
			cg->nips = 0;
			return 0;
		}
		n += (unsigned)r;
	}
	bool kernel = false;
	for (uint64_t i = 0, k = 0; i < s->callchain_nr && k < n; i++) {
		uint64_t ip = hwp_sample__callchain_ip(s, i);
		chain_context(ip, &kernel);
		if (chain_word(ip) <= 0)
			continue;
		if ((err = push_ip(cg, ip, (kernel ? IP_KERNEL : 0) | (k ? IP_RET : 0))))
			return err;
		k++;
	}
	return 0;
}

/* The recording's LBR depth: perf's env->max_branches, from CPU_PMU_CAPS. */
static uint64_t max_lbr(struct hwp_call_graph *cg)
{
	if (cg->max_lbr_known)
		return cg->max_lbr;
	const struct hwp_header_info *h = hwp_session__header(cg->session);
	for (size_t i = 0; h && i < h->nr_pmu_caps; i++) {
		const struct hwp_pmu_caps *pc = &h->pmu_caps[i];
		if (!pc->pmu_name || strcmp(pc->pmu_name, "cpu"))
			continue;
		for (size_t k = 0; k < pc->nr_caps; k++)
			if (!strncmp(pc->caps[k], "branches=", 9))
				cg->max_lbr = strtoull(pc->caps[k] + 9, NULL, 10);
	}
	cg->max_lbr_known = true;
	return cg->max_lbr;
}

static struct stitch_thread *stitch_thread(struct hwp_call_graph *cg, int32_t tid)
{
	uint64_t h = hwp__hash64((uint64_t)(uint32_t)tid);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&cg->sthread_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (cg->sthreads[i].tid == tid)
			return &cg->sthreads[i];
	struct stitch_thread *t = HWP_VEC_PUSH(cg->sthreads, cg->nsthreads, cg->sthreads_cap);
	if (!t || hwp__hashmap_add(&cg->sthread_map, h, cg->nsthreads - 1) < 0)
		return NULL;
	t->tid = tid;
	return t;
}

/* perf's has_stitched_lbr(): does CUR's stack continue the previous one
   (same entries in the same LBR registers)? If so the previous sample's
   entries below CUR's base go in front of the stitched list. */
static int has_stitched(struct stitch_thread *t, const struct hwp_sample *cur,
			uint64_t max, bool *stitched)
{
	*stitched = false;
	if (!t->have_prev)
		return 0;
	/* the physical register of CUR's base of stack (u64 arithmetic, as perf) */
	uint64_t cur_base = max - cur->branch_nr + cur->branch_hw_idx + 1;
	uint64_t distance = t->prev_hw_idx > cur_base ? t->prev_hw_idx - cur_base
						      : max + t->prev_hw_idx - cur_base;
	if (distance + 1 > t->prev_nr)
		return 0;
	uint64_t same = 0;
	for (int64_t i = (int64_t)distance, j = (int64_t)cur->branch_nr - 1; i >= 0 && j >= 0; i--, j--) {
		const uint8_t *c = cur->branch_entries + 24 * (uint64_t)j;
		const uint64_t *pv = t->prev_raw + 3 * (uint64_t)i;
		if (pv[0] != ld64(c) || pv[1] != ld64(c + 8) || pv[2] != ld64(c + 16))
			break;
		same++;
	}
	if (!same)
		return 0;
	size_t add = (size_t)(t->prev_nr - 1 - distance);
	if (HWP_VEC_RESERVE(t->list, t->list_cap, t->nlist + add))
		return nomem();
	if (t->nlist && add)
		memmove(t->list + add, t->list, t->nlist * sizeof(*t->list));
	for (size_t k = 0; k < add; k++)
		t->list[k] = t->prev_from[distance + 1 + k];
	t->nlist += add;
	*stitched = true;
	return 0;
}

/* After CUR's chain is built: CUR becomes the thread's previous sample. */
static int stitch_remember(struct hwp_call_graph *cg, struct stitch_thread *t, const struct hwp_sample *cur,
			   const struct hwp_thread *th)
{
	uint64_t nr = cur->branch_nr;
	int err;

	if (HWP_VEC_RESERVE(t->prev_raw, t->raw_cap, 3 * nr + 1) || HWP_VEC_RESERVE(t->prev_from, t->from_cap, nr + 1))
		return nomem();
	for (uint64_t i = 0; i < nr; i++) {
		const uint8_t *c = cur->branch_entries + 24 * i;
		t->prev_raw[3 * i] = ld64(c);
		t->prev_raw[3 * i + 1] = ld64(c + 8);
		t->prev_raw[3 * i + 2] = ld64(c + 16);
		if ((err = frame_id(cg, th, ld64(c), 0, false, &t->prev_from[i])))
			return err;
	}
	t->prev_nr = nr;
	t->prev_hw_idx = cur->branch_hw_idx;
	t->have_prev = true;
	return 0;
}

/* perf's resolve_lbr_callchain_sample() in callee order: the chain up to its
   PERF_CONTEXT_USER at USER_AT, then entries[0].to and every entry's from.
   Returns 1 when perf takes the plain path instead. */
static int lbr_chain(struct hwp_call_graph *cg, const struct hwp_sample *s, uint64_t user_at,
		     const struct hwp_thread *th, bool hw_idx)
{
	struct hwp_branch_entry e;
	struct stitch_thread *st = NULL;
	bool stitched = false;
	uint64_t max;
	int err;

	/* perf checks for stitching before anything else of the chain */
	if (cg->o.stitch_lbr && hw_idx && th && (max = max_lbr(cg)) > 0) {
		if (!(st = stitch_thread(cg, hwp_thread__tid(th))))
			return nomem();
		if ((err = has_stitched(st, s, max, &stitched)))
			return err;
		if (!stitched)
			st->nlist = 0;
		if ((err = stitch_remember(cg, st, s, th)))
			return err;
	}

	for (uint64_t j = 0; j <= user_at; j++)
		if (chain_word(hwp_sample__callchain_ip(s, j)) < 0) {
			cg->st.discarded++;
			return 0;
		}
	for (uint64_t i = 0; i <= s->branch_nr && s->branch_nr; i++) {
		hwp_sample__branch(s, i ? i - 1 : 0, &e);
		if (chain_word(i ? e.from : e.to) < 0)
			return 1;
	}
	bool kernel = false;
	for (uint64_t j = 0; j <= user_at; j++) {
		uint64_t ip = hwp_sample__callchain_ip(s, j);
		chain_context(ip, &kernel);
		if (chain_word(ip) > 0 && (err = push_ip(cg, ip, (kernel ? IP_KERNEL : 0) | (cg->nips ? IP_RET : 0))))
			return err;
	}
	for (uint64_t i = 0; s->branch_nr && i <= s->branch_nr; i++) {
		hwp_sample__branch(s, i ? i - 1 : 0, &e);
		uint64_t ip = i ? e.from : e.to;
		if (chain_word(ip) > 0 && (err = push_ip(cg, ip, false)))
			return err;
	}
	if (stitched) {
		for (size_t k = 0; k < st->nlist; k++)
			if ((err = push_ip(cg, st->list[k], IP_FRAME)))
				return err;
		cg->st.stitched++;
	}
	cg->st.callstack_lbr++;
	return 0;
}

static int sample_chain(struct hwp_call_graph *cg, const struct hwp_event *ev, const struct hwp_thread *th)
{
	const struct hwp_sample *s = &ev->sample;
	int err;

	cg->nips = 0;
	if (!(s->sample_type & HWP_SAMPLE_CALLCHAIN))
		return 0;
	cg->st.with_callchain++;
	if (ev->evsel && (ev->evsel->attr.branch_sample_type & HWP_BRANCH_CALL_STACK) &&
	    (s->sample_type & HWP_SAMPLE_BRANCH_STACK)) {
		uint64_t lim = s->callchain_nr < CHAIN_MAX ? s->callchain_nr : CHAIN_MAX;
		for (uint64_t i = 0; i < lim; i++)
			if (hwp_sample__callchain_ip(s, i) == HWP_CONTEXT_USER) {
				err = lbr_chain(cg, s, i, th,
						(ev->evsel->attr.branch_sample_type & HWP_BRANCH_HW_INDEX) != 0);
				if (err <= 0)
					return err;
				cg->nips = 0;
				break;
			}
	}
	return plain_chain(cg, s);
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
	if ((err = sample_chain(cg, ev, th)))
		return err;
	uint8_t ip_kernel = s->cpumode == HWP_MISC_KERNEL ? IP_KERNEL : 0;
	if (!cg->nips && (err = push_ip(cg, s->ip, ip_kernel)))
		return err;
	for (size_t i = cg->nips; i-- > 0;) {
		if (cg->ipk[i] & IP_FRAME)
			fid = (uint32_t)cg->ips[i];
		else if ((err = frame_id(cg, th, cg->ips[i], cg->ipk[i], false, &fid)))
			return err;
		if ((err = child(cg, node, fid, &node)))
			return err;
	}
	/* the leaf is keyed by the IP's function: addresses in one function
	   share it (fewer nodes than one per sampled address) */
	if ((err = frame_id(cg, th, s->ip, ip_kernel, true, &ipf)))
		return err;
	const struct frame *fr = &cg->frames[ipf];
	if ((err = child(cg, node, cg->fnlist[fr->fn_first + fr->fn_n - 1] | TERM, &node)))
		return err;
	cg->nodes[node].samples++;
	cg->nodes[node].period += period;
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

/* Function totals and the function tree, from the frame trie. */
static int derive(struct hwp_call_graph *cg)
{
	uint32_t gen = 0;
	int err;

	if (!cg->dirty && cg->tree)
		return 0;
	free(cg->stamp);
	free(cg->fmap);
	cg->stamp = calloc(cg->nfuncs + 1, sizeof(*cg->stamp));
	cg->fmap = calloc(cg->nnodes, sizeof(*cg->fmap));
	if (!cg->stamp || !cg->fmap)
		return nomem();
	for (size_t i = 0; i < cg->nfuncs; i++) {
		struct hwp_cg_function *f = &cg->funcs[i];
		f->self_period = f->self_samples = f->children_period = f->children_samples = 0;
	}
	cg->ntree = 0;
	hwp__hashmap_clear(&cg->tree_map);
	if (!HWP_VEC_PUSH(cg->tree, cg->ntree, cg->tree_cap))
		return nomem();
	cg->tree[0].parent = 0;
	cg->tree[0].function = UINT32_MAX;

	for (size_t n = 1; n < cg->nnodes; n++) {
		const struct tnode *t = &cg->nodes[n];
		if (t->key & TERM) {
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
				const struct frame *fr = &cg->frames[cg->nodes[a].key];
				uint32_t id = cg->fnlist[fr->fn_first + fr->fn_n - 1];
				if (cg->stamp[id] == gen)
					continue;
				cg->stamp[id] = gen;
				cg->funcs[id].children_period += t->period;
				cg->funcs[id].children_samples += t->samples;
			}
			struct hwp_cg_node *tn = &cg->tree[cg->fmap[t->parent]];
			tn->self_period += t->period;
			tn->self_samples += t->samples;
			continue;
		}
		/* parents precede children: fmap[parent] is set */
		const struct frame *fr = &cg->frames[t->key];
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
	cg->dirty = false;
	return 0;
}

size_t hwp_call_graph__functions(struct hwp_call_graph *cg, const struct hwp_cg_function **out)
{
	if (derive(cg) < 0) {
		*out = NULL;
		return 0;
	}
	static const struct hwp_cg_function none;

	*out = cg->funcs ? cg->funcs : &none; /* NULL means failure */
	return cg->nfuncs;
}

size_t hwp_call_graph__tree(struct hwp_call_graph *cg, const struct hwp_cg_node **out)
{
	if (derive(cg) < 0) {
		*out = NULL;
		return 0;
	}
	*out = cg->tree;
	return cg->ntree;
}

void hwp_call_graph__stats(const struct hwp_call_graph *cg, struct hwp_call_graph_stats *st)
{
	*st = cg->st;
	st->frames = cg->nframes;
	st->frame_nodes = cg->nnodes;
}
