/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

int hwp__vec_reserve(void **data, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap : 16;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return -ENOMEM;
		n *= 2;
	}
	if (elem && n > SIZE_MAX / elem)
		return -ENOMEM;
	void *p = realloc(*data, n * elem);
	if (!p)
		return -ENOMEM;
	*data = p;
	*cap = n;
	return 0;
}

void *hwp__vec_push(void **data, size_t *nr, size_t *cap, size_t elem)
{
	if (*nr == SIZE_MAX || hwp__vec_reserve(data, cap, *nr + 1, elem))
		return NULL;
	void *p = (char *)*data + *nr * elem;
	memset(p, 0, elem);
	(*nr)++;
	return p;
}
