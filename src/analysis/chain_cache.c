/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "analysis/chain_cache.h"
#include "util/big_alloc.h"
#include "util/hash.h"

/* Distinct chains remembered at once (a power of two). 64 bytes each,
   in huge pages: 16384 missed 0.7% of the chains of the
   generated callchain recording (4096 call paths, more distinct chains
   with their processes), 65536 0.15% (each miss a walk of the chain). */
#define NR_SLOTS 65536u
/* Two ways per set: with one, two hot chains that share a slot evict each
   other on every sample (5% misses on a recording of 4096 chains, each miss
   a walk of the whole chain); with two, three must meet. */
#define NR_SETS (NR_SLOTS / 2)
#define MAX_CHAIN 512u  /* longer chains are not remembered */
/* (chain, innermost address) pairs remembered: first LEAVES_MIN, doubled
   (the leaves moved over) once more than a quarter are in use, up to
   LEAVES_MAX (powers of two; 32 bytes each). A recording of fewer than
   65,536 distinct leaves keeps 8 MB; the generated callchain recording's
   300 k missed 19% of its samples in 262,144, in 1,048,576 8.5%. */
#define LEAVES_MIN 262144u
#define LEAVES_MAX 1048576u
#define MAX_ID 0x7fffffffu /* a leaf's key holds the id and the kernel bit in 32 bits */

struct hwp__chain_slot {
	uint64_t hash;
	struct hwp__chain_where w;
	uint32_t n, cap; /* frames held, and room for */
	uint32_t node;
	uint32_t id;     /* the chain's id, never reused; 0: none */
	uint64_t *ips;   /* cap addresses, then cap flag bytes */
	uint8_t older;   /* in a set's first slot: which of its two to replace */
};

/* A leaf counts its samples itself (the trie's node is not touched, one
   cache miss less per sample) until it leaves its slot or is settled. Two
   to a set, in one cache line: with one way, a hot leaf that shares its
   slot with one of the many cold ones is pushed out again and again. */
struct hwp__chain_leaf {
	uint64_t ip;
	uint32_t key; /* id << 1 | kernel; 0: empty */
	uint32_t node;
	uint32_t samples; /* (settled before it would wrap) */
	uint32_t mix;     /* the hash that placed it, for a larger table */
	uint64_t period;
};

/* Two independent lanes of multiplies over N words at WORDS (as they lie:
   maybe unaligned), each with its flag byte in the top bits when FLAGS is
   given: a chain is hashed once per sample, so the hash is on the hot path
   (inlined in both callers, FLAGS known there). */
static inline uint64_t hash_lanes(const struct hwp__chain_where *w, const uint8_t *words, const uint8_t *flags,
				  size_t n)
{
	uint64_t a = w->gen ^ ((uint64_t)w->kind << 56), b = (uint64_t)(uint32_t)w->pid ^ ((uint64_t)n << 32);
	size_t i = 0;
	uint64_t x, y;

	for (; i + 1 < n; i += 2) {
		memcpy(&x, words + i * 8, 8);
		memcpy(&y, words + i * 8 + 8, 8);
		a = (a ^ x ^ (flags ? (uint64_t)flags[i] << 56 : 0)) * 0x9e3779b97f4a7c15ULL;
		b = (b ^ y ^ (flags ? (uint64_t)flags[i + 1] << 56 : 0)) * 0xc2b2ae3d27d4eb4fULL;
	}
	if (i < n) {
		memcpy(&x, words + i * 8, 8);
		a = (a ^ x ^ (flags ? (uint64_t)flags[i] << 56 : 0)) * 0x9e3779b97f4a7c15ULL;
	}
	return hwp__hash64(a ^ (b << 31 | b >> 33));
}

uint64_t hwp__chain_cache_hash(const struct hwp__chain_where *w, const uint64_t *ips, const uint8_t *flags, size_t n)
{
	return hash_lanes(w, (const uint8_t *)ips, flags, n);
}

uint64_t hwp__chain_cache_hash_words(const struct hwp__chain_where *w, const uint8_t *words, size_t n)
{
	return hash_lanes(w, words, NULL, n);
}

static uint8_t *slot_flags(const struct hwp__chain_slot *s)
{
	return (uint8_t *)(s->ips + s->cap);
}

static bool same_where(const struct hwp__chain_where *a, const struct hwp__chain_where *b)
{
	return a->machine == b->machine && a->gen == b->gen && a->pid == b->pid && a->kind == b->kind;
}

bool hwp__chain_cache_get(struct hwp__chain_cache *cc, uint64_t hash, const struct hwp__chain_where *w,
			  const void *ips, const uint8_t *flags, size_t n, uint32_t *node, uint32_t *id)
{
	struct hwp__chain_slot *set = cc->slots ? &cc->slots[(hash & (NR_SETS - 1)) * 2] : NULL;

	for (int k = 0; set && k < 2; k++) {
		const struct hwp__chain_slot *s = &set[k];

		/* the whole chain compared: a hash clash is a miss, never a
		   wrong node */
		if (s->ips && s->hash == hash && same_where(&s->w, w) && s->n == n &&
		    !memcmp(s->ips, ips, n * sizeof(uint64_t)) && (!flags || !memcmp(slot_flags(s), flags, n))) {
			cc->hits++;
			set[0].older = (uint8_t)!k;
			*node = s->node;
			*id = s->id;
			return true;
		}
	}
	cc->misses++;
	return false;
}

/* Every id given: everything remembered is forgotten, so that the ids can
   start again without a leaf of an old chain answering for a new one. */
static void forget_all(struct hwp__chain_cache *cc)
{
	hwp__chain_leaves_settle(cc);
	for (size_t i = 0; cc->slots && i < NR_SLOTS; i++) {
		free(cc->slots[i].ips);
		memset(&cc->slots[i], 0, sizeof(cc->slots[i]));
	}
	if (cc->leaves)
		memset(cc->leaves, 0, cc->nleaves * sizeof(*cc->leaves));
	cc->leaves_used = 0;
	cc->last_id = 0;
}

uint32_t hwp__chain_cache_put(struct hwp__chain_cache *cc, uint64_t hash, const struct hwp__chain_where *w,
			      const void *ips, const uint8_t *flags, size_t n, uint32_t node)
{
	if (n > MAX_CHAIN || (!cc->slots && !(cc->slots = hwp__big_zalloc(NR_SLOTS * sizeof(*cc->slots)))))
		return 0;
	if (cc->last_id >= MAX_ID)
		forget_all(cc);
	struct hwp__chain_slot *set = &cc->slots[(hash & (NR_SETS - 1)) * 2];
	struct hwp__chain_slot *s = &set[set[0].older];

	set[0].older = (uint8_t)!set[0].older;

	if (n > s->cap || !s->ips) {
		uint32_t cap = n < 16 ? 16 : (uint32_t)n;
		uint64_t *p = malloc(cap * (sizeof(*p) + 1));

		if (!p) {
			s->n = 0; /* keeps what it held only if it can hold this one */
			free(s->ips);
			s->ips = NULL;
			s->cap = 0;
			s->id = 0;
			return 0;
		}
		free(s->ips);
		s->ips = p;
		s->cap = cap;
	}
	s->hash = hash;
	s->w = *w;
	s->n = (uint32_t)n;
	s->node = node;
	s->id = ++cc->last_id;
	memcpy(s->ips, ips, n * sizeof(uint64_t));
	if (flags)
		memcpy(slot_flags(s), flags, n);
	return s->id;
}

/* N leaves, zeroed, a set to a cache line, in huge pages (probed at
   random: each probe would miss the TLB). */
static bool make_leaves(struct hwp__chain_cache *cc, size_t n)
{
	void *mem = hwp__big_zalloc((n + 4) * sizeof(*cc->leaves));

	if (!mem)
		return false;
	cc->leaves_mem = mem;
	cc->leaves = (struct hwp__chain_leaf *)(((uintptr_t)mem + 63) & ~(uintptr_t)63);
	cc->nleaves = n;
	cc->leaves_used = 0;
	return true;
}

static uint32_t leaf_mix(uint64_t hash, uint64_t ip)
{
	return (uint32_t)hwp__hash64(hash + ip);
}

/* (the chain's hash places a leaf, so that its slot can be prefetched
   before the chain is compared) */
static struct hwp__chain_leaf *leaf_at(const struct hwp__chain_cache *cc, uint64_t hash, uint64_t ip)
{
	return &cc->leaves[leaf_mix(hash, ip) & (cc->nleaves - 2)];
}

void hwp__chain_leaf_prefetch(const struct hwp__chain_cache *cc, uint64_t hash, uint64_t ip)
{
	if (cc->leaves)
		__builtin_prefetch(leaf_at(cc, hash, ip));
}

/* Hands leaf L's counts to the owner. */
static void settle(struct hwp__chain_cache *cc, struct hwp__chain_leaf *l)
{
	if (l->samples) {
		cc->settle(cc->settle_ctx, l->node, l->samples, l->period);
		l->samples = l->period = 0;
	}
}

bool hwp__chain_leaf_count(struct hwp__chain_cache *cc, uint64_t hash, uint32_t id, uint64_t ip, bool kernel,
			   uint64_t period)
{
	uint32_t key = id << 1 | kernel;

	if (id && cc->leaves) {
		struct hwp__chain_leaf *set = leaf_at(cc, hash, ip);

		for (int k = 0; k < 2; k++) {
			struct hwp__chain_leaf *l = &set[k];

			if (l->key == key && l->ip == ip) {
				cc->leaf_hits++;
				cc->unsettled = true;
				if (l->samples == UINT32_MAX)
					settle(cc, l);
				l->samples++;
				l->period += period;
				return true;
			}
		}
	}
	cc->leaf_misses++;
	return false;
}

/* Twice the leaves, each old one moved to its set in the new table with
   its counts. A new set takes leaves of one old set only (its index is
   the old one's with one more bit), so there is always a way free. Out of
   memory: the old table stays. */
static void grow_leaves(struct hwp__chain_cache *cc)
{
	struct hwp__chain_leaf *old = cc->leaves;
	void *old_mem = cc->leaves_mem;
	size_t n = cc->nleaves;

	if (!make_leaves(cc, 2 * n))
		return;
	for (size_t i = 0; i < n; i++) {
		if (!old[i].key)
			continue;
		struct hwp__chain_leaf *set = &cc->leaves[old[i].mix & (cc->nleaves - 2)];
		struct hwp__chain_leaf *l = !set[0].key ? &set[0] : &set[1];

		*l = old[i];
		cc->leaves_used++;
	}
	hwp__big_free(old_mem, (n + 4) * sizeof(*old));
}

void hwp__chain_leaf_put(struct hwp__chain_cache *cc, uint64_t hash, uint32_t id, uint64_t ip, bool kernel,
			 uint32_t node)
{
	if (!id || !cc->settle || (!cc->leaves && !make_leaves(cc, LEAVES_MIN)))
		return;
	if (cc->leaves_used > cc->nleaves / 4 && cc->nleaves < LEAVES_MAX)
		grow_leaves(cc);
	struct hwp__chain_leaf *set = leaf_at(cc, hash, ip);
	/* the one that counted fewer samples since it came (or since the
	   last settle) goes: a hot leaf stays while others come and go */
	struct hwp__chain_leaf *l = !set[0].key || (set[1].key && set[1].samples >= set[0].samples) ? &set[0] : &set[1];

	settle(cc, l);
	cc->leaves_used += !l->key;
	l->mix = leaf_mix(hash, ip);
	l->ip = ip;
	l->key = id << 1 | kernel;
	l->node = node;
}

void hwp__chain_leaves_settle(struct hwp__chain_cache *cc)
{
	/* (a caller reading between adds: no scan when nothing was counted) */
	if (!cc->unsettled)
		return;
	cc->unsettled = false;
	for (size_t i = 0; cc->leaves && i < cc->nleaves; i++)
		settle(cc, &cc->leaves[i]);
}

void hwp__chain_cache_free(struct hwp__chain_cache *cc)
{
	/* (what the leaves counted is the owner's to settle before: here it
	   is dropped) */
	for (size_t i = 0; cc->slots && i < NR_SLOTS; i++)
		free(cc->slots[i].ips);
	hwp__big_free(cc->slots, NR_SLOTS * sizeof(*cc->slots));
	hwp__big_free(cc->leaves_mem, (cc->nleaves + 4) * sizeof(*cc->leaves));
	memset(cc, 0, sizeof(*cc));
}
