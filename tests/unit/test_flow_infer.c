/* SPDX-License-Identifier: MIT */
/* The profile-inference solver (src/analysis/flow_infer.c) on small CFGs:
   consistent counts come back unchanged, conservation holds after on
   random graphs with noisy counts, a planted error is undone the cheapest
   way (against a brute force over every flow of a diamond), unknown counts
   are filled in, and BOLT's profile-bias measure. */
#include <stdint.h>

#include "analysis/flow_infer.h"
#include "testlib.h"

/* A diamond: 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3 (0 entry, 3 exit). */
static void diamond(struct hwp__infer_node *n, struct hwp__infer_edge *e, const uint64_t bc[4],
		    const uint64_t ec[4])
{
	static const uint32_t from[4] = { 0, 0, 1, 2 }, to[4] = { 1, 2, 3, 3 };

	for (int i = 0; i < 4; i++) {
		n[i] = (struct hwp__infer_node){ .count = bc[i], .known = true, .entry = i == 0, .exit = i == 3 };
		e[i] = (struct hwp__infer_edge){ .from = from[i], .to = to[i], .count = ec[i], .known = true };
	}
}

static uint64_t dev(uint64_t flow, uint64_t count, uint64_t w)
{
	return (flow >= count ? flow - count : count - flow) * w;
}

static uint64_t cost(const struct hwp__infer_node *n, size_t nn, const struct hwp__infer_edge *e, size_t ne)
{
	uint64_t c = 0;

	for (size_t i = 0; i < nn; i++)
		c += n[i].known ? dev(n[i].flow, n[i].count, HWP__INFER_BLOCK) : 0;
	for (size_t i = 0; i < ne; i++)
		c += e[i].known ? dev(e[i].flow, e[i].count, HWP__INFER_EDGE) : 0;
	return c;
}

static void test_consistent_unchanged(void)
{
	struct hwp__infer_node n[4];
	struct hwp__infer_edge e[4];
	const uint64_t bc[4] = { 100, 70, 30, 100 }, ec[4] = { 70, 30, 70, 30 };

	diamond(n, e, bc, ec);
	CHECK(hwp__infer_solve(n, 4, e, 4) == 0);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ_U64(n[i].flow, bc[i]);
		CHECK_EQ_U64(e[i].flow, ec[i]);
	}
	size_t k;
	CHECK(hwp__infer_bias(n, 4, e, 4, false, 1, &k) == 0 && k == 2);
}

/* Block 1 says 90 where its edges say 70: the one count is wrong, and
   lowering it (20 units at BLOCK) is cheaper than raising four others. */
static void test_planted_error(void)
{
	struct hwp__infer_node n[4];
	struct hwp__infer_edge e[4];
	const uint64_t bc[4] = { 100, 90, 30, 100 }, ec[4] = { 70, 30, 70, 30 };

	diamond(n, e, bc, ec);
	CHECK(hwp__infer_solve(n, 4, e, 4) == 0);
	CHECK_EQ_U64(n[1].flow, 70);
	CHECK_EQ_U64(n[0].flow, 100);
	CHECK_EQ_U64(n[2].flow, 30);
	CHECK_EQ_U64(n[3].flow, 100);
	for (int i = 0; i < 4; i++)
		CHECK_EQ_U64(e[i].flow, ec[i]);
	CHECK_EQ_U64(cost(n, 4, e, 4), 20 * HWP__INFER_BLOCK);
}

/* Every flow of the diamond (x on 0 -> 1, y on 0 -> 2) tried: the solver's
   cost is the least, on many noisy count sets. */
static void test_minimal_against_brute_force(void)
{
	uint64_t seed = 12345;

	for (int round = 0; round < 40; round++) {
		uint64_t bc[4], ec[4];
		for (int i = 0; i < 4; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			bc[i] = (seed >> 33) % 60;
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			ec[i] = (seed >> 33) % 40;
		}
		struct hwp__infer_node n[4];
		struct hwp__infer_edge e[4];
		diamond(n, e, bc, ec);
		CHECK(hwp__infer_solve(n, 4, e, 4) == 0);
		uint64_t got = cost(n, 4, e, 4), best = UINT64_MAX;
		for (uint64_t x = 0; x <= 120; x++)
			for (uint64_t y = 0; y <= 120; y++) {
				struct hwp__infer_node m[4];
				struct hwp__infer_edge f[4];
				diamond(m, f, bc, ec);
				m[0].flow = m[3].flow = x + y;
				m[1].flow = f[0].flow = f[2].flow = x;
				m[2].flow = f[1].flow = f[3].flow = y;
				uint64_t c = cost(m, 4, f, 4);
				if (c < best)
					best = c;
			}
		if (got != best)
			fprintf(stderr, "round %d: solver cost %llu, least %llu\n", round, (unsigned long long)got,
				(unsigned long long)best);
		CHECK_EQ_U64(got, best);
		/* and it is a flow of the diamond */
		CHECK_EQ_U64(n[1].flow, e[0].flow);
		CHECK_EQ_U64(n[1].flow, e[2].flow);
		CHECK_EQ_U64(n[2].flow, e[1].flow);
		CHECK_EQ_U64(n[2].flow, e[3].flow);
		CHECK_EQ_U64(n[0].flow, e[0].flow + e[1].flow);
		CHECK_EQ_U64(n[3].flow, e[2].flow + e[3].flow);
	}
}

/* Random small graphs (forward edges, back edges for loops, every block
   reachable from the entry and reaching the exit) with noisy counts:
   after, every block's flow is what its edges bring and take. */
static void test_conservation_random(void)
{
	uint64_t seed = 777;
#define RND() (seed = seed * 6364136223846793005ull + 1442695040888963407ull, (seed >> 33))

	for (int round = 0; round < 200; round++) {
		struct hwp__infer_node n[10];
		struct hwp__infer_edge e[40];
		size_t nn = 3 + RND() % 8, ne = 0;

		for (size_t v = 0; v < nn; v++)
			n[v] = (struct hwp__infer_node){ .count = RND() % 500, .known = RND() % 5 != 0,
							 .entry = v == 0, .exit = v == nn - 1 };
		for (size_t v = 0; v + 1 < nn; v++) /* a spine */
			e[ne++] = (struct hwp__infer_edge){ .from = (uint32_t)v, .to = (uint32_t)(v + 1),
							    .count = RND() % 500, .known = true };
		for (size_t k = 0; k < nn; k++) {
			uint32_t a = (uint32_t)(RND() % nn), b = (uint32_t)(RND() % nn);
			if (a != b)
				e[ne++] = (struct hwp__infer_edge){ .from = a, .to = b, .count = RND() % 300,
								    .known = RND() % 4 != 0 };
		}
		CHECK(hwp__infer_solve(n, nn, e, ne) == 0);
		uint64_t in[10] = { 0 }, out[10] = { 0 };
		for (size_t i = 0; i < ne; i++) {
			out[e[i].from] += e[i].flow;
			in[e[i].to] += e[i].flow;
		}
		for (size_t v = 0; v < nn; v++) {
			if (v == 0)
				CHECK(in[v] <= n[v].flow);
			else
				CHECK_EQ_U64(in[v], n[v].flow);
			if (v == nn - 1)
				CHECK(out[v] <= n[v].flow);
			else
				CHECK_EQ_U64(out[v], n[v].flow);
		}
	}
#undef RND
}

/* A block without a sample on a chain takes its neighbours' flow. */
static void test_unknown_filled(void)
{
	struct hwp__infer_node n[3] = {
		{ .count = 50, .known = true, .entry = true },
		{ .count = 0, .known = false },
		{ .count = 50, .known = true, .exit = true },
	};
	struct hwp__infer_edge e[2] = {
		{ .from = 0, .to = 1, .count = 50, .known = true },
		{ .from = 1, .to = 2, .count = 0, .known = false },
	};

	CHECK(hwp__infer_solve(n, 3, e, 2) == 0);
	CHECK_EQ_U64(n[1].flow, 50);
	CHECK_EQ_U64(e[1].flow, 50);
}

/* A block no edge reaches gets flow only where the caller allows it to
   enter (its builder marks such blocks entries): not an entry, its count
   goes (the cheapest way to conserve flow); an entry, it stays. */
static void test_no_edge_in(void)
{
	struct hwp__infer_node n[2] = {
		{ .count = 40, .known = true, .entry = true, .exit = true },
		{ .count = 30, .known = true, .exit = true },
	};
	struct hwp__infer_edge e[1];

	CHECK(hwp__infer_solve(n, 2, e, 0) == 0);
	CHECK_EQ_U64(n[0].flow, 40);
	CHECK_EQ_U64(n[1].flow, 0);
	n[1].entry = true;
	CHECK(hwp__infer_solve(n, 2, e, 0) == 0);
	CHECK_EQ_U64(n[1].flow, 30);
}

/* BOLT's measure: |out - in| / in over the non-entry blocks with enough in
   and some out, in percent. Here block 1: in 100, out 110; block 2: in
   200, out 150. */
static void test_bias(void)
{
	struct hwp__infer_node n[4] = {
		{ .entry = true }, {}, {}, { .exit = true },
	};
	struct hwp__infer_edge e[5] = {
		{ .from = 0, .to = 1, .count = 100 },
		{ .from = 1, .to = 2, .count = 110 },
		{ .from = 0, .to = 2, .count = 90 },
		{ .from = 2, .to = 3, .count = 150 },
		{ .from = 0, .to = 3, .count = 5 },
	};
	size_t k;
	double b = hwp__infer_bias(n, 4, e, 5, false, 100, &k);

	CHECK(k == 2);
	CHECK(b > 17.49 && b < 17.51); /* (10% + 25%) / 2 */
	b = hwp__infer_bias(n, 4, e, 5, false, 101, &k); /* block 1 below the floor */
	CHECK(k == 1 && b > 24.99 && b < 25.01);
}

int main(void)
{
	RUN(test_consistent_unchanged);
	RUN(test_planted_error);
	RUN(test_minimal_against_brute_force);
	RUN(test_conservation_random);
	RUN(test_unknown_filled);
	RUN(test_no_edge_in);
	RUN(test_bias);
	TL_EXIT();
}
