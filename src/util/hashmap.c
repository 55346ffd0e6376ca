/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/big_alloc.h"
#include "util/hashmap.h"

#define MIN_SLOTS 16

static size_t home(uint64_t slot, size_t mask)
{
	return (size_t)(slot >> 32) & mask;
}

static void place(uint64_t *slots, size_t mask, uint64_t slot)
{
	size_t j = home(slot, mask);

	while (slots[j])
		j = (j + 1) & mask;
	slots[j] = slot;
}

static int grow(struct hwp_hashmap *m)
{
	size_t n = m->slots ? 2 * (m->mask + 1) : MIN_SLOTS;
	/* (probed at random: a large map's slots in huge pages) */
	uint64_t *v = hwp__big_zalloc(n * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; m->slots && i <= m->mask; i++)
		if (m->slots[i])
			place(v, n - 1, m->slots[i]);
	hwp__big_free(m->slots, (m->mask + 1) * sizeof(*m->slots));
	m->slots = v;
	m->mask = n - 1;
	return 0;
}

int hwp__hashmap_reserve(struct hwp_hashmap *m, size_t n)
{
	if (n > HWP_HASHMAP_MAX_ENTRIES)
		return -EOVERFLOW;
	while (!m->slots || n * 2 > m->mask + 1) {
		int err = grow(m);

		if (err)
			return err;
	}
	return 0;
}

int hwp__hashmap_add(struct hwp_hashmap *m, uint64_t hash, size_t idx)
{
	if (idx >= HWP_HASHMAP_MAX_ENTRIES || m->nr >= HWP_HASHMAP_MAX_ENTRIES)
		return -EOVERFLOW;
	if (!m->slots || (m->nr + 1) * 2 > m->mask + 1) {
		int err = grow(m);

		if (err)
			return err;
	}
	place(m->slots, m->mask, (hash << 32) | (uint64_t)(idx + 1));
	m->nr++;
	return 0;
}

/* The slot holding entry IDX, or SIZE_MAX. */
static size_t slot_of(const struct hwp_hashmap *m, uint64_t hash, size_t idx)
{
	if (!m->slots || idx >= HWP_HASHMAP_MAX_ENTRIES)
		return SIZE_MAX;
	for (size_t j = (size_t)hash & m->mask; m->slots[j]; j = (j + 1) & m->mask)
		if ((uint32_t)m->slots[j] == idx + 1)
			return j;
	return SIZE_MAX;
}

int hwp__hashmap_remove(struct hwp_hashmap *m, uint64_t hash, size_t idx)
{
	size_t i = slot_of(m, hash, idx);

	if (i == SIZE_MAX)
		return -ENOENT;
	/* Backward shift (no tombstones): every later entry of the run whose
	   probe path crosses the hole moves into it, until an empty slot. */
	for (size_t j = (i + 1) & m->mask; m->slots[j]; j = (j + 1) & m->mask) {
		size_t dist_home = (j - home(m->slots[j], m->mask)) & m->mask;

		if (dist_home >= ((j - i) & m->mask)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i] = 0;
	m->nr--;
	return 0;
}

int hwp__hashmap_renumber(struct hwp_hashmap *m, uint64_t hash, size_t old_idx, size_t new_idx)
{
	size_t i = slot_of(m, hash, old_idx);

	if (new_idx >= HWP_HASHMAP_MAX_ENTRIES)
		return -EOVERFLOW;
	if (i == SIZE_MAX)
		return -ENOENT;
	m->slots[i] = (m->slots[i] & 0xffffffff00000000ULL) | (uint64_t)(new_idx + 1);
	return 0;
}

void hwp__hashmap_clear(struct hwp_hashmap *m)
{
	if (m->slots)
		memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
	m->nr = 0;
}

void hwp__hashmap_free(struct hwp_hashmap *m)
{
	hwp__big_free(m->slots, (m->mask + 1) * sizeof(*m->slots));
	m->slots = NULL;
	m->mask = 0;
	m->nr = 0;
}
