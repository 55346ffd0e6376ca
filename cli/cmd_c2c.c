/* SPDX-License-Identifier: MIT */
/* hwprof c2c: contended cache lines (false and true sharing), one table. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_callgraph.h"
#include "cli_report.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/c2c.h"
#include "hwprof/hwprof.h"
#include "hwprof/mem.h"
#include "hwprof/session.h"

static const struct cmd_desc desc = {
	.name = "c2c",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

struct c2c_opts {
	struct report_opts r;
	unsigned cache_line;
	uint64_t limit;
	bool children, latency;
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct c2c_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT_AS(&o->r, "perf.data (default: perf.data)"),
		OPT_REPORT_JOBS(&o->r),
		OPT_CACHE_LINE(&o->cache_line),
		OPT_U64(0, "limit", &o->limit, "N", 1, UINT64_MAX, ": the number of rows must be a count of at least 1",
			"show only the first N lines (default: all)"),
		OPT_BOOL(0, "children", &o->children,
			 "the call graph of the samples that hit a modified line (HITM): children and self per "
			 "function (needs call stacks: -g or --call-graph dwarf)"),
		OPT_BOOL(0, "latency", &o->latency, "with --children: weigh each sample by its latency in cycles"),
		OPT_REPORT_OUTPUT(&o->r),
		OPT_COMMON(),
		OPT_END(),
	};

	int rc;

	memset(o, 0, sizeof(*o));
	report_opts__init(&o->r);
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	if (o->latency && !o->children)
		return cli_error("c2c: --latency weighs the call graph of --children");
	return -1;
}

int cmd_c2c(int argc, char **argv)
{
	struct c2c_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (o.children)
		return cg_children_report("c2c", &o.r, HWP_CG_HITM, o.latency, o.limit);
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = o.r.symfs };
	size_t ninputs;
	const char *const *inputs = report_opts__inputs(&o.r, &ninputs);
	struct hwp_session *s = hwp_session__open_inputs(inputs, ninputs, &so);
	if (!s)
		return cli_error("%s", hwp_errmsg());
	struct hwp_mem_report_opts mo = { .sz = sizeof(mo), .cache_line = o.cache_line,
					  .collect = HWP_MEM_COLLECT_C2C };
	struct hwp_mem_report *r = hwp_mem_report__new(s, &mo);
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o.r.fmt, .limit = o.limit };
	struct hwp_c2c *c = NULL;
	struct hwp_table *t = NULL;

	if (!r || hwp_mem_report__read_jobs(r, o.r.jobs) < 0) {
		rc = cli_error("%s", hwp_errmsg());
	} else if (hwp_mem_report__totals(r)->samples == 0) {
		rc = cli_error("%s: no memory samples (record with 'hwprof record --mem' or "
			       "'perf c2c record')", o.r.input);
	} else if (!(c = hwp_c2c__new(r)) || !(t = hwp_report__c2c(r, c, &ro))) {
		rc = cli_error("%s", hwp_errmsg());
	} else {
		if (o.r.fmt == HWP_TABLE_TEXT)
			hwp_report__print_c2c_header(r, c, o.r.input, stdout);
		rc = report_print_table_jobs(t, o.r.fmt, o.r.jobs);
	}
	hwp_table__delete(t);
	hwp_c2c__delete(c);
	hwp_mem_report__delete(r);
	hwp_session__delete(s);
	return rc;
}
