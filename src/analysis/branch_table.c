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

struct hwp_branch_row *hwp__branch_table_insert(struct hwp_branch_table *t, uint64_t h, const struct hwp_code_loc *from,
						const struct hwp_code_loc *to, hwp__bt_extra_t x)
{
	struct hwp_branch_row *r = HWP_VEC_PUSH(t->rows, t->nr, t->cap);

	if (r && hwp__hashmap_add(&t->map, h, t->nr - 1) < 0) {
		t->nr--;
		r = NULL;
	}
	if (!r) {
		hwp__set_error(ENOMEM, "out of memory adding branch row %zu to the branch table", t->nr + 1);
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

void hwp__branch_table_prefetch(const struct hwp_branch_table *t, const struct hwp_code_loc *from,
				const struct hwp_code_loc *to, int stage)
{
	uint64_t h = hwp__bt_key_hash(from, to, 0);
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
	hwp__bt_extra_t x = hwp__bt_extra_pack(t->split & HWP_SPLIT_MISPRED ? k->mispred_state : 0,
					       t->split & HWP_SPLIT_TYPE ? k->type : 0,
					       t->split & HWP_SPLIT_CYCLES ? k->cycles : 0, t->split & HWP_SPLIT_TX ? k->tx : 0);

	uint64_t h = hwp__bt_key_hash(&k->from, &k->to, x);
	struct hwp_branch_row *r = hwp__bt_find(t, h, &k->from, &k->to, x);

	if (!r && !(r = hwp__branch_table_insert(t, h, &k->from, &k->to, x)))
		return -ENOMEM;
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
		if (hwp__hashmap_add(&map, hwp__bt_key_hash(&k->from, &k->to, hwp__bt_extra_of_key(k)), i) < 0) {
			hwp__hashmap_free(&map);
			return hwp__set_error(ENOMEM, "out of memory re-indexing the branch table");
		}
	}
	hwp__hashmap_free(&t->map);
	t->map = map;
	return 0;
}
