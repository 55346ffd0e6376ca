/* SPDX-License-Identifier: MIT */
/* Open-addressing hash table of branch rows; rows live in one dense array. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/branch_table.h"
#include "hwprof/perf_abi.h"

struct hwp_branch_table {
	unsigned split;
	struct hwp_branch_row *rows;
	size_t nr, cap_rows;
	uint32_t *slots; /* row index + 1; 0 = empty */
	size_t nslots;
	uint64_t total;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

static uint64_t key_hash(const struct hwp_branch_key *k)
{
	uint64_t h = mix(0, ((uint64_t)(uint32_t)k->from.module << 32) | (uint32_t)k->to.module);
	h = mix(h, k->from.offset);
	h = mix(h, k->to.offset);
	h = mix(h, ((uint64_t)k->mispred_state << 32) | ((uint64_t)k->type << 16) | k->cycles);
	return h ^ (h >> 29);
}

static bool key_eq(const struct hwp_branch_key *a, const struct hwp_branch_key *b)
{
	return a->from.offset == b->from.offset && a->to.offset == b->to.offset &&
	       a->from.module == b->from.module && a->to.module == b->to.module &&
	       a->mispred_state == b->mispred_state && a->type == b->type && a->cycles == b->cycles;
}

struct hwp_branch_table *hwp_branch_table__new(unsigned split)
{
	struct hwp_branch_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->split = split;
	t->nslots = 1024;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	if (!t->slots) {
		free(t);
		return NULL;
	}
	return t;
}

void hwp_branch_table__delete(struct hwp_branch_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->slots);
	free(t);
}

static int grow(struct hwp_branch_table *t)
{
	size_t n = t->nslots * 2;
	uint32_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < t->nr; i++) {
		size_t j = key_hash(&t->rows[i].key) & (n - 1);
		while (slots[j])
			j = (j + 1) & (n - 1);
		slots[j] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

/* The row for K, inserted (zeroed) when new; NULL when out of memory. */
static struct hwp_branch_row *find_or_insert(struct hwp_branch_table *t,
					      const struct hwp_branch_key *k)
{
	size_t j = key_hash(k) & (t->nslots - 1);

	while (t->slots[j]) {
		struct hwp_branch_row *r = &t->rows[t->slots[j] - 1];
		if (key_eq(&r->key, k))
			return r;
		j = (j + 1) & (t->nslots - 1);
	}
	if (t->nr == t->cap_rows) {
		size_t cap = t->cap_rows ? t->cap_rows * 2 : 256;
		struct hwp_branch_row *rows = cap < UINT32_MAX ? realloc(t->rows, cap * sizeof(*rows)) : NULL;
		if (!rows)
			return NULL;
		t->rows = rows;
		t->cap_rows = cap;
	}
	struct hwp_branch_row *r = &t->rows[t->nr];
	memset(r, 0, sizeof(*r));
	r->key = *k;
	t->slots[j] = (uint32_t)++t->nr;
	if (t->nr * 2 > t->nslots && grow(t) < 0)
		return NULL;
	return r;
}

int hwp_branch_table__add(struct hwp_branch_table *t, const struct hwp_code_loc *from,
			  const struct hwp_code_loc *to, uint64_t flags)
{
	struct hwp_branch_key k;
	bool mispred = flags & 1, predicted = (flags >> 1) & 1;
	uint16_t cycles = (uint16_t)(flags >> HWP_BRF_CYCLES_SHIFT);

	memset(&k, 0, sizeof(k));
	k.from = *from;
	k.to = *to;
	/* The recorded address is not part of the key: only the first one seen is kept. */
	if (t->split & HWP_SPLIT_MISPRED)
		k.mispred_state = (uint8_t)(flags & 3); /* perf compares both bits */
	if (t->split & HWP_SPLIT_TYPE)
		k.type = (flags >> HWP_BRF_TYPE_SHIFT) & 0xf;
	if (t->split & HWP_SPLIT_CYCLES)
		k.cycles = cycles;

	struct hwp_branch_row *r = find_or_insert(t, &k);
	if (!r)
		return -ENOMEM;
	r->c.count++;
	r->c.mispred += mispred && !predicted;
	r->c.predicted += predicted;
	if (cycles) {
		r->c.cycles_sum += cycles;
		r->c.cycles_n++;
	}
	t->total++;
	return 0;
}

size_t hwp_branch_table__size(const struct hwp_branch_table *t)
{
	return t->nr;
}

uint64_t hwp_branch_table__total(const struct hwp_branch_table *t)
{
	return t->total;
}

const struct hwp_branch_row *hwp_branch_table__rows(const struct hwp_branch_table *t, size_t *n)
{
	*n = t->nr;
	return t->rows;
}
