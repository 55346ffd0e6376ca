/* SPDX-License-Identifier: MIT */
/* hwprof report --html: every report of one recording (or a comparison) in one page. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"

static const char usage[] =
	"usage: hwprof report --html FILE [-i INPUT] [--limit N] [--symfs DIR]\n"
	"       hwprof report --html FILE --diff BEFORE AFTER [--limit N] [--symfs DIR]\n"
	"\n"
	"Writes one self-contained HTML page (no network, no external scripts) with\n"
	"the recording's summary, the advise findings, hot branches, mispredicts,\n"
	"branch probabilities and hot blocks, from one pass over the recording;\n"
	"every table sorts by a click on a column and filters by the box above it.\n"
	"With --diff: the changes from BEFORE to AFTER (hwprof diff), both\n"
	"summaries, and AFTER's findings.\n"
	"\n"
	"      --html FILE      the page to write ('-': standard output)\n"
	"  -i, --input FILE     perf.data or perf script text (default: perf.data)\n"
	"      --diff B A       compare the recordings B and A\n"
	"      --limit N        rows per table (default 50)\n"
	"      --symfs DIR      look for binaries under DIR\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

struct report_cmd_opts {
	struct flow_opts fo;
	const char *html, *before, *after;
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct report_cmd_opts *o)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "input", required_argument, NULL, 'i' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "limit", required_argument, NULL, 'l' },
		{ "html", required_argument, NULL, 'H' },
		{ "diff", no_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	bool diff = false;
	int c;

	memset(o, 0, sizeof(*o));
	flow_opts__init(&o->fo);
	o->fo.limit = 50;
	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		switch (c) {
		case 'i':
		case 'S':
			report_opts__take(&o->fo.ro, c, optarg);
			break;
		case 'l':
			if (report_parse_limit("report", optarg, &o->fo.limit))
				return 1;
			break;
		case 'H':
			o->html = optarg;
			break;
		case 'D':
			diff = true;
			break;
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (!o->html)
		return cli_error("report: which page? --html FILE");
	if (diff) {
		if (argc - optind != 2)
			return cli_error("report: --diff takes two recordings, BEFORE and AFTER (%d given)", argc - optind);
		o->before = argv[optind];
		o->after = argv[optind + 1];
	} else if (optind < argc) {
		return cli_error("report: unexpected argument '%s'", argv[optind]);
	}
	return -1;
}

static int write_page(const struct report_cmd_opts *o, struct flow_input *b, struct flow_input *a)
{
	struct hwp_html_report_opts ho = { .sz = sizeof(ho), .limit = o->fo.limit, .input = o->fo.ro.input,
					   .before = o->before, .after = o->after, .path = o->html };
	FILE *fp = strcmp(o->html, "-") ? fopen(o->html, "w") : stdout;
	int rc;

	if (!fp)
		return cli_error("%s: cannot write: %s", o->html, strerror(errno));
	rc = a ? hwp_report__html_diff(b->in.p, a->in.p, &ho, fp) : hwp_report__html(b->in.p, &ho, fp);
	if (rc < 0)
		rc = cli_error("%s", hwp_errmsg());
	if (fp != stdout && fclose(fp) && !rc)
		rc = cli_error("%s: write failed: %s", o->html, strerror(errno));
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd_opts o;
	struct flow_input b, a;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (!o.before) {
		rc = flow_input__load(&b, &o.fo, "report", FLOW_WITH_TIMING | FLOW_WITH_CALLS | FLOW_WITH_MEM);
		if (!rc)
			rc = write_page(&o, &b, NULL);
		flow_input__close(&b);
		return rc;
	}
	struct flow_opts ob = o.fo, oa = o.fo;

	ob.ro.input = o.before;
	oa.ro.input = o.after;
	rc = flow_input__load(&b, &ob, "report", FLOW_WITH_TIMING);
	if (!rc) {
		rc = flow_input__load(&a, &oa, "report", FLOW_WITH_TIMING);
		if (!rc)
			rc = write_page(&o, &b, &a);
		flow_input__close(&a);
	}
	flow_input__close(&b);
	return rc;
}
