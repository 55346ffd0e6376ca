/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "analysis/loc_index.h"
#include "util/vec.h"

long hwp__loc_index_get(struct hwp__loc_index *x, int32_t module, uint64_t offset, int *added)
{
	long i = hwp__loc_index_find(x, module, offset);
	struct hwp__loc_key *k;

	*added = 0;
	if (i >= 0)
		return i;
	if (!(k = HWP_VEC_PUSH(x->keys, x->nr, x->cap)))
		return -ENOMEM;
	if (hwp__hashmap_add(&x->map, hwp__loc_hash(module, offset), x->nr - 1) < 0) {
		x->nr--;
		return -ENOMEM;
	}
	k->module = module;
	k->offset = offset;
	*added = 1;
	return (long)(x->nr - 1);
}

void hwp__loc_index_free(struct hwp__loc_index *x)
{
	free(x->keys);
	hwp__hashmap_free(&x->map);
	x->keys = NULL;
	x->nr = x->cap = 0;
}
