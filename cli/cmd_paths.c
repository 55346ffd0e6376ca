/* SPDX-License-Identifier: MIT */
/* hwprof paths: hot paths, blocks executed in sequence within a function. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"

static const struct cmd_desc desc = {
	.name = "paths",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

static int print_paths(struct flow_input *fi, const struct flow_opts *o)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit,
				      .min_executions = o->min, .dso = o->dso, .sym = o->sym };
	size_t n;
	const struct hwp_path *p = hwp_paths__build(fi->paths, fi->flow, &n);
	struct hwp_table *t = p ? hwp_report__paths(report_input__symbolizer(&fi->in), p, n, &ro) : NULL;
	int rc;

	if (!t)
		return cli_error("%s", p ? "out of memory" : hwp_errmsg());
	flow_input__note(fi);
	flow_input__bias(fi, o);
	const struct hwp_paths_stats *st = hwp_paths__stats(fi->paths);
	if (st->truncated)
		cli_warn("%" PRIu64 " paths cut by the start or end of a stack (or an unusable range) were left "
			 "out, %" PRIu64 " complete ones counted", st->truncated, st->paths);
	report_input__warn_missing(&fi->in, true);
	rc = report_print_table_jobs(t, o->ro.fmt, o->ro.jobs);
	hwp_table__delete(t);
	return rc;
}

int cmd_paths(int argc, char **argv)
{
	struct flow_opts o;
	int rc = flow_opts__parse(argc, argv, &desc, &o);
	struct flow_input fi;

	if (rc >= 0)
		return rc;
	rc = flow_input__load(&fi, &o, "paths", FLOW_WITH_PATHS);
	if (!rc)
		rc = print_paths(&fi, &o);
	flow_input__close(&fi);
	return rc;
}
