/* SPDX-License-Identifier: MIT */
/*
 * The call-graph trie node a whole call chain led to, remembered per
 * distinct chain: a chain seen again costs one hash of its addresses and
 * one compare, instead of a map lookup and two hash probes per frame.
 * The same chain means the same node only while the address spaces stay
 * as they were, so the key holds the address spaces (an input's machine),
 * their generation and the pid whose maps resolved it. A fixed number of
 * slots, two per set, each set keeping the last two chains that hashed to
 * it: memory stays bounded whatever the recording.
 *
 * Each remembered chain has an id, and the cache also remembers, per chain
 * id and innermost address (most often the sample's IP, different from
 * sample to sample), the leaf node the whole sample led to: a sample whose
 * callers and IP were both seen costs two lookups in memory the cache keeps
 * small, instead of resolving its IP and two probes of the trie's maps,
 * which on a large recording miss the CPU's caches. The leaf counts that
 * sample itself, and hands its counts to the owner (the settle callback)
 * when it leaves its slot or the owner asks: a sample then touches no
 * trie memory at all. The leaves' table grows, up to a bound, as it
 * fills. An id is never reused
 * (all ids used: everything is forgotten), so a chain replaced in its slot
 * leaves no leaf that could answer for another.
 */
#ifndef HWPROF_ANALYSIS_CHAIN_CACHE_H
#define HWPROF_ANALYSIS_CHAIN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwp__chain_slot;
struct hwp__chain_leaf;

struct hwp__chain_cache {
	struct hwp__chain_slot *slots;   /* made on first use */
	struct hwp__chain_leaf *leaves;  /* made on first use, in leaves_mem */
	void *leaves_mem;
	size_t nleaves, leaves_used;     /* the leaves, and those ever filled */
	uint32_t last_id;                /* the id last given to a chain */
	bool unsettled;                  /* a leaf counted since the last settle */
	uint64_t hits, misses, leaf_hits, leaf_misses;
	/* the owner's: adds SAMPLES and PERIOD to NODE (set before the first
	   hwp__chain_leaf_put()) */
	void (*settle)(void *ctx, uint32_t node, uint64_t samples, uint64_t period);
	void *settle_ctx;
};

/* Where a chain was resolved: the machine (NULL: none), its generation,
   the pid (-1: no thread); and what the chain is: 0 addresses with their
   flags, else a chain's callers as recorded (hwp__chain_raw(), its words
   without flags), 1 + the context of the address before them. */
struct hwp__chain_where {
	const void *machine;
	uint64_t gen;
	int32_t pid;
	uint32_t kind;
};

/* The hash of chain IPS/FLAGS[0..N) resolved as W says, for the calls below. */
uint64_t hwp__chain_cache_hash(const struct hwp__chain_where *w, const uint64_t *ips, const uint8_t *flags, size_t n);
/* The hash of the N recorded words at WORDS (W's kind not 0); they are
   looked up and put as IPS with FLAGS NULL. */
uint64_t hwp__chain_cache_hash_words(const struct hwp__chain_where *w, const uint8_t *words, size_t n);
/* The node that chain (its hash HASH) led to, if remembered (*NODE set, and
   *ID the chain's id). IPS: N addresses (N words when FLAGS is NULL). */
bool hwp__chain_cache_get(struct hwp__chain_cache *cc, uint64_t hash, const struct hwp__chain_where *w,
			  const void *ips, const uint8_t *flags, size_t n, uint32_t *node, uint32_t *id);
/* Remembers NODE for that chain (replacing the slot's chain) and returns
   its new id. Out of memory or too long a chain: nothing is remembered,
   which is never wrong, and the id is 0. */
uint32_t hwp__chain_cache_put(struct hwp__chain_cache *cc, uint64_t hash, const struct hwp__chain_where *w,
			      const void *ips, const uint8_t *flags, size_t n, uint32_t node);
/* Hints that the leaf of the chain hashed HASH below IP is looked up soon. */
void hwp__chain_leaf_prefetch(const struct hwp__chain_cache *cc, uint64_t hash, uint64_t ip);
/* Counts a sample of PERIOD in the leaf remembered below the chain hashed
   HASH, of id ID (not 0), for innermost address IP in the kernel's context
   or not (KERNEL): true, or false when no such leaf is remembered (the
   caller counts it in its node and puts the leaf). */
bool hwp__chain_leaf_count(struct hwp__chain_cache *cc, uint64_t hash, uint32_t id, uint64_t ip, bool kernel,
			   uint64_t period);
/* Remembers NODE as that leaf, with no counts yet (what its slot held is
   settled first; out of memory: nothing is remembered). */
void hwp__chain_leaf_put(struct hwp__chain_cache *cc, uint64_t hash, uint32_t id, uint64_t ip, bool kernel,
			 uint32_t node);
/* Hands every leaf's counts to the owner (before it reads its nodes). */
void hwp__chain_leaves_settle(struct hwp__chain_cache *cc);
/* Frees the cache; counts not settled are lost. */
void hwp__chain_cache_free(struct hwp__chain_cache *cc);

#endif
