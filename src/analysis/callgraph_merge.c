/* SPDX-License-Identifier: MIT */
/*
 * The call graph of a parallel pass: parts that count shares of the
 * samples, and their merge into the sequential pass's call graph (see
 * callgraph_part.h). The sequential graph numbers frames, functions and
 * trie nodes in the order it first met them. A part meets a frame or node
 * first at the same sample as the sequential pass does when that sample is
 * the first of all to hold it (no earlier sample, so no earlier sample of
 * the part, held it), and within a sample in the same order (the same
 * walk; a cached chain skips only nodes made before). So the first maker
 * of each, over all parts, ordered by (sample, place in the part), is the
 * sequential order; for trie nodes, which a sample makes along one path,
 * (sample, depth) is.
 */
#include <errno.h>
#include <stdlib.h>

#include "analysis/branch_collect_struct.h"
#include "analysis/callgraph_part.h"
#include "analysis/callgraph_struct.h"
#include "analysis/trie_merge.h"
#include "session/module_ids.h"
#include "session/parallel_pass.h"
#include "session/session_internal.h"
#include "util/error.h"
#include "util/par_run.h"

const char *hwp__call_graph_part_refusal(struct hwp_session *s, const struct hwp_call_graph_opts *o)
{
	if (o && o->stitch_lbr && hwp__chain_may_stitch(s))
		return "stitched LBR call stacks continue each thread's previous sample";
	return NULL;
}

struct hwp_call_graph *hwp__call_graph_new_part(struct hwp_session *s, const struct hwp_call_graph_opts *o,
						struct hwp__resolver *res)
{
	struct hwp_call_graph *cg;
	const char *why;

	if (!res || !res->ids) {
		hwp__set_error(EINVAL, "callgraph: a part needs a resolver of its own");
		errno = EINVAL;
		return NULL;
	}
	/* a resolver's first miss would make the symbolizer: here, not on a
	   worker thread */
	if (s && !hwp_session__symbolizer(s))
		return NULL;
	if (!(cg = hwp_call_graph__new(s, o)))
		return NULL;
	if ((why = hwp__call_graph_part_refusal(s, &cg->o))) {
		hwp__set_error(EINVAL, "%s: no parallel call graph: %s", hwp_session__path(s), why);
		hwp_call_graph__delete(cg);
		errno = EINVAL;
		return NULL;
	}
	cg->res = res;
	cg->part = true;
	/* the unwinder of --call-graph dwarf stacks takes what it needs of
	   the session here, on the reading thread */
	if (s && (hwp_session__sample_types(s) & (HWP_SAMPLE_REGS_USER | HWP_SAMPLE_STACK_USER)) &&
	    hwp__chain_unwind_setup(&cg->chain, s) < 0) {
		hwp_call_graph__delete(cg);
		errno = ENOMEM;
		return NULL;
	}
	return cg;
}

int hwp__call_graph_add_at(struct hwp_call_graph *g, const struct hwp_event *ev, const struct hwp_thread *th,
			   uint64_t seq)
{
	if (!g->part || (g->added && seq <= g->seq))
		return hwp__set_error(EINVAL, "callgraph: sample %llu added out of order (or not to a part)",
				      (unsigned long long)seq);
	g->added = true;
	g->seq = seq;
	g->res->pos = HWP__COLLECT_POS(seq, 0x40000);
	return hwp_call_graph__add(g, ev, th);
}

static int nomem(void)
{
	return hwp__set_error(ENOMEM, "out of memory merging call graphs");
}

/*
 * The frames of N parts in the order first made: frame I of part K was
 * made by sample SEQ[K][I], and a part's frames are in the order made (so
 * by sample). Calls EACH(CTX, K, I) in the order of (sample, part, I); the
 * parts' samples are apart, so the part only breaks no ties. (Only the
 * sample is noted: a walk over the parts in step keeps each part's order
 * among the frames of one sample, where a sort by sample alone would not.)
 */
static int in_order(struct hwp_call_graph *const *parts, size_t n, int (*each)(void *ctx, size_t k, uint32_t i),
		    void *ctx)
{
	size_t *at = calloc(n ? n : 1, sizeof(*at));
	int err = 0;

	if (!at)
		return nomem();
	for (;;) {
		size_t best = n;
		uint64_t best_seq = 0;

		for (size_t k = 0; k < n; k++) {
			size_t nr = parts[k]->nframes;
			const uint64_t *seq = parts[k]->frame_seq;

			if (at[k] < nr && (best == n || seq[at[k]] < best_seq)) {
				best = k;
				best_seq = seq[at[k]];
			}
		}
		if (best == n || (err = each(ctx, best, (uint32_t)at[best]++)))
			break;
	}
	free(at);
	return err;
}

struct merge {
	struct hwp_call_graph *dst;
	struct hwp_call_graph *const *parts;
	struct hwp__module_ids *const *ids;
	uint32_t **fmap; /* part frame -> DST frame, per part */
	uint32_t **keys; /* part node -> its key in DST's terms, per part */
};

/* Part K's frame I, made in DST (symbolized there) where it is new. */
static int merge_frame(void *ctx, size_t k, uint32_t i)
{
	struct merge *m = ctx;
	const struct hwp__cg_frame *f = &m->parts[k]->frames[i];
	int32_t module = hwp__module_ids_real(m->ids[k], f->module);

	if (f->module >= 0 && module < 0)
		return hwp__set_error(EINVAL, "callgraph: the module of a part's frame was not registered");
	return hwp__cg_frame(m->dst, module, f->offset, f->kernel, f->ret, &m->fmap[k][i]);
}

/* Part K's node T's key in DST's terms (a leaf: the function of the IP's
   frame). */
static uint32_t node_key(const struct merge *m, size_t k, const struct hwp__cg_tnode *t)
{
	uint32_t key = m->fmap[k][t->key & ~HWP__CG_TERM];

	if (t->key & HWP__CG_TERM) {
		const struct hwp__cg_frame *fr = &m->dst->frames[key];

		key = m->dst->fnlist[fr->fn_first + fr->fn_n - 1] | HWP__CG_TERM;
	}
	return key;
}

/* Part K's trie nodes' keys in DST's terms. */
static void part_keys(void *ctx, size_t k)
{
	struct merge *m = ctx;
	const struct hwp_call_graph *p = m->parts[k];

	if (!(m->keys[k] = malloc(p->nnodes * sizeof(**m->keys))))
		return;
	m->keys[k][0] = 0; /* (the root's: not read) */
	for (size_t i = 1; i < p->nnodes; i++)
		m->keys[k][i] = node_key(m, k, &p->nodes[i]);
}

/* Every part's trie nodes into DST's trie, numbered as the sequential pass
   makes them, on as many threads as there are parts (trie_merge.h). */
static int merge_nodes(struct merge *m, size_t n)
{
	struct hwp_call_graph *dst = m->dst;
	struct hwp__trie_part *tp = calloc(n ? n : 1, sizeof(*tp));
	struct hwp__cg_tnode *nodes = NULL;
	size_t nnodes = 0;
	int err = 0;

	if (!tp || !(m->keys = calloc(n ? n : 1, sizeof(*m->keys)))) {
		free(tp);
		return nomem();
	}
	hwp__par_run(n, part_keys, m);
	for (size_t k = 0; k < n && !err; k++) {
		tp[k] = (struct hwp__trie_part){ m->parts[k]->nodes, m->keys[k], m->parts[k]->node_seq,
						 m->parts[k]->nnodes };
		err = m->keys[k] ? 0 : -ENOMEM;
	}
	if (!err)
		err = hwp__trie_merge(tp, n, (unsigned)n, &nodes, &nnodes);
	for (size_t k = 0; k < n; k++)
		free(m->keys[k]);
	free(m->keys);
	free(tp);
	if (err)
		return err == -ENOMEM ? nomem() : hwp__set_error(-err, "callgraph: merging the parts' stacks failed");
	/* DST held its root alone; its index is made again if a node is
	   ever added (after a pass none is) */
	free(dst->nodes);
	dst->nodes = nodes;
	dst->nnodes = dst->nodes_cap = nnodes;
	return 0;
}

static int add_stats(struct hwp_call_graph *dst, const struct hwp_call_graph *p)
{
	dst->st.samples += p->st.samples;
	dst->st.period += p->st.period;
	dst->chain.with_callchain += p->chain.with_callchain;
	dst->chain.callstack_lbr += p->chain.callstack_lbr;
	dst->chain.stitched += p->chain.stitched;
	dst->chain.discarded += p->chain.discarded;
	/* how the part's user stacks (--call-graph dwarf) were unwound */
	return hwp__chain_unwind_merge(&dst->chain, dst->session, &p->chain);
}

int hwp__call_graph_merge(struct hwp_call_graph *dst, struct hwp_call_graph *const *parts,
			  struct hwp__module_ids *const *ids, size_t n)
{
	struct merge m = { dst, parts, ids, NULL, NULL };
	int err = 0;

	if (dst->part || dst->nframes || dst->nnodes != 1 || dst->st.samples)
		return hwp__set_error(EINVAL, "callgraph: parts merge into a call graph that counted nothing");
	for (size_t k = 0; k < n; k++)
		if (!parts[k]->part || parts[k]->session != dst->session)
			return hwp__set_error(EINVAL, "callgraph: call graph %zu is not a part of this pass", k);
	/* the parts count nothing more: their chain caches' memory goes
	   before the merge's comes */
	for (size_t k = 0; k < n; k++) {
		hwp__cg_settle(parts[k]);
		hwp__chain_cache_free(&parts[k]->chains);
	}
	if (!(m.fmap = calloc(n ? n : 1, sizeof(*m.fmap)))) {
		err = nomem();
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if (!(m.fmap[k] = malloc((parts[k]->nframes + 1) * sizeof(**m.fmap)))) {
			err = nomem();
			goto out;
		}
	if (!(err = in_order(parts, n, merge_frame, &m)))
		err = merge_nodes(&m, n);
	if (err)
		goto out;
	for (size_t k = 0; k < n && !err; k++)
		err = add_stats(dst, parts[k]);
	if (err)
		goto out;
	dst->dirty = true;
out:
	for (size_t k = 0; m.fmap && k < n; k++)
		free(m.fmap[k]);
	free(m.fmap);
	return err;
}

/* ---- the call graph alone on several threads ---- */

static void *cg_part_new(void *ctx, struct hwp__resolver *res)
{
	struct hwp_call_graph *whole = ctx;

	return hwp__call_graph_new_part(whole->session, &whole->o, res);
}

static int cg_add(void *part, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq)
{
	return hwp__call_graph_add_at(part, ev, th, seq);
}

static int cg_merge(void *ctx, void *const *parts, struct hwp__module_ids *const *ids, size_t n)
{
	return hwp__call_graph_merge(ctx, (struct hwp_call_graph *const *)parts, ids, n);
}

static void cg_delete(void *part)
{
	hwp_call_graph__delete(part);
}

int hwp_call_graph__read_jobs(struct hwp_call_graph *cg, unsigned jobs)
{
	const struct hwp__parallel_ops ops = { cg, cg_part_new, cg_add, cg_merge, cg_delete, true };
	const char *why = cg->res != hwp__session_resolver(cg->session) ? "a part"
			  : hwp__call_graph_part_refusal(cg->session, &cg->o);
	unsigned n = hwp__parallel_jobs(cg->session, jobs, why);

	return n < 2 ? hwp_call_graph__read(cg) : hwp__parallel_pass(cg->session, &ops, n);
}
