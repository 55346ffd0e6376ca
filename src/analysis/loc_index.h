/* SPDX-License-Identifier: MIT */
/*
 * An index of code places (module, offset) -> dense position 0, 1, 2, ...
 * in insertion order, over the one hash map. The flow analyses keep one per
 * kind of thing (branch sites, block starts, marks) and their payloads in
 * parallel arrays, so each payload type needs no key fields or probe code
 * of its own.
 */
#ifndef HWPROF_ANALYSIS_LOC_INDEX_H
#define HWPROF_ANALYSIS_LOC_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"
#include "util/hashmap.h"

struct hwp__loc_key {
	int32_t module;
	uint64_t offset;
};

struct hwp__loc_index {
	struct hwp__loc_key *keys;
	size_t nr, cap;
	struct hwp_hashmap map;
};

static inline uint64_t hwp__loc_hash(int32_t module, uint64_t offset)
{
	return hwp__hash64(offset ^ ((uint64_t)(uint32_t)module * 0x9e3779b97f4a7c15ULL));
}

/* The position of (MODULE, OFFSET), or -1 when it is not indexed. */
static inline long hwp__loc_index_find(const struct hwp__loc_index *x, int32_t module, uint64_t offset)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&x->map, hwp__loc_hash(module, offset));
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (x->keys[i].offset == offset && x->keys[i].module == module)
			return (long)i;
	return -1;
}

/* The position of (MODULE, OFFSET), indexing it when new (*ADDED set then,
   and the position is the old x->nr); -ENOMEM. */
long hwp__loc_index_get(struct hwp__loc_index *x, int32_t module, uint64_t offset, int *added);
void hwp__loc_index_free(struct hwp__loc_index *x);

#endif
