/* SPDX-License-Identifier: MIT */
/* Internal: operations on a branch table that only the library needs. */
#ifndef HWPROF_ANALYSIS_BRANCH_TABLE_INTERNAL_H
#define HWPROF_ANALYSIS_BRANCH_TABLE_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/branch_table.h"
#include "hwprof/perf_abi.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"

/*
 * Drops the rows from index FIRST on for which KEEP returns false; the kept
 * ones stay in their order (rows before FIRST are kept unasked), and the
 * total drops by the dropped rows' counts. Returns 0 or -ENOMEM (rows are
 * then dropped but the index is stale: the table must only be deleted).
 */
int hwp__branch_table_retain(struct hwp_branch_table *t, size_t first,
			     bool (*keep)(void *ctx, const struct hwp_branch_row *r), void *ctx);

/* Here, not in branch_table.c, so that the per-entry add below inlines
   into the collector's loop. */
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
typedef uint64_t hwp__bt_extra_t;

static inline hwp__bt_extra_t hwp__bt_extra_pack(uint8_t mispred_state, uint8_t type, uint16_t cycles, uint8_t tx)
{
	return mispred_state | (uint64_t)type << 8 | (uint64_t)cycles << 16 | (uint64_t)tx << 32;
}

static inline hwp__bt_extra_t hwp__bt_extra_of_key(const struct hwp_branch_key *k)
{
	return hwp__bt_extra_pack(k->mispred_state, k->type, k->cycles, k->tx);
}

/*
 * One finalization over a cheap fold of the key, not a chain of them: the
 * offsets of one module fit 32 bits, so from and to land in different halves
 * and distinct branches rarely fold alike (and a clash costs a probe, never
 * a wrong row: the key is compared in full).
 */
static inline uint64_t hwp__bt_key_hash(const struct hwp_code_loc *from, const struct hwp_code_loc *to,
					hwp__bt_extra_t x)
{
	uint64_t modules = ((uint64_t)(uint32_t)from->module << 32) | (uint32_t)to->module;
	uint64_t extra = ((x >> 32 & 0xff) << 26) | ((x & 0xff) << 24) | ((x >> 8 & 0xff) << 16) | (x >> 16 & 0xffff);

	return hwp__hash64(from->offset ^ (to->offset << 32 | to->offset >> 32) ^
			   (modules * 0x9e3779b97f4a7c15ULL) ^ (extra << 40));
}

/* The fields of perf_branch_entry's FLAGS that T splits rows by. */
static inline hwp__bt_extra_t hwp__bt_extra_of_flags(const struct hwp_branch_table *t, uint64_t flags)
{
	hwp__bt_extra_t x = 0;

	if (t->split) {
		if (t->split & HWP_SPLIT_MISPRED)
			x |= hwp__bt_extra_pack((uint8_t)(flags & 3), 0, 0, 0); /* perf compares both bits */
		if (t->split & HWP_SPLIT_TYPE)
			x |= hwp__bt_extra_pack(0, (flags >> HWP_BRF_TYPE_SHIFT) & 0xf, 0, 0);
		if (t->split & HWP_SPLIT_CYCLES)
			x |= hwp__bt_extra_pack(0, 0, (uint16_t)(flags >> HWP_BRF_CYCLES_SHIFT), 0);
		if (t->split & HWP_SPLIT_TX)
			x |= hwp__bt_extra_pack(0, 0, 0, (uint8_t)((flags >> HWP_BRF_IN_TX_SHIFT) & 3)); /* in_tx, abort */
	}
	return x;
}

static inline bool hwp__bt_key_eq(const struct hwp_branch_key *k, const struct hwp_code_loc *from,
				  const struct hwp_code_loc *to, hwp__bt_extra_t x)
{
	return k->from.offset == from->offset && k->to.offset == to->offset &&
	       k->from.module == from->module && k->to.module == to->module && hwp__bt_extra_of_key(k) == x;
}

/* T's row of the key (FROM, TO, X), whose hash is H; NULL when it has none. */
static inline struct hwp_branch_row *hwp__bt_find(struct hwp_branch_table *t, uint64_t h, const struct hwp_code_loc *from,
						  const struct hwp_code_loc *to, hwp__bt_extra_t x)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&t->map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (hwp__bt_key_eq(&t->rows[i].key, from, to, x))
			return &t->rows[i];
	return NULL;
}

/* A new row for a key not in the table (hash H); NULL (the error said)
   when out of memory. */
struct hwp_branch_row *hwp__branch_table_insert(struct hwp_branch_table *t, uint64_t h, const struct hwp_code_loc *from,
						const struct hwp_code_loc *to, hwp__bt_extra_t x);

/* FLAGS is perf_branch_entry's flags word. Returns 0, 1 when the key made
   a new row (the last), or -ENOMEM; *ROW, the row's index (rows keep their
   index until hwp__branch_table_retain()). Inline: the per-entry hot path of every
   branch report, whose call cost a fifth of its instructions. */
static inline __attribute__((always_inline)) int hwp__branch_table_count(struct hwp_branch_table *t,
								      const struct hwp_code_loc *from,
								      const struct hwp_code_loc *to,
								      uint64_t flags, uint32_t *row)
{
	bool mispred = flags & 1, predicted = (flags >> 1) & 1;
	uint16_t cycles = (uint16_t)(flags >> HWP_BRF_CYCLES_SHIFT);
	hwp__bt_extra_t x = hwp__bt_extra_of_flags(t, flags);

	uint64_t h = hwp__bt_key_hash(from, to, x);
	struct hwp_branch_row *r = hwp__bt_find(t, h, from, to, x);
	int added = 0;

	if (!r) {
		if (!(r = hwp__branch_table_insert(t, h, from, to, x)))
			return -ENOMEM;
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
	*row = (uint32_t)(r - t->rows);
	return added;
}

static inline __attribute__((always_inline)) int hwp__branch_table_add(struct hwp_branch_table *t,
								    const struct hwp_code_loc *from,
								    const struct hwp_code_loc *to, uint64_t flags)
{
	uint32_t row;

	return hwp__branch_table_count(t, from, to, flags, &row);
}

/* Hints that (FROM, TO) is added to T soon, with no flags (a table that
   splits no field: the sample IPs): STAGE 0 fetches its slot of the index,
   STAGE 1 (some work later, the slot then in the cache) its row. A large
   table of random keys (IPs) waits for two cache misses per add otherwise. */
void hwp__branch_table_prefetch(const struct hwp_branch_table *t, const struct hwp_code_loc *from,
				const struct hwp_code_loc *to, int stage);

#endif
