/* SPDX-License-Identifier: MIT */
/*
 * The one hash map of hwprof. It is only an index: the entries live in an
 * array the owner keeps (a vector, util/vec.h), in insertion order, and the
 * map stores their positions. So rows stay contiguous, iterating is a loop
 * over the owner's array, and every table shares this one probe.
 *
 * Open addressing with linear probing over 64-bit slots: the entry's index + 1
 * (0 = empty) in the low half, the low 32 bits of its hash in the high half.
 * Most mismatches are rejected on the slot alone, without touching the entry,
 * and the map grows without calling back into its owner (an entry's home
 * slot is hash & mask, and those bits are stored). Load stays <= 1/2.
 *
 * The caller hashes (util/hash.h) and compares; the probe is inline, so the
 * comparison is too:
 *
 *     uint64_t h = hwp__hash64(key);
 *     struct hwp_hashmap_probe p = hwp__hashmap_probe(&t->map, h);
 *     uint32_t i;
 *     while (hwp__hashmap_next(&p, &i))
 *             if (t->rows[i].key == key)
 *                     return &t->rows[i];
 *     row = HWP_VEC_PUSH(t->rows, t->nr, t->cap);      // not found: append
 *     if (!row || hwp__hashmap_add(&t->map, h, t->nr - 1) < 0)
 *             ...                                       // -ENOMEM
 *
 * A zeroed struct hwp_hashmap is an empty map; hwp__hashmap_free() releases it.
 */
#ifndef HWPROF_UTIL_HASHMAP_H
#define HWPROF_UTIL_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwp_hashmap {
	uint64_t *slots; /* NULL until the first add */
	size_t mask;     /* slots - 1 */
	size_t nr;       /* entries indexed */
};

/* The most entries one map indexes (their indices must fit the slot's half). */
#define HWP_HASHMAP_MAX_ENTRIES ((size_t)INT32_MAX)

struct hwp_hashmap_probe {
	const uint64_t *slots;
	size_t mask, pos;
	uint64_t tag; /* the hash's low half, where slots keep it */
};

/* Starts a lookup of HASH: hwp__hashmap_next() then yields the candidates. */
static inline struct hwp_hashmap_probe hwp__hashmap_probe(const struct hwp_hashmap *m,
							  uint64_t hash)
{
	struct hwp_hashmap_probe p = { m->slots, m->mask, (size_t)hash & m->mask, hash << 32 };

	return p;
}

/* The next entry whose hash matches (in its low 32 bits): *IDX is its index
   in the owner's array, which the caller compares. False at the end of the
   probe: the key is not in the map. */
static inline bool hwp__hashmap_next(struct hwp_hashmap_probe *p, uint32_t *idx)
{
	if (!p->slots)
		return false;
	for (;;) {
		uint64_t s = p->slots[p->pos];

		if (!s)
			return false;
		p->pos = (p->pos + 1) & p->mask;
		if ((s & 0xffffffff00000000ULL) == p->tag) {
			*idx = (uint32_t)s - 1;
			return true;
		}
	}
}

/* Hints that HASH is looked up soon: a loop that hints a batch of keys
   first and then looks them up waits for their cache misses together. */
static inline void hwp__hashmap_prefetch(const struct hwp_hashmap *m, uint64_t hash)
{
	if (m->slots)
		__builtin_prefetch(&m->slots[(size_t)hash & m->mask]);
}

/* The first entry indexed under HASH's slot tag, or -1: a candidate to
   prefetch (the caller still compares keys in its lookup). */
static inline int64_t hwp__hashmap_first(const struct hwp_hashmap *m, uint64_t hash)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(m, hash);
	uint32_t i;

	return hwp__hashmap_next(&p, &i) ? (int64_t)i : -1;
}

/* Indexes entry IDX under HASH (the caller knows the key is not there yet).
   0, -ENOMEM (the map is unchanged), or -EOVERFLOW past
   HWP_HASHMAP_MAX_ENTRIES. */
int hwp__hashmap_add(struct hwp_hashmap *m, uint64_t hash, size_t idx);

/* Room for N entries without growing (a map about to index them all).
   0, -ENOMEM (the map is unchanged) or -EOVERFLOW. */
int hwp__hashmap_reserve(struct hwp_hashmap *m, size_t n);

/* Drops entry IDX, indexed under HASH. 0, or -ENOENT when it is not there. */
int hwp__hashmap_remove(struct hwp_hashmap *m, uint64_t hash, size_t idx);

/* Entry OLD_IDX (indexed under HASH) moved to NEW_IDX in the owner's array,
   e.g. when the owner fills a hole with its last entry. 0, -ENOENT, or
   -EOVERFLOW past HWP_HASHMAP_MAX_ENTRIES. */
int hwp__hashmap_renumber(struct hwp_hashmap *m, uint64_t hash, size_t old_idx, size_t new_idx);

/* Forgets every entry, keeping the slots for reuse. */
void hwp__hashmap_clear(struct hwp_hashmap *m);

void hwp__hashmap_free(struct hwp_hashmap *m);

#endif
