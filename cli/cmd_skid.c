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
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o.r.fmt, .limit = o.limit };
	struct hwp_table *t = NULL;

	if (!k) {
		rc = cli_error("%s", hwp_errmsg());
	} else if (!(t = o.dist ? hwp_report__skid_distribution(k)
				: hwp_report__skid_lines(hwp_session__symbolizer(s), k, &ro))) {
		rc = cli_error("%s", hwp_errmsg());
	} else {
		if (o.r.fmt == HWP_TABLE_TEXT)
			hwp_report__print_skid_header(k, o.r.input, stdout);
		rc = report_print_table(t, o.r.fmt);
	}
	hwp_table__delete(t);
	hwp_skid__delete(k);
	hwp_session__delete(s);
	return rc;
}
