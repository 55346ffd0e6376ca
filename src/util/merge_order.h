/* SPDX-License-Identifier: MIT */
/*
 * The order in which a parallel pass's parts' rows merge. A table keeps its
 * rows in the order their keys were first added; each part notes where in
 * the sequential order (a number that grows with the samples) it added
 * each row first, and adding the parts' rows in the order of those places
 * rebuilds the sequential table's order.
 */
#ifndef HWPROF_UTIL_MERGE_ORDER_H
#define HWPROF_UTIL_MERGE_ORDER_H

#include <stddef.h>
#include <stdint.h>

struct hwp__merge_ref {
	uint64_t pos;  /* where first added */
	uint32_t part; /* which part */
	uint32_t row;  /* its row there */
};

/* Part K's rows: *NR of them, *FIRST[I] where row I was first added. */
typedef void (*hwp__merge_rows_fn)(void *ctx, size_t k, const uint64_t **first, size_t *nr);

/* The rows of N parts (ROWS tells each part's) sorted by the places they
   were first added into *OUT (malloc'd, *TOTAL of them). 0 or -ENOMEM. */
int hwp__merge_order(size_t n, hwp__merge_rows_fn rows, void *ctx, struct hwp__merge_ref **out, size_t *total);

#endif
