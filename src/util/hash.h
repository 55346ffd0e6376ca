/* SPDX-License-Identifier: MIT */
/* The one hash function of hwprof: every table hashes its keys with these. */
#ifndef HWPROF_UTIL_HASH_H
#define HWPROF_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Finalizer of MurmurHash3 (fmix64): spreads every input bit over the word,
   so a table can use the low bits of the result as its index. */
static inline uint64_t hwp__hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* Folds V into the running hash H (for keys of several words). */
static inline uint64_t hwp__hash_combine(uint64_t h, uint64_t v)
{
	return hwp__hash64(h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)));
}

#define HWP_FNV1A_INIT 1469598103934665603ULL

/* FNV-1a, running: P's N bytes folded into H (start from HWP_FNV1A_INIT);
   not finalized, for hashes that are written down (spool names, CFG
   hashes) and must stay what they were. */
static inline uint64_t hwp__fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return h;
}

/* FNV-1a over bytes, finalized: for strings and byte keys (build-ids). */
static inline uint64_t hwp__hash_bytes(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ULL;
	return hwp__hash64(h);
}

static inline uint64_t hwp__hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return hwp__hash64(h);
}

#endif
