/* SPDX-License-Identifier: MIT */
/* hwprof probs: which way conditional branches go, and where indirect ones go. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"

static const struct cmd_desc desc = {
	.name = "probs",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

/* Returns -1 to go on, else the exit code. */
int probs_parse_opts(int argc, char **argv, struct flow_opts *o, bool *indirect)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->ro),
		OPT_BOOL(0, "indirect", indirect, "target distributions of indirect jumps and calls"),
		OPT_FLOW_FILTER(o),
		OPT_FLOW_INFER(o),
		OPT_REPORT_OUTPUT(&o->ro),
		OPT_COMMON(),
		OPT_END(),
	};

	flow_opts__init(o);
	*indirect = false;
	return parse_options(argc, argv, &desc, opts, NULL);
}

/* The table of conditional branches C[0..N) (sorted), for probs and the fleet. */
static struct hwp_table *conds_table(struct hwp_symbolizer *sym, const struct hwp_flow_cond *c, size_t n,
				     const struct flow_opts *o)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit,
				      .min_executions = o->min, .dso = o->dso, .sym = o->sym };

	return hwp_report__conds(sym, c, n, &ro);
}

int probs_print_conds(struct hwp_symbolizer *sym, const struct hwp_flow_cond *c, size_t n,
		      const struct flow_opts *o)
{
	struct hwp_table *t = conds_table(sym, c, n, o);
	int rc;

	if (!t)
		return cli_error("out of memory");
	rc = report_print_table_jobs(t, o->ro.fmt, o->ro.jobs);
	hwp_table__delete(t);
	return rc;
}

static int print_conds(struct flow_input *fi, const struct flow_opts *o)
{
	size_t n;
	const struct hwp_flow_cond *c = hwp_flow__conds(fi->flow, &n);

	flow_input__note(fi);
	flow_input__bias(fi, o);
	report_input__warn_missing(&fi->in, true);
	return probs_print_conds(report_input__symbolizer(&fi->in), c, n, o);
}

static int print_indirect(struct flow_input *fi, const struct flow_opts *o)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit,
				      .min_executions = o->min, .dso = o->dso, .sym = o->sym };
	struct hwp_table *t = hwp_report__indirect(report_input__symbolizer(&fi->in), fi->flow, &ro);
	int rc;

	if (!t)
		return cli_error("out of memory");
	report_input__warn_missing(&fi->in, true);
	rc = report_print_table_jobs(t, o->ro.fmt, o->ro.jobs);
	hwp_table__delete(t);
	return rc;
}

int cmd_probs(int argc, char **argv)
{
	struct flow_opts o;
	bool indirect;
	int rc = probs_parse_opts(argc, argv, &o, &indirect);
	struct flow_input fi;

	if (rc >= 0)
		return rc;
	if (indirect && o.infer)
		return cli_error("probs: --indirect: the targets' shares are the sampled ones (inference balances "
				 "blocks, not targets): leave out --infer");
	if (indirect)
		o.no_infer = true; /* (nothing it shows would change) */
	rc = flow_input__load(&fi, &o, "probs", 0);
	if (!rc)
		rc = indirect ? print_indirect(&fi, &o) : print_conds(&fi, &o);
	flow_input__close(&fi);
	return rc;
}
