/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/merge_order.h"
#include "util/vec.h"

/* By place, then row: one part's run, so that ties keep the part's order
   whatever the sort does with equal keys. */
static int ref_cmp(const void *a, const void *b)
{
	const struct hwp__merge_ref *x = a, *y = b;

	if (x->pos != y->pos)
		return x->pos < y->pos ? -1 : 1;
	return (x->row > y->row) - (x->row < y->row);
}

static bool ascending(const struct hwp__merge_ref *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i].pos < v[i - 1].pos)
			return false;
	return true;
}

/* Runs A[0..NA) and B[0..NB), each in order, into OUT (A first on ties). */
static void merge_two(const struct hwp__merge_ref *a, size_t na, const struct hwp__merge_ref *b, size_t nb,
		      struct hwp__merge_ref *out)
{
	size_t i = 0, j = 0;

	while (i < na && j < nb)
		*out++ = b[j].pos < a[i].pos ? b[j++] : a[i++];
	memcpy(out, a + i, (na - i) * sizeof(*a));
	memcpy(out + (na - i), b + j, (nb - j) * sizeof(*b));
}

int hwp__merge_order(size_t n, hwp__merge_rows_fn rows, void *ctx, struct hwp__merge_ref **out, size_t *total)
{
	size_t all = 0, nr;
	const uint64_t *first;

	for (size_t k = 0; k < n; k++) {
		rows(ctx, k, &first, &nr);
		all += nr;
	}
	struct hwp__merge_ref *v = malloc((all ? all : 1) * sizeof(*v));
	/* each run's end in V (a run per part) */
	size_t *end = malloc((n + 1) * sizeof(*end));
	struct hwp__merge_ref *tmp = NULL;
	if (!v || !end)
		goto nomem;
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		size_t start = m;

		rows(ctx, k, &first, &nr);
		for (size_t i = 0; i < nr; i++)
			v[m++] = (struct hwp__merge_ref){ first[i], (uint32_t)k, (uint32_t)i };
		/* a part adds its rows in the order of its samples, so its run is
		   in order already; a table whose places are not (a fixed set of
		   rows, some never seen) is sorted here */
		if (!ascending(v + start, nr))
			hwp__sort(v + start, nr, sizeof(*v), ref_cmp);
		end[k] = m;
	}
	/* adjacent runs merged in rounds: a linear pass per round, log2(N)
	   rounds, instead of sorting rows that are nearly in order */
	size_t runs = n;
	if (runs > 1 && !(tmp = malloc((m ? m : 1) * sizeof(*tmp))))
		goto nomem;
	while (runs > 1) {
		size_t w = 0, from = 0;

		for (size_t r = 0; r < runs; r += 2) {
			size_t mid = end[r], to = r + 1 < runs ? end[r + 1] : mid;

			merge_two(v + from, mid - from, v + mid, to - mid, tmp + from);
			end[w++] = to;
			from = to;
		}
		struct hwp__merge_ref *swap = v;
		v = tmp;
		tmp = swap;
		runs = w;
	}
	free(tmp);
	free(end);
	*out = v;
	*total = m;
	return 0;
nomem:
	free(v);
	free(end);
	return -ENOMEM;
}
