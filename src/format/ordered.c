/* SPDX-License-Identifier: MIT */
/*
 * Time-ordered event delivery with perf's rules (util/ordered-events.c):
 * timestamped events are queued; at each FINISHED_ROUND the queue is flushed
 * up to the largest timestamp seen before the previous round ended; events
 * with no timestamp go straight through; ties keep file order; EOF flushes
 * all. Queued events from the mmap are referenced, others are copied.
 *
 * Most records come in time order already (perf writes each CPU's buffer
 * in order; a generated or single-CPU recording is all in order), so a
 * record no earlier than the last one appended goes to a FIFO and only the
 * others to a heap: delivering takes the earlier of the two fronts, the
 * same order as one heap of everything, without the heap's cost per
 * record. A sample is read at first only for its time (and checked); it
 * is parsed in full when delivered, or, in raw mode, left to the caller
 * to parse (hwp__reader_parse_sample()).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "format/reader_internal.h"
#include "format/perf_data_internal.h"
#include "util/error.h"

#define DROP_EVERY (16u << 20)

/* A record queued, with what delivering it in raw mode takes (72 bytes,
   about a cache line: the record itself is not touched again until it is
   parsed). */
struct qent {
	uint64_t time;
	uint64_t index; /* in file order: ties keep it */
	const uint8_t *data;
	const struct hwp_evsel *evsel; /* a sample's */
	uint64_t offset;
	uint32_t type, size;
	uint32_t pid, tid; /* a sample's */
	uint64_t ip;       /* a sample's (the parallel pass may route by it) */
	uint16_t misc;
	bool owned;
	bool compressed;
};

struct hwp_ordered {
	struct hwp_reader *r;
	struct qent *heap;
	size_t nr, cap;
	/* the FIFO: a ring of fifo_nr entries from fifo_head, cap a power of 2 */
	struct qent *fifo;
	size_t fifo_head, fifo_nr, fifo_cap;
	bool raw; /* samples delivered peeked (hwp__ordered_set_raw()) */
	uint64_t max_ts;     /* largest timestamp queued so far */
	uint64_t next_flush; /* flush limit set by the previous round */
	uint64_t limit;      /* current flush: deliver queued events <= limit */
	bool flushing, eof;
	/* Queued events are views into the mapping. The reader hands pages behind
	   it back to the page cache; delivering an old event faults its page in
	   again, so every DROP_EVERY bytes delivered those pages are dropped too:
	   RSS stays flat even when perf's rounds are huge (perf record -m 1G). */
	uint64_t delivered_bytes;
	uint8_t *last_owned; /* copy handed out last; freed on the next call */
};

static bool before(const struct qent *a, const struct qent *b)
{
	return a->time < b->time || (a->time == b->time && a->index < b->index);
}

static int heap_push(struct hwp_ordered *q, const struct qent *e)
{
	if (q->nr == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 1024;
		struct qent *nh = realloc(q->heap, ncap * sizeof(*nh));
		if (!nh)
			return -ENOMEM;
		q->heap = nh;
		q->cap = ncap;
	}
	size_t i = q->nr++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!before(e, &q->heap[p]))
			break;
		q->heap[i] = q->heap[p];
		i = p;
	}
	q->heap[i] = *e;
	return 0;
}

static struct qent heap_pop(struct hwp_ordered *q)
{
	struct qent top = q->heap[0], last = q->heap[--q->nr];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->nr)
			break;
		if (c + 1 < q->nr && before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->nr)
		q->heap[i] = last;
	return top;
}

static struct qent *fifo_at(const struct hwp_ordered *q, size_t i)
{
	return &q->fifo[(q->fifo_head + i) & (q->fifo_cap - 1)];
}

/* E queued: to the FIFO when no earlier than its last entry. */
static int push(struct hwp_ordered *q, const struct qent *e)
{
	if (q->fifo_nr && e->time < fifo_at(q, q->fifo_nr - 1)->time)
		return heap_push(q, e);
	if (q->fifo_nr == q->fifo_cap) {
		size_t ncap = q->fifo_cap ? q->fifo_cap * 2 : 1024;
		struct qent *nf = malloc(ncap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		for (size_t i = 0; i < q->fifo_nr; i++)
			nf[i] = *fifo_at(q, i);
		free(q->fifo);
		q->fifo = nf;
		q->fifo_cap = ncap;
		q->fifo_head = 0;
	}
	*fifo_at(q, q->fifo_nr++) = *e;
	return 0;
}

/* The earliest entry queued, NULL when none. */
static const struct qent *first(const struct hwp_ordered *q)
{
	const struct qent *f = q->fifo_nr ? fifo_at(q, 0) : NULL;

	if (q->nr && (!f || before(&q->heap[0], f)))
		return &q->heap[0];
	return f;
}

/* Takes the earliest entry (there is one). */
static struct qent pop(struct hwp_ordered *q)
{
	if (first(q) == q->heap)
		return heap_pop(q);
	struct qent e = *fifo_at(q, 0);

	q->fifo_head = (q->fifo_head + 1) & (q->fifo_cap - 1);
	q->fifo_nr--;
	return e;
}

void hwp__ordered_set_raw(struct hwp_ordered *q, bool raw)
{
	q->raw = raw;
}

struct hwp_ordered *hwp_ordered__new(struct hwp_reader *r)
{
	struct hwp_ordered *q;

	if (!r) {
		hwp__set_error(EINVAL, "ordered events: no reader given");
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		hwp__set_error(ENOMEM, "%s: out of memory for the event queue", hwp_reader__path(r));
		return NULL;
	}
	q->r = r;
	return q;
}

void hwp_ordered__delete(struct hwp_ordered *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->nr; i++)
		if (q->heap[i].owned)
			free((void *)q->heap[i].data);
	for (size_t i = 0; i < q->fifo_nr; i++)
		if (fifo_at(q, i)->owned)
			free((void *)fifo_at(q, i)->data);
	free(q->last_owned);
	free(q->heap);
	free(q->fifo);
	free(q);
}

/* Sample E as hwp__reader_peek_sample() makes it, from what was kept. */
static void peeked(const struct qent *e, struct hwp_event *ev)
{
	memset(ev, 0, offsetof(struct hwp_event, sample));
	ev->type = e->type;
	ev->misc = e->misc;
	ev->size = e->size;
	ev->data = e->data;
	ev->file_offset = e->offset;
	ev->index = e->index;
	ev->evsel = e->evsel;
	ev->has_sample_id = true;
	ev->sample.sample_type = e->evsel->attr.sample_type;
	ev->sample.cpumode = e->misc & HWP_MISC_CPUMODE_MASK;
	ev->sample.pid = e->pid;
	ev->sample.tid = e->tid;
	ev->sample.time = e->time;
	ev->sample.ip = e->ip;
}

static int deliver(struct hwp_ordered *q, struct hwp_event *ev)
{
	struct qent e = pop(q);
	int err = 0;

	if (e.type != HWP_RECORD_SAMPLE) {
		err = hwp__reader_parse(q->r, e.data, e.size, e.offset, e.index, ev);
	} else {
		const struct hwp_evsel *evsel =
			q->r->ids_moved ? hwp__reader_sample_evsel_now(q->r, e.data, e.size, e.evsel) : e.evsel;

		if (q->raw && evsel == e.evsel) /* (checked when read) */
			peeked(&e, ev);
		else
			err = hwp__reader_parse_sample(q->r, evsel, e.data, e.size, e.offset, e.index, ev);
	}

	if (e.owned) {
		q->last_owned = (uint8_t *)e.data;
	} else if ((q->delivered_bytes += e.size) >= DROP_EVERY) {
		q->delivered_bytes = 0;
		hwp__reader_drop_released_pages(q->r);
	}
	ev->compressed = e.compressed;
	ev->stable = !e.owned;
	return err < 0 ? err : 1;
}

static int queue_oom(const struct hwp_ordered *q, const struct hwp_event *ev)
{
	return hwp__set_error(ENOMEM, "%s: out of memory queueing the record at offset 0x%llx (record %llu) in time order",
			      hwp_reader__path(q->r), (unsigned long long)ev->file_offset,
			      (unsigned long long)ev->index);
}

/* A peeked sample EV going straight through, parsed in full. */
static int reparse(struct hwp_ordered *q, struct hwp_event *ev)
{
	bool compressed = ev->compressed, stable = ev->stable;
	int err = hwp__reader_parse_sample(q->r, ev->evsel, ev->data, ev->size, ev->file_offset, ev->index, ev);

	ev->compressed = compressed;
	ev->stable = stable;
	return err < 0 ? err : 1;
}

int hwp_ordered__next(struct hwp_ordered *q, struct hwp_event *ev)
{
	free(q->last_owned);
	q->last_owned = NULL;
	for (;;) {
		if (q->flushing) {
			const struct qent *f = first(q);

			if (f && f->time <= q->limit)
				return deliver(q, ev);
			q->flushing = false;
		}
		if (q->eof)
			return 0;

		int rc = hwp__reader_next_light(q->r, ev);
		if (rc < 0)
			return rc;
		if (rc == 0) {
			q->eof = true;
			q->flushing = true;
			q->limit = UINT64_MAX;
			continue;
		}
		if (ev->type == HWP_RECORD_FINISHED_ROUND) {
			q->flushing = true;
			q->limit = q->next_flush;
			q->next_flush = q->max_ts;
			return 1; /* callers may count rounds; it carries no data */
		}
		uint64_t t = hwp_event__time(ev);
		if (t == UINT64_MAX || (ev->type == HWP_RECORD_SAMPLE && !ev->evsel))
			return rc == 2 && !q->raw ? reparse(q, ev) : 1;
		struct qent e = { .time = t, .index = ev->index, .data = ev->data, .evsel = ev->evsel,
				  .offset = ev->file_offset, .type = ev->type, .size = ev->size,
				  .pid = ev->sample.pid, .tid = ev->sample.tid, .ip = ev->sample.ip, .misc = ev->misc,
				  .compressed = ev->compressed };
		if (!ev->stable) {
			uint8_t *copy = malloc(ev->size);
			if (!copy)
				return queue_oom(q, ev);
			memcpy(copy, ev->data, ev->size);
			e.data = copy;
			e.owned = true;
		}
		if (t > q->max_ts)
			q->max_ts = t;
		if (push(q, &e) < 0) {
			if (e.owned)
				free((void *)e.data);
			return queue_oom(q, ev);
		}
	}
}
