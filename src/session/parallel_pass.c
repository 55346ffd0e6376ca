/* SPDX-License-Identifier: MIT */
/*
 * The parallel pass. This thread reads the records in perf's order and
 * keeps the address spaces, as the sequential pass does: every sample
 * meets exactly the state it would meet there. It reads of a sample only
 * what that takes (its time, pid, tid and IP: the session's raw mode) and
 * hands out where the record is and its thread; samples go in batches to
 * the threads (this one too, when the queue is long), each parsing them,
 * counting into its own part and resolving through its own caches and
 * module numbers; they only read the reader, the address spaces and the
 * symbolizer. Before a record
 * changes the address spaces, every batch handed out is finished (rare:
 * side-band records come in bursts). At the end the modules the parts met
 * are registered in the sequential order and the parts merge (each
 * analysis's merge keeps the sequential order of its rows).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/perf_data_internal.h"
#include "session/module_ids.h"
#include "session/parallel_pass.h"
#include "session/session_internal.h"
#include "util/bytes.h"
#include "symbolize/maps_internal.h"
#include "util/error.h"
#include "util/hash.h"

/* Samples per batch: enough to make the queue's lock rare, few enough to
   keep the threads busy up to a barrier. */
#define BATCH 1024
/* How far (in samples) a part may be behind the one with the least to
   count and still get the samples of its IPs (pick_part()). */
#define ROUTE_SLACK (2 * BATCH)
/* The fewest parts samples are routed by IP to (pick_part()): routing
   scatters a part's records over the file, which costs more than it saves
   until each part would otherwise make most of what the others make
   (measured on the call graph of 1.1 GB: CPU time and peak memory 0.84x
   and 0.66x at 8 parts, 1.04x and 0.95x at 4, 1.05x at 2). */
#define ROUTE_MIN_PARTS 8
/* Records a part asks the memory for ahead of the one it parses. */
#define PREFETCH_AHEAD 4
/* The least input a thread is started for by default. */
#define JOB_BYTES (4u << 20)

/* A sample handed out: where its record is (its length checked when read
   for what the peek reads; the thread that parses it reports what else is
   wrong, the earliest such sample's error winning), and its thread. Small:
   every byte of it moves from this thread's cache to another's, the cost
   of the hand-out. */
struct item {
	const struct hwp_thread *th;
	uint64_t offset; /* in the mapped file */
	int32_t index;   /* the record's number less the batch's index0 (perf's
			    order may deliver a record before an earlier one) */
	uint32_t seq;    /* the sample's number less the batch's seq0 */
	int32_t evsel;   /* its event's index, -1 none */
	uint16_t size;   /* the record's (what is asked for ahead) */
};

struct batch {
	struct batch *next;
	uint64_t seq0; /* the first sample's number */
	uint64_t index0;
	uint64_t gen;  /* the address spaces' generation its samples met */
	size_t nr;
	struct item items[BATCH];
};

/* Each on cache lines of its own: its thread writes there all the time.
   It reads nothing per sample where another thread writes (every line
   another thread wrote costs a transfer): what it reads of the pass and
   the reader is copied here. */
struct part {
	_Alignas(64) struct par *par;
	const struct hwp__parallel_ops *ops;
	struct hwp_reader *r;
	const uint8_t *map;             /* the mapped file */
	const struct hwp_evsel *evsels; /* the reader's, which never move */
	void *obj; /* what the ops made */
	struct hwp__resolver res;
	struct hwp__module_ids *ids;
	int err;          /* the first error, at sample err_seq */
	uint64_t err_seq;
	char msg[512];
	pthread_t tid;
	bool started;
};

/* Batches to count, in the order handed out (under the pass's lock): one
   lane that every part takes from, or one per part when samples are routed
   (pick_part()). */
struct lane {
	struct batch *head, *tail;
	size_t queued;
	pthread_cond_t more; /* a batch queued, or stop */
};

struct par {
	_Alignas(64) pthread_mutex_t mu;
	pthread_cond_t idle; /* nothing queued or being counted */
	struct lane *lanes;  /* one per part; only lanes[0] is used unless routing */
	struct batch *spare;
	size_t queued, busy, max_queued; /* queued: in all lanes */
	bool stop, failed;
	struct part *parts; /* parts[0] is this thread's */
	size_t n;
	bool route;         /* samples go to parts by IP (pick_part()) */
	struct hwp_session *s;
	struct hwp_reader *r;
	const struct hwp__parallel_ops *ops;
	/* this thread's alone, on a line of their own */
	_Alignas(64) struct batch **cur; /* each part's being filled */
	size_t *load;                    /* routing: each part's samples not counted, as last seen */
	size_t least;                    /* routing: the part with the least load, as last seen */
	uint64_t seq;                    /* the next sample's number */
};

unsigned hwp__cpus_available(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned)CPU_COUNT(&set);
	return 1;
}

/* Sample number SEQ (EV, parsed: <0 when it failed) of thread TH, counted
   by PT (which counts nothing after an error). */
static void count_one(struct part *pt, const struct hwp_event *ev, int err, const struct hwp_thread *th,
		      uint64_t seq)
{
	if (err >= 0)
		err = pt->ops->add(pt->obj, ev, th, seq);

	if (err < 0) {
		pt->err = err;
		pt->err_seq = seq;
		snprintf(pt->msg, sizeof(pt->msg), "%s", hwp_errmsg());
	}
}

const char *hwp__parallel_refusal(struct hwp_session *s)
{
	struct hwp_reader *r = hwp_session__input_reader(s, 0);

	if (hwp_session__nr_inputs(s) != 1)
		return "several inputs";
	if (hwp_reader__is_text(r))
		return "perf script text";
	if (hwp_reader__is_pipe(r))
		return "pipe mode";
	if (hwp_reader__header(r) && hwp_reader__header(r)->has_compressed)
		return "compressed records";
	return NULL;
}

unsigned hwp__default_jobs(struct hwp_session *s)
{
	uint64_t size = hwp_reader__file_size(hwp_session__input_reader(s, 0));
	unsigned jobs = hwp__cpus_available();

	/* a thread per JOB_BYTES at most: on a small file, starting threads and
	   merging their tables would cost more than they save */
	if (size / JOB_BYTES + 1 < jobs)
		jobs = (unsigned)(size / JOB_BYTES + 1);
	return jobs;
}

unsigned hwp__parallel_jobs(struct hwp_session *s, unsigned jobs, const char *refusal)
{
	const char *why = refusal;

	if (why || (why = hwp__parallel_refusal(s)))
		;
	else if (!jobs && (jobs = hwp__default_jobs(s)) < 2)
		why = "one CPU, or a small input";
	else if (jobs < 2)
		why = "one thread asked";
	if (why) {
		hwp__log(HWP_LOG_INFO, "%s: sequential pass (%s)", hwp_session__path(s), why);
		return 1;
	}
	hwp__log(HWP_LOG_INFO, "%s: parallel pass on %u threads", hwp_session__path(s), jobs);
	return jobs;
}

/* The generation of the address spaces now (this thread's). */
static uint64_t generation(const struct par *q)
{
	struct hwp_machine *m = hwp_session__machine(q->s);

	return m ? hwp__machine_generation(m) : 0;
}

static void count_batch(struct part *pt, const struct batch *b)
{
	pt->res.generation = b->gen;
	for (size_t i = 0; i < b->nr && !pt->err; i++) {
		const struct item *it = &b->items[i];
		const uint8_t *rec = pt->map + it->offset;
		struct hwp_event ev;

		if (i + PREFETCH_AHEAD < b->nr) {
			const struct item *next = it + PREFETCH_AHEAD;
			const uint8_t *p = pt->map + next->offset;
			for (size_t at = 0; at < next->size; at += 64)
				__builtin_prefetch(p + at);
		}
		int err = hwp__reader_parse_sample(pt->r, it->evsel < 0 ? NULL : &pt->evsels[it->evsel], rec,
						   ld16(rec + 6), it->offset, b->index0 + (uint64_t)(int64_t)it->index, &ev);

		ev.stable = true;
		count_one(pt, &ev, err, it->th, b->seq0 + it->seq);
	}
}

/* The lane part PT counts from. */
static struct lane *lane_of(struct par *q, const struct part *pt)
{
	return &q->lanes[q->route ? pt - q->parts : 0];
}

/* With the lock held: the oldest batch of PT's lane, counted by PT (the
   lock let go meanwhile). */
static void take_one(struct par *q, struct part *pt)
{
	struct lane *l = lane_of(q, pt);
	struct batch *b = l->head;

	l->head = b->next;
	if (!l->head)
		l->tail = NULL;
	l->queued--;
	q->queued--;
	q->busy++;
	pthread_mutex_unlock(&q->mu);
	count_batch(pt, b);
	pthread_mutex_lock(&q->mu);
	q->busy--;
	q->failed |= pt->err != 0;
	b->next = q->spare;
	q->spare = b;
	if (!q->queued && !q->busy)
		pthread_cond_broadcast(&q->idle);
}

static void *worker(void *arg)
{
	struct part *pt = arg;
	struct par *q = pt->par;
	struct lane *l = lane_of(q, pt);

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!l->head && !q->stop)
			pthread_cond_wait(&l->more, &q->mu);
		if (!l->head)
			break;
		take_one(q, pt);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

/* Hands the batch being filled for part K (routing, else 0) out to its
   lane; this thread counts batches of its lane while it is long. Whether a
   part failed. */
static bool submit(struct par *q, size_t k)
{
	struct batch *b = q->cur[k];
	struct lane *l = &q->lanes[k];
	bool failed;

	q->cur[k] = NULL;
	pthread_mutex_lock(&q->mu);
	if (b && !b->nr) {
		b->next = q->spare;
		q->spare = b;
	} else if (b) {
		b->next = NULL;
		b->gen = generation(q); /* no change since its first sample: a barrier came before */
		if (l->tail)
			l->tail->next = b;
		else
			l->head = b;
		l->tail = b;
		l->queued++;
		q->queued++;
		pthread_cond_signal(&l->more);
	}
	while (q->lanes[0].queued > q->max_queued)
		take_one(q, &q->parts[0]);
	if (q->route) {
		for (size_t i = 0; i < q->n; i++)
			q->load[i] = q->lanes[i].queued * BATCH;
		/* (ties to the other threads' parts: this thread's counts when it
		   must) */
		q->least = q->n - 1;
		for (size_t i = q->n - 1; i-- > 0;)
			if (q->load[i] < q->load[q->least])
				q->least = i;
	}
	failed = q->failed;
	pthread_mutex_unlock(&q->mu);
	return failed;
}

/* Every sample handed out counted (this thread counting its part's): the
   address spaces may change. -ECANCELED when a part failed. */
static int barrier(void *ctx)
{
	struct par *q = ctx;

	for (size_t k = 0; k < q->n; k++)
		submit(q, k);
	pthread_mutex_lock(&q->mu);
	while (q->lanes[0].head)
		take_one(q, &q->parts[0]);
	while (q->busy || q->queued)
		pthread_cond_wait(&q->idle, &q->mu);
	bool failed = q->failed;
	pthread_mutex_unlock(&q->mu);
	return failed ? -ECANCELED : 0;
}

static struct batch *new_batch(struct par *q)
{
	struct batch *b;

	pthread_mutex_lock(&q->mu);
	b = q->spare;
	if (b)
		q->spare = b->next;
	pthread_mutex_unlock(&q->mu);
	if (!b && !(b = malloc(sizeof(*b))))
		return NULL;
	b->nr = 0;
	b->seq0 = q->seq;
	return b;
}

/* Part K's samples not counted: its lane's as last seen, and its batch
   being filled. */
static size_t backlog(const struct par *q, size_t k)
{
	return q->load[k] + (q->cur[k] ? q->cur[k]->nr : 0);
}

/*
 * The part sample EV goes to when routing (else 0: every part takes the
 * next batch of the one lane when it is free). Any part may count any
 * sample (the merge makes the same whatever the shares), so this only
 * decides how much work is done twice and how evenly: samples of one IP go
 * to one part, so that the rows keyed by it (the call graph's leaves and
 * the IP's frames) are made by one part instead of by every one; unless
 * that part has fallen behind: then the part with the least to count.
 */
static size_t pick_part(struct par *q, const struct hwp_event *ev)
{
	if (!q->route)
		return 0;
	if (ev->sample.sample_type & HWP_SAMPLE_IP) {
		/* (over the other threads' parts: this thread counts its own only
		   when the others are behind, so an IP of its own would end up in
		   any part) */
		uint64_t h = hwp__hash64(ev->sample.ip);
		size_t k = 1 + (size_t)(((unsigned __int128)h * (q->n - 1)) >> 64);

		if (backlog(q, k) <= backlog(q, q->least) + ROUTE_SLACK)
			return k;
	}
	return q->least;
}

/* Sample EV (peeked) of thread TH to the batch being filled (or, when its
   record is not one of the mapped file's, counted here once every earlier
   one is). */
static int hand_out(struct par *q, const struct hwp_event *ev, const struct hwp_thread *th)
{
	if (!ev->stable || ev->compressed || hwp__reader_mapped(q->r, ev->file_offset) != ev->data) {
		struct part *pt = &q->parts[0];
		struct hwp_event one;
		int err = barrier(q);

		if (err < 0)
			return err;
		pt->res.generation = generation(q);
		err = hwp__reader_parse_sample(q->r, ev->evsel, ev->data, ev->size, ev->file_offset, ev->index, &one);
		one.compressed = ev->compressed;
		one.stable = ev->stable;
		count_one(pt, &one, err, th, q->seq++);
		return pt->err ? -ECANCELED : 0;
	}
	size_t k = pick_part(q, ev);
	struct batch *b = q->cur[k];

	int64_t index = b ? (int64_t)(ev->index - b->index0) : 0;

	if (b && b->nr && (index < INT32_MIN || index > INT32_MAX || q->seq - b->seq0 > UINT32_MAX) && submit(q, k))
		return -ECANCELED;
	if (!(b = q->cur[k]) && !(b = q->cur[k] = new_batch(q)))
		return hwp__set_error(ENOMEM, "out of memory handing samples out");
	if (!b->nr) {
		b->index0 = ev->index;
		b->seq0 = q->seq;
	}
	b->items[b->nr++] = (struct item){ th, ev->file_offset, (int32_t)(int64_t)(ev->index - b->index0),
					   (uint32_t)(q->seq - b->seq0), ev->evsel ? ev->evsel->idx : -1, (uint16_t)ev->size };
	q->seq++;
	if (b->nr == BATCH && submit(q, k))
		return -ECANCELED;
	return 0;
}

/* The error of the earliest sample that failed, as the sequential pass
   would have stopped there; else READ's. */
static int first_error(struct par *q, int read)
{
	struct part *first = NULL;

	for (size_t i = 0; i < q->n; i++)
		if (q->parts[i].err && (!first || q->parts[i].err_seq < first->err_seq))
			first = &q->parts[i];
	if (first)
		return hwp__set_error(-first->err, "%s", first->msg);
	return read;
}

static void par_free(struct par *q)
{
	struct batch *b;

	pthread_mutex_lock(&q->mu);
	q->stop = true;
	for (size_t i = 0; q->lanes && i < q->n; i++)
		pthread_cond_broadcast(&q->lanes[i].more);
	pthread_mutex_unlock(&q->mu);
	for (size_t i = 0; q->parts && i < q->n; i++)
		if (q->parts[i].started)
			pthread_join(q->parts[i].tid, NULL);
	for (size_t i = 0; q->parts && i < q->n; i++) {
		if (q->parts[i].obj)
			q->ops->part_delete(q->parts[i].obj);
		hwp__module_ids_delete(q->parts[i].ids);
	}
	free(q->parts);
	for (size_t i = 0; q->cur && i < q->n; i++)
		free(q->cur[i]);
	free(q->cur);
	free(q->load);
	for (size_t i = 0; q->lanes && i < q->n; i++) {
		while ((b = q->lanes[i].head)) {
			q->lanes[i].head = b->next;
			free(b);
		}
		pthread_cond_destroy(&q->lanes[i].more);
	}
	free(q->lanes);
	while ((b = q->spare)) {
		q->spare = b->next;
		free(b);
	}
	pthread_cond_destroy(&q->idle);
	pthread_mutex_destroy(&q->mu);
}

static int par_init(struct par *q, struct hwp_session *s, const struct hwp__parallel_ops *ops, unsigned jobs)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->idle, NULL);
	q->max_queued = 2 * (size_t)jobs;
	q->route = ops->route_by_ip && jobs >= ROUTE_MIN_PARTS;
	q->least = jobs - 1;
	if (q->route)
		hwp__log(HWP_LOG_INFO, "%s: samples go to the threads by their IP", hwp_session__path(s));
	q->s = s;
	q->r = hwp_session__input_reader(s, 0);
	q->ops = ops;
	if (!(q->lanes = calloc(jobs, sizeof(*q->lanes))))
		return hwp__set_error(ENOMEM, "out of memory starting %u threads", jobs);
	for (size_t i = 0; i < jobs; i++)
		pthread_cond_init(&q->lanes[i].more, NULL);
	q->n = jobs; /* (the lanes made: par_free() frees them) */
	if (!(q->parts = aligned_alloc(_Alignof(struct part), jobs * sizeof(*q->parts))) ||
	    !(q->cur = calloc(jobs, sizeof(*q->cur))) || !(q->load = calloc(jobs, sizeof(*q->load)))) {
		free(q->parts); /* (par_free() frees what it finds in the parts) */
		q->parts = NULL;
		return hwp__set_error(ENOMEM, "out of memory starting %u threads", jobs);
	}
	memset(q->parts, 0, jobs * sizeof(*q->parts));
	for (size_t i = 0; i < q->n; i++) {
		struct part *pt = &q->parts[i];

		pt->par = q;
		pt->ops = ops;
		pt->r = q->r;
		pt->map = hwp__reader_mapped(q->r, 0);
		pt->evsels = hwp_reader__evsel(q->r, 0);
		if (!(pt->ids = hwp__module_ids_new()))
			return -ENOMEM;
		hwp__resolver_init(&pt->res, s, pt->ids);
		pt->res.pinned = true;
		if (!(pt->obj = ops->part_new(ops->ctx, &pt->res)))
			return -(errno ? errno : ENOMEM);
	}
	for (size_t i = 1; i < q->n; i++) {
		int err = pthread_create(&q->parts[i].tid, NULL, worker, &q->parts[i]);

		if (err)
			return hwp__set_error(err, "cannot start thread %zu of the parallel pass: %s", i,
					      hwp_strerror(err));
		q->parts[i].started = true;
	}
	return 0;
}

int hwp__parallel_pass(struct hwp_session *s, const struct hwp__parallel_ops *ops, unsigned jobs)
{
	struct par q;
	struct hwp_event ev;
	const struct hwp_thread *th;
	int r;

	if ((r = par_init(&q, s, ops, jobs)) < 0) {
		par_free(&q);
		return r;
	}
	s->before_change = barrier;
	s->before_change_ctx = &q;
	hwp__session_set_raw_samples(s, true);
	for (;;) {
		if ((r = hwp_session__next(s, &ev, &th)) <= 0)
			break;
		/* (samples of no known event too: the call graph counts them) */
		if (ev.type == HWP_RECORD_SAMPLE && (r = hand_out(&q, &ev, th)) < 0)
			break;
	}
	hwp__session_set_raw_samples(s, false);
	s->before_change = NULL;
	s->before_change_ctx = NULL;
	int end = barrier(&q);
	r = first_error(&q, r < 0 ? r : end);
	if (r >= 0) {
		void **parts = malloc(q.n * sizeof(*parts));
		struct hwp__module_ids **ids = malloc(q.n * sizeof(*ids));

		if (!parts || !ids) {
			r = hwp__set_error(ENOMEM, "out of memory merging the parallel pass");
		} else {
			for (size_t i = 0; i < q.n; i++) {
				parts[i] = q.parts[i].obj;
				ids[i] = q.parts[i].ids;
			}
			if ((r = hwp__module_ids_register(ids, q.n, hwp_session__symbolizer(s))) >= 0)
				r = ops->merge(ops->ctx, parts, ids, q.n);
		}
		free(parts);
		free(ids);
	}
	par_free(&q);
	if (r < 0)
		hwp__session_stopped_early(s);
	return r < 0 ? r : 0;
}
