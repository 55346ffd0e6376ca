/* Unit tests for the one hash map (src/util/hashmap.{c,h}). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

/* An owner as the library's tables are: keys in a dense array, the map as index. */
struct table {
	uint64_t *keys;
	size_t nr, cap;
	struct hwp_hashmap map;
	uint64_t (*hash)(uint64_t key);
};

static uint64_t good_hash(uint64_t k)
{
	return hwp__hash64(k);
}

static uint64_t const_hash(uint64_t k)
{
	(void)k;
	return 0x1234567800000005ULL;
}

static uint64_t last_slot_hash(uint64_t k)
{
	(void)k;
	return 15; /* the last slot of the first 16: runs wrap around */
}

static uint64_t mod7_hash(uint64_t k)
{
	return k % 7;
}

/* Index of KEY or -1; *CANDIDATES counts the entries the probe handed out. */
static long find(const struct table *t, uint64_t key, size_t *candidates)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&t->map, t->hash(key));
	uint32_t i;

	if (candidates)
		*candidates = 0;
	while (hwp__hashmap_next(&p, &i)) {
		if (candidates)
			(*candidates)++;
		if (i >= t->nr)
			return -2; /* an index the owner never had */
		if (t->keys[i] == key)
			return (long)i;
	}
	return -1;
}

static int insert(struct table *t, uint64_t key)
{
	uint64_t *k = HWP_VEC_PUSH(t->keys, t->nr, t->cap);
	int err;

	if (!k)
		return -ENOMEM;
	*k = key;
	err = hwp__hashmap_add(&t->map, t->hash(key), t->nr - 1);
	if (err)
		t->nr--;
	return err;
}

/* Swap-remove, as an owner with a dense array does. */
static int erase(struct table *t, uint64_t key)
{
	long i = find(t, key, NULL);
	size_t last = t->nr - 1;

	if (i < 0)
		return -ENOENT;
	if (hwp__hashmap_remove(&t->map, t->hash(key), (size_t)i))
		return -EIO;
	if ((size_t)i != last) {
		if (hwp__hashmap_renumber(&t->map, t->hash(t->keys[last]), last, (size_t)i))
			return -EIO;
		t->keys[i] = t->keys[last];
	}
	t->nr--;
	return 0;
}

static void table_free(struct table *t)
{
	free(t->keys);
	hwp__hashmap_free(&t->map);
}

static void test_empty(void)
{
	struct hwp_hashmap m;
	struct hwp_hashmap_probe p;
	uint32_t i = 77;

	memset(&m, 0, sizeof(m));
	p = hwp__hashmap_probe(&m, 42);
	CHECK(!hwp__hashmap_next(&p, &i));
	CHECK(i == 77);
	CHECK(hwp__hashmap_remove(&m, 42, 0) == -ENOENT);
	CHECK(hwp__hashmap_renumber(&m, 42, 0, 1) == -ENOENT);
	hwp__hashmap_clear(&m);
	CHECK(m.nr == 0);
	hwp__hashmap_free(&m);
	hwp__hashmap_free(&m); /* twice: still a valid empty map */
	CHECK(m.slots == NULL);
}

static void test_many_keys(void)
{
	struct table t = { .hash = good_hash };
	const size_t n = 200000;
	size_t max_cand = 0, total_cand = 0;

	for (size_t k = 0; k < n; k++)
		CHECK(insert(&t, k * 0x10001ULL + 3) == 0);
	CHECK_EQ_U64(t.map.nr, n);
	CHECK((t.map.mask + 1) >= 2 * n);          /* load stays at most 1/2 */
	CHECK((t.map.mask + 1) <= 4 * n);          /* and the map does not overgrow */
	CHECK(((t.map.mask + 1) & t.map.mask) == 0); /* a power of two */
	for (size_t k = 0; k < n; k++) {
		size_t c;
		long i = find(&t, k * 0x10001ULL + 3, &c);

		CHECK_EQ_U64((uint64_t)i, k); /* the index it was added under */
		total_cand += c;
		if (c > max_cand)
			max_cand = c;
	}
	/* With 32 bits of tag, a lookup hands out only its own entry, nearly always. */
	CHECK(total_cand < n + n / 1000);
	for (size_t k = 0; k < 1000; k++)
		CHECK(find(&t, k * 0x10001ULL + 4, NULL) == -1);
	table_free(&t);
}

static void test_collisions(void)
{
	struct table t = { .hash = const_hash };
	const size_t n = 3000;
	size_t c;

	for (size_t k = 0; k < n; k++)
		CHECK(insert(&t, k ^ 0xabcdef) == 0);
	for (size_t k = 0; k < n; k += 7)
		CHECK_EQ_U64((uint64_t)find(&t, k ^ 0xabcdef, NULL), k);
	/* a missing key is compared with every entry of the one hash */
	CHECK(find(&t, 0xffffffffffULL, &c) == -1);
	CHECK_EQ_U64(c, n);
	table_free(&t);
}

/* Insertion order is the owner's array order; indices never move on growth. */
static void test_insertion_order(void)
{
	struct table t = { .hash = good_hash };
	uint64_t want[5000];

	for (size_t k = 0; k < 5000; k++) {
		want[k] = hwp__hash64(k + 1000) >> 3;
		CHECK(insert(&t, want[k]) == 0);
	}
	for (size_t k = 0; k < 5000; k++) {
		CHECK(t.keys[k] == want[k]);
		CHECK_EQ_U64((uint64_t)find(&t, want[k], NULL), k);
	}
	table_free(&t);
}

/* Random adds and swap-removes against a plain array, with hashes that
   cluster (k % 7) and that wrap around the end of the slots. */
static void churn(uint64_t (*hash)(uint64_t), size_t universe, size_t steps)
{
	struct table t = { .hash = hash };
	uint8_t *in = calloc(universe, 1);
	uint64_t rs = 88172645463325252ULL;

	for (size_t s = 0; s < steps && in; s++) {
		rs ^= rs << 13;
		rs ^= rs >> 7;
		rs ^= rs << 17;
		uint64_t k = rs % universe;

		if (in[k]) {
			CHECK(erase(&t, k) == 0);
			in[k] = 0;
		} else {
			CHECK(find(&t, k, NULL) == -1);
			CHECK(insert(&t, k) == 0);
			in[k] = 1;
		}
		if (s % 97 == 0) {
			size_t nr = 0;

			for (uint64_t j = 0; j < universe; j++) {
				long i = find(&t, j, NULL);

				CHECK(in[j] ? i >= 0 && t.keys[i] == j : i == -1);
				nr += in[j];
			}
			CHECK_EQ_U64(t.map.nr, nr);
			CHECK_EQ_U64(t.nr, nr);
		}
	}
	CHECK(hwp__hashmap_remove(&t.map, hash(universe + 1), t.nr + 5) == -ENOENT);
	free(in);
	table_free(&t);
}

static void test_remove_clustered(void)
{
	churn(mod7_hash, 300, 20000);
}

static void test_remove_wrapping(void)
{
	/* at most 8 keys in 16 slots: the map never grows, every run wraps */
	churn(last_slot_hash, 8, 5000);
}

static void test_remove_random(void)
{
	churn(good_hash, 5000, 60000);
}

static void test_clear(void)
{
	struct table t = { .hash = good_hash };

	for (uint64_t k = 0; k < 100; k++)
		CHECK(insert(&t, k) == 0);
	size_t slots = t.map.mask + 1;
	hwp__hashmap_clear(&t.map);
	t.nr = 0;
	CHECK(t.map.nr == 0);
	CHECK(t.map.mask + 1 == slots);
	for (uint64_t k = 0; k < 100; k++)
		CHECK(find(&t, k, NULL) == -1);
	CHECK(insert(&t, 5) == 0);
	CHECK(find(&t, 5, NULL) == 0);
	table_free(&t);
}

static void test_limits(void)
{
	struct hwp_hashmap m;

	memset(&m, 0, sizeof(m));
	CHECK(hwp__hashmap_add(&m, 1, HWP_HASHMAP_MAX_ENTRIES) == -EOVERFLOW);
	CHECK(m.nr == 0 && m.slots == NULL);
	CHECK(hwp__hashmap_add(&m, 1, HWP_HASHMAP_MAX_ENTRIES - 1) == 0);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&m, 1);
	uint32_t i = 0;
	CHECK(hwp__hashmap_next(&p, &i));
	CHECK_EQ_U64(i, HWP_HASHMAP_MAX_ENTRIES - 1);
	CHECK(hwp__hashmap_renumber(&m, 1, HWP_HASHMAP_MAX_ENTRIES - 1, HWP_HASHMAP_MAX_ENTRIES) ==
	      -EOVERFLOW);
	CHECK(hwp__hashmap_renumber(&m, 1, HWP_HASHMAP_MAX_ENTRIES - 1, 3) == 0);
	p = hwp__hashmap_probe(&m, 1);
	CHECK(hwp__hashmap_next(&p, &i) && i == 3);
	hwp__hashmap_free(&m);
}

/*
 * Out of memory: under an address-space limit the map's growth fails with
 * -ENOMEM and leaves every entry findable. In a child, so the limit dies
 * with it; not under ASan, whose shadow memory needs the address space.
 */
static void test_out_of_memory(void)
{
#if defined(__SANITIZE_ADDRESS__)
	SKIP("address-space limit and ASan do not mix");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	SKIP("address-space limit and ASan do not mix");
#endif
#endif
	pid_t pid = fork();

	if (pid < 0)
		SKIP("fork: %s", strerror(errno));
	if (pid == 0) {
		struct table t = { .hash = good_hash };
		const size_t most = (size_t)16 << 20;
		unsigned long pages = 0;
		int err = 0;
		uint64_t k;
		FILE *f;

		/* the keys array never grows past its first reservation; the map
		   gets 96 MB more address space, not the 256 MB it would need */
		if (HWP_VEC_RESERVE(t.keys, t.cap, most) || !(f = fopen("/proc/self/statm", "r")))
			_exit(3);
		if (fscanf(f, "%lu", &pages) != 1)
			_exit(3);
		fclose(f);
		rlim_t lim = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (96u << 20);
		struct rlimit rl = { lim, lim };
		if (setrlimit(RLIMIT_AS, &rl))
			_exit(3);
		for (k = 0; k < most && !err; k++)
			err = insert(&t, k);
		if (err != -ENOMEM)
			_exit(4);
		k--; /* the key that failed */
		if (t.map.nr != t.nr || t.nr != k)
			_exit(5);
		if (find(&t, k, NULL) != -1)
			_exit(6);
		for (uint64_t j = 0; j < k; j += 997)
			if (find(&t, j, NULL) != (long)j)
				_exit(7);
		_exit(0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status));
	CHECK_EQ_U64(WEXITSTATUS(status), 0);
}

int main(void)
{
	RUN(test_empty);
	RUN(test_many_keys);
	RUN(test_collisions);
	RUN(test_insertion_order);
	RUN(test_remove_clustered);
	RUN(test_remove_wrapping);
	RUN(test_remove_random);
	RUN(test_clear);
	RUN(test_limits);
	RUN(test_out_of_memory);
	TL_EXIT();
}
