/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "analysis/chain_cache.h"
#include "util/hash.h"

#define NR_SLOTS 16384u /* distinct chains remembered at once (a power of two) */
/* Two ways per set: with one, two hot chains that share a slot evict each
   other on every sample (5% misses on a recording of 4096 chains, each miss
   a walk of the whole chain); with two, three must meet. */
#define NR_SETS (NR_SLOTS / 2)
#define MAX_CHAIN 512u  /* longer chains are not remembered */

struct hwp__chain_slot {
	uint64_t hash;
	struct hwp__chain_where w;
	uint32_t n, cap; /* frames held, and room for */
	uint32_t node;
	uint64_t *ips;   /* cap addresses, then cap flag bytes */
	uint8_t older;   /* in a set's first slot: which of its two to replace */
};

/* Two independent lanes of multiplies over the addresses: a chain is
   hashed once per sample, so the hash is on the hot path. */
static uint64_t chain_hash(const struct hwp__chain_where *w, const uint64_t *ips, const uint8_t *flags, size_t n)
{
	uint64_t a = w->gen, b = (uint64_t)(uint32_t)w->pid ^ ((uint64_t)n << 32);
	size_t i = 0;

	for (; i + 1 < n; i += 2) {
		a = (a ^ ips[i] ^ ((uint64_t)flags[i] << 56)) * 0x9e3779b97f4a7c15ULL;
		b = (b ^ ips[i + 1] ^ ((uint64_t)flags[i + 1] << 56)) * 0xc2b2ae3d27d4eb4fULL;
	}
	if (i < n)
		a = (a ^ ips[i] ^ ((uint64_t)flags[i] << 56)) * 0x9e3779b97f4a7c15ULL;
	return hwp__hash64(a ^ (b << 31 | b >> 33));
}

static uint8_t *slot_flags(const struct hwp__chain_slot *s)
{
	return (uint8_t *)(s->ips + s->cap);
}

static bool same_where(const struct hwp__chain_where *a, const struct hwp__chain_where *b)
{
	return a->machine == b->machine && a->gen == b->gen && a->pid == b->pid;
}

bool hwp__chain_cache_get(struct hwp__chain_cache *cc, const struct hwp__chain_where *w, const uint64_t *ips,
			  const uint8_t *flags, size_t n, uint64_t *hash, uint32_t *node)
{
	*hash = chain_hash(w, ips, flags, n);
	struct hwp__chain_slot *set = cc->slots ? &cc->slots[(*hash & (NR_SETS - 1)) * 2] : NULL;

	for (int k = 0; set && k < 2; k++) {
		const struct hwp__chain_slot *s = &set[k];

		/* the whole chain compared: a hash clash is a miss, never a
		   wrong node */
		if (s->ips && s->hash == *hash && same_where(&s->w, w) && s->n == n &&
		    !memcmp(s->ips, ips, n * sizeof(*ips)) && !memcmp(slot_flags(s), flags, n)) {
			cc->hits++;
			set[0].older = (uint8_t)!k;
			*node = s->node;
			return true;
		}
	}
	cc->misses++;
	return false;
}

void hwp__chain_cache_put(struct hwp__chain_cache *cc, uint64_t hash, const struct hwp__chain_where *w,
			  const uint64_t *ips, const uint8_t *flags, size_t n, uint32_t node)
{
	if (n > MAX_CHAIN || (!cc->slots && !(cc->slots = calloc(NR_SLOTS, sizeof(*cc->slots)))))
		return;
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
			return;
		}
		free(s->ips);
		s->ips = p;
		s->cap = cap;
	}
	s->hash = hash;
	s->w = *w;
	s->n = (uint32_t)n;
	s->node = node;
	memcpy(s->ips, ips, n * sizeof(*ips));
	memcpy(slot_flags(s), flags, n);
}

void hwp__chain_cache_free(struct hwp__chain_cache *cc)
{
	for (size_t i = 0; cc->slots && i < NR_SLOTS; i++)
		free(cc->slots[i].ips);
	free(cc->slots);
	cc->slots = NULL;
}
