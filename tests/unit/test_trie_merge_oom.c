/* The parallel trie merge (src/analysis/trie_merge.c) out of memory: each
   of its allocations fails in turn (malloc, calloc and realloc of this
   executable's code fail on the Nth call), on tries wide enough that
   depths merge on two threads and a piece's thread may not start. Each
   time the merge returns -ENOMEM or the whole merge, and leaves no block
   of its own allocated. Not under ASan, which has malloc of its own. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/trie_merge.h"
#include "testlib.h"

#if defined(__SANITIZE_ADDRESS__)
#define NO_INTERPOSE 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_INTERPOSE 1
#endif
#endif

#ifndef NO_INTERPOSE
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern char __executable_start, etext;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int counting;      /* count (and fail) this executable's allocations */
static long calls, fail_at = -1;
#define NLIVE (1u << 20) /* blocks of this executable's, live: an open-addressed set */
static void *live[NLIVE];
static size_t nlive;

static int ours(const void *ra)
{
	return (const char *)ra >= &__executable_start && (const char *)ra < &etext;
}

static size_t slot(const void *p)
{
	return (size_t)(((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ull >> 44); /* 20 bits */
}

static int should_fail(const void *ra)
{
	if (!counting || !ours(ra))
		return 0;
	pthread_mutex_lock(&mu);
	int fail = calls++ == fail_at;
	pthread_mutex_unlock(&mu);
	return fail;
}

static void track(void *p, const void *ra)
{
	if (!p || !counting || !ours(ra))
		return;
	pthread_mutex_lock(&mu);
	size_t i = slot(p);
	while (live[i])
		i = (i + 1) & (NLIVE - 1);
	live[i] = p;
	nlive++;
	pthread_mutex_unlock(&mu);
}

static void untrack(void *p)
{
	pthread_mutex_lock(&mu);
	for (size_t i = slot(p); p && live[i]; i = (i + 1) & (NLIVE - 1)) {
		if (live[i] != p)
			continue;
		live[i] = NULL;
		nlive--;
		/* the run after it placed again (no tombstones) */
		for (size_t j = (i + 1) & (NLIVE - 1); live[j]; j = (j + 1) & (NLIVE - 1)) {
			void *q = live[j];
			size_t k = slot(q);
			live[j] = NULL;
			while (live[k])
				k = (k + 1) & (NLIVE - 1);
			live[k] = q;
		}
		break;
	}
	pthread_mutex_unlock(&mu);
}

void *malloc(size_t n)
{
	const void *ra = __builtin_return_address(0);
	void *p = should_fail(ra) ? NULL : __libc_malloc(n);
	track(p, ra);
	return p;
}

void *calloc(size_t n, size_t size)
{
	const void *ra = __builtin_return_address(0);
	void *p = should_fail(ra) ? NULL : __libc_calloc(n, size);
	track(p, ra);
	return p;
}

void *realloc(void *old, size_t n)
{
	const void *ra = __builtin_return_address(0);
	void *p = should_fail(ra) ? NULL : __libc_realloc(old, n);
	if (p) {
		untrack(old);
		track(p, ra);
	}
	return p;
}

void free(void *p)
{
	untrack(p);
	__libc_free(p);
}

#define NPARTS 2
#define NODES 40000

static struct hwp__cg_tnode nodes[NPARTS][NODES];
static uint32_t keys[NPARTS][NODES];
static uint64_t seq[NPARTS][NODES];
#endif

static void every_allocation_failing(void)
{
#ifdef NO_INTERPOSE
	SKIP("ASan has malloc of its own");
#else
	struct hwp__trie_part tp[NPARTS];
	struct hwp__cg_tnode *out = NULL;
	size_t want = 0, nout, bad = 0, leaked = 0;

	/* two depths of 20 k nodes a part: both merged on two threads */
	for (size_t k = 0; k < NPARTS; k++) {
		for (uint32_t i = 1; i < NODES; i++) {
			nodes[k][i] = (struct hwp__cg_tnode){ i < NODES / 2 ? 0 : i - NODES / 2 + 1, i % 30000, 1, 1 };
			keys[k][i] = i % 30000;
			seq[k][i] = (uint64_t)i * 2 + k;
		}
		tp[k] = (struct hwp__trie_part){ nodes[k], keys[k], seq[k], NODES };
	}
	counting = 1;
	CHECK(hwp__trie_merge(tp, NPARTS, 2, &out, &want) == 0);
	counting = 0;
	free(out);
	long total = calls;
	CHECK(total > 20 && want == NODES); /* (the parts hold the same trie) */
	for (fail_at = 0; fail_at < total; fail_at++) {
		size_t before = nlive;
		calls = 0;
		counting = 1;
		int r = hwp__trie_merge(tp, NPARTS, 2, &out, &nout);
		counting = 0;
		if (r == 0) { /* (an allocation whose failure only costs speed) */
			bad += nout != want;
			free(out);
		} else {
			bad += r != -ENOMEM;
		}
		leaked += nlive != before;
	}
	fail_at = -1;
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(leaked, 0);
#endif
}

int main(void)
{
	RUN(every_allocation_failing);
	TL_EXIT();
}
