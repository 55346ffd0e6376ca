/* SPDX-License-Identifier: MIT */
/*
 * Call chains as perf 6.1 rebuilds them (see callchain.h): the plain path
 * (markers dropped, at most 127 addresses, the chain dropped on an unknown
 * marker), LBR call-stack mode, and perf's --stitch-lbr (has_stitched_lbr():
 * the same entries in the same LBR registers, found by the hardware index).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/callchain.h"
#include "unwind/unwind.h"
#include "hwprof/maps.h"
#include "hwprof/perf_abi.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/vec.h"

#define CHAIN_MAX 127        /* perf's default kernel.perf_event_max_stack */

/* perf's lbr_stitch of one thread: its previous call-stack sample's
   entries, the frames of their sources, and the callers stitched so far
   (callee first). */
struct hwp__stitch_thread {
	int32_t tid;
	bool have_prev;
	uint64_t prev_nr, prev_hw_idx;
	uint64_t *prev_raw;      /* prev_nr x {from, to, flags} */
	uint32_t *prev_from;     /* prev_nr frame ids of the entries' sources */
	size_t raw_cap, from_cap;
	uint32_t *list;
	size_t nlist, list_cap;
};

static int nomem(void)
{
	return hwp__set_error(ENOMEM, "out of memory rebuilding call chains");
}

int hwp__chain_push(struct hwp__chain *c, uint64_t ip, uint8_t flags)
{
	/* (once per address of every sample: grown only when full) */
	if ((c->n >= c->ips_cap && HWP_VEC_RESERVE(c->ips, c->ips_cap, c->n + 1)) ||
	    (c->n >= c->flags_cap && HWP_VEC_RESERVE(c->flags, c->flags_cap, c->n + 1)))
		return nomem();
	c->ips[c->n] = ip;
	c->flags[c->n++] = flags;
	return 0;
}

/* A callchain word: 1 an address, 0 a known context marker, -1 a marker
   that makes perf discard the chain (perf's add_callchain_ip()). */
static int chain_word(uint64_t ip)
{
	if (ip < HWP_CONTEXT_MAX)
		return 1;
	return ip == HWP_CONTEXT_HV || ip == HWP_CONTEXT_KERNEL || ip == HWP_CONTEXT_USER ? 0 : -1;
}

/* The context a marker sets (*KERNEL), for the addresses after it. */
static void chain_context(uint64_t ip, bool *kernel)
{
	if (ip == HWP_CONTEXT_KERNEL)
		*kernel = true;
	else if (ip == HWP_CONTEXT_USER || ip == HWP_CONTEXT_HV)
		*kernel = false;
}

/* perf's plain path: markers dropped, at most CHAIN_MAX addresses, the
   whole chain dropped on an unknown marker. */
static int plain_chain(struct hwp__chain *c, const struct hwp_sample *s)
{
	/* (every sample's every address: one pass over the words where they
	   lie, into room made once for the most the chain can hold) */
	const uint8_t *w = s->callchain;
	uint64_t nr = s->callchain_nr;
	size_t most = c->n + (nr < CHAIN_MAX ? nr : CHAIN_MAX);

	if ((most > c->ips_cap && HWP_VEC_RESERVE(c->ips, c->ips_cap, most)) ||
	    (most > c->flags_cap && HWP_VEC_RESERVE(c->flags, c->flags_cap, most)))
		return nomem();
	bool kernel = false;
	uint8_t ret = 0;
	/* (in locals: stores through c->ips could alias c->n, which the
	   compiler would then reload and store again for every word) */
	uint64_t *ips = c->ips + c->n;
	uint8_t *flags = c->flags + c->n;
	size_t n = 0, lim = most - c->n;
	for (uint64_t i = 0; i < nr && n < lim; i++) {
		uint64_t ip = ld64(w + i * 8);
		if (ip < HWP_CONTEXT_MAX) {
			ips[n] = ip;
			flags[n++] = (kernel ? HWP__CHAIN_KERNEL : 0) | ret;
			ret = HWP__CHAIN_RET;
		} else if (chain_word(ip) < 0) {
			c->discarded++;
			c->n = 0;
			return 0;
		} else {
			chain_context(ip, &kernel);
		}
	}
	c->n += n;
	return 0;
}

bool hwp__chain_raw(const struct hwp_event *ev, struct hwp__chain_raw *r)
{
	const struct hwp_sample *s = &ev->sample;
	bool kernel = false;

	if ((s->sample_type & (HWP_SAMPLE_CALLCHAIN | HWP_SAMPLE_STACK_USER | HWP_SAMPLE_REGS_USER)) !=
		    HWP_SAMPLE_CALLCHAIN ||
	    (ev->evsel && (ev->evsel->attr.branch_sample_type & HWP_BRANCH_CALL_STACK) &&
	     (s->sample_type & HWP_SAMPLE_BRANCH_STACK)))
		return false;
	for (uint64_t i = 0; i < s->callchain_nr; i++) {
		uint64_t ip = ld64(s->callchain + i * 8);

		if (ip < HWP_CONTEXT_MAX) {
			r->ip = ip;
			r->kernel = kernel;
			r->words = s->callchain + (i + 1) * 8;
			r->n = (size_t)(s->callchain_nr - i - 1);
			return r->n > 0;
		}
		if (chain_word(ip) < 0)
			return false;
		chain_context(ip, &kernel);
	}
	return false;
}

/* A recording's LBR depth: perf's env->max_branches, from CPU_PMU_CAPS
   (0: unknown). */
static uint64_t header_max_lbr(const struct hwp_header_info *h)
{
	uint64_t max = 0;

	for (size_t i = 0; h && i < h->nr_pmu_caps; i++) {
		const struct hwp_pmu_caps *pc = &h->pmu_caps[i];
		if (!pc->pmu_name || strcmp(pc->pmu_name, "cpu"))
			continue;
		for (size_t k = 0; k < pc->nr_caps; k++)
			if (!strncmp(pc->caps[k], "branches=", 9))
				max = strtoull(pc->caps[k] + 9, NULL, 10);
	}
	return max;
}

/* The recording's LBR depth, read once. */
static uint64_t max_lbr(struct hwp__chain *c)
{
	if (c->max_lbr_known)
		return c->max_lbr;
	c->max_lbr = header_max_lbr(hwp_session__header(c->session));
	c->max_lbr_known = true;
	return c->max_lbr;
}

bool hwp__chain_may_stitch(struct hwp_session *s)
{
	for (size_t n = 0; n < hwp_session__nr_inputs(s); n++) {
		struct hwp_reader *r = hwp_session__input_reader(s, n);
		bool hw_idx = false;

		for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++) {
			uint64_t bst = hwp_reader__evsel(r, i)->attr.branch_sample_type;

			hw_idx |= (bst & HWP_BRANCH_CALL_STACK) && (bst & HWP_BRANCH_HW_INDEX);
		}
		if (hw_idx && header_max_lbr(hwp_reader__header(r)) > 0)
			return true;
	}
	return false;
}

static struct hwp__stitch_thread *stitch_thread(struct hwp__chain *c, int32_t tid)
{
	uint64_t h = hwp__hash64((uint64_t)(uint32_t)tid);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&c->thread_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (c->threads[i].tid == tid)
			return &c->threads[i];
	struct hwp__stitch_thread *t = HWP_VEC_PUSH(c->threads, c->nthreads, c->threads_cap);
	if (!t || hwp__hashmap_add(&c->thread_map, h, c->nthreads - 1) < 0)
		return NULL;
	t->tid = tid;
	return t;
}

/* perf's has_stitched_lbr(): does CUR's stack continue the previous one
   (same entries in the same LBR registers)? If so the previous sample's
   entries below CUR's base go in front of the stitched list. */
static int has_stitched(struct hwp__stitch_thread *t, const struct hwp_sample *cur,
			uint64_t max, bool *stitched)
{
	*stitched = false;
	if (!t->have_prev)
		return 0;
	/* the physical register of CUR's base of stack (u64 arithmetic, as perf) */
	uint64_t cur_base = max - cur->branch_nr + cur->branch_hw_idx + 1;
	uint64_t distance = t->prev_hw_idx > cur_base ? t->prev_hw_idx - cur_base
						      : max + t->prev_hw_idx - cur_base;
	if (distance + 1 > t->prev_nr)
		return 0;
	uint64_t same = 0;
	for (int64_t i = (int64_t)distance, j = (int64_t)cur->branch_nr - 1; i >= 0 && j >= 0; i--, j--) {
		const uint8_t *e = cur->branch_entries + 24 * (uint64_t)j;
		const uint64_t *pv = t->prev_raw + 3 * (uint64_t)i;
		if (pv[0] != ld64(e) || pv[1] != ld64(e + 8) || pv[2] != ld64(e + 16))
			break;
		same++;
	}
	if (!same)
		return 0;
	size_t add = (size_t)(t->prev_nr - 1 - distance);
	if (HWP_VEC_RESERVE(t->list, t->list_cap, t->nlist + add))
		return nomem();
	if (t->nlist && add)
		memmove(t->list + add, t->list, t->nlist * sizeof(*t->list));
	for (size_t k = 0; k < add; k++)
		t->list[k] = t->prev_from[distance + 1 + k];
	t->nlist += add;
	*stitched = true;
	return 0;
}

/* After CUR's chain is built: CUR becomes the thread's previous sample. */
static int stitch_remember(struct hwp__chain *c, struct hwp__stitch_thread *t, const struct hwp_sample *cur,
			   const struct hwp_thread *th)
{
	uint64_t nr = cur->branch_nr;
	int err;

	if (HWP_VEC_RESERVE(t->prev_raw, t->raw_cap, 3 * nr + 1) || HWP_VEC_RESERVE(t->prev_from, t->from_cap, nr + 1))
		return nomem();
	for (uint64_t i = 0; i < nr; i++) {
		const uint8_t *e = cur->branch_entries + 24 * i;
		t->prev_raw[3 * i] = ld64(e);
		t->prev_raw[3 * i + 1] = ld64(e + 8);
		t->prev_raw[3 * i + 2] = ld64(e + 16);
		if ((err = c->frame(c->frame_ctx, th, ld64(e), 0, &t->prev_from[i])))
			return err;
	}
	t->prev_nr = nr;
	t->prev_hw_idx = cur->branch_hw_idx;
	t->have_prev = true;
	return 0;
}

/* perf's resolve_lbr_callchain_sample() in callee order: the chain up to its
   PERF_CONTEXT_USER at USER_AT, then entries[0].to and every entry's from.
   Returns 1 when perf takes the plain path instead. */
static int lbr_chain(struct hwp__chain *c, const struct hwp_sample *s, uint64_t user_at,
		     const struct hwp_thread *th, bool hw_idx)
{
	struct hwp_branch_entry e;
	struct hwp__stitch_thread *st = NULL;
	bool stitched = false;
	uint64_t max;
	int err;

	/* perf checks for stitching before anything else of the chain */
	if (c->stitch_lbr && hw_idx && th && (max = max_lbr(c)) > 0) {
		if (!(st = stitch_thread(c, hwp_thread__tid(th))))
			return nomem();
		if ((err = has_stitched(st, s, max, &stitched)))
			return err;
		if (!stitched)
			st->nlist = 0;
		if ((err = stitch_remember(c, st, s, th)))
			return err;
	}

	for (uint64_t j = 0; j <= user_at; j++)
		if (chain_word(hwp_sample__callchain_ip(s, j)) < 0) {
			c->discarded++;
			return 0;
		}
	for (uint64_t i = 0; i <= s->branch_nr && s->branch_nr; i++) {
		hwp_sample__branch(s, i ? i - 1 : 0, &e);
		if (chain_word(i ? e.from : e.to) < 0)
			return 1;
	}
	bool kernel = false;
	for (uint64_t j = 0; j <= user_at; j++) {
		uint64_t ip = hwp_sample__callchain_ip(s, j);
		chain_context(ip, &kernel);
		if (chain_word(ip) > 0 && (err = hwp__chain_push(c, ip, (kernel ? HWP__CHAIN_KERNEL : 0) | (c->n ? HWP__CHAIN_RET : 0))))
			return err;
	}
	for (uint64_t i = 0; s->branch_nr && i <= s->branch_nr; i++) {
		hwp_sample__branch(s, i ? i - 1 : 0, &e);
		uint64_t ip = i ? e.from : e.to;
		if (chain_word(ip) > 0 && (err = hwp__chain_push(c, ip, false)))
			return err;
	}
	if (stitched) {
		for (size_t k = 0; k < st->nlist; k++)
			if ((err = hwp__chain_push(c, st->list[k], HWP__CHAIN_FRAME)))
				return err;
		c->stitched++;
	}
	c->callstack_lbr++;
	return 0;
}

int hwp__chain_build(struct hwp__chain *c, struct hwp_session *session, const struct hwp_event *ev,
		     const struct hwp_thread *th, hwp__chain_frame_fn frame, void *ctx)
{
	c->session = session;
	c->frame = frame;
	c->frame_ctx = ctx;
	const struct hwp_sample *s = &ev->sample;
	int err;

	c->n = 0;
	if (!(s->sample_type & HWP_SAMPLE_CALLCHAIN))
		return hwp__chain_unwind(c, ev, th);
	c->with_callchain++;
	if (ev->evsel && (ev->evsel->attr.branch_sample_type & HWP_BRANCH_CALL_STACK) &&
	    (s->sample_type & HWP_SAMPLE_BRANCH_STACK)) {
		uint64_t lim = s->callchain_nr < CHAIN_MAX ? s->callchain_nr : CHAIN_MAX;
		for (uint64_t i = 0; i < lim; i++)
			if (hwp_sample__callchain_ip(s, i) == HWP_CONTEXT_USER) {
				err = lbr_chain(c, s, i, th,
						(ev->evsel->attr.branch_sample_type & HWP_BRANCH_HW_INDEX) != 0);
				if (err <= 0)
					return err;
				c->n = 0;
				break;
			}
	}
	/* the kernel part, then the user stack unwound (--call-graph dwarf) */
	if ((err = plain_chain(c, s)))
		return err;
	return hwp__chain_unwind(c, ev, th);
}

void hwp__chain_free(struct hwp__chain *c)
{
	for (size_t i = 0; i < c->nthreads; i++) {
		free(c->threads[i].prev_raw);
		free(c->threads[i].prev_from);
		free(c->threads[i].list);
	}
	free(c->threads);
	hwp__hashmap_free(&c->thread_map);
	free(c->ips);
	free(c->flags);
	hwp__unwinder_delete(c->unwinder);
	free(c->uips);
	memset(c, 0, sizeof(*c));
}
