/* SPDX-License-Identifier: MIT */
/* hwprof skid: precise against non-precise attribution, line by line. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/session.h"
#include "hwprof/skid.h"

static const struct cmd_desc desc = {
	.name = "skid",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"For a recording holding a precise event (PEBS, IBS: precise_ip > 0) and a\n"
		"non-precise one over the same code: each source line's share of the samples\n"
		"of both, lines whose shares differ most first (the non-precise event's\n"
		"interrupt lands after the instruction that caused it: its samples drift to\n"
		"later lines). The skid distribution estimates how far: for each non-precise\n"
		"sample, the distance in bytes back to the nearest address the precise event\n"
		"sampled in the same module (farther than 256 bytes or none: 'none').\n",
};

struct skid_cli {
	struct report_opts r;
	int precise, imprecise;
	bool dist;
	uint64_t limit;
};

/* Returns -1 to go on, else the exit code. */
/* --precise N, --imprecise N: an event index as 'hwprof info' lists them */
#define OPT_EVENT_INDEX(l, v, h) OPT_INT(0, l, v, "N", 0, 1000000, ": an event index (0, 1, ...)", h)

static int parse_opts(int argc, char **argv, struct skid_cli *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT_AS(&o->r, "perf.data (default: perf.data)"),
		OPT_EVENT_INDEX("precise", &o->precise,
				"the precise event, by index as 'hwprof info' lists them (default: the highest "
				"precise_ip)"),
		OPT_EVENT_INDEX("imprecise", &o->imprecise, "the other event (default: the first with precise_ip 0)"),
		OPT_BOOL(0, "dist", &o->dist, "the table is the skid distribution, not the lines"),
		OPT_REPORT_LIMIT(&o->limit),
		OPT_REPORT_OUTPUT(&o->r),
		OPT_COMMON(),
		OPT_END(),
	};

	memset(o, 0, sizeof(*o));
	report_opts__init(&o->r);
	o->precise = o->imprecise = -1;
	return parse_options(argc, argv, &desc, opts, NULL);
}

static struct hwp_table *dist_table(const struct hwp_skid *k)
{
	const char *const *labels;
	double median;
	const uint64_t *d = hwp_skid__distribution(k, &labels, &median);
	uint64_t p, n;
	struct hwp_table *t = hwp_table__new();

	if (!t)
		return NULL;
	hwp_skid__totals(k, &p, &n);
	hwp_table__add_column(t, "Skid (bytes)", "skid", HWP_COL_TEXT);
	hwp_table__add_column(t, "Samples", "samples", HWP_COL_COUNT);
	hwp_table__add_column(t, "Share", "share", HWP_COL_PERCENT);
	for (int b = 0; b < HWP_SKID_BUCKETS; b++) {
		hwp_table__new_row(t);
		hwp_table__set_text(t, 0, labels[b]);
		hwp_table__set_count(t, 1, d[b]);
		hwp_table__set_real(t, 2, n ? 100.0 * (double)d[b] / (double)n : 0);
	}
	return t;
}

static struct hwp_table *line_table(struct hwp_skid *k, struct hwp_symbolizer *sym, uint64_t limit)
{
	const struct hwp_skid_line *l;
	size_t n = hwp_skid__lines(k, &l), loc0;
	uint64_t tp, ti;
	struct hwp_table *t;

	if (n == (size_t)-1 || !(t = hwp_table__new()))
		return NULL;
	hwp_skid__totals(k, &tp, &ti);
	hwp_table__add_column(t, "Precise", "precise", HWP_COL_COUNT);
	hwp_table__add_column(t, "Share", "precise_share", HWP_COL_PERCENT);
	hwp_table__add_column(t, "Non-precise", "imprecise", HWP_COL_COUNT);
	hwp_table__add_column(t, "Share", "imprecise_share", HWP_COL_PERCENT);
	hwp_table__add_column(t, "Difference", "difference", HWP_COL_PERCENT);
	hwp_table__add_column_shown(t, "Source line", "display", HWP_COL_TEXT, HWP_SHOW_TEXT);
	loc0 = hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	for (size_t i = 0; i < n && (!limit || i < limit); i++) {
		char buf[512];
		double a = tp ? 100.0 * (double)l[i].precise / (double)tp : 0;
		double b = ti ? 100.0 * (double)l[i].imprecise / (double)ti : 0;

		hwp_table__new_row(t);
		hwp_table__set_count(t, 0, l[i].precise);
		hwp_table__set_real(t, 1, a);
		hwp_table__set_count(t, 2, l[i].imprecise);
		hwp_table__set_real(t, 3, b);
		hwp_table__set_real(t, 4, b - a);
		hwp_loc__format_srcline(sym, &l[i].code, buf, sizeof(buf));
		hwp_table__set_text(t, 5, buf);
		hwp_report__set_loc(t, loc0, sym, &l[i].code);
	}
	return t;
}

int cmd_skid(int argc, char **argv)
{
	struct skid_cli o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = o.r.symfs };
	size_t ninputs;
	const char *const *inputs = report_opts__inputs(&o.r, &ninputs);
	struct hwp_session *s = hwp_session__open_inputs(inputs, ninputs, &so);
	if (!s)
		return cli_error("%s", hwp_errmsg());
	struct hwp_skid_opts ko = { .sz = sizeof(ko), .precise = o.precise, .imprecise = o.imprecise };
	struct hwp_skid *k = hwp_skid__new(s, &ko);
	struct hwp_table *t = NULL;

	if (!k) {
		rc = cli_error("%s", hwp_errmsg());
	} else if (!(t = o.dist ? dist_table(k) : line_table(k, hwp_session__symbolizer(s), o.limit))) {
		rc = cli_error("%s", hwp_errmsg());
	} else {
		if (o.r.fmt == HWP_TABLE_TEXT) {
			uint64_t p, n;
			double median;
			const char *const *labels;
			const uint64_t *d = hwp_skid__distribution(k, &labels, &median);
			const struct hwp_evsel *ep = hwp_skid__event(k, 1), *en = hwp_skid__event(k, 0);

			hwp_skid__totals(k, &p, &n);
			printf("# %s: precise %s (%" PRIu64 " samples) against %s (%" PRIu64 " samples)\n",
			       o.r.input, ep->name ? ep->name : "event", p, en->name ? en->name : "event", n);
			printf("# skid, bytes back to the nearest precise sample (median %.0f):", median);
			for (int b = 0; b < HWP_SKID_BUCKETS; b++)
				printf(" %s: %.1f%%", labels[b], n ? 100.0 * (double)d[b] / (double)n : 0);
			printf("\n#\n");
			fflush(stdout);
		}
		rc = report_print_table(t, o.r.fmt);
	}
	hwp_table__delete(t);
	hwp_skid__delete(k);
	hwp_session__delete(s);
	return rc;
}
