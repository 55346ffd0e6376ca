/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "util/merge_order.h"
#include "util/vec.h"

static int ref_cmp(const void *a, const void *b)
{
	const struct hwp__merge_ref *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
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
	if (!v)
		return -ENOMEM;
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		rows(ctx, k, &first, &nr);
		for (size_t i = 0; i < nr; i++)
			v[m++] = (struct hwp__merge_ref){ first[i], (uint32_t)k, (uint32_t)i };
	}
	hwp__sort(v, m, sizeof(*v), ref_cmp);
	*out = v;
	*total = m;
	return 0;
}
