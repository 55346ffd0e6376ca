/* SPDX-License-Identifier: MIT */
/*
 * Zeroed memory for a large table probed at random addresses (hash slots,
 * caches): from 2 MiB on, in whole transparent huge pages where the kernel
 * gives them (asked for with madvise: the usual "madvise" setting gives
 * none otherwise), so that each probe misses the TLB far less often (on a
 * virtual machine a TLB miss walks two sets of page tables). Below that,
 * calloc. The pages are made as they are first touched either way.
 */
#ifndef HWPROF_UTIL_BIG_ALLOC_H
#define HWPROF_UTIL_BIG_ALLOC_H

#include <stddef.h>

/* SIZE bytes, zeroed (aligned as malloc's below 2 MiB, to 2 MiB from
   there); NULL: out of memory. */
void *hwp__big_zalloc(size_t size);
/* Frees P (NULL: nothing) of SIZE bytes, as hwp__big_zalloc(SIZE) gave it. */
void hwp__big_free(void *p, size_t size);

#endif
