/* SPDX-License-Identifier: MIT */
/* hwprof ranges' tables: the fall-through ranges by count, and what became
   of the ranges between consecutive branch records. */
#include <stdlib.h>

#include "hwprof/branch_report.h"
#include "report/report_internal.h"

static int by_count(const void *a, const void *b)
{
	const struct hwp_branch_row *x = *(const struct hwp_branch_row *const *)a;
	const struct hwp_branch_row *y = *(const struct hwp_branch_row *const *)b;

	if (x->c.count != y->c.count)
		return x->c.count < y->c.count ? 1 : -1;
	if (x->key.from.module != y->key.from.module)
		return x->key.from.module < y->key.from.module ? -1 : 1;
	if (x->key.from.offset != y->key.from.offset)
		return x->key.from.offset < y->key.from.offset ? -1 : 1;
	return x->key.to.offset < y->key.to.offset ? -1 : x->key.to.offset > y->key.to.offset;
}

enum { R_COUNT, R_SHARE, R_BYTES, R_START, R_END, R_SRCLINE, R_DSO, R_NCOLS };

static const struct hwp__report_column range_cols[R_NCOLS] = {
	[R_COUNT] = { "Count", "count", HWP_COL_COUNT, HWP_SHOW_ALL },
	[R_SHARE] = { "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[R_BYTES] = { "Bytes", "bytes", HWP_COL_COUNT, HWP_SHOW_ALL },
	[R_START] = { "Start", "start", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[R_END] = { "End", "end", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[R_SRCLINE] = { "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[R_DSO] = { "Shared Object", "dso", HWP_COL_TEXT, HWP_SHOW_TEXT },
};

static void range_row(struct hwp_table *t, struct hwp_symbolizer *sym, const struct hwp_branch_row *r,
		      uint64_t total, enum hwp_table_format fmt)
{
	char buf[1024];

	hwp_table__new_row(t);
	hwp_table__set_count(t, R_COUNT, r->c.count);
	hwp_table__set_real(t, R_SHARE, total ? 100.0 * (double)r->c.count / (double)total : 0);
	/* the last instruction's length is not part of the key: bytes to its start */
	hwp_table__set_count(t, R_BYTES, r->key.to.offset - r->key.from.offset);
	if (fmt != HWP_TABLE_TEXT) {
		hwp_report__set_loc(t, R_NCOLS, sym, &r->key.from);
		hwp_report__set_loc(t, R_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &r->key.to);
		return;
	}
	hwp_loc__format_addr(sym, &r->key.from, buf, sizeof(buf));
	hwp_table__set_text(t, R_START, buf);
	hwp_loc__format_addr(sym, &r->key.to, buf, sizeof(buf));
	hwp_table__set_text(t, R_END, buf);
	hwp_loc__format_srcline(sym, &r->key.from, buf, sizeof(buf));
	hwp_table__set_text(t, R_SRCLINE, buf);
	hwp_loc__format_dso(sym, &r->key.from, buf, sizeof(buf));
	hwp_table__set_text(t, R_DSO, buf);
}

struct hwp_table *hwp_report__ranges(struct hwp_symbolizer *sym, const struct hwp_branch_table *ranges,
				     const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	uint64_t total = hwp_branch_table__total(ranges), shown = 0;
	size_t n;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(ranges, &n);
	const struct hwp_branch_row **order;
	struct hwp_table *t;

	if (hwp__report_opts_load(opts, &o) < 0)
		return NULL;
	order = malloc((n ? n : 1) * sizeof(*order));
	t = hwp_table__new();
	if (!order || !t || hwp__report_add_columns(t, range_cols, R_NCOLS) < 0) {
		free(order);
		hwp_table__delete(t);
		return NULL;
	}
	hwp_report__add_loc_columns(t, HWP_LOC_START);
	hwp_report__add_loc_columns(t, HWP_LOC_END);
	for (size_t i = 0; i < n; i++)
		order[i] = &rows[i];
	qsort(order, n, sizeof(*order), by_count);
	for (size_t i = 0; i < n && shown < o.limit; i++) {
		if (order[i]->c.count < o.min_executions ||
		    !hwp_loc__matches(sym, &order[i]->key.from, o.dso, o.sym))
			continue;
		range_row(t, sym, order[i], total, o.fmt);
		shown++;
	}
	free(order);
	return t;
}

static void stats_row(struct hwp_table *t, const char *outcome, const char *reason, uint64_t n, uint64_t pairs)
{
	hwp_table__new_row(t);
	hwp_table__set_text(t, 0, outcome);
	hwp_table__set_text(t, 1, reason);
	hwp_table__set_count(t, 2, n);
	hwp_table__set_real(t, 3, pairs ? 100.0 * (double)n / (double)pairs : 0);
}

static const struct hwp__report_column stats_cols[] = {
	{ "Outcome", "outcome", HWP_COL_TEXT, HWP_SHOW_ALL },
	{ "Reason", "reason", HWP_COL_TEXT, HWP_SHOW_ALL },
	{ "Ranges", "ranges", HWP_COL_COUNT, HWP_SHOW_ALL },
	{ "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
};

struct hwp_table *hwp_report__range_stats(const struct hwp_range_stats *st)
{
	struct hwp_table *t = hwp_table__new();

	if (!t || hwp__report_add_columns(t, stats_cols, sizeof(stats_cols) / sizeof(stats_cols[0])) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	stats_row(t, "all", NULL, st->pairs, st->pairs);
	stats_row(t, "accepted", NULL, st->accepted, st->pairs);
	stats_row(t, "accepted", "not_decoded", st->unchecked, st->pairs);
	for (int r = 0; r < HWP_RANGE_REJECT_NR; r++)
		stats_row(t, "rejected", hwp_range_reject__name(r), st->rejected[r], st->pairs);
	return t;
}
