/* SPDX-License-Identifier: MIT */
/* hwprof advise: ranked findings with their evidence and what to do. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "hwprof/advise.h"
#include "hwprof/branch_report.h"

static const struct cmd_desc desc = {
	.name = "advise",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

struct advise_opts {
	struct flow_opts fo;
	struct hwp_advise_opts a;
	int kind; /* -1: all */
};

/* --bias PCT and the other thresholds: a percentage in (0, 100], kept as a fraction */
#define OPT_ADVISE_PCT(l, v, h) \
	{ .kind = OPT_KIND_DOUBLE, .long_name = l, .value = OPT_PTR(double, v), .argh = "PCT", .dmin = 0, \
	  .dmax = 100, .scale = 0.01, .flags = OPT_MIN_OPEN, .err = " is not a percentage in (0, 100]", .help = h }

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct advise_opts *o)
{
	const char *kinds[HWP_FIND_KIND_NR + 1] = { NULL };
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->fo.ro),
		OPT_CHOICE(0, "kind", &o->kind, "K", kinds,
			   ": the kinds are biased-branch, mispredict, monomorphic-call, spread-function, "
			   "multimodal-block, dram-loads and false-sharing",
			   "only findings of kind K"),
		OPT_REPORT_LIMIT(&o->fo.limit),
		OPT_ADVISE_PCT("min-share", &o->a.min_share, "leave out findings below PCT% of the work (default 0.5)"),
		OPT_U64(0, "min-executions", &o->fo.min, "N", 0, UINT64_MAX, NULL,
			"leave out branches with fewer sampled executions (default 200)"),
		OPT_ADVISE_PCT("bias", &o->a.bias,
			       "biased-branch: lower bound of the taken probability (default 75)"),
		OPT_ADVISE_PCT("mispredict-rate", &o->a.mispredict_rate,
			       "mispredict: lower bound of the mispredicts per execution (default 10)"),
		OPT_ADVISE_PCT("dominance", &o->a.dominance,
			       "monomorphic-call: lower bound of the top target's share (default 90)"),
		{ .kind = OPT_KIND_DOUBLE, .long_name = "spread", .value = &o->a.spread, .argh = "X", .dmin = 1,
		  .dmax = INFINITY, .flags = OPT_MIN_OPEN, .err = " is not a ratio above 1",
		  .help = "spread-function: cache lines touched over those the bytes need (default 1.5)" },
		{ .kind = OPT_KIND_DOUBLE, .long_name = "penalty", .value = &o->a.penalty, .argh = "CYCLES",
		  .dmin = 0, .dmax = INFINITY, .flags = OPT_MIN_OPEN, .err = " is not a positive number",
		  .help = "cycles a mispredict costs (default 15)" },
		OPT_ADVISE_PCT("dram-share", &o->a.dram_share,
			       "dram-loads: share of a line's sampled loads from DRAM (default 20)"),
		OPT_FLOW_INFER(&o->fo),
		OPT_REPORT_OUTPUT(&o->fo.ro),
		OPT_COMMON(),
		OPT_END(),
	};
	int rc;

	for (unsigned k = 0; k < HWP_FIND_KIND_NR; k++)
		kinds[k] = hwp_finding_kind__name(k);
	memset(o, 0, sizeof(*o));
	flow_opts__init(&o->fo);
	o->a.sz = sizeof(o->a);
	o->kind = -1;
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	o->a.min_executions = o->fo.min > 1 ? o->fo.min : 0;
	return -1;
}

int cmd_advise(int argc, char **argv)
{
	struct advise_opts o;
	struct flow_input fi;
	struct hwp_advisor *a = NULL;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	rc = flow_input__load(&fi, &o.fo, "advise", FLOW_WITH_TIMING | FLOW_WITH_MEM | FLOW_WITH_CALLS);
	if (!rc && !(a = flow_input__advisor(&fi, &o.a)))
		rc = cli_error("%s", hwp_errmsg());
	if (!rc) {
		struct hwp_symbolizer *sym = report_input__symbolizer(&fi.in);
		size_t n;
		const struct hwp_finding *f = hwp_advisor__findings(a, &n);

		if (fi.flow) {
			flow_input__note(&fi);
			flow_input__bias(&fi, &o.fo);
		}
		report_input__warn_missing(&fi.in, true);
		struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o.fo.ro.fmt, .limit = o.fo.limit };
		struct hwp_table *t = NULL;

		if (o.fo.ro.fmt == HWP_TABLE_TEXT)
			hwp_report__print_findings(sym, f, n, o.kind, &ro, stdout);
		else if (!(t = hwp_report__findings(sym, f, n, o.kind, &ro)))
			rc = cli_error("out of memory");
		else
			rc = report_print_table(t, ro.fmt);
		hwp_table__delete(t);
	}
	hwp_advisor__delete(a);
	flow_input__close(&fi);
	return rc;
}
