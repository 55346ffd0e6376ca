/* The parallel merge of a pass's parts' tries (src/analysis/trie_merge.c):
   random stacks added in order to one trie (the sequential pass) and, the
   samples dealt out in runs, to a trie per part; the parts merged on 1 to
   16 threads must give the sequential trie, node for node (numbers,
   parents, keys, counts), also where leaves that differ in a part are one
   in the merged trie (the call graph's frames of one function). The stacks
   are many enough that the widest depths are merged on several threads. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/trie_merge.h"
#include "testlib.h"

/* a trie as a pass makes it: nodes in the order made, each made by SEQ */
struct trie {
	struct hwp__cg_tnode *nodes;
	uint32_t *keys;
	uint64_t *seq;
	size_t nr, cap;
	uint32_t *slots; /* open addressing on (parent, key): node + 1 */
	size_t nslots;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

static void trie_init(struct trie *t, size_t cap)
{
	t->cap = cap;
	t->nodes = calloc(cap, sizeof(*t->nodes));
	t->keys = calloc(cap, sizeof(*t->keys));
	t->seq = calloc(cap, sizeof(*t->seq));
	t->nslots = 1;
	while (t->nslots < 2 * cap)
		t->nslots *= 2;
	t->slots = calloc(t->nslots, sizeof(*t->slots));
	t->nr = 1; /* the root */
}

static void trie_free(struct trie *t)
{
	free(t->nodes);
	free(t->keys);
	free(t->seq);
	free(t->slots);
}

/* The node below PARENT keyed KEY in T (MERGED in the merged trie's
   terms), made by sample SEQ when new. */
static uint32_t trie_child(struct trie *t, uint32_t parent, uint32_t key, uint32_t merged, uint64_t seq)
{
	size_t pos = mix((uint64_t)parent << 32 | key) & (t->nslots - 1);

	for (; t->slots[pos]; pos = (pos + 1) & (t->nslots - 1)) {
		uint32_t i = t->slots[pos] - 1;
		if (t->nodes[i].parent == parent && t->nodes[i].key == key)
			return i;
	}
	if (t->nr == t->cap)
		abort(); /* (sized for every node of every stack) */
	uint32_t i = (uint32_t)t->nr++;
	t->nodes[i] = (struct hwp__cg_tnode){ parent, key, 0, 0 };
	t->keys[i] = merged;
	t->seq[i] = seq;
	t->slots[pos] = i + 1;
	return i;
}

#define TERM 0x80000000u

/* A sample of STACK, and below it a leaf keyed LEAF (when not 0) that the
   merged trie keys LEAF / 3 (a part keys the call graph's leaves by the
   IP's frame, the merged graph by its function: frames merge) or, in the
   sequential trie (WHOLE), keyed LEAF / 3 itself. */
static void trie_add(struct trie *t, bool whole, const uint32_t *stack, size_t depth, uint32_t leaf, uint64_t seq,
		     uint64_t period)
{
	uint32_t node = 0;

	for (size_t d = 0; d < depth; d++)
		node = trie_child(t, node, stack[d], stack[d], seq);
	if (leaf)
		node = trie_child(t, node, TERM | (whole ? leaf / 3 : leaf), TERM | leaf / 3, seq);
	t->nodes[node].samples++;
	t->nodes[node].period += period;
}

#define MAXDEPTH 14
#define POOL 30000
#define SAMPLES 150000

static uint32_t pool[POOL][MAXDEPTH];
static size_t pool_depth[POOL];

/* POOL stacks: shared outer frames (few keys near the root, more deeper) */
static void make_pool(uint64_t seed)
{
	for (size_t s = 0; s < POOL; s++) {
		pool_depth[s] = 1 + mix(seed + s) % MAXDEPTH;
		for (size_t d = 0; d < pool_depth[s]; d++)
			pool[s][d] = (uint32_t)(mix(seed ^ (s * 131 + d)) % (2 + 40 * d));
	}
}

/* The sequential trie of SAMPLES stacks and NPARTS parts' tries (runs of
   RUN samples dealt in turn), merged on THREADS threads: equal? With
   LEAVES, each sample ends in one of 30 leaves, three to a merged key. */
static void check_merge(size_t nparts, size_t run, unsigned threads, bool leaves)
{
	struct trie whole, *part = calloc(nparts, sizeof(*part));
	struct hwp__trie_part *tp = calloc(nparts, sizeof(*tp));
	struct hwp__cg_tnode *out = NULL;
	size_t nout = 0;

	trie_init(&whole, (size_t)POOL * (MAXDEPTH + 30) + 1);
	for (size_t k = 0; k < nparts; k++)
		trie_init(&part[k], (size_t)POOL * (MAXDEPTH + 30) + 1);
	for (uint64_t seq = 1; seq <= SAMPLES; seq++) {
		size_t s = mix(seq * 7919) % POOL;
		uint64_t period = 1 + seq % 5;
		uint32_t leaf = leaves ? (uint32_t)(1 + mix(seq) % 30) : 0;

		trie_add(&whole, true, pool[s], pool_depth[s], leaf, seq, period);
		trie_add(&part[(seq / run) % nparts], false, pool[s], pool_depth[s], leaf, seq, period);
	}
	for (size_t k = 0; k < nparts; k++)
		tp[k] = (struct hwp__trie_part){ part[k].nodes, part[k].keys, part[k].seq, part[k].nr };
	CHECK(hwp__trie_merge(tp, nparts, threads, &out, &nout) == 0);
	CHECK_EQ_U64(nout, whole.nr);
	size_t bad = 0;
	for (size_t i = 0; out && i < nout && i < whole.nr; i++)
		bad += out[i].parent != whole.nodes[i].parent || out[i].key != whole.keys[i] ||
		       out[i].samples != whole.nodes[i].samples || out[i].period != whole.nodes[i].period;
	CHECK_EQ_U64(bad, 0);
	free(out);
	for (size_t k = 0; k < nparts; k++)
		trie_free(&part[k]);
	free(part);
	free(tp);
	trie_free(&whole);
}

static void merged_as_sequential(void)
{
	make_pool(1);
	check_merge(4, 1000, 4, false);
	check_merge(4, 1, 4, false);     /* samples dealt one at a time */
	check_merge(3, 5000, 16, false); /* more shards than parts */
	check_merge(8, 777, 2, false);   /* fewer */
	check_merge(2, 100, 1, false);   /* one thread: the same code, no threads */
	check_merge(3, 50, 5, true);     /* leaves that merge */
}

static void one_part_and_none(void)
{
	struct hwp__cg_tnode *out = NULL;
	size_t nout = 9;

	make_pool(2);
	check_merge(1, 1, 8, true);
	CHECK(hwp__trie_merge(NULL, 0, 4, &out, &nout) == 0);
	CHECK(nout == 1 && out && out[0].parent == 0 && out[0].samples == 0);
	free(out);
}

/* a node numbered before its parent (no pass makes it), a sample number
   past 2^44: the merge says so */
static void malformed_parts_refused(void)
{
	struct hwp__cg_tnode nodes[3] = { { 0, 0, 0, 0 }, { 2, 5, 1, 1 }, { 0, 6, 1, 1 } };
	uint32_t keys[3] = { 0, 5, 6 };
	uint64_t seq[3] = { 0, 1, 1 };
	struct hwp__trie_part p = { nodes, keys, seq, 3 };
	struct hwp__cg_tnode *out = (void *)&p;
	size_t nout = 9;

	CHECK(hwp__trie_merge(&p, 1, 2, &out, &nout) == -EINVAL);
	CHECK(out == NULL && nout == 0);
	nodes[1].parent = 0;
	seq[1] = (1ull << 44) - 1;
	seq[2] = 1ull << 44;
	CHECK(hwp__trie_merge(&p, 1, 2, &out, &nout) == -EOVERFLOW);
	seq[1] = (1ull << 44) - 2;
	seq[2] = (1ull << 44) - 1;
	CHECK(hwp__trie_merge(&p, 1, 2, &out, &nout) == 0 && nout == 3);
	free(out);
}

int main(void)
{
	RUN(merged_as_sequential);
	RUN(one_part_and_none);
	RUN(malformed_parts_refused);
	TL_EXIT();
}
