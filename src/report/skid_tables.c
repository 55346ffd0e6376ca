/* SPDX-License-Identifier: MIT */
/* hwprof skid's tables: the skid distribution, and per source line the
   precise and the non-precise event's shares. */
#include <inttypes.h>
#include <stdio.h>

#include "hwprof/branch_report.h"
#include "hwprof/perf_data.h"
#include "report/report_internal.h"

static const struct hwp__report_column dist_cols[] = {
	{ "Skid (bytes)", "skid", HWP_COL_TEXT, HWP_SHOW_ALL },
	{ "Samples", "samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	{ "Share", "share", HWP_COL_PERCENT, HWP_SHOW_ALL },
};

struct hwp_table *hwp_report__skid_distribution(const struct hwp_skid *k)
{
	const char *const *labels;
	double median;
	const uint64_t *d = hwp_skid__distribution(k, &labels, &median);
	uint64_t p, n;
	struct hwp_table *t = hwp_table__new();

	if (!t || hwp__report_add_columns(t, dist_cols, sizeof(dist_cols) / sizeof(dist_cols[0])) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	hwp_skid__totals(k, &p, &n);
	for (int b = 0; b < HWP_SKID_BUCKETS; b++) {
		hwp_table__new_row(t);
		hwp_table__set_text(t, 0, labels[b]);
		hwp_table__set_count(t, 1, d[b]);
		hwp_table__set_real(t, 2, n ? 100.0 * (double)d[b] / (double)n : 0);
	}
	return t;
}

enum { S_PRECISE, S_PRECISE_SHARE, S_IMPRECISE, S_IMPRECISE_SHARE, S_DIFF, S_DISPLAY, S_NCOLS };

static const struct hwp__report_column line_cols[S_NCOLS] = {
	[S_PRECISE] = { "Precise", "precise", HWP_COL_COUNT, HWP_SHOW_ALL },
	[S_PRECISE_SHARE] = { "Share", "precise_share", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[S_IMPRECISE] = { "Non-precise", "imprecise", HWP_COL_COUNT, HWP_SHOW_ALL },
	[S_IMPRECISE_SHARE] = { "Share", "imprecise_share", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[S_DIFF] = { "Difference", "difference", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[S_DISPLAY] = { "Source line", "display", HWP_COL_TEXT, HWP_SHOW_TEXT },
};

struct hwp_table *hwp_report__skid_lines(struct hwp_symbolizer *sym, struct hwp_skid *k,
					 const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	const struct hwp_skid_line *l;
	size_t n = hwp_skid__lines(k, &l);
	uint64_t tp, ti, shown = 0;
	struct hwp_table *t;

	if (n == (size_t)-1 || hwp__report_opts_load(opts, &o) < 0 || !(t = hwp_table__new()))
		return NULL;
	if (hwp__report_add_columns(t, line_cols, S_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	hwp_skid__totals(k, &tp, &ti);
	for (size_t i = 0; i < n && shown < o.limit; i++) {
		char buf[512];
		double a = tp ? 100.0 * (double)l[i].precise / (double)tp : 0;
		double b = ti ? 100.0 * (double)l[i].imprecise / (double)ti : 0;

		if (!hwp_loc__matches(sym, &l[i].code, o.dso, o.sym))
			continue;
		shown++;
		hwp_table__new_row(t);
		hwp_table__set_count(t, S_PRECISE, l[i].precise);
		hwp_table__set_real(t, S_PRECISE_SHARE, a);
		hwp_table__set_count(t, S_IMPRECISE, l[i].imprecise);
		hwp_table__set_real(t, S_IMPRECISE_SHARE, b);
		hwp_table__set_real(t, S_DIFF, b - a);
		hwp_loc__format_srcline(sym, &l[i].code, buf, sizeof(buf));
		hwp_table__set_text(t, S_DISPLAY, buf);
		hwp_report__set_loc(t, S_NCOLS, sym, &l[i].code);
	}
	return t;
}

void hwp_report__print_skid_header(const struct hwp_skid *k, const char *input, FILE *out)
{
	uint64_t p, n;
	double median;
	const char *const *labels;
	const uint64_t *d = hwp_skid__distribution(k, &labels, &median);
	const struct hwp_evsel *ep = hwp_skid__event(k, 1), *en = hwp_skid__event(k, 0);

	hwp_skid__totals(k, &p, &n);
	fprintf(out, "# %s: precise %s (%" PRIu64 " samples) against %s (%" PRIu64 " samples)\n", input,
		ep->name ? ep->name : "event", p, en->name ? en->name : "event", n);
	fprintf(out, "# skid, bytes back to the nearest precise sample (median %.0f):", median);
	for (int b = 0; b < HWP_SKID_BUCKETS; b++)
		fprintf(out, " %s: %.1f%%", labels[b], n ? 100.0 * (double)d[b] / (double)n : 0);
	fprintf(out, "\n#\n");
	fflush(out);
}
