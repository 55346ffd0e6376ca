/* SPDX-License-Identifier: MIT */
/*
 * The parts' tries merged on several threads (trie_merge.h). A node of the
 * merged trie is its parent there and its key, so the parts' nodes merge a
 * depth at a time: once every node of depth D-1 knows its merged node, the
 * nodes of depth D are sent, by the hash of (merged parent, key), to the
 * shard that owns that hash, and each shard, on a thread of its own, finds
 * or makes their merged nodes, keeping the earliest (sample, depth) that
 * made one and summing the counts. A sample makes its nodes along one
 * path, a depth each, so (sample, depth) orders the nodes as they were
 * made; the merged nodes are numbered in that order at the end (each shard
 * sorted, then the shards merged).
 *
 * (A replay of every part's nodes in that order on one thread costs the
 * number of parts times the distinct stacks: with many parts it took
 * longer than the pass.)
 */
#include "analysis/trie_merge.h"

#include <errno.h>
#include <stdlib.h>

#include "util/hash.h"
#include "util/hashmap.h"
#include "util/par_run.h"
#include "util/vec.h"

/* below this many nodes of one depth over all parts the depth is merged on
   this thread alone: starting threads would cost more */
#define PAR_MIN_NODES 8192
#define MAX_SHARDS 64

/* A merged node, named by its shard and place there: ((shard + 1) << 32)
   | place; 0 is the root. */
struct mnode {
	uint64_t parent; /* merged name */
	uint64_t made;   /* when first made: MADE(sample, depth) */
	uint32_t key;
	uint64_t samples, period;
};

/* (sample, depth) in one number that orders them: sample numbers below 2^44
   (the parallel pass's places assume as much), depths below 2^20 */
#define MADE(seq, depth) ((seq) << 20 | (depth))
#define MAX_SEQ ((1ull << 44) - 1)
#define MAX_DEPTH ((1u << 20) - 1)

static inline uint64_t mname(size_t shard, size_t place)
{
	return (uint64_t)(shard + 1) << 32 | place;
}

struct made_place {
	uint64_t made;
	uint32_t place;
};

struct shard {
	struct mnode *v;
	size_t nr, cap;
	struct hwp_hashmap map;
	struct made_place *sorted; /* the places in the order made */
	uint32_t *final;           /* place -> merged node number */
	int err;
};

/* a node sent to a shard: its merged parent and key, their hash, when it
   was made and its counts; where it is */
struct item {
	uint64_t hash, parent, made;
	uint64_t samples, period;
	uint32_t key, part, idx;
};

struct bucket {
	struct item *v;
	size_t nr, cap;
	int err;
};

/* A part's nodes by depth, and their merged names. */
struct part_depths {
	uint32_t *order;  /* its nodes but the root, by depth */
	size_t *level;    /* depth D's are order[level[D - 1]..level[D]) */
	size_t maxdepth;
	uint64_t *name;   /* node -> merged name */
};

struct job {
	const struct hwp__trie_part *parts;
	size_t n, nshards;
	struct part_depths *pd; /* [n] */
	struct shard *sh;       /* [nshards] */
	struct bucket *bk;      /* [sender * senders + shard], this depth's */
	size_t depth, senders;
	int err;
	struct hwp__cg_tnode *out;
};

static void fail(struct job *m, int err)
{
	__atomic_store_n(&m->err, err, __ATOMIC_RELAXED);
}

/* Part K's nodes but the root sorted by depth, in their order within one
   (a counting sort: a node comes after its parent). */
static void sort_part(struct job *m, size_t k)
{
	const struct hwp__trie_part *p = &m->parts[k];
	struct part_depths *pd = &m->pd[k];
	size_t nn = p->nnodes ? p->nnodes : 1, maxd = 0;
	uint32_t *depth = malloc(nn * sizeof(*depth));
	size_t *at = NULL;

	pd->order = malloc(nn * sizeof(*pd->order));
	pd->name = malloc(nn * sizeof(*pd->name));
	if (!depth || !pd->order || !pd->name)
		goto nomem;
	depth[0] = 0;
	for (size_t i = 1; i < p->nnodes; i++) {
		if (p->nodes[i].parent >= i || p->seq[i] > MAX_SEQ) {
			fail(m, p->nodes[i].parent >= i ? -EINVAL : -EOVERFLOW);
			goto out;
		}
		depth[i] = depth[p->nodes[i].parent] + 1;
		maxd = depth[i] > maxd ? depth[i] : maxd;
	}
	if (maxd > MAX_DEPTH) {
		fail(m, -EOVERFLOW);
		goto out;
	}
	if (!(pd->level = calloc(maxd + 1, sizeof(*pd->level))) || !(at = malloc((maxd + 1) * sizeof(*at))))
		goto nomem;
	for (size_t i = 1; i < p->nnodes; i++)
		pd->level[depth[i]]++;
	for (size_t d = 1; d <= maxd; d++) {
		at[d] = pd->level[d - 1]; /* depth D's start */
		pd->level[d] += pd->level[d - 1];
	}
	for (size_t i = 1; i < p->nnodes; i++)
		pd->order[at[depth[i]]++] = (uint32_t)i;
	pd->maxdepth = maxd;
	pd->name[0] = 0;
	goto out;
nomem:
	fail(m, -ENOMEM);
out:
	free(depth);
	free(at);
}

/* Thread T of the NSHARDS first: parts T, T + nshards, ... (a part's depth
   sort is its own). */
static void sort_parts(void *ctx, size_t t)
{
	struct job *m = ctx;

	for (size_t k = t; k < m->n; k += m->nshards)
		sort_part(m, k);
}

/* Sender T: this depth's nodes of parts T, T + senders, ... to their shards. */
static void send_depth(void *ctx, size_t t)
{
	struct job *m = ctx;
	size_t nshards = m->senders; /* a depth has as many shards as senders */

	for (size_t k = t; k < m->n; k += m->senders) {
		const struct part_depths *pd = &m->pd[k];
		if (m->depth > pd->maxdepth)
			continue;
		const struct hwp__trie_part *p = &m->parts[k];
		const uint32_t *order = pd->order;
		size_t from = pd->level[m->depth - 1], to = pd->level[m->depth];
		for (size_t j = from; j < to; j++) {
			/* (a depth's nodes and their parents' names are all over:
			   hint a node further ahead, and the name of the parent
			   of one nearer) */
			if (j + 16 < to) {
				__builtin_prefetch(&p->nodes[order[j + 16]]);
				__builtin_prefetch(&p->keys[order[j + 16]]);
				__builtin_prefetch(&p->seq[order[j + 16]]);
			}
			if (j + 8 < to)
				__builtin_prefetch(&pd->name[p->nodes[order[j + 8]].parent]);
			uint32_t i = order[j];
			const struct hwp__cg_tnode *nd = &p->nodes[i];
			uint64_t parent = pd->name[nd->parent], h = hwp__hash_combine(hwp__hash64(parent), p->keys[i]);
			size_t s = (size_t)(((h >> 32) * nshards) >> 32);
			struct bucket *b = &m->bk[t * nshards + s];
			struct item *it = HWP_VEC_PUSH(b->v, b->nr, b->cap);

			if (!it) {
				b->err = -ENOMEM;
				return;
			}
			*it = (struct item){ h, parent, MADE(p->seq[i], m->depth), nd->samples, nd->period, p->keys[i],
					     (uint32_t)k, i };
		}
	}
}

/* The merged node of IT in shard SH, made when new; NULL: out of room. */
static struct mnode *find_or_make(struct shard *sh, const struct item *it, uint32_t *place)
{
	struct hwp_hashmap_probe pr = hwp__hashmap_probe(&sh->map, it->hash);
	struct mnode *mn;

	while (hwp__hashmap_next(&pr, place))
		if (sh->v[*place].parent == it->parent && sh->v[*place].key == it->key)
			return &sh->v[*place];
	int err = 0;
	if (sh->nr >= HWP_HASHMAP_MAX_ENTRIES)
		err = -EOVERFLOW;
	else if (!(mn = HWP_VEC_PUSH(sh->v, sh->nr, sh->cap)))
		err = -ENOMEM;
	else if ((err = hwp__hashmap_add(&sh->map, it->hash, sh->nr - 1)) < 0)
		sh->nr--; /* (not indexed: not made) */
	if (err) {
		sh->err = err;
		return NULL;
	}
	*place = (uint32_t)(sh->nr - 1);
	*mn = (struct mnode){ it->parent, it->made, it->key, 0, 0 };
	return mn;
}

/* Shard S: the nodes sent to it found or made. */
static void receive_depth(void *ctx, size_t s)
{
	struct job *m = ctx;
	struct shard *sh = &m->sh[s];

	for (size_t t = 0; t < m->senders && !sh->err; t++) {
		const struct bucket *b = &m->bk[t * m->senders + s];

		for (size_t j = 0; j < b->nr; j++) {
			const struct item *it = &b->v[j];
			uint32_t place;

			/* (the shard outgrows the caches: hint the index slot of
			   a node a few ahead, and the node in the slot of one
			   nearer) */
			if (j + 16 < b->nr)
				hwp__hashmap_prefetch(&sh->map, b->v[j + 16].hash);
			if (j + 8 < b->nr) {
				int64_t c = hwp__hashmap_first(&sh->map, b->v[j + 8].hash);
				if (c >= 0)
					__builtin_prefetch(&sh->v[c], 1);
			}
			struct mnode *mn = find_or_make(sh, it, &place);
			if (!mn)
				return;
			mn->made = it->made < mn->made ? it->made : mn->made;
			mn->samples += it->samples;
			mn->period += it->period;
			m->pd[it->part].name[it->idx] = mname(s, place);
		}
	}
}

static int first_err(const struct job *m)
{
	if (m->err)
		return m->err;
	for (size_t s = 0; s < m->nshards; s++)
		if (m->sh[s].err)
			return m->sh[s].err;
	for (size_t b = 0; b < m->nshards * m->nshards; b++)
		if (m->bk[b].err)
			return m->bk[b].err;
	return 0;
}

/* Room in each shard for its share of the largest part's nodes and an
   eighth more (the merged trie has at least as many; most stacks recur in
   every part), so that few shards grow while they fill. */
static int reserve_shards(struct job *m)
{
	size_t most = 0;

	for (size_t k = 0; k < m->n; k++)
		most = m->parts[k].nnodes > most ? m->parts[k].nnodes : most;
	size_t each = most / m->nshards + most / (8 * m->nshards) + 16;
	for (size_t s = 0; s < m->nshards; s++)
		if (HWP_VEC_RESERVE(m->sh[s].v, m->sh[s].cap, each) < 0 || hwp__hashmap_reserve(&m->sh[s].map, each) < 0)
			return -ENOMEM;
	return 0;
}

static int merge_depths(struct job *m)
{
	size_t maxd = 0;

	for (size_t k = 0; k < m->n; k++)
		if (m->pd[k].maxdepth > maxd)
			maxd = m->pd[k].maxdepth;
	for (m->depth = 1; m->depth <= maxd; m->depth++) {
		size_t total = 0;
		for (size_t k = 0; k < m->n; k++)
			if (m->depth <= m->pd[k].maxdepth)
				total += m->pd[k].level[m->depth] - m->pd[k].level[m->depth - 1];
		m->senders = total < PAR_MIN_NODES ? 1 : m->nshards;
		for (size_t b = 0; b < m->senders * m->senders; b++)
			m->bk[b].nr = 0;
		hwp__par_run(m->senders, send_depth, m);
		int err = first_err(m);
		if (err)
			return err;
		hwp__par_run(m->senders, receive_depth, m);
		if ((err = first_err(m)))
			return err;
	}
	return 0;
}

static int by_made(const void *a, const void *b)
{
	uint64_t x = ((const struct made_place *)a)->made, y = ((const struct made_place *)b)->made;

	return (x > y) - (x < y);
}

/* Shard S's places in the order their nodes were made. */
static void sort_shard(void *ctx, size_t s)
{
	struct job *m = ctx;
	struct shard *sh = &m->sh[s];
	size_t nr = sh->nr ? sh->nr : 1;

	if (!(sh->sorted = malloc(nr * sizeof(*sh->sorted))) || !(sh->final = malloc(nr * sizeof(*sh->final)))) {
		sh->err = -ENOMEM;
		return;
	}
	for (size_t j = 0; j < sh->nr; j++)
		sh->sorted[j] = (struct made_place){ sh->v[j].made, (uint32_t)j };
	hwp__sort(sh->sorted, sh->nr, sizeof(*sh->sorted), by_made);
}

/* The merged nodes numbered in the order made: the shards' sorted places
   merged (node 0 is the root; a scan of the shards' heads per node, at
   most 64 of them). 0 or -ENOMEM. */
static int number(struct job *m)
{
	size_t *at = calloc(m->nshards, sizeof(*at)), next = 1;

	if (!at)
		return -ENOMEM;
	for (;;) {
		size_t best = m->nshards;
		uint64_t made = 0;

		for (size_t s = 0; s < m->nshards; s++)
			if (at[s] < m->sh[s].nr && (best == m->nshards || m->sh[s].sorted[at[s]].made < made)) {
				best = s;
				made = m->sh[s].sorted[at[s]].made;
			}
		if (best == m->nshards)
			break;
		m->sh[best].final[m->sh[best].sorted[at[best]++].place] = (uint32_t)next++;
	}
	free(at);
	return 0;
}

static uint32_t final_of(const struct job *m, uint64_t name)
{
	return name ? m->sh[(name >> 32) - 1].final[(uint32_t)name] : 0;
}

/* Shard S's nodes written at their numbers. */
static void write_shard(void *ctx, size_t s)
{
	struct job *m = ctx;
	const struct shard *sh = &m->sh[s];

	for (size_t j = 0; j < sh->nr; j++) {
		const struct mnode *x = &sh->v[j];

		m->out[sh->final[j]] = (struct hwp__cg_tnode){ final_of(m, x->parent), x->key, x->samples, x->period };
	}
}

/* What only the merge of the depths needs (freed before the numbering's
   memory comes). */
static void depths_free(struct job *m)
{
	for (size_t k = 0; m->pd && k < m->n; k++) {
		free(m->pd[k].order);
		free(m->pd[k].level);
		free(m->pd[k].name);
		m->pd[k] = (struct part_depths){ 0 };
	}
	for (size_t s = 0; m->sh && s < m->nshards; s++)
		hwp__hashmap_free(&m->sh[s].map);
	for (size_t b = 0; m->bk && b < m->nshards * m->nshards; b++) {
		free(m->bk[b].v);
		m->bk[b] = (struct bucket){ 0 };
	}
}

static void job_free(struct job *m)
{
	depths_free(m);
	free(m->pd);
	for (size_t s = 0; m->sh && s < m->nshards; s++) {
		free(m->sh[s].v);
		free(m->sh[s].sorted);
		free(m->sh[s].final);
	}
	free(m->sh);
	free(m->bk);
}

int hwp__trie_merge(const struct hwp__trie_part *parts, size_t n, unsigned threads, struct hwp__cg_tnode **out,
		    size_t *nout)
{
	struct job m = { .parts = parts, .n = n };
	size_t nn = n ? n : 1, total = 0;
	int err;

	m.nshards = threads < 1 ? 1 : threads > MAX_SHARDS ? MAX_SHARDS : threads;
	*out = NULL;
	*nout = 0;
	m.pd = calloc(nn, sizeof(*m.pd));
	m.sh = calloc(m.nshards, sizeof(*m.sh));
	m.bk = calloc(m.nshards * m.nshards, sizeof(*m.bk));
	if (!m.pd || !m.sh || !m.bk) {
		err = -ENOMEM;
		goto out;
	}
	hwp__par_run(n < m.nshards ? n : m.nshards, sort_parts, &m);
	if ((err = first_err(&m)) || (err = reserve_shards(&m)) || (err = merge_depths(&m)))
		goto out;
	depths_free(&m);
	hwp__par_run(m.nshards, sort_shard, &m);
	if ((err = first_err(&m)))
		goto out;
	for (size_t s = 0; s < m.nshards; s++)
		total += m.sh[s].nr;
	/* (the call graph indexes every node but the root) */
	if (total > HWP_HASHMAP_MAX_ENTRIES) {
		err = -EOVERFLOW;
		goto out;
	}
	if (!(m.out = malloc((total + 1) * sizeof(*m.out)))) {
		err = -ENOMEM;
		goto out;
	}
	if ((err = number(&m)))
		goto out;
	for (size_t s = 0; s < m.nshards; s++) {
		free(m.sh[s].sorted);
		m.sh[s].sorted = NULL;
	}
	m.out[0] = (struct hwp__cg_tnode){ 0 };
	hwp__par_run(m.nshards, write_shard, &m);
	*out = m.out;
	*nout = total + 1;
	m.out = NULL;
out:
	free(m.out);
	job_free(&m);
	return err;
}
