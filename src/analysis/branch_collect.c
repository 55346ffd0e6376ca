/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "hwprof/branch_collect.h"
#include "hwprof/perf_abi.h"
#include "session/session_internal.h"
#include "util/bytes.h"
#include "util/opts.h"

struct hwp_branch_collector {
	struct hwp_session *session;
	struct hwp_branch_table *table;
	struct hwp_branch_table *blocks; /* with opts.blocks */
	struct hwp_branch_collect_stats st;
	struct hwp_branch_collect_opts o;
};

struct hwp_branch_collector *hwp_branch_collector__new(struct hwp_session *s,
						       const struct hwp_branch_collect_opts *opts)
{
	struct hwp_branch_collector *c;

	if (!s) {
		hwp_set_error(EINVAL, "branch collector: no session given");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		hwp_set_error(ENOMEM, "%s: out of memory making the branch collector", hwp_session__path(s));
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &c->o, struct hwp_branch_collect_opts)) {
		free(c);
		errno = EINVAL;
		return NULL;
	}
	c->session = s;
	c->table = hwp_branch_table__new(c->o.split);
	if (c->table && c->o.blocks && !(c->blocks = hwp_branch_table__new(0))) {
		hwp_branch_collector__delete(c);
		errno = ENOMEM;
		return NULL;
	}
	/* The symbolizer hands out module ids: make it now, so that a failure
	   is reported here and not as unresolved addresses. Either sets the
	   message and errno. */
	if (!c->table || !hwp_session__symbolizer(s)) {
		int e = errno ? errno : ENOMEM;

		hwp_branch_collector__delete(c);
		errno = e;
		return NULL;
	}
	return c;
}

void hwp_branch_collector__delete(struct hwp_branch_collector *c)
{
	if (!c)
		return;
	hwp_branch_table__delete(c->table);
	hwp_branch_table__delete(c->blocks);
	free(c);
}

int hwp_branch_collector__add(struct hwp_branch_collector *c, const struct hwp_event *ev,
			      const struct hwp_thread *th)
{
	if (ev->type != HWP_RECORD_SAMPLE || !ev->evsel)
		return 0;
	const struct hwp_sample *s = &ev->sample;
	c->st.samples++;
	if (!(s->sample_type & HWP_SAMPLE_BRANCH_STACK))
		return 0;
	uint64_t bst = ev->evsel->attr.branch_sample_type;
	if (bst & HWP_BRANCH_NO_FLAGS)
		c->st.no_flags_filter = true;
	if (bst & HWP_BRANCH_CALL_STACK) {
		/* A call stack, not recent branches: not counted as branches. */
		c->st.call_stack_mode = true;
		return 0;
	}
	c->st.branch_samples++;
	/* perf record -b always selects a branch filter; stacks without one
	   were synthesized from an instruction trace. */
	bool synthesized = !(bst & ~(uint64_t)HWP_BRANCH_HW_INDEX);
	if (synthesized)
		c->st.synthesized_stacks = true;
	/* Their "predicted" bits mean nothing: dropped (when asked) so that
	   mispredict rates ignore them. */
	uint64_t flag_mask = ~0ULL;
	if (synthesized || (bst & HWP_BRANCH_NO_FLAGS)) {
		c->st.entries_without_prediction += s->branch_nr;
		if (c->o.drop_meaningless_prediction)
			flag_mask = ~3ULL;
	}
	hwp__session_enter_thread(c->session, th);
	/* perf accounts blocks only when the newest entry has cycles, and only
	   in ANY mode (its nonany_branch_mode passes no block start). */
	bool blocks = c->blocks && s->branch_nr && (bst & HWP_BRANCH_ANY) &&
		      ((ld64(s->branch_entries + 16) >> HWP_BRF_CYCLES_SHIFT) & 0xffff);
	struct hwp_code_loc newer_from;
	uint64_t newer_flags = 0;

	for (uint64_t i = 0; i < s->branch_nr; i++) {
		const uint8_t *p = s->branch_entries + i * 24;
		struct hwp_code_loc from, to;
		uint64_t flags = ld64(p + 16) & flag_mask;
		int err;

		if ((err = hwp__session_resolve(c->session, 0, ld64(p), &from)) < 0 ||
		    (err = hwp__session_resolve(c->session, 1, ld64(p + 8), &to)) < 0)
			return err;
		if (hwp_branch_table__add(c->table, &from, &to, flags) < 0)
			return hwp_set_error(ENOMEM, "out of memory counting branches");
		/* the block from this entry's target to the newer entry's source */
		if (blocks && i && to.module == newer_from.module && to.module >= 0 &&
		    to.offset < newer_from.offset &&
		    hwp_branch_table__add(c->blocks, &to, &newer_from, newer_flags) < 0)
			return hwp_set_error(ENOMEM, "out of memory counting basic blocks");
		newer_from = from;
		newer_flags = flags & (0xffffULL << HWP_BRF_CYCLES_SHIFT);
		c->st.entries++;
		c->st.entries_with_flags += (flags & 3) != 0;
	}
	return 0;
}

static int add_sample(void *ctx, const struct hwp_event *ev, const struct hwp_thread *th)
{
	return hwp_branch_collector__add(ctx, ev, th);
}

int hwp_branch_collector__read(struct hwp_branch_collector *c)
{
	struct hwp_session_handler h = { .sz = sizeof(h), .ctx = c, .sample = add_sample };

	return hwp_session__process(c->session, &h);
}

const struct hwp_branch_table *hwp_branch_collector__table(const struct hwp_branch_collector *c)
{
	return c->table;
}

const struct hwp_branch_table *hwp_branch_collector__blocks(const struct hwp_branch_collector *c)
{
	return c->blocks;
}

const struct hwp_branch_collect_stats *hwp_branch_collector__stats(const struct hwp_branch_collector *c)
{
	return &c->st;
}
