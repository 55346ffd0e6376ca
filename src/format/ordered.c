/* SPDX-License-Identifier: MIT */
/*
 * Time-ordered event delivery with perf's rules (util/ordered-events.c):
 * timestamped events are queued; at each FINISHED_ROUND the queue is flushed
 * up to the largest timestamp seen before the previous round ended; events
 * with no timestamp go straight through; ties keep file order; EOF flushes
 * all. Queued events from the mmap are referenced, others are copied.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "format/reader_internal.h"
#include "format/perf_data_internal.h"
#include "util/error.h"

#define DROP_EVERY (16u << 20)

struct qent {
	uint64_t time;
	uint64_t seq;
	const uint8_t *data;
	uint32_t size;
	bool owned;
	bool compressed;
	uint64_t offset, index;
};

struct hwp_ordered {
	struct hwp_reader *r;
	struct qent *heap;
	size_t nr, cap;
	uint64_t seq;
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
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static int push(struct hwp_ordered *q, const struct qent *e)
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

static struct qent pop(struct hwp_ordered *q)
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
	free(q->last_owned);
	free(q->heap);
	free(q);
}

static int deliver(struct hwp_ordered *q, struct hwp_event *ev)
{
	struct qent e = pop(q);
	int err = hwp__reader_parse(q->r, e.data, e.size, e.offset, e.index, ev);

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

int hwp_ordered__next(struct hwp_ordered *q, struct hwp_event *ev)
{
	free(q->last_owned);
	q->last_owned = NULL;
	for (;;) {
		if (q->flushing) {
			if (q->nr && q->heap[0].time <= q->limit)
				return deliver(q, ev);
			q->flushing = false;
		}
		if (q->eof)
			return 0;

		int rc = hwp_reader__next(q->r, ev);
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
			return 1;
		struct qent e = { t, q->seq++, ev->data, ev->size, false, ev->compressed,
				  ev->file_offset, ev->index };
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
