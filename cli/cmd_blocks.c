/* SPDX-License-Identifier: MIT */
/* hwprof blocks: basic blocks by sampled executions. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"

static const struct cmd_desc desc = {
	.name = "blocks",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

static int print_blocks(struct flow_input *fi, const struct flow_opts *o)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit,
				      .min_executions = o->min, .dso = o->dso, .sym = o->sym };
	struct hwp_table *t = hwp_report__blocks(report_input__symbolizer(&fi->in), fi->flow, &ro);
	int rc;

	if (!t)
		return cli_error("out of memory");
	flow_input__note(fi);
	flow_input__bias(fi, o);
	report_input__warn_missing(&fi->in, true);
	rc = report_print_table_jobs(t, o->ro.fmt, o->ro.jobs);
	hwp_table__delete(t);
	return rc;
}

int cmd_blocks(int argc, char **argv)
{
	struct flow_opts o;
	int rc = flow_opts__parse(argc, argv, &desc, &o);
	struct flow_input fi;

	if (rc >= 0)
		return rc;
	rc = flow_input__load(&fi, &o, "blocks", 0);
	if (!rc)
		rc = print_blocks(&fi, &o);
	flow_input__close(&fi);
	return rc;
}
