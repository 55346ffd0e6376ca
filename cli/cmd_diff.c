/* SPDX-License-Identifier: MIT */
/* hwprof diff: what changed between two recordings, branch by branch. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/flow_diff.h"

static const char usage[] =
	"usage: hwprof diff [--all] [--min-change PCT] [--min-executions N] [--limit N]\n"
	"                   [--symfs DIR] [--json | --csv] BEFORE AFTER\n"
	"\n"
	"What changed from the recording BEFORE to AFTER (same program, same or\n"
	"another build): per function and per basic block the share of the sampled\n"
	"instructions executed, per conditional branch the taken probability and the\n"
	"taken mispredicts per execution, each with the 95% interval of the change.\n"
	"Code is matched by module offset where the build-ids are equal, else by\n"
	"symbol, source line and rank on that line. Only significant changes are\n"
	"shown (interval excluding 0, and at least --min-change), largest impact\n"
	"first; intervals are conservative (executions in one branch stack are not\n"
	"counted as independent).\n"
	"\n"
	"      --all            also the changes that are not significant\n"
	"      --min-change PCT smallest change called significant, in percentage\n"
	"                       points (default 2)\n"
	"      --min-executions N  compare branches with at least N sampled\n"
	"                       executions on one side (default 100)\n"
	REPORT_LIMIT_HELP
	"      --symfs DIR      look for binaries under DIR\n"
	"      --json, --csv    machine-readable output\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

struct diff_opts {
	struct flow_opts fo;
	const char *before, *after;
	bool all;
	struct hwp_flow_diff_opts d;
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct diff_opts *o)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		FLOW_LONGOPTS,
		{ "all", no_argument, NULL, 'A' },
		{ "min-change", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	int c, r;
	char *end;

	memset(o, 0, sizeof(*o));
	flow_opts__init(&o->fo);
	o->d = (struct hwp_flow_diff_opts){ .sz = sizeof(o->d) };
	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		if (c == 'A') {
			o->all = true;
			continue;
		}
		if (c == 'C') {
			errno = 0;
			double v = strtod(optarg, &end);

			if (end == optarg || *end || errno || !(v > 0) || v > 100)
				return cli_error("diff: --min-change '%s' is not a percentage above 0", optarg);
			o->d.min_change = v / 100;
			continue;
		}
		if (c == 'i' || c == 'd' || c == 'y') {
			fputs(usage, stderr);
			return 1;
		}
		if ((r = flow_opts__take(&o->fo, "diff", c, optarg)) < 0)
			return 1;
		if (r)
			continue;
		fputs(usage, stderr);
		return 1;
	}
	if (argc - optind != 2)
		return cli_error("diff: two recordings, BEFORE and AFTER (%d given)", argc - optind);
	o->before = argv[optind];
	o->after = argv[optind + 1];
	if (!strcmp(o->before, "-") && !strcmp(o->after, "-"))
		return cli_error("diff: only one of BEFORE and AFTER can be standard input");
	o->d.min_executions = o->fo.min > 1 ? o->fo.min : 0;
	return -1;
}

static int print_diff(struct flow_input *b, struct flow_input *a, const struct diff_opts *o)
{
	struct hwp_flow_diff *d = hwp_flow_diff__new(b->flow, b->in.collector, a->flow, a->in.collector, &o->d);
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->fo.ro.fmt, .limit = o->fo.limit };
	struct hwp_table *t;
	bool significant;
	int rc;

	if (!d || (b->timing && a->timing && hwp_flow_diff__add_timing(d, b->timing, a->timing) < 0)) {
		hwp_flow_diff__delete(d);
		return cli_error("%s", hwp_errmsg());
	}
	if (!(t = hwp_report__diff(report_input__symbolizer(&b->in), report_input__symbolizer(&a->in), d, o->all,
				   &ro))) {
		hwp_flow_diff__delete(d);
		return cli_error("out of memory");
	}
	significant = hwp_flow_diff__stats(d)->significant;
	if (ro.fmt == HWP_TABLE_TEXT)
		hwp_report__print_diff_summary(d, o->before, o->after, b->timing &&
					       hwp_timing__source(b->timing) == HWP_CYCLES_MODELLED, stdout);
	rc = significant || o->all || ro.fmt != HWP_TABLE_TEXT ? report_print_table(t, ro.fmt) : 0;
	if (!significant && ro.fmt == HWP_TABLE_TEXT)
		printf("no significant change\n");
	hwp_table__delete(t);
	hwp_flow_diff__delete(d);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o;
	struct flow_input b, a;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct flow_opts ob = o.fo, oa = o.fo;

	ob.ro.input = o.before;
	oa.ro.input = o.after;
	rc = flow_input__load(&b, &ob, "diff", FLOW_WITH_TIMING);
	if (!rc) {
		rc = flow_input__load(&a, &oa, "diff", FLOW_WITH_TIMING);
		if (!rc)
			rc = print_diff(&b, &a, &o);
		flow_input__close(&a);
	}
	flow_input__close(&b);
	return rc;
}
