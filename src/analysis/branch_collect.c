/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "analysis/branch_collect_struct.h"
#include "analysis/branch_table_internal.h"
#include "decode/code_cache.h"
#include "hwprof/branch_collect.h"
#include "hwprof/perf_abi.h"
#include "session/session_internal.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/vec.h"

static const char *const reject_names[HWP_RANGE_REJECT_NR] = {
	[HWP_RANGE_ZEROED] = "zeroed",
	[HWP_RANGE_WRONG_PATH] = "wrong_path",
	[HWP_RANGE_DUPLICATE] = "duplicate",
	[HWP_RANGE_FILTERED] = "filtered",
	[HWP_RANGE_UNMAPPED] = "unmapped",
	[HWP_RANGE_MODULES] = "modules",
	[HWP_RANGE_BACKWARD] = "backward",
	[HWP_RANGE_TOO_LONG] = "too_long",
	[HWP_RANGE_CROSSES] = "crosses_branch",
	[HWP_RANGE_MISALIGNED] = "misaligned",
	[HWP_RANGE_NO_CODE] = "not_code",
};

_Static_assert(HWP_RANGE_REJECT_NR <= sizeof(((struct hwp_range_stats *)0)->rejected) / sizeof(uint64_t),
	       "hwp_range_stats.rejected holds every reason");

const char *hwp_range_reject__name(enum hwp_range_reject r)
{
	return (unsigned)r < HWP_RANGE_REJECT_NR ? reject_names[r] : NULL;
}

struct hwp_branch_collector *hwp_branch_collector__new(struct hwp_session *s,
						       const struct hwp_branch_collect_opts *opts)
{
	struct hwp_branch_collector *c;

	if (!s) {
		hwp__set_error(EINVAL, "branch collector: no session given");
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		hwp__set_error(ENOMEM, "%s: out of memory making the branch collector", hwp_session__path(s));
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &c->o, struct hwp_branch_collect_opts)) {
		free(c);
		errno = EINVAL;
		return NULL;
	}
	c->session = s;
	c->res = hwp__session_resolver(s);
	if (!c->o.max_range)
		c->o.max_range = 1u << 20;
	if (!c->o.dup_stride)
		c->o.dup_stride = 0x1000;
	if (c->o.ip_samples > HWP_IP_SAMPLES_BY_EVENT) {
		hwp__set_error(EINVAL, "branch collector: unknown IP sample mode %u", c->o.ip_samples);
		free(c);
		errno = EINVAL;
		return NULL;
	}
	c->table = hwp_branch_table__new(c->o.split);
	if (c->table && ((c->o.ip_samples && !(c->ips = hwp_branch_table__new(0))) ||
			 (c->o.ip_samples == HWP_IP_SAMPLES_BY_EVENT &&
			  !(c->ips_ev = hwp_branch_table__new(HWP_SPLIT_TYPE))) ||
			 (c->o.blocks && !(c->blocks = hwp_branch_table__new(0))) ||
			 (c->o.ranges && (!(c->ranges = hwp_branch_table__new(0)) ||
					  (!c->o.no_addresses && !(c->addrs = hwp_branch_table__new(0))))))) {
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
	hwp_branch_table__delete(c->ranges);
	hwp_branch_table__delete(c->addrs);
	hwp_branch_table__delete(c->ips);
	hwp_branch_table__delete(c->ips_ev);
	hwp__code_cache_delete(c->code);
	for (size_t i = 0; i < HWP__CT_NR; i++)
		free(c->first[i].v);
	free(c->lfrom);
	free(c->lto);
	free(c->lrange);
	free(c->name);
	free(c);
}

struct hwp_branch_collector *hwp_branch_collector__from_tables(struct hwp_symbolizer *sym, const char *name,
								struct hwp_branch_table *table,
								struct hwp_branch_table *ranges)
{
	struct hwp_branch_collector *c = calloc(1, sizeof(*c));

	if (!c || !(c->name = strdup(name ? name : "rows"))) {
		free(c);
		hwp_branch_table__delete(table);
		hwp_branch_table__delete(ranges);
		hwp__set_error(ENOMEM, "out of memory making the branch collector");
		return NULL;
	}
	c->o.sz = sizeof(c->o);
	c->o.ranges = ranges != NULL;
	c->o.no_addresses = true;
	c->sym = sym;
	c->table = table;
	c->ranges = ranges;
	size_t n;
	const struct hwp_branch_row *r = hwp_branch_table__rows(table, &n);
	for (size_t i = 0; i < n; i++)
		c->st.entries += r[i].c.count;
	c->st.samples = c->st.branch_samples = c->st.entries ? 1 : 0;
	if (ranges) {
		c->rst.accepted = hwp_branch_table__total(ranges);
		c->rst.distinct = hwp_branch_table__size(ranges);
		c->rst.checked = true; /* by the recordings' collectors */
		c->ranges_checked = c->rst.distinct;
	}
	return c;
}

struct hwp_symbolizer *hwp__branch_collector_symbolizer(const struct hwp_branch_collector *c)
{
	return c->sym ? c->sym : hwp_session__symbolizer(c->session);
}

const char *hwp__branch_collector_name(const struct hwp_branch_collector *c)
{
	return c->name ? c->name : hwp_session__path(c->session);
}

/*
 * Why the range [START, END] between entry I (older: START is its target)
 * and entry I - 1 (newer: END is its source) of S cannot be counted: the
 * first reason that applies, HWP_RANGE_REJECT_NR when it can. The decoding
 * check comes later, once per distinct range
 * (hwp_branch_collector__check_ranges()).
 */
/* A part of a parallel pass: table T's new row was first added at the
   current sample's entry I. 0 or -ENOMEM. */
static int first_add(struct hwp_branch_collector *c, enum hwp__collector_table t, uint64_t i)
{
	uint64_t *p;

	if (!c->part)
		return 0;
	p = HWP_VEC_PUSH(c->first[t].v, c->first[t].nr, c->first[t].cap);
	if (!p)
		return -ENOMEM;
	*p = HWP__COLLECT_POS(c->seq, i);
	return 0;
}

/* The range of entries I and I - 1, counted or rejected. */
static int add_range(struct hwp_branch_collector *c, const struct hwp_sample *s, uint64_t i,
		     const struct hwp_code_loc *start, const struct hwp_code_loc *end, bool all_branches, uint32_t *row)
{
	enum hwp_range_reject r = hwp__branch_collector_classify(c, s, i, start, end, all_branches);

	c->rst.pairs++;
	if (r == HWP_RANGE_REJECT_NR) {
		int added = hwp__branch_table_count(c->ranges, start, end, 0, row);

		if (added < 0 || (added && first_add(c, HWP__CT_RANGES, i) < 0))
			return hwp__set_error(ENOMEM, "out of memory counting ranges");
		if (added)
			c->rst.checked = false;
		c->rst.accepted++;
		return 0;
	}
	c->rst.rejected[r]++;
	return 0;
}

/* The sample's IP, counted per module offset (opts.ip_samples), resolved
   (into *IP) by resolve_ip(). */
static int resolve_ip(struct hwp_branch_collector *c, const struct hwp_event *ev, const struct hwp_thread *th,
		      struct hwp_code_loc *ip)
{
	hwp__resolver_enter(c->res, th);
	return hwp__resolver_resolve(c->res, 0, ev->sample.ip, ip);
}

static int add_ip(struct hwp_branch_collector *c, const struct hwp_event *ev, const struct hwp_code_loc *ip)
{
	size_t i;
	int err;

	if ((err = hwp__branch_table_add(c->ips, ip, ip, 0)) < 0 || (err && first_add(c, HWP__CT_IPS, 0) < 0))
		return hwp__set_error(ENOMEM, "out of memory counting sample addresses");
	c->st.ip_samples++;
	for (i = 0; i < c->n_ip_ev && c->ip_ev[i] != ev->evsel; i++)
		;
	if (i == c->n_ip_ev && i < sizeof(c->ip_ev) / sizeof(c->ip_ev[0])) {
		c->ip_ev_first[i] = c->seq;
		c->ip_ev[c->n_ip_ev++] = ev->evsel;
	}
	/* per event too (a 17th event is in the sums alone) */
	if (c->ips_ev && i < c->n_ip_ev) {
		if ((err = hwp__branch_table_add(c->ips_ev, ip, ip, (uint64_t)i << HWP_BRF_TYPE_SHIFT)) < 0 ||
		    (err && first_add(c, HWP__CT_IPS_EV, 0) < 0))
			return hwp__set_error(ENOMEM, "out of memory counting sample addresses");
	}
	return 0;
}

/* Room for N resolved entries in lfrom/lto. */
static int reserve_locs(struct hwp_branch_collector *c, uint64_t n)
{
	if (n <= c->lcap)
		return 0;
	struct hwp_code_loc *f = realloc(c->lfrom, n * sizeof(*f));
	if (f)
		c->lfrom = f;
	struct hwp_code_loc *t = f ? realloc(c->lto, n * sizeof(*t)) : NULL;
	if (t)
		c->lto = t;
	uint32_t *r = t ? realloc(c->lrange, n * sizeof(*r)) : NULL;
	if (!r)
		return hwp__set_error(ENOMEM, "out of memory resolving a branch stack");
	c->lrange = r;
	c->lcap = n;
	return 0;
}

static int collect_stack(struct hwp_branch_collector *c, const struct hwp_event *ev, const struct hwp_thread *th,
			 const struct hwp_code_loc *ip);

int hwp_branch_collector__add(struct hwp_branch_collector *c, const struct hwp_event *ev,
			      const struct hwp_thread *th)
{
	if (ev->type != HWP_RECORD_SAMPLE || !ev->evsel)
		return 0;
	const struct hwp_sample *s = &ev->sample;
	bool stack = s->sample_type & HWP_SAMPLE_BRANCH_STACK;
	c->st.samples++;
	c->l_entries = NULL;
	/* an empty stack is none (perf script text without brstack has them) */
	struct hwp_code_loc ip;
	bool count_ip = c->ips && (s->sample_type & HWP_SAMPLE_IP) &&
			(c->o.ip_samples >= HWP_IP_SAMPLES_ALL || !stack || !s->branch_nr);
	if (count_ip) {
		int err = resolve_ip(c, ev, th, &ip);

		if (err < 0)
			return err;
		/* with a stack, counted after it: its index's slot and row
		   are fetched meanwhile */
		if (!stack || !s->branch_nr)
			return (err = add_ip(c, ev, &ip)) < 0 || !stack ? err : collect_stack(c, ev, th, NULL);
		hwp__branch_table_prefetch(c->ips, &ip, &ip, 0);
	}
	if (!stack)
		return 0;
	return collect_stack(c, ev, th, count_ip ? &ip : NULL);
}

/* The branch stack of EV (a sample with one); then IP, when not NULL,
   counted among the sample IPs. */
static int collect_stack(struct hwp_branch_collector *c, const struct hwp_event *ev, const struct hwp_thread *th,
			 const struct hwp_code_loc *ip)
{
	const struct hwp_sample *s = &ev->sample;
	uint64_t bst = ev->evsel->attr.branch_sample_type;
	if (bst & HWP_BRANCH_NO_FLAGS)
		c->st.no_flags_filter = true;
	if ((bst & HWP_BRANCH_CALL_STACK) && c->ranges)
		return hwp__set_error(EINVAL, "%s: branch stacks recorded in LBR call-stack mode are call chains, "
				      "not sequences of branches: they give no fall-through ranges",
				      hwp_session__path(c->session));
	if (bst & HWP_BRANCH_CALL_STACK) {
		/* A call stack, not recent branches: not counted as branches. */
		c->st.call_stack_mode = true;
		return 0;
	}
	c->st.branch_samples++;
	if (s->branch_nr > c->st.deepest)
		c->st.deepest = s->branch_nr;
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
	hwp__resolver_enter(c->res, th);
	/* perf accounts blocks only when the newest entry has cycles, and only
	   in ANY mode (its nonany_branch_mode passes no block start). */
	bool blocks = c->blocks && s->branch_nr && (bst & HWP_BRANCH_ANY) &&
		      ((ld64(s->branch_entries + 16) >> HWP_BRF_CYCLES_SHIFT) & 0xffff);
	struct hwp_code_loc newer_from;
	uint64_t newer_flags = 0;
	/* Consecutive entries are consecutive taken branches only when every
	   branch was recorded: the 'any' filter, or stacks synthesized from an
	   instruction trace. */
	bool all_branches = (bst & HWP_BRANCH_ANY) || synthesized;

	if (c->addrs) {
		struct hwp_code_loc at;
		int err = hwp__resolver_resolve(c->res, 0, s->ip, &at);

		if (err < 0)
			return err;
		if ((err = hwp__branch_table_add(c->addrs, &at, &at, 0)) < 0 ||
		    (err && first_add(c, HWP__CT_ADDRS, 0) < 0))
			return hwp__set_error(ENOMEM, "out of memory counting sample addresses");
	}

	struct hwp_code_loc *lfrom = NULL, *lto = NULL;
	if (c->keep_locs) {
		int err = reserve_locs(c, s->branch_nr);

		if (err < 0)
			return err;
		lfrom = c->lfrom;
		lto = c->lto;
	}
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		const uint8_t *p = s->branch_entries + i * 24;
		struct hwp_code_loc from, to;
		uint64_t flags = ld64(p + 16) & flag_mask;
		int err;

		if ((err = hwp__resolver_resolve(c->res, 0, ld64(p), &from)) < 0 ||
		    (err = hwp__resolver_resolve(c->res, 1, ld64(p + 8), &to)) < 0)
			return err;
		if (lfrom) {
			lfrom[i] = from;
			lto[i] = to;
		}
		if ((err = hwp__branch_table_add(c->table, &from, &to, flags)) < 0 ||
		    (err && first_add(c, HWP__CT_TABLE, i) < 0))
			return hwp__set_error(ENOMEM, "out of memory counting branches");
		/* the block from this entry's target to the newer entry's source */
		if (blocks && i && to.module == newer_from.module && to.module >= 0 &&
		    to.offset < newer_from.offset &&
		    ((err = hwp__branch_table_add(c->blocks, &to, &newer_from, newer_flags)) < 0 ||
		     (err && first_add(c, HWP__CT_BLOCKS, i) < 0)))
			return hwp__set_error(ENOMEM, "out of memory counting basic blocks");
		uint32_t range = UINT32_MAX;
		if (c->ranges && i && (err = add_range(c, s, i, &to, &newer_from, all_branches, &range)) < 0)
			return err;
		if (lfrom)
			c->lrange[i] = range;
		newer_from = from;
		newer_flags = flags & (0xffffULL << HWP_BRF_CYCLES_SHIFT);
		c->st.entries++;
		c->st.entries_with_flags += (flags & 3) != 0;
		if (ip && i == s->branch_nr / 2)
			hwp__branch_table_prefetch(c->ips, ip, ip, 1);
	}
	if (lfrom) {
		c->l_entries = s->branch_entries;
		c->l_nr = s->branch_nr;
		c->l_ranges = c->ranges != NULL;
	}
	return ip ? add_ip(c, ev, ip) : 0;
}

void hwp__branch_collector_keep_locs(struct hwp_branch_collector *c)
{
	c->keep_locs = true;
}

int hwp__branch_collector_locs(struct hwp_branch_collector *c, const struct hwp_event *ev,
			       const struct hwp_thread *th, const struct hwp_code_loc **from,
			       const struct hwp_code_loc **to)
{
	const struct hwp_sample *s = &ev->sample;

	if (!c->keep_locs || c->l_entries != s->branch_entries || c->l_nr != s->branch_nr) {
		/* not the sample the collector added last: resolved here */
		int err = reserve_locs(c, s->branch_nr);

		if (err < 0)
			return err;
		hwp__resolver_enter(c->res, th);
		for (uint64_t i = 0; i < s->branch_nr; i++) {
			const uint8_t *p = s->branch_entries + i * 24;

			if ((err = hwp__resolver_resolve(c->res, 0, ld64(p), &c->lfrom[i])) < 0 ||
			    (err = hwp__resolver_resolve(c->res, 1, ld64(p + 8), &c->lto[i])) < 0)
				return err;
		}
		c->l_entries = c->keep_locs ? s->branch_entries : NULL;
		c->l_nr = s->branch_nr;
		c->l_ranges = false;
	}
	*from = c->lfrom;
	*to = c->lto;
	return 0;
}

const uint32_t *hwp__branch_collector_range_rows(const struct hwp_branch_collector *c, const struct hwp_sample *s,
						 uint32_t *moved)
{
	*moved = c->ranges_moved;
	return c->keep_locs && c->l_ranges && c->l_entries == s->branch_entries && c->l_nr == s->branch_nr
		       ? c->lrange
		       : NULL;
}

/* Stops a range walk at the first instruction before the end that does
   not fall through. */
static int stop_at_uncond(void *ctx, const struct hwp__insn *in)
{
	const uint64_t *end = ctx;

	return in->offset < *end && hwp__insn_is_uncond(in->cls);
}

struct check_ctx {
	struct hwp_branch_collector *c;
	int err;
};

static bool keep_range(void *ctx, const struct hwp_branch_row *row)
{
	struct check_ctx *k = ctx;
	struct hwp_branch_collector *c = k->c;
	uint64_t end = row->key.to.offset;
	int r = hwp__code_cache_range(c->code, row->key.from.module, row->key.from.offset, end,
				      stop_at_uncond, &end);
	enum hwp_range_reject why;

	switch (r) {
	case 1:
		why = HWP_RANGE_CROSSES;
		break;
	case -EILSEQ:
		why = HWP_RANGE_MISALIGNED;
		break;
	case -ERANGE:
		why = HWP_RANGE_NO_CODE;
		break;
	case -ENOMEM:
		k->err = r;
		return true;
	default: /* 0, or no file or decoder: kept (counted as unchecked) */
		return true;
	}
	c->rst.rejected[why] += row->c.count;
	c->rst.accepted -= row->c.count;
	return false;
}

int hwp_branch_collector__check_ranges(struct hwp_branch_collector *c)
{
	struct check_ctx k = { c, 0 };
	const struct hwp_branch_row *rows;
	size_t n;

	if (!c->ranges)
		return 0;
	if (!c->o.no_decode) {
		if (!c->code && !(c->code = hwp__code_cache_new(hwp__branch_collector_symbolizer(c))))
			return -ENOMEM;
		size_t before = hwp_branch_table__size(c->ranges);
		int err = hwp__branch_table_retain(c->ranges, c->ranges_checked, keep_range, &k);
		if (err || k.err)
			return hwp__set_error(ENOMEM, "out of memory checking ranges");
		if (hwp_branch_table__size(c->ranges) != before)
			c->ranges_moved++; /* rows dropped: the later ones moved up */
	}
	rows = hwp_branch_table__rows(c->ranges, &n);
	c->ranges_checked = n;
	/* what could not be decoded, over every row (counts grow after a check) */
	c->rst.unchecked = 0;
	for (size_t i = 0; i < n; i++)
		if (c->o.no_decode || hwp__code_cache_module_ok(c->code, rows[i].key.from.module))
			c->rst.unchecked += rows[i].c.count;
	c->rst.distinct = n;
	c->rst.checked = true;
	return 0;
}

struct hwp__code_cache *hwp__branch_collector_code_cache(struct hwp_branch_collector *c)
{
	if (!c->code)
		c->code = hwp__code_cache_new(hwp__branch_collector_symbolizer(c));
	return c->code;
}

static int add_sample(void *ctx, const struct hwp_event *ev, const struct hwp_thread *th)
{
	return hwp_branch_collector__add(ctx, ev, th);
}

int hwp_branch_collector__read(struct hwp_branch_collector *c)
{
	struct hwp_session_handler h = { .sz = sizeof(h), .ctx = c, .sample = add_sample };
	int err = hwp_session__process(c->session, &h);

	return err < 0 ? err : hwp_branch_collector__check_ranges(c);
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

const struct hwp_branch_table *hwp_branch_collector__ranges(const struct hwp_branch_collector *c)
{
	return c->ranges;
}

const struct hwp_range_stats *hwp_branch_collector__range_stats(const struct hwp_branch_collector *c)
{
	return &c->rst;
}

const struct hwp_branch_table *hwp__branch_collector_addresses(const struct hwp_branch_collector *c)
{
	return c->addrs;
}

const struct hwp_branch_table *hwp__branch_collector_ip_samples(const struct hwp_branch_collector *c)
{
	return c->ips;
}

const struct hwp_branch_table *hwp__branch_collector_ip_samples_by_event(const struct hwp_branch_collector *c)
{
	return c->ips_ev;
}

const struct hwp_evsel *const *hwp__branch_collector_ip_events(const struct hwp_branch_collector *c, size_t *nr)
{
	*nr = c->n_ip_ev;
	return c->ip_ev;
}

struct hwp_session *hwp__branch_collector_session(const struct hwp_branch_collector *c)
{
	return c->session;
}
