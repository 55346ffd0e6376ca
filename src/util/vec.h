/* SPDX-License-Identifier: MIT */
/*
 * The one growable array of hwprof. A vector is three fields in its owner's
 * struct (pointer, length, capacity); hwp__vec_reserve() grows the storage
 * geometrically and checks the size arithmetic, so no caller multiplies
 * counts by element sizes itself.
 *
 *     struct thing *items; size_t nr, cap;
 *     struct thing *t = HWP_VEC_PUSH(items, nr, cap);   // NULL: out of memory
 */
#ifndef HWPROF_UTIL_VEC_H
#define HWPROF_UTIL_VEC_H

#include <stdlib.h>

#include <stddef.h>

/* Makes room for NEED elements of ELEM bytes at *DATA (capacity *CAP).
   Returns 0 or -ENOMEM (then *DATA and *CAP are unchanged). */
int hwp__vec_reserve(void **data, size_t *cap, size_t need, size_t elem);

/* Appends one zeroed element and returns it; NULL when out of memory. */
void *hwp__vec_push(void **data, size_t *nr, size_t *cap, size_t elem);

#define HWP_VEC_RESERVE(data, cap, need) \
	hwp__vec_reserve((void **)&(data), &(cap), (need), sizeof(*(data)))
#define HWP_VEC_PUSH(data, nr, cap) \
	((__typeof__(data))hwp__vec_push((void **)&(data), &(nr), &(cap), sizeof(*(data))))

/* qsort() for a vector that may be empty (its data NULL: qsort wants a
   valid pointer even for no elements). */
static inline void hwp__sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
