/* The parallel pass itself (session/parallel_pass.c): whatever the number
   of threads and whether samples go to the parts by IP, every sample is
   counted exactly once, by one part, each part meeting its samples in
   increasing numbers (what every analysis's merge relies on), each number
   the sample's place in the sequential pass, with the IP the sequential
   pass parses; and the parts are the threads' own, one thread each. The
   IP a sample is routed by is the one the reading thread peeks (raw mode):
   the parsed one too. */
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/session.h"
#include "session/parallel_pass.h"
#include "session/session_internal.h"
#include "testlib.h"

static char path[PATH_MAX];

/* What the sequential pass meets: each sample's IP, in its order. */
struct expected {
	uint64_t *ip;
	size_t n;
};

struct part {
	uint64_t last_seq;
	bool any, in_order;
	size_t samples;
	pthread_t thread; /* the one thread that added to it */
	bool one_thread;
};

struct ctx {
	const struct expected *want;
	_Atomic uint8_t *seen; /* times each sample was added */
	_Atomic size_t wrong_ip;
	size_t parts_made;
	bool merged, parts_ok;
	size_t counted;
};

/* The pass's context (the ops give a part none). */
static struct ctx *current;

static void *part_new(void *ctx, struct hwp__resolver *res)
{
	struct ctx *c = ctx;
	struct part *p = calloc(1, sizeof(*p));

	(void)res;
	if (p) {
		p->in_order = p->one_thread = true;
		c->parts_made++;
	}
	return p;
}

static int part_add(void *part, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq)
{
	struct part *p = part;
	(void)th;

	if (!p->samples)
		p->thread = pthread_self();
	else if (!pthread_equal(p->thread, pthread_self()))
		p->one_thread = false;
	if (p->any && seq <= p->last_seq)
		p->in_order = false;
	p->any = true;
	p->last_seq = seq;
	p->samples++;
	if (seq < current->want->n) {
		atomic_fetch_add(&current->seen[seq], 1);
		if (ev->sample.ip != current->want->ip[seq])
			atomic_fetch_add(&current->wrong_ip, 1);
	} else {
		atomic_fetch_add(&current->wrong_ip, 1);
	}
	return 0;
}

static int part_merge(void *ctx, void *const *parts, struct hwp__module_ids *const *ids, size_t n)
{
	struct ctx *c = ctx;
	(void)ids;

	c->merged = true;
	c->parts_ok = n == c->parts_made;
	for (size_t k = 0; k < n; k++) {
		const struct part *p = parts[k];

		c->parts_ok &= p->in_order && p->one_thread;
		c->counted += p->samples;
	}
	return 0;
}

static void part_delete(void *part)
{
	free(part);
}

/* The samples of PATH in the sequential pass's order, parsed or only
   peeked (RAW). */
static int expect(struct expected *e, bool raw)
{
	struct hwp_session *s = hwp_session__open(path, NULL);
	struct hwp_event ev;
	const struct hwp_thread *th;
	size_t cap = 0;
	int r;

	memset(e, 0, sizeof(*e));
	if (!s)
		return -1;
	hwp__session_set_raw_samples(s, raw);
	while ((r = hwp_session__next(s, &ev, &th)) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE)
			continue;
		if (e->n == cap) {
			cap = cap ? 2 * cap : 4096;
			uint64_t *v = realloc(e->ip, cap * sizeof(*v));
			if (!v) {
				r = -1;
				break;
			}
			e->ip = v;
		}
		e->ip[e->n++] = ev.sample.ip;
	}
	hwp_session__delete(s);
	return r;
}

/* One pass on JOBS threads, routed by IP or not: every check above. */
static void one_pass(const struct expected *want, unsigned jobs, bool route)
{
	struct ctx c = { .want = want };
	const struct hwp__parallel_ops ops = { &c, part_new, part_add, part_merge, part_delete, route };
	struct hwp_session *s = hwp_session__open(path, NULL);
	int rc;

	CHECK(s != NULL);
	if (!s)
		return;
	c.seen = calloc(want->n + 1, 1);
	CHECK(c.seen != NULL);
	if (!c.seen) {
		hwp_session__delete(s);
		return;
	}
	current = &c;
	rc = hwp__parallel_pass(s, &ops, jobs);
	if (rc < 0)
		fprintf(stderr, "%u threads%s: %s\n", jobs, route ? ", routed" : "", hwp_errmsg());
	CHECK(rc == 0);
	CHECK(c.merged);
	CHECK(c.parts_made == jobs);
	CHECK(c.parts_ok);
	CHECK(c.counted == want->n);
	CHECK(atomic_load(&c.wrong_ip) == 0);
	size_t once = 0;
	for (size_t i = 0; i < want->n; i++)
		once += c.seen[i] == 1;
	CHECK(once == want->n);
	free((void *)c.seen);
	hwp_session__delete(s);
}

static void test_every_sample_once(void)
{
	const char *root = getenv("HWPROF_ROOT"), *build = getenv("BUILD");
	char tool[PATH_MAX], cmd[2 * PATH_MAX + 64];
	struct expected want;

	snprintf(tool, sizeof(tool), "%s/%s/bench/gen_branch_perfdata", root ? root : ".", build ? build : "build");
	snprintf(cmd, sizeof(cmd), "'%s' '%s' 24 --callchain >/dev/null", tool, path);
	if (access(tool, X_OK) != 0 || system(cmd) != 0)
		SKIP("no generator bench/gen_branch_perfdata in $BUILD (make all)");
	CHECK(expect(&want, false) == 0);
	CHECK(want.n > 60000); /* 60 batches of 1024 and more (routed: each part's) */
	struct expected peeked;
	CHECK(expect(&peeked, true) == 0);
	CHECK(peeked.n == want.n);
	CHECK(peeked.ip && want.ip && !memcmp(peeked.ip, want.ip, want.n * sizeof(*want.ip)));
	free(peeked.ip);
	for (unsigned jobs = 2; jobs <= 9; jobs++) {
		one_pass(&want, jobs, false);
		one_pass(&want, jobs, true);
	}
	free(want.ip);
	remove(path);
}

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/hwprof-test-parallel-%d.data", (int)getpid());
	RUN(test_every_sample_once);
	TL_EXIT();
}
