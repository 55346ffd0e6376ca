/* The call-graph chain cache: a remembered chain comes back only for the
   same addresses, flags and address spaces; anything else is a miss. */
#include <stdlib.h>

#include "analysis/chain_cache.h"
#include "testlib.h"

static const uint64_t ips[] = { 0x401000, 0x401200, 0x7f0000001000, 0x401300 };
static const uint8_t flags[] = { 0, 2, 2, 2 };

static void remembers_the_same_chain(void)
{
	struct hwp__chain_cache cc = { 0 };
	struct hwp__chain_where w = { &cc, 7, 42 };
	uint64_t h;
	uint32_t node = 0;

	CHECK(!hwp__chain_cache_get(&cc, &w, ips, flags, 4, &h, &node));
	hwp__chain_cache_put(&cc, h, &w, ips, flags, 4, 1234);
	CHECK(hwp__chain_cache_get(&cc, &w, ips, flags, 4, &h, &node) && node == 1234);
	CHECK_EQ_U64(cc.hits, 1);
	CHECK_EQ_U64(cc.misses, 1);
	hwp__chain_cache_free(&cc);
}

static void other_spaces_or_chains_miss(void)
{
	struct hwp__chain_cache cc = { 0 };
	struct hwp__chain_where w = { &cc, 7, 42 }, later = { &cc, 8, 42 }, other_pid = { &cc, 7, 43 },
				other_machine = { &w, 7, 42 };
	uint64_t h, ips2[4] = { 0x401000, 0x401200, 0x7f0000001000, 0x401301 };
	uint8_t flags2[4] = { 0, 2, 0, 2 };
	uint32_t node = 0;

	hwp__chain_cache_get(&cc, &w, ips, flags, 4, &h, &node);
	hwp__chain_cache_put(&cc, h, &w, ips, flags, 4, 99);
	CHECK(!hwp__chain_cache_get(&cc, &later, ips, flags, 4, &h, &node));         /* maps moved */
	CHECK(!hwp__chain_cache_get(&cc, &other_pid, ips, flags, 4, &h, &node));     /* another process */
	CHECK(!hwp__chain_cache_get(&cc, &other_machine, ips, flags, 4, &h, &node)); /* another input */
	CHECK(!hwp__chain_cache_get(&cc, &w, ips2, flags, 4, &h, &node));            /* one address */
	CHECK(!hwp__chain_cache_get(&cc, &w, ips, flags2, 4, &h, &node));            /* one flag */
	CHECK(!hwp__chain_cache_get(&cc, &w, ips, flags, 3, &h, &node));             /* a prefix */
	CHECK(hwp__chain_cache_get(&cc, &w, ips, flags, 4, &h, &node) && node == 99);
	hwp__chain_cache_free(&cc);
}

/* Many more chains than slots: each answer is still its own chain's. */
static void bounded_and_never_wrong(void)
{
	struct hwp__chain_cache cc = { 0 };
	struct hwp__chain_where w = { &cc, 1, 1 };
	uint64_t chain[3], h;
	uint8_t f[3] = { 0, 2, 2 };
	uint32_t node;
	unsigned wrong = 0, hits = 0;

	for (uint32_t i = 0; i < 100000; i++) {
		chain[0] = i;
		chain[1] = i * 3;
		chain[2] = 7;
		if (!hwp__chain_cache_get(&cc, &w, chain, f, 3, &h, &node))
			hwp__chain_cache_put(&cc, h, &w, chain, f, 3, i);
	}
	for (uint32_t i = 0; i < 100000; i++) {
		chain[0] = i;
		chain[1] = i * 3;
		chain[2] = 7;
		if (hwp__chain_cache_get(&cc, &w, chain, f, 3, &h, &node)) {
			hits++;
			wrong += node != i;
		}
	}
	CHECK(wrong == 0);
	CHECK(hits > 0 && hits < 100000); /* some kept, not all: the slots are bounded */
	hwp__chain_cache_free(&cc);
}

int main(void)
{
	RUN(remembers_the_same_chain);
	RUN(other_spaces_or_chains_miss);
	RUN(bounded_and_never_wrong);
	TL_EXIT();
}
