/* SPDX-License-Identifier: MIT */
/* hwprof callgraph: children and self per function, as perf report --children. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_callgraph.h"
#include "cli_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/report.h"

static const struct cmd_desc desc = {
	.name = "callgraph",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

struct cg_opts {
	struct report_opts ro;
	const char *function;
	uint64_t limit;
	bool no_inline, stitch_lbr, memory, hitm, latency;
};

static int report(struct cg_input *in, const struct cg_opts *o)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit };
	struct hwp_table *t = hwp_report__callgraph(hwp_session__symbolizer(in->session), in->cg, &ro);
	int rc;

	if (!t)
		return cli_error("%s", hwp_errmsg());
	cg_input__warn_missing(in);
	rc = report_print_table_jobs(t, ro.fmt, o->ro.jobs);
	hwp_table__delete(t);
	return rc;
}

/* Callers and callees of the outermost calls of NAME in the function tree. */
static int function_report(struct cg_input *in, const struct cg_opts *o)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit };
	int rc = hwp_report__print_callgraph_function(hwp_session__symbolizer(in->session), in->cg, o->function, &ro,
						      stdout);

	if (rc > 0)
		return cli_error("%s: no function '%s' on any sampled stack", o->ro.input, o->function);
	if (rc < 0)
		return cli_error("%s", hwp_errmsg());
	cg_input__warn_missing(in);
	return 0;
}

int cmd_callgraph(int argc, char **argv)
{
	struct cg_opts o = { .limit = UINT64_MAX };
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o.ro),
		OPT_STRING('f', "function", &o.function, "NAME", "callers and callees of the function NAME"),
		OPT_REPORT_LIMIT(&o.limit),
		OPT_BOOL(0, "no-inline", &o.no_inline, "no inlined frames (each address is its function only)"),
		OPT_BOOL(0, "stitch-lbr", &o.stitch_lbr,
			 "LBR call stacks continued from the thread's earlier samples, as perf report --stitch-lbr"),
		OPT_MEMORY_SAMPLES(&o.memory, &o.hitm, &o.latency),
		OPT_REPORT_SYMFS(&o.ro),
		OPT_SET_ENUM(0, "json", &o.ro.fmt, HWP_TABLE_JSON, 0, "JSON rows"),
		OPT_SET_ENUM(0, "csv", &o.ro.fmt, HWP_TABLE_CSV, 0, "CSV rows (not with --function)"),
		OPT_COMMON(),
		OPT_END(),
	};
	struct cg_input in;
	int rc;

	report_opts__init(&o.ro);
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	if (o.function && o.ro.fmt == HWP_TABLE_CSV)
		return cli_error("callgraph: --function prints two tables (callers, callees): use --json, not --csv");
	size_t n;
	const char *const *inputs = report_opts__inputs(&o.ro, &n);

	struct hwp_call_graph_opts co = { .sz = sizeof(co), .no_inline = o.no_inline, .stitch_lbr = o.stitch_lbr,
					  .samples = o.hitm ? HWP_CG_HITM : o.memory ? HWP_CG_MEMORY : HWP_CG_ALL,
					  .latency = o.latency };

	rc = cg_input__load(&in, "callgraph", inputs, n, o.ro.symfs, &co, o.ro.jobs);
	if (!rc)
		rc = o.function ? function_report(&in, &o) : report(&in, &o);
	cg_input__close(&in);
	return rc;
}
