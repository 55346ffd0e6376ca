/* The call-graph chain cache: a remembered chain comes back only for the
   same addresses, flags and address spaces; anything else is a miss. */
#include <stdlib.h>
#include <string.h>

#include "analysis/chain_cache.h"
#include "testlib.h"

static const uint64_t ips[] = { 0x401000, 0x401200, 0x7f0000001000, 0x401300 };
static const uint8_t flags[] = { 0, 2, 2, 2 };

/* Hashes the chain, as the call graph does, and looks it up. */
static bool lookup(struct hwp__chain_cache *cc, const struct hwp__chain_where *w, const uint64_t *chain,
		   const uint8_t *f, size_t n, uint64_t *h, uint32_t *node, uint32_t *id)
{
	*h = hwp__chain_cache_hash(w, chain, f, n);
	return hwp__chain_cache_get(cc, *h, w, chain, f, n, node, id);
}

static void remembers_the_same_chain(void)
{
	struct hwp__chain_cache cc = { 0 };
	struct hwp__chain_where w = { &cc, 7, 42, 0 };
	uint64_t h;
	uint32_t node = 0, id = 0;

	CHECK(!lookup(&cc, &w, ips, flags, 4, &h, &node, &id));
	hwp__chain_cache_put(&cc, h, &w, ips, flags, 4, 1234);
	CHECK(lookup(&cc, &w, ips, flags, 4, &h, &node, &id) && node == 1234);
	CHECK_EQ_U64(cc.hits, 1);
	CHECK_EQ_U64(cc.misses, 1);
	hwp__chain_cache_free(&cc);
}

static void other_spaces_or_chains_miss(void)
{
	struct hwp__chain_cache cc = { 0 };
	struct hwp__chain_where w = { &cc, 7, 42, 0 }, later = { &cc, 8, 42, 0 }, other_pid = { &cc, 7, 43, 0 },
				other_machine = { &w, 7, 42, 0 };
	uint64_t h, ips2[4] = { 0x401000, 0x401200, 0x7f0000001000, 0x401301 };
	uint8_t flags2[4] = { 0, 2, 0, 2 };
	uint32_t node = 0, id = 0;

	lookup(&cc, &w, ips, flags, 4, &h, &node, &id);
	hwp__chain_cache_put(&cc, h, &w, ips, flags, 4, 99);
	CHECK(!lookup(&cc, &later, ips, flags, 4, &h, &node, &id));         /* maps moved */
	CHECK(!lookup(&cc, &other_pid, ips, flags, 4, &h, &node, &id));     /* another process */
	CHECK(!lookup(&cc, &other_machine, ips, flags, 4, &h, &node, &id)); /* another input */
	CHECK(!lookup(&cc, &w, ips2, flags, 4, &h, &node, &id));            /* one address */
	CHECK(!lookup(&cc, &w, ips, flags2, 4, &h, &node, &id));            /* one flag */
	CHECK(!lookup(&cc, &w, ips, flags, 3, &h, &node, &id));             /* a prefix */
	CHECK(lookup(&cc, &w, ips, flags, 4, &h, &node, &id) && node == 99);
	hwp__chain_cache_free(&cc);
}

/* Callers looked up by their words as recorded (hwp__chain_raw()): the
   same words, where they lie (unaligned too), find the node; another word,
   fewer words, the other context before them (kind) or the same values as
   a chain of addresses with flags do not. */
static void recorded_words(void)
{
	struct hwp__chain_cache cc = { 0 };
	struct hwp__chain_where user = { &cc, 7, 42, 1 }, kernel = { &cc, 7, 42, 2 }, made = { &cc, 7, 42, 0 },
				later = { &cc, 8, 42, 1 };
	uint8_t rec[4 * 8 + 1], other[4 * 8];
	uint64_t words[4] = { 0x401200, 0xfffffffffffffe00ull /* PERF_CONTEXT_USER */, 0x7f0000001000, 0x401300 };
	uint64_t h;
	uint32_t node = 0, id = 0;

	memcpy(rec + 1, words, sizeof(words));
	memcpy(other, words, sizeof(words));
	other[3 * 8] ^= 4;
	h = hwp__chain_cache_hash_words(&user, rec + 1, 4);
	CHECK(!hwp__chain_cache_get(&cc, h, &user, rec + 1, NULL, 4, &node, &id));
	CHECK(hwp__chain_cache_put(&cc, h, &user, rec + 1, NULL, 4, 77) != 0);
	h = hwp__chain_cache_hash_words(&user, (const uint8_t *)words, 4); /* aligned, elsewhere */
	CHECK(hwp__chain_cache_get(&cc, h, &user, words, NULL, 4, &node, &id) && node == 77);
	h = hwp__chain_cache_hash_words(&kernel, rec + 1, 4);
	CHECK(!hwp__chain_cache_get(&cc, h, &kernel, rec + 1, NULL, 4, &node, &id));
	h = hwp__chain_cache_hash_words(&later, rec + 1, 4);
	CHECK(!hwp__chain_cache_get(&cc, h, &later, rec + 1, NULL, 4, &node, &id));
	h = hwp__chain_cache_hash_words(&user, other, 4);
	CHECK(!hwp__chain_cache_get(&cc, h, &user, other, NULL, 4, &node, &id));
	h = hwp__chain_cache_hash_words(&user, rec + 1, 3);
	CHECK(!hwp__chain_cache_get(&cc, h, &user, rec + 1, NULL, 3, &node, &id));
	uint8_t f[4] = { 0 };
	CHECK(!lookup(&cc, &made, words, f, 4, &h, &node, &id));
	hwp__chain_cache_free(&cc);
}

/* Many more chains than slots: each answer is still its own chain's. */
static void bounded_and_never_wrong(void)
{
	struct hwp__chain_cache cc = { 0 };
	struct hwp__chain_where w = { &cc, 1, 1, 0 };
	uint64_t chain[3], h;
	uint8_t f[3] = { 0, 2, 2 };
	uint32_t node, id;
	unsigned wrong = 0, hits = 0;

	for (uint32_t i = 0; i < 100000; i++) {
		chain[0] = i;
		chain[1] = i * 3;
		chain[2] = 7;
		if (!lookup(&cc, &w, chain, f, 3, &h, &node, &id))
			hwp__chain_cache_put(&cc, h, &w, chain, f, 3, i);
	}
	for (uint32_t i = 0; i < 100000; i++) {
		chain[0] = i;
		chain[1] = i * 3;
		chain[2] = 7;
		if (lookup(&cc, &w, chain, f, 3, &h, &node, &id)) {
			hits++;
			wrong += node != i;
		}
	}
	CHECK(wrong == 0);
	CHECK(hits > 0 && hits < 100000); /* some kept, not all: the slots are bounded */
	hwp__chain_cache_free(&cc);
}

/* The owner's nodes, as the call graph keeps them. */
struct counts {
	uint64_t samples[8], period[8];
};

static void settle_into(void *ctx, uint32_t node, uint64_t samples, uint64_t period)
{
	struct counts *c = ctx;

	c->samples[node] += samples;
	c->period[node] += period;
}

/* A leaf counts for its chain's id, address and context only; a chain put
   again after it left its slot has a new id, so its old leaves count none
   of its samples; and what a leaf counted reaches its node when it leaves
   its slot or is settled, never twice. */
static void leaves_follow_their_chain(void)
{
	struct counts nodes = { 0 };
	struct hwp__chain_cache cc = { .settle = settle_into, .settle_ctx = &nodes };
	struct hwp__chain_where w = { &cc, 7, 42, 0 };
	uint64_t h = 0;
	uint32_t node = 0, id = 0, id2, got;

	CHECK(!hwp__chain_leaf_count(&cc, h, 1, 0x401000, false, 10)); /* nothing made yet */
	lookup(&cc, &w, ips, flags, 4, &h, &node, &id);
	id = hwp__chain_cache_put(&cc, h, &w, ips, flags, 4, 5);
	CHECK(id != 0);
	hwp__chain_leaf_put(&cc, h, id, 0x401010, false, 3);
	CHECK(hwp__chain_leaf_count(&cc, h, id, 0x401010, false, 100));
	CHECK(hwp__chain_leaf_count(&cc, h, id, 0x401010, false, 200));
	CHECK(!hwp__chain_leaf_count(&cc, h, id, 0x401011, false, 1)); /* another IP */
	CHECK(!hwp__chain_leaf_count(&cc, h, id, 0x401010, true, 1));  /* the kernel's context */
	CHECK(!hwp__chain_leaf_count(&cc, h, id + 1, 0x401010, false, 1));
	CHECK(!hwp__chain_leaf_count(&cc, h, 0, 0, false, 1)); /* no id: never a leaf, not even an empty one */
	hwp__chain_leaf_put(&cc, h, 0, 0x401010, false, 4);     /* and nothing kept for it */
	CHECK_EQ_U64(nodes.samples[3], 0);                     /* counted in the leaf so far */
	hwp__chain_leaves_settle(&cc);
	CHECK_EQ_U64(nodes.samples[3], 2);
	CHECK_EQ_U64(nodes.period[3], 300);
	hwp__chain_leaves_settle(&cc); /* settled once */
	CHECK_EQ_U64(nodes.samples[3], 2);
	CHECK(hwp__chain_leaf_count(&cc, h, id, 0x401010, false, 5));
	/* two other chains put in its set (the caller's hash picks the set)
	   push it out; remembered again, it has a new id and no leaves */
	static const uint64_t other1[] = { 1, 2, 3, 4 }, other2[] = { 5, 6, 7, 8 };
	hwp__chain_cache_put(&cc, h, &w, other1, flags, 4, 8);
	hwp__chain_cache_put(&cc, h, &w, other2, flags, 4, 9);
	CHECK(!lookup(&cc, &w, ips, flags, 4, &h, &node, &id2));
	id2 = hwp__chain_cache_put(&cc, h, &w, ips, flags, 4, 6);
	CHECK(id2 != 0 && id2 != id);
	CHECK(lookup(&cc, &w, ips, flags, 4, &h, &node, &got) && node == 6 && got == id2);
	CHECK(!hwp__chain_leaf_count(&cc, h, id2, 0x401010, false, 1));
	/* the new chain's leaf takes the set's other way; a third leaf there
	   pushes out the one that counted fewer samples, which hands its
	   counts to its node first */
	hwp__chain_leaf_put(&cc, h, id2, 0x401010, false, 7);
	CHECK(hwp__chain_leaf_count(&cc, h, id2, 0x401010, false, 1));
	CHECK(hwp__chain_leaf_count(&cc, h, id2, 0x401010, false, 1));
	CHECK(hwp__chain_leaf_count(&cc, h, id2, 0x401010, false, 1));
	CHECK(hwp__chain_leaf_count(&cc, h, id, 0x401010, false, 0)); /* both still there */
	CHECK_EQ_U64(nodes.samples[3], 2);
	hwp__chain_leaf_put(&cc, h, id2, 0x401010, true, 6); /* 2 samples against 3: the old one goes */
	CHECK_EQ_U64(nodes.samples[3], 4);
	CHECK_EQ_U64(nodes.period[3], 305);
	CHECK(!hwp__chain_leaf_count(&cc, h, id, 0x401010, false, 1));
	CHECK(hwp__chain_leaf_count(&cc, h, id2, 0x401010, true, 1));
	hwp__chain_leaves_settle(&cc);
	CHECK_EQ_U64(nodes.samples[7], 3);
	CHECK_EQ_U64(nodes.samples[6], 1);
	CHECK_EQ_U64(cc.leaf_hits, 8);
	hwp__chain_cache_free(&cc);
}

static void settle_node(void *ctx, uint32_t node, uint64_t samples, uint64_t period)
{
	uint64_t *per_node = ctx;

	per_node[node] += samples;
	(void)period;
}

/* Many more leaves than the cache holds: every sample reaches its own node
   exactly once, whichever leaves stayed, also across the table's growth;
   the table grows from its first size, and only so far. */
static void leaves_bounded_and_never_wrong(void)
{
	static uint64_t per_node[4096], expected[4096];
	struct hwp__chain_cache cc = { .settle = settle_node, .settle_ctx = per_node };
	struct hwp__chain_where w = { &cc, 1, 1, 0 };
	uint64_t h, hits = 0, total = 0;
	uint32_t node, id;
	unsigned wrong = 0;

	lookup(&cc, &w, ips, flags, 4, &h, &node, &id);
	id = hwp__chain_cache_put(&cc, h, &w, ips, flags, 4, 5);
	size_t first = 0;

	for (uint32_t i = 0; i < 9000000; i++) {
		uint32_t k = (i * 2654435761u) % 3000000; /* 3 M addresses, scattered */
		uint64_t ip = 0x400000 + (uint64_t)k * 4;
		uint32_t n = k % 4096;

		expected[n]++;
		total++;
		if (hwp__chain_leaf_count(&cc, h, id, ip, false, 1))
			hits++;
		else {
			per_node[n]++; /* counted by the caller, as the call graph does */
			hwp__chain_leaf_put(&cc, h, id, ip, false, n);
			if (!first)
				first = cc.nleaves;
		}
	}
	hwp__chain_leaves_settle(&cc);
	for (uint32_t n = 0; n < 4096; n++)
		wrong += per_node[n] != expected[n];
	CHECK(wrong == 0);
	CHECK(hits > 0 && hits < total);
	CHECK(first > 0 && cc.nleaves > first && cc.nleaves <= 4 * first);
	hwp__chain_cache_free(&cc);
}

/* The leaves a growing table held are still there after it grew, with
   their counts: of 70 000 leaves put (the table grows on the way), each
   counted once more, nearly all are found (a few pushed out of a full set
   before). */
static void growth_keeps_leaves(void)
{
	static uint64_t per_node[70000];
	struct hwp__chain_cache cc = { .settle = settle_node, .settle_ctx = per_node };
	struct hwp__chain_where w = { &cc, 1, 1, 0 };
	uint64_t h, hits = 0;
	uint32_t node, id;
	size_t first = 0;
	unsigned wrong = 0;

	lookup(&cc, &w, ips, flags, 4, &h, &node, &id);
	id = hwp__chain_cache_put(&cc, h, &w, ips, flags, 4, 5);
	for (uint32_t i = 0; i < 70000; i++) {
		CHECK(!hwp__chain_leaf_count(&cc, h, id, 0x400000 + (uint64_t)i * 4, false, 1));
		hwp__chain_leaf_put(&cc, h, id, 0x400000 + (uint64_t)i * 4, false, i);
		per_node[i]++; /* counted by the caller */
		if (!first)
			first = cc.nleaves;
	}
	CHECK(cc.nleaves > first);
	for (uint32_t i = 0; i < 70000; i++)
		if (hwp__chain_leaf_count(&cc, h, id, 0x400000 + (uint64_t)i * 4, false, 1))
			hits++;
		else
			per_node[i]++;
	CHECK(hits > 70000 * 95 / 100);
	hwp__chain_leaves_settle(&cc);
	for (uint32_t i = 0; i < 70000; i++)
		wrong += per_node[i] != 2;
	CHECK(wrong == 0);
	hwp__chain_cache_free(&cc);
}

/* A few leaves: the table stays at its first size. */
static void few_leaves_no_growth(void)
{
	static uint64_t per_node[16];
	struct hwp__chain_cache cc = { .settle = settle_node, .settle_ctx = per_node };
	struct hwp__chain_where w = { &cc, 1, 1, 0 };
	uint64_t h;
	uint32_t node, id;
	size_t first = 0;

	lookup(&cc, &w, ips, flags, 4, &h, &node, &id);
	id = hwp__chain_cache_put(&cc, h, &w, ips, flags, 4, 5);
	for (uint32_t i = 0; i < 200000; i++) {
		uint64_t ip = 0x400000 + (uint64_t)(i % 10000) * 4;

		if (!hwp__chain_leaf_count(&cc, h, id, ip, false, 1)) {
			hwp__chain_leaf_put(&cc, h, id, ip, false, i % 16);
			if (!first)
				first = cc.nleaves;
		}
	}
	CHECK(first > 0 && cc.nleaves == first);
	hwp__chain_cache_free(&cc);
}

int main(void)
{
	RUN(remembers_the_same_chain);
	RUN(other_spaces_or_chains_miss);
	RUN(recorded_words);
	RUN(bounded_and_never_wrong);
	RUN(leaves_follow_their_chain);
	RUN(leaves_bounded_and_never_wrong);
	RUN(growth_keeps_leaves);
	RUN(few_leaves_no_growth);
	TL_EXIT();
}
