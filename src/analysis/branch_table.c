/* SPDX-License-Identifier: MIT */
/*
 * Branch rows in one dense array (insertion order), indexed by the one hash
 * map. This is the per-entry hot path of every branch report: a 1 GB
 * recording adds tens of millions of entries to a few thousand rows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/branch_table.h"
#include "analysis/branch_table_internal.h"
#include "hwprof/perf_abi.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"
#include "util/error.h"

struct hwp_branch_table {
	unsigned split;
	struct hwp_branch_row *rows;
	size_t nr, cap;
	struct hwp_hashmap map;
	uint64_t total;
};

/*
 * The split properties of an entry in one word: bits 0-7 mispred_state, 8-15
 * type, 16-31 cycles, 32-39 tx. A word in a register, not a struct of bytes:
 * the compiler compared such a struct by reloading two byte fields it had just
 * stored as one 16-bit word, a failed store forward that cost 40% of an add.
 */
typedef uint64_t extra_t;

static inline extra_t extra_pack(uint8_t mispred_state, uint8_t type, uint16_t cycles, uint8_t tx)
{
	return mispred_state | (uint64_t)type << 8 | (uint64_t)cycles << 16 | (uint64_t)tx << 32;
}

static inline extra_t extra_of_key(const struct hwp_branch_key *k)
{
	return extra_pack(k->mispred_state, k->type, k->cycles, k->tx);
}

/*
 * One finalization over a cheap fold of the key, not a chain of them: the
 * offsets of one module fit 32 bits, so from and to land in different halves
 * and distinct branches rarely fold alike (and a clash costs a probe, never
 * a wrong row: the key is compared in full).
 */
static inline uint64_t key_hash(const struct hwp_code_loc *from, const struct hwp_code_loc *to,
				extra_t x)
{
	uint64_t modules = ((uint64_t)(uint32_t)from->module << 32) | (uint32_t)to->module;
	uint64_t extra = ((x >> 32 & 0xff) << 26) | ((x & 0xff) << 24) | ((x >> 8 & 0xff) << 16) | (x >> 16 & 0xffff);

	return hwp__hash64(from->offset ^ (to->offset << 32 | to->offset >> 32) ^
			   (modules * 0x9e3779b97f4a7c15ULL) ^ (extra << 40));
}

/* The fields of perf_branch_entry's FLAGS that T splits rows by. */
static inline extra_t extra_of_flags(const struct hwp_branch_table *t, uint64_t flags)
{
	extra_t x = 0;

	if (t->split) {
		if (t->split & HWP_SPLIT_MISPRED)
			x |= extra_pack((uint8_t)(flags & 3), 0, 0, 0); /* perf compares both bits */
		if (t->split & HWP_SPLIT_TYPE)
			x |= extra_pack(0, (flags >> HWP_BRF_TYPE_SHIFT) & 0xf, 0, 0);
		if (t->split & HWP_SPLIT_CYCLES)
			x |= extra_pack(0, 0, (uint16_t)(flags >> HWP_BRF_CYCLES_SHIFT), 0);
		if (t->split & HWP_SPLIT_TX)
			x |= extra_pack(0, 0, 0, (uint8_t)((flags >> HWP_BRF_IN_TX_SHIFT) & 3)); /* in_tx, abort */
	}
	return x;
}

static inline bool key_eq(const struct hwp_branch_key *k, const struct hwp_code_loc *from,
			  const struct hwp_code_loc *to, extra_t x)
{
	return k->from.offset == from->offset && k->to.offset == to->offset &&
	       k->from.module == from->module && k->to.module == to->module && extra_of_key(k) == x;
}

struct hwp_branch_table *hwp_branch_table__new(unsigned split)
{
	struct hwp_branch_table *t = calloc(1, sizeof(*t));

	if (!t) {
		hwp__set_error(ENOMEM, "out of memory making a branch table");
		return NULL;
	}
	t->split = split;
	return t;
}

void hwp_branch_table__delete(struct hwp_branch_table *t)
{
	if (!t)
		return;
	free(t->rows);
	hwp__hashmap_free(&t->map);
	free(t);
}

/* A new row for a key not in the table; NULL when out of memory. */
static struct hwp_branch_row *insert(struct hwp_branch_table *t, uint64_t h,
				     const struct hwp_code_loc *from, const struct hwp_code_loc *to,
				     extra_t x)
{
	struct hwp_branch_row *r = HWP_VEC_PUSH(t->rows, t->nr, t->cap);

	if (!r)
		return NULL;
	if (hwp__hashmap_add(&t->map, h, t->nr - 1) < 0) {
		t->nr--;
		return NULL;
	}
	/* The recorded address is not part of the key: only the first one seen is kept. */
	r->key.from = *from;
	r->key.to = *to;
	r->key.mispred_state = (uint8_t)x;
	r->key.type = (uint8_t)(x >> 8);
	r->key.cycles = (uint16_t)(x >> 16);
	r->key.tx = (uint8_t)(x >> 32);
	return r;
}

int hwp__branch_table_add(struct hwp_branch_table *t, const struct hwp_code_loc *from,
			  const struct hwp_code_loc *to, uint64_t flags)
{
	bool mispred = flags & 1, predicted = (flags >> 1) & 1;
	uint16_t cycles = (uint16_t)(flags >> HWP_BRF_CYCLES_SHIFT);
	extra_t x = extra_of_flags(t, flags);

	uint64_t h = key_hash(from, to, x);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&t->map, h);
	struct hwp_branch_row *r = NULL;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i)) {
		if (key_eq(&t->rows[i].key, from, to, x)) {
			r = &t->rows[i];
			break;
		}
	}
	int added = 0;

	if (!r) {
		if (!(r = insert(t, h, from, to, x)))
			return hwp__set_error(ENOMEM, "out of memory adding branch row %zu to the branch table",
					      t->nr + 1);
		added = 1;
	}
	r->c.count++;
	r->c.mispred += mispred && !predicted;
	r->c.predicted += predicted;
	if (cycles) {
		r->c.cycles_sum += cycles;
		r->c.cycles_n++;
	}
	t->total++;
	return added;
}

void hwp__branch_table_prefetch(const struct hwp_branch_table *t, const struct hwp_code_loc *from,
				const struct hwp_code_loc *to, int stage)
{
	uint64_t h = key_hash(from, to, 0);
	int64_t i;

	if (!stage)
		hwp__hashmap_prefetch(&t->map, h);
	else if ((i = hwp__hashmap_first(&t->map, h)) >= 0) {
		/* a row spans two cache lines */
		__builtin_prefetch(&t->rows[i]);
		__builtin_prefetch((const char *)&t->rows[i + 1] - 1);
	}
}

int hwp_branch_table__add_row(struct hwp_branch_table *t, const struct hwp_branch_row *row)
{
	const struct hwp_branch_key *k = &row->key;
	extra_t x = extra_pack(t->split & HWP_SPLIT_MISPRED ? k->mispred_state : 0,
			       t->split & HWP_SPLIT_TYPE ? k->type : 0, t->split & HWP_SPLIT_CYCLES ? k->cycles : 0,
			       t->split & HWP_SPLIT_TX ? k->tx : 0);

	uint64_t h = key_hash(&k->from, &k->to, x);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&t->map, h);
	struct hwp_branch_row *r = NULL;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i)) {
		if (key_eq(&t->rows[i].key, &k->from, &k->to, x)) {
			r = &t->rows[i];
			break;
		}
	}
	if (!r && !(r = insert(t, h, &k->from, &k->to, x)))
		return hwp__set_error(ENOMEM, "out of memory adding branch row %zu to the branch table", t->nr + 1);
	r->c.count += row->c.count;
	r->c.mispred += row->c.mispred;
	r->c.predicted += row->c.predicted;
	r->c.cycles_sum += row->c.cycles_sum;
	r->c.cycles_n += row->c.cycles_n;
	t->total += row->c.count;
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

int hwp__branch_table_retain(struct hwp_branch_table *t, size_t first,
			     bool (*keep)(void *ctx, const struct hwp_branch_row *r), void *ctx)
{
	size_t n = first;
	struct hwp_hashmap map = { 0 };

	for (size_t i = first; i < t->nr; i++) {
		if (keep(ctx, &t->rows[i]))
			t->rows[n++] = t->rows[i];
		else
			t->total -= t->rows[i].c.count;
	}
	if (n == t->nr)
		return 0;
	t->nr = n;
	/* positions moved: index the rows again */
	for (size_t i = 0; i < n; i++) {
		const struct hwp_branch_key *k = &t->rows[i].key;
		if (hwp__hashmap_add(&map, key_hash(&k->from, &k->to, extra_of_key(k)), i) < 0) {
			hwp__hashmap_free(&map);
			return hwp__set_error(ENOMEM, "out of memory re-indexing the branch table");
		}
	}
	hwp__hashmap_free(&t->map);
	t->map = map;
	return 0;
}
