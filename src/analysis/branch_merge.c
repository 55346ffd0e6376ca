/* SPDX-License-Identifier: MIT */
/*
 * A parallel pass's branch collectors: each counts a share of the samples
 * (parts), then their tables merge into one that is the sequential pass's
 * to the byte. A table keeps rows in the order their keys were first
 * added, with the address recorded then: each part keeps where in the
 * sequential order (sample, entry) it added each row first, and the merge
 * adds the parts' rows in the order of those places.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "analysis/branch_collect_struct.h"
#include "analysis/branch_table_internal.h"
#include "session/module_ids.h"
#include "session/parallel_pass.h"
#include "session/session_internal.h"
#include "util/error.h"
#include "util/merge_order.h"

struct hwp_branch_collector *hwp__branch_collector_new_part(struct hwp_session *s,
							    const struct hwp_branch_collect_opts *opts,
							    struct hwp__resolver *res)
{
	struct hwp_branch_collector *c = hwp_branch_collector__new(s, opts);

	if (c) {
		c->res = res;
		c->part = true;
	}
	return c;
}

int hwp__branch_collector_add_at(struct hwp_branch_collector *c, const struct hwp_event *ev,
				 const struct hwp_thread *th, uint64_t seq)
{
	c->seq = seq;
	c->res->pos = HWP__COLLECT_POS(seq, 0);
	return hwp_branch_collector__add(c, ev, th);
}

static struct hwp_branch_table *table_of(struct hwp_branch_collector *c, enum hwp__collector_table t)
{
	switch (t) {
	case HWP__CT_TABLE:
		return c->table;
	case HWP__CT_BLOCKS:
		return c->blocks;
	case HWP__CT_RANGES:
		return c->ranges;
	case HWP__CT_ADDRS:
		return c->addrs;
	case HWP__CT_IPS:
		return c->ips;
	case HWP__CT_IPS_EV:
		return c->ips_ev;
	default:
		return NULL;
	}
}

/* EV's index among DST's events (merged first); they hold every part's. */
static uint8_t whole_event(const struct hwp_branch_collector *dst, const struct hwp_evsel *ev)
{
	size_t j;

	for (j = 0; j < dst->n_ip_ev && dst->ip_ev[j] != ev; j++)
		;
	return (uint8_t)j;
}

/* Part K's rows of table T, with where each was first added. */
struct table_rows {
	struct hwp_branch_collector *const *parts;
	enum hwp__collector_table t;
};

static void table_rows(void *ctx, size_t k, const uint64_t **first, size_t *nr)
{
	const struct table_rows *tr = ctx;

	*first = tr->parts[k]->first[tr->t].v;
	*nr = tr->parts[k]->first[tr->t].nr;
}

static int merge_table(struct hwp_branch_collector *dst, struct hwp_branch_collector *const *parts,
		       struct hwp__module_ids *const *ids, size_t n, enum hwp__collector_table t)
{
	struct hwp_branch_table *out = table_of(dst, t);
	struct table_rows tr = { parts, t };
	struct hwp__merge_ref *all = NULL;
	size_t nr = 0;
	int err = 0;

	if (!out)
		return 0;
	for (size_t k = 0; k < n; k++) {
		size_t rows;

		hwp_branch_table__rows(table_of(parts[k], t), &rows);
		if (rows != parts[k]->first[t].nr)
			return hwp__set_error(EINVAL, "parallel pass: %zu rows but %zu first places", rows,
					      parts[k]->first[t].nr);
	}
	if (hwp__merge_order(n, table_rows, &tr, &all, &nr) < 0)
		return hwp__set_error(ENOMEM, "out of memory merging branch tables");
	for (size_t i = 0; i < nr && !err; i++) {
		size_t rows;
		struct hwp_branch_row row = hwp_branch_table__rows(table_of(parts[all[i].part], t), &rows)[all[i].row];

		row.key.from.module = hwp__module_ids_real(ids[all[i].part], row.key.from.module);
		row.key.to.module = hwp__module_ids_real(ids[all[i].part], row.key.to.module);
		if (t == HWP__CT_IPS_EV) { /* the part's event index, as the whole numbers them */
			row.key.type = whole_event(dst, parts[all[i].part]->ip_ev[row.key.type]);
			if (row.key.type >= dst->n_ip_ev)
				continue; /* not among the whole's 16 events */
		}
		err = hwp_branch_table__add_row(out, &row);
	}
	free(all);
	return err;
}

/* Part K's events of opts.ip_samples, with the sample that counted each
   first. */
static void event_rows(void *ctx, size_t k, const uint64_t **first, size_t *nr)
{
	struct hwp_branch_collector *const *parts = ctx;

	*first = parts[k]->ip_ev_first;
	*nr = parts[k]->n_ip_ev;
}

/* The events of opts.ip_samples in the order first seen over every part. */
static int merge_ip_events(struct hwp_branch_collector *dst, struct hwp_branch_collector *const *parts, size_t n)
{
	struct hwp__merge_ref *all = NULL;
	size_t nr = 0;
	const size_t max = sizeof(dst->ip_ev) / sizeof(dst->ip_ev[0]);

	if (hwp__merge_order(n, event_rows, (void *)parts, &all, &nr) < 0)
		return hwp__set_error(ENOMEM, "out of memory merging branch tables");
	for (size_t i = 0; i < nr && dst->n_ip_ev < max; i++) {
		const struct hwp_evsel *ev = parts[all[i].part]->ip_ev[all[i].row];
		size_t j;

		for (j = 0; j < dst->n_ip_ev && dst->ip_ev[j] != ev; j++)
			;
		if (j == dst->n_ip_ev)
			dst->ip_ev[dst->n_ip_ev++] = ev;
	}
	free(all);
	return 0;
}

static void add_stats(struct hwp_branch_collector *dst, const struct hwp_branch_collector *p)
{
	struct hwp_branch_collect_stats *d = &dst->st;
	const struct hwp_branch_collect_stats *s = &p->st;

	d->samples += s->samples;
	d->ip_samples += s->ip_samples;
	d->branch_samples += s->branch_samples;
	d->entries += s->entries;
	d->entries_with_flags += s->entries_with_flags;
	d->no_flags_filter |= s->no_flags_filter;
	d->entries_without_prediction += s->entries_without_prediction;
	d->synthesized_stacks |= s->synthesized_stacks;
	d->call_stack_mode |= s->call_stack_mode;
	if (s->deepest > d->deepest)
		d->deepest = s->deepest;
	dst->rst.pairs += p->rst.pairs;
	dst->rst.accepted += p->rst.accepted;
	for (size_t i = 0; i < sizeof(dst->rst.rejected) / sizeof(dst->rst.rejected[0]); i++)
		dst->rst.rejected[i] += p->rst.rejected[i];
}

int hwp__branch_collector_merge(struct hwp_branch_collector *dst, struct hwp_branch_collector *const *parts,
				struct hwp__module_ids *const *ids, size_t n)
{
	/* the events first: the per-event table's keys are renumbered */
	int err = merge_ip_events(dst, parts, n);

	for (int t = 0; t < HWP__CT_NR && !err; t++)
		err = merge_table(dst, parts, ids, n, (enum hwp__collector_table)t);
	if (err)
		return err;
	for (size_t k = 0; k < n; k++)
		add_stats(dst, parts[k]);
	if (dst->ranges && hwp_branch_table__size(dst->ranges))
		dst->rst.checked = false;
	return 0;
}

/* A lone collector's parallel pass. */
struct collect_ctx {
	struct hwp_session *s;
	struct hwp_branch_collector *dst;
};

static void *collector_part_new(void *ctx, struct hwp__resolver *res)
{
	struct collect_ctx *k = ctx;

	return hwp__branch_collector_new_part(k->s, &k->dst->o, res);
}

static int collector_add(void *part, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq)
{
	return hwp__branch_collector_add_at(part, ev, th, seq);
}

static int collector_merge(void *ctx, void *const *parts, struct hwp__module_ids *const *ids, size_t n)
{
	struct collect_ctx *k = ctx;

	return hwp__branch_collector_merge(k->dst, (struct hwp_branch_collector *const *)parts, ids, n);
}

static void collector_delete(void *part)
{
	hwp_branch_collector__delete(part);
}

int hwp_branch_collector__read_jobs(struct hwp_branch_collector *c, unsigned jobs)
{
	struct collect_ctx k = { c->session, c };
	const struct hwp__parallel_ops ops = { &k, collector_part_new, collector_add, collector_merge,
					       collector_delete, false };
	unsigned n;
	int err;

	if (!c->session)
		return hwp_branch_collector__read(c);
	n = hwp__parallel_jobs(c->session, jobs, c->st.samples || c->part ? "samples counted before" : NULL);
	if (n < 2)
		return hwp_branch_collector__read(c);
	if ((err = hwp__parallel_pass(c->session, &ops, n)) < 0)
		return err;
	return hwp_branch_collector__check_ranges(c);
}
