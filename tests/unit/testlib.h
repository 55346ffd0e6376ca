/* Minimal test harness: each case prints PASS/FAIL/SKIP; tests/run.sh tallies.
   The runner's plan for a test is the number of RUN(fn) statements in its
   source (one a line, in main): a test that stops before the last one
   fails. So call RUN() once per case, never in a loop or under an if. */
#ifndef HWPROF_TESTLIB_H
#define HWPROF_TESTLIB_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The next of a sequence of pseudo-random numbers from *STATE (xorshift64*:
   the same seed, the same numbers). */
static inline uint64_t next_random(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545f4914f6cdd1dULL;
}

static int tl_case_failed;
static int tl_case_skipped;
static int tl_any_failed;
static char tl_skip_reason[256];

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
				#cond);                                               \
			tl_case_failed = 1;                                           \
		}                                                                     \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                            \
	do {                                                                          \
		unsigned long long tl_a = (a), tl_b = (b);                            \
		if (tl_a != tl_b) {                                                   \
			fprintf(stderr, "%s:%d: %s == %s failed: 0x%llx != 0x%llx\n",  \
				__FILE__, __LINE__, #a, #b, tl_a, tl_b);              \
			tl_case_failed = 1;                                           \
		}                                                                     \
	} while (0)

#define SKIP(...)                                                                     \
	do {                                                                          \
		snprintf(tl_skip_reason, sizeof(tl_skip_reason), __VA_ARGS__);        \
		tl_case_skipped = 1;                                                  \
		return;                                                               \
	} while (0)

static inline void tl_run(const char *name, void (*fn)(void))
{
	tl_case_failed = tl_case_skipped = 0;
	fn();
	if (tl_case_failed) {
		printf("FAIL %s\n", name);
		tl_any_failed = 1;
	} else if (tl_case_skipped) {
		printf("SKIP %s: %s\n", name, tl_skip_reason);
	} else {
		printf("PASS %s\n", name);
	}
	fflush(stdout);
}

#define RUN(fn) tl_run(#fn, fn)
#define TL_EXIT() return tl_any_failed ? 1 : 0

/* ../shared/corpus relative to the checkout, or $HWPROF_CORPUS. */
static inline const char *tl_corpus(void)
{
	const char *env = getenv("HWPROF_CORPUS");
	static const char *def = "../shared/corpus";
	const char *dir = env ? env : def;
	return access(dir, R_OK) == 0 ? dir : NULL;
}

#endif
