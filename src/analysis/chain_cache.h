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
 */
#ifndef HWPROF_ANALYSIS_CHAIN_CACHE_H
#define HWPROF_ANALYSIS_CHAIN_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwp__chain_slot;

struct hwp__chain_cache {
	struct hwp__chain_slot *slots; /* made on first use */
	uint64_t hits, misses;
};

/* Where a chain was resolved: the machine (NULL: none), its generation,
   the pid (-1: no thread). */
struct hwp__chain_where {
	const void *machine;
	uint64_t gen;
	int32_t pid;
};

/* The node IPS/FLAGS[0..N) led to, resolved as W says, if remembered
   (*NODE set); *HASH is for hwp__chain_cache_put(). */
bool hwp__chain_cache_get(struct hwp__chain_cache *cc, const struct hwp__chain_where *w, const uint64_t *ips,
			  const uint8_t *flags, size_t n, uint64_t *hash, uint32_t *node);
/* Remembers NODE for that chain (replacing the slot's chain). Out of
   memory or too long a chain: nothing is remembered, which is never wrong. */
void hwp__chain_cache_put(struct hwp__chain_cache *cc, uint64_t hash, const struct hwp__chain_where *w,
			  const uint64_t *ips, const uint8_t *flags, size_t n, uint32_t node);
void hwp__chain_cache_free(struct hwp__chain_cache *cc);

#endif
