/* SPDX-License-Identifier: MIT */
/* hwprof diff: what changed between two recordings, branch by branch and
   (with call stacks) function by function. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/flow_diff.h"

static const struct cmd_desc desc = {
	.name = "diff",
	.args = "BEFORE AFTER",
	.flags = CMD_ARGS,
};

struct diff_opts {
	struct flow_opts fo;
	const char *before, *after;
	bool all;
	struct hwp_flow_diff_opts d;
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct diff_opts *o)
{
	const struct opt opts[] = {
		OPT_BOOL(0, "all", &o->all, "also the changes that are not significant"),
		{ .kind = OPT_KIND_DOUBLE, .long_name = "min-change", .value = &o->d.min_change, .argh = "PCT",
		  .dmin = 0, .dmax = 100, .scale = 0.01, .flags = OPT_MIN_OPEN, .err = " is not a percentage above 0",
		  .help = "smallest change called significant, in percentage points (default 2)" },
		OPT_U64(0, "min-executions", &o->fo.min, "N", 0, UINT64_MAX, NULL,
			"compare branches with at least N sampled executions on one side (default 100)"),
		OPT_REPORT_LIMIT(&o->fo.limit),
		OPT_REPORT_OUTPUT(&o->fo.ro),
		OPT_COMMON(),
		OPT_END(),
	};
	struct cmd_args a;
	int rc;

	memset(o, 0, sizeof(*o));
	flow_opts__init(&o->fo);
	o->d = (struct hwp_flow_diff_opts){ .sz = sizeof(o->d) };
	if ((rc = parse_options(argc, argv, &desc, opts, &a)) >= 0)
		return rc;
	if (a.n != 2)
		return cli_error("diff: two recordings, BEFORE and AFTER (%d given)", a.n);
	o->before = a.v[0];
	o->after = a.v[1];
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

	if (!d || (b->timing && a->timing && hwp_flow_diff__add_timing(d, b->timing, a->timing) < 0) ||
	    ((b->calls || a->calls) && hwp_flow_diff__add_calls(d, b->calls, a->calls) < 0)) {
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
	/* the sampled counts on both sides: the intervals are those of
	   binomial samples, and one side's inference would be a change */
	ob.no_infer = oa.no_infer = true;
	rc = flow_input__load(&b, &ob, "diff", FLOW_WITH_TIMING | FLOW_WITH_CALLS);
	if (!rc) {
		rc = flow_input__load(&a, &oa, "diff", FLOW_WITH_TIMING | FLOW_WITH_CALLS);
		if (!rc)
			rc = print_diff(&b, &a, &o);
		flow_input__close(&a);
	}
	flow_input__close(&b);
	return rc;
}
