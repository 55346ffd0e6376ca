/* SPDX-License-Identifier: MIT */
/*
 * The parts' tries merged on several threads (trie_merge.h). A node of the
 * merged trie is its parent there and its key, so the parts' nodes merge a
 * depth at a time: once every node of depth D-1 knows its merged node, the
 * nodes of depth D are sent, by the hash of (merged parent, key), to the
 * shard that owns that hash, and each shard, on a thread of its own, finds
 * or makes their merged nodes, keeping the earliest maker and summing the
 * counts. At the end the merged nodes are numbered in the order of their
 * first makers (each shard sorted, then the shards merged).
 *
 * (A replay of every part's nodes in that order on one thread costs the
 * number of parts times the distinct stacks: with many parts it took
 * longer than the pass.)
 */
#include "analysis/trie_merge.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
	uint32_t key;
	uint32_t part, idx; /* its first maker: node IDX of part PART, */
	uint64_t seq;       /* made by sample SEQ */
	uint64_t samples, period;
};

static inline uint64_t mname(size_t shard, size_t place)
{
	return (uint64_t)(shard + 1) << 32 | place;
}

struct shard {
	struct mnode *v;
	size_t nr, cap;
	struct hwp_hashmap map;
	uint32_t *sorted; /* places in the order of their first makers */
	uint32_t *final;  /* place -> merged node number */
	int err;
};

/* a node sent to a shard: its merged parent and key, their hash */
struct item {
	uint64_t hash, parent;
	uint32_t key, part, idx;
};

struct bucket {
	struct item *v;
	size_t nr, cap;
	int err;
};

struct merge {
	const struct hwp__trie_part *parts;
	size_t n, nshards;
	uint32_t **order;  /* per part: its nodes but the root, by depth */
	size_t **level;    /* per part: depth D's are order[level[D - 1]..level[D]) */
	size_t *maxdepth;  /* per part */
	uint64_t **name;   /* per part: node -> merged name */
	struct shard *sh;  /* [nshards] */
	struct bucket *bk; /* [sender * senders + shard], this depth's */
	size_t depth, senders;
	int err;
	struct hwp__cg_tnode *out;
};

static bool earlier(uint64_t seq, uint32_t part, uint32_t idx, const struct mnode *m)
{
	if (seq != m->seq)
		return seq < m->seq;
	return part != m->part ? part < m->part : idx < m->idx;
}

static void fail(struct merge *m, int err)
{
	__atomic_store_n(&m->err, err, __ATOMIC_RELAXED);
}

/* Part K's nodes but the root sorted by depth, in their order within one
   (a counting sort: a node comes after its parent). */
static void sort_part(void *ctx, size_t k)
{
	struct merge *m = ctx;
	const struct hwp__trie_part *p = &m->parts[k];
	size_t nn = p->nnodes ? p->nnodes : 1, maxd = 0;
	uint32_t *depth = malloc(nn * sizeof(*depth));
	size_t *at = NULL;

	m->order[k] = malloc(nn * sizeof(**m->order));
	m->name[k] = malloc(nn * sizeof(**m->name));
	if (!depth || !m->order[k] || !m->name[k])
		goto nomem;
	depth[0] = 0;
	for (size_t i = 1; i < p->nnodes; i++) {
		if (p->nodes[i].parent >= i) {
			fail(m, -EINVAL);
			goto out;
		}
		depth[i] = depth[p->nodes[i].parent] + 1;
		maxd = depth[i] > maxd ? depth[i] : maxd;
	}
	if (!(m->level[k] = calloc(maxd + 1, sizeof(**m->level))) || !(at = malloc((maxd + 1) * sizeof(*at))))
		goto nomem;
	for (size_t i = 1; i < p->nnodes; i++)
		m->level[k][depth[i]]++;
	for (size_t d = 1; d <= maxd; d++) {
		at[d] = m->level[k][d - 1]; /* depth D's start */
		m->level[k][d] += m->level[k][d - 1];
	}
	for (size_t i = 1; i < p->nnodes; i++)
		m->order[k][at[depth[i]]++] = (uint32_t)i;
	m->maxdepth[k] = maxd;
	m->name[k][0] = 0;
	goto out;
nomem:
	fail(m, -ENOMEM);
out:
	free(depth);
	free(at);
}

static uint64_t node_hash(const struct merge *m, size_t k, uint32_t i, uint64_t *parent, uint32_t *key)
{
	const struct hwp__trie_part *p = &m->parts[k];

	*parent = m->name[k][p->nodes[i].parent];
	*key = p->keys[i];
	return hwp__hash_combine(hwp__hash64(*parent), *key);
}

/* Sender T: this depth's nodes of parts T, T + senders, ... to their shards. */
static void send(void *ctx, size_t t)
{
	struct merge *m = ctx;
	size_t nshards = m->senders; /* a depth has as many shards as senders */

	for (size_t k = t; k < m->n; k += m->senders) {
		if (m->depth > m->maxdepth[k])
			continue;
		const size_t *lv = m->level[k];
		for (size_t j = lv[m->depth - 1]; j < lv[m->depth]; j++) {
			uint32_t i = m->order[k][j], key;
			uint64_t parent, h = node_hash(m, k, i, &parent, &key);
			size_t s = (size_t)(((h >> 32) * nshards) >> 32);
			struct bucket *b = &m->bk[t * nshards + s];
			struct item *it = HWP_VEC_PUSH(b->v, b->nr, b->cap);

			if (!it) {
				b->err = -ENOMEM;
				return;
			}
			*it = (struct item){ h, parent, key, (uint32_t)k, i };
		}
	}
}

/* Shard S: the nodes sent to it found or made. */
static void receive(void *ctx, size_t s)
{
	struct merge *m = ctx;
	struct shard *sh = &m->sh[s];

	for (size_t t = 0; t < m->senders && !sh->err; t++) {
		const struct bucket *b = &m->bk[t * m->senders + s];

		for (size_t j = 0; j < b->nr; j++) {
			const struct item *it = &b->v[j];

			/* (the shard's index outgrows the caches: hint the slot
			   of a node a few ahead) */
			if (j + 8 < b->nr)
				hwp__hashmap_prefetch(&sh->map, b->v[j + 8].hash);
			const struct hwp__trie_part *p = &m->parts[it->part];
			const struct hwp__cg_tnode *t_node = &p->nodes[it->idx];
			uint64_t seq = p->seq[it->idx];
			uint32_t place;
			struct mnode *mn = NULL;

			struct hwp_hashmap_probe pr = hwp__hashmap_probe(&sh->map, it->hash);
			while (hwp__hashmap_next(&pr, &place))
				if (sh->v[place].parent == it->parent && sh->v[place].key == it->key) {
					mn = &sh->v[place];
					break;
				}
			if (!mn) {
				if (sh->nr >= UINT32_MAX || !(mn = HWP_VEC_PUSH(sh->v, sh->nr, sh->cap)) ||
				    hwp__hashmap_add(&sh->map, it->hash, sh->nr - 1) < 0) {
					sh->err = sh->nr >= UINT32_MAX ? -EOVERFLOW : -ENOMEM;
					return;
				}
				place = (uint32_t)(sh->nr - 1);
				*mn = (struct mnode){ it->parent, it->key, it->part, it->idx, seq, 0, 0 };
			} else if (earlier(seq, it->part, it->idx, mn)) {
				mn->part = it->part;
				mn->idx = it->idx;
				mn->seq = seq;
			}
			mn->samples += t_node->samples;
			mn->period += t_node->period;
			m->name[it->part][it->idx] = mname(s, place);
		}
	}
}

static int first_err(const struct merge *m)
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

/* Room in each shard for its share of the largest part's nodes and a
   quarter more (the merged trie has at least as many; most stacks recur in
   every part), so that few shards grow while they fill. */
static int reserve_shards(struct merge *m)
{
	size_t most = 0;

	for (size_t k = 0; k < m->n; k++)
		most = m->parts[k].nnodes > most ? m->parts[k].nnodes : most;
	size_t each = most / m->nshards + most / (4 * m->nshards) + 16;
	for (size_t s = 0; s < m->nshards; s++)
		if (HWP_VEC_RESERVE(m->sh[s].v, m->sh[s].cap, each) < 0 || hwp__hashmap_reserve(&m->sh[s].map, each) < 0)
			return -ENOMEM;
	return 0;
}

static int merge_depths(struct merge *m)
{
	size_t maxd = 0;

	for (size_t k = 0; k < m->n; k++)
		if (m->maxdepth[k] > maxd)
			maxd = m->maxdepth[k];
	for (m->depth = 1; m->depth <= maxd; m->depth++) {
		size_t total = 0;
		for (size_t k = 0; k < m->n; k++)
			if (m->depth <= m->maxdepth[k])
				total += m->level[k][m->depth] - m->level[k][m->depth - 1];
		m->senders = total < PAR_MIN_NODES ? 1 : m->nshards;
		for (size_t b = 0; b < m->senders * m->senders; b++)
			m->bk[b].nr = 0;
		hwp__par_run(m->senders, send, m);
		int err = first_err(m);
		if (err)
			return err;
		hwp__par_run(m->senders, receive, m);
		if ((err = first_err(m)))
			return err;
	}
	return 0;
}

/* Shard S's places in the order of their first makers (a merge sort:
   qsort's comparison could not be told the shard). */
static void sort_shard(void *ctx, size_t s)
{
	struct merge *m = ctx;
	struct shard *sh = &m->sh[s];
	uint32_t *a = malloc((sh->nr ? sh->nr : 1) * sizeof(*a)), *tmp = malloc((sh->nr ? sh->nr : 1) * sizeof(*tmp));

	sh->sorted = a;
	if (!(sh->final = malloc((sh->nr ? sh->nr : 1) * sizeof(*sh->final))) || !a || !tmp) {
		sh->err = -ENOMEM;
		free(tmp);
		return;
	}
	for (size_t j = 0; j < sh->nr; j++)
		a[j] = (uint32_t)j;
	/* bottom-up merge sort */
	for (size_t w = 1; w < sh->nr; w *= 2) {
		for (size_t lo = 0; lo < sh->nr; lo += 2 * w) {
			size_t mid = lo + w < sh->nr ? lo + w : sh->nr, hi = lo + 2 * w < sh->nr ? lo + 2 * w : sh->nr;
			size_t i = lo, j = mid, o = lo;

			while (i < mid && j < hi) {
				const struct mnode *x = &sh->v[a[j]];
				tmp[o++] = earlier(x->seq, x->part, x->idx, &sh->v[a[i]]) ? a[j++] : a[i++];
			}
			while (i < mid)
				tmp[o++] = a[i++];
			while (j < hi)
				tmp[o++] = a[j++];
		}
		uint32_t *swap = a;
		a = tmp;
		tmp = swap;
	}
	sh->sorted = a;
	free(tmp);
}

/* The merged nodes numbered in the order of their first makers: the
   shards' sorted places merged (node 0 is the root). */
static size_t number(struct merge *m)
{
	size_t *at = calloc(m->nshards, sizeof(*at)), next = 1;

	if (!at)
		return 0;
	for (;;) {
		size_t best = m->nshards;
		const struct mnode *bn = NULL;

		for (size_t s = 0; s < m->nshards; s++) {
			const struct shard *sh = &m->sh[s];
			if (at[s] < sh->nr) {
				const struct mnode *x = &sh->v[sh->sorted[at[s]]];
				if (!bn || earlier(x->seq, x->part, x->idx, bn)) {
					best = s;
					bn = x;
				}
			}
		}
		if (best == m->nshards)
			break;
		m->sh[best].final[m->sh[best].sorted[at[best]++]] = (uint32_t)next++;
	}
	free(at);
	return next;
}

static uint32_t final_of(const struct merge *m, uint64_t name)
{
	return name ? m->sh[(name >> 32) - 1].final[(uint32_t)name] : 0;
}

/* Shard S's nodes written at their numbers. */
static void write_shard(void *ctx, size_t s)
{
	struct merge *m = ctx;
	const struct shard *sh = &m->sh[s];

	for (size_t j = 0; j < sh->nr; j++) {
		const struct mnode *x = &sh->v[j];

		m->out[sh->final[j]] = (struct hwp__cg_tnode){ final_of(m, x->parent), x->key, x->samples, x->period };
	}
}

static void merge_free(struct merge *m)
{
	for (size_t k = 0; k < m->n; k++) {
		free(m->order[k]);
		free(m->level[k]);
		free(m->name[k]);
	}
	free(m->order);
	free(m->level);
	free(m->name);
	free(m->maxdepth);
	for (size_t s = 0; m->sh && s < m->nshards; s++) {
		free(m->sh[s].v);
		hwp__hashmap_free(&m->sh[s].map);
		free(m->sh[s].sorted);
		free(m->sh[s].final);
	}
	free(m->sh);
	for (size_t b = 0; m->bk && b < m->nshards * m->nshards; b++)
		free(m->bk[b].v);
	free(m->bk);
}

int hwp__trie_merge(const struct hwp__trie_part *parts, size_t n, unsigned threads, struct hwp__cg_tnode **out,
		    size_t *nout)
{
	struct merge m = { .parts = parts, .n = n };
	size_t nn = n ? n : 1, total = 0;
	int err;

	m.nshards = threads < 1 ? 1 : threads > MAX_SHARDS ? MAX_SHARDS : threads;
	*out = NULL;
	*nout = 0;
	m.order = calloc(nn, sizeof(*m.order));
	m.level = calloc(nn, sizeof(*m.level));
	m.name = calloc(nn, sizeof(*m.name));
	m.maxdepth = calloc(nn, sizeof(*m.maxdepth));
	m.sh = calloc(m.nshards, sizeof(*m.sh));
	m.bk = calloc(m.nshards * m.nshards, sizeof(*m.bk));
	if (!m.order || !m.level || !m.name || !m.maxdepth || !m.sh || !m.bk) {
		err = -ENOMEM;
		goto out;
	}
	hwp__par_run(n, sort_part, &m);
	if ((err = first_err(&m)) || (err = reserve_shards(&m)) || (err = merge_depths(&m)))
		goto out;
	hwp__par_run(m.nshards, sort_shard, &m);
	if ((err = first_err(&m)))
		goto out;
	for (size_t s = 0; s < m.nshards; s++)
		total += m.sh[s].nr;
	if (total >= UINT32_MAX) {
		err = -EOVERFLOW;
		goto out;
	}
	if (!(m.out = malloc((total + 1) * sizeof(*m.out))) || number(&m) != total + 1) {
		err = -ENOMEM;
		goto out;
	}
	m.out[0] = (struct hwp__cg_tnode){ 0 };
	hwp__par_run(m.nshards, write_shard, &m);
	*out = m.out;
	*nout = total + 1;
	m.out = NULL;
out:
	free(m.out);
	merge_free(&m);
	return err;
}
