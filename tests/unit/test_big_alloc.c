/* util/big_alloc.h: zeroed memory of every size asked for, the whole of it
   usable, aligned to 2 MiB from 2 MiB on (where huge pages can back it),
   freed by size; sizes that cannot be had refused. */
#include <stdint.h>
#include <string.h>

#include "util/big_alloc.h"
#include "testlib.h"

#define MIB ((size_t)1 << 20)

static void zeroed_usable_aligned(void)
{
	static const size_t sizes[] = { 1, 100, 4096, 2 * MIB - 1, 2 * MIB, 2 * MIB + 1, 5 * MIB + 3, 33 * MIB };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		size_t n = sizes[k];
		uint8_t *p = hwp__big_zalloc(n);
		size_t nonzero = 0;

		CHECK(p != NULL);
		if (!p)
			continue;
		for (size_t i = 0; i < n; i += 4093)
			nonzero += p[i] != 0;
		nonzero += p[n - 1] != 0;
		CHECK(nonzero == 0);
		CHECK(n < 2 * MIB ? (uintptr_t)p % 16 == 0 : (uintptr_t)p % (2 * MIB) == 0);
		memset(p, 0xa5, n); /* all of it writable */
		CHECK(p[0] == 0xa5 && p[n - 1] == 0xa5);
		hwp__big_free(p, n);
	}
	hwp__big_free(NULL, 5 * MIB); /* nothing */
}

static void impossible_refused(void)
{
	CHECK(hwp__big_zalloc(SIZE_MAX) == NULL);
	CHECK(hwp__big_zalloc(SIZE_MAX - MIB) == NULL);
}

int main(void)
{
	RUN(zeroed_usable_aligned);
	RUN(impossible_refused);
	TL_EXIT();
}
