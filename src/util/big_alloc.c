/* SPDX-License-Identifier: MIT */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "util/big_alloc.h"

#define HUGE_PAGE ((size_t)2 << 20) /* x86-64's and AArch64's (4 KiB granule) */

static size_t round_up(size_t size)
{
	return (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void *hwp__big_zalloc(size_t size)
{
	if (size < HUGE_PAGE)
		return calloc(1, size);
	if (size > SIZE_MAX - 2 * HUGE_PAGE)
		return NULL;
	size_t len = round_up(size);
	/* one page more, to cut an aligned run out of */
	uint8_t *p = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	uint8_t *a = (uint8_t *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));

	if (a > p)
		munmap(p, (size_t)(a - p));
	if (p + len + HUGE_PAGE > a + len)
		munmap(a + len, (size_t)(p + len + HUGE_PAGE - (a + len)));
#ifdef MADV_HUGEPAGE
	(void)madvise(a, len, MADV_HUGEPAGE); /* (a hint: refused, small pages) */
#endif
	return a;
}

void hwp__big_free(void *p, size_t size)
{
	if (!p)
		return;
	if (size < HUGE_PAGE)
		free(p);
	else
		munmap(p, round_up(size));
}
