/* SPDX-License-Identifier: MIT */
/* hwprof skid: precise against non-precise attribution, line by line. */
#include <getopt.h>
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

static const char usage[] =
	"usage: hwprof skid [-i FILE] [--precise N] [--imprecise N] [--dist]\n"
	"                   [--limit N] [--symfs DIR] [--json | --csv]\n"
	"\n"
	"For a recording holding a precise event (PEBS, IBS: precise_ip > 0) and a\n"
	"non-precise one over the same code: each source line's share of the samples\n"
	"of both, lines whose shares differ most first (the non-precise event's\n"
	"interrupt lands after the instruction that caused it: its samples drift to\n"
	"later lines). The skid distribution estimates how far: for each non-precise\n"
	"sample, the distance in bytes back to the nearest address the precise event\n"
	"sampled in the same module (farther than 256 bytes or none: 'none').\n"
	"\n"
	"  -i, --input FILE     perf.data (default: perf.data)\n"
	"      --precise N      the precise event, by index as 'hwprof info' lists them\n"
	"                       (default: the highest precise_ip)\n"
	"      --imprecise N    the other event (default: the first with precise_ip 0)\n"
	"      --dist           the table is the skid distribution, not the lines\n"
	REPORT_LIMIT_HELP
	"      --symfs DIR      look for binaries under DIR\n"
	"      --json           the table as JSON\n"
	"      --csv            the table as CSV\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

struct skid_cli {
	struct report_opts r;
	int precise, imprecise;
	bool dist;
	uint64_t limit;
};

static int parse_index(const char *opt, const char *arg, int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v < 0 || v > 1000000)
		return cli_error("skid: %s '%s': an event index (0, 1, ...)", opt, arg);
	*out = (int)v;
	return 0;
}

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct skid_cli *o)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		REPORT_LONGOPTS,
		{ "precise", required_argument, NULL, 'P' },
		{ "imprecise", required_argument, NULL, 'I' },
		{ "dist", no_argument, NULL, 'D' },
		{ "limit", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	report_opts__init(&o->r);
	o->precise = o->imprecise = -1;
	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c) || report_opts__take(&o->r, c, optarg))
			continue;
		switch (c) {
		case 'P':
			if (parse_index("--precise", optarg, &o->precise))
				return 1;
			break;
		case 'I':
			if (parse_index("--imprecise", optarg, &o->imprecise))
				return 1;
			break;
		case 'D':
			o->dist = true;
			break;
		case 'l':
			if (report_parse_limit("skid", optarg, &o->limit))
				return 1;
			break;
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind < argc)
		return cli_error("skid: unexpected argument '%s'", argv[optind]);
	return -1;
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
