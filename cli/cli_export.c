/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_callgraph.h"
#include "cli_export.h"

void export_opts__init(struct export_opts *o)
{
	memset(o, 0, sizeof(*o));
	report_opts__init(&o->ro);
	o->we = -1;
}

bool export_host_ok(const char *h)
{
	size_t n = strlen(h);

	if (!n || n > 255)
		return false;
	for (; *h; h++)
		if ((unsigned char)*h < 0x20 || *h == 0x7f || *h == '\\')
			return false;
	return true;
}

#define HOST_RULE "a host name is 1 to 255 bytes, with no control character (tab, newline, ...) and no backslash"

int export_opts__host(const char *cmd, const struct opt *opt, const char *arg)
{
	struct export_opts *o = opt->value;

	if (!export_host_ok(arg))
		return cli_error("%s: --host '%s': %s", cmd, arg, HOST_RULE);
	o->host = arg;
	return 0;
}

int export_host_check(const char *cmd, const struct hwp_export *rows)
{
	const char *h = hwp_export__host(rows);

	if (h && !export_host_ok(h))
		return cli_error("%s: the recording's host name '%s' breaks the rule (%s): give --host NAME", cmd, h,
				 HOST_RULE);
	return 0;
}

int export_opts__window(const char *cmd, const struct opt *opt, const char *arg)
{
	struct export_opts *o = opt->value;
	char *end;

	errno = 0;
	o->ws = strtoll(arg, &end, 10);
	if (end != arg && *end == ',') {
		const char *e2 = end + 1;

		o->we = strtoll(e2, &end, 10);
		if (end != e2 && !*end && !errno && o->ws >= 0 && o->we >= o->ws)
			return 0;
	}
	return cli_error("%s: --window '%s': give START,END in Unix seconds, START <= END", cmd, arg);
}

int export_input__load(struct export_input *ei, const struct export_opts *o, const char *input)
{
	struct hwp_branch_collect_opts co;
	struct report_opts ro = o->ro;
	/* (export prints no recording id: the hash of the data section, a
	   serial pass as long as the report's, is made only for push) */
	struct hwp_export_opts eo = { .sz = sizeof(eo), .host = o->host, .window_start = o->ws,
				      .window_end = o->we, .recording_id = o->recording_id ? 0 : 1 };
	char hostname[256];
	int rc;

	memset(ei, 0, sizeof(*ei));
	hwp_export__collect_opts(&co);
	ro.input = input;
	/* (push: block latencies from the same pass, where the cycles are) */
	if ((rc = report_input__run(&ei->in, &ro, "push", HWP_ANALYSIS_BRANCHES | (o->timing ? HWP_ANALYSIS_TIMING : 0) |
					  (o->calls ? HWP_ANALYSIS_CALLS : 0),
				    &co, NULL, NULL)))
		return rc;
	hwp_export_opts__defaults(&eo, ei->in.session, input, hostname, sizeof(hostname));
	const struct hwp_range_stats *rs = hwp_branch_collector__range_stats(ei->in.collector);
	if (!o->no_flow && rs->accepted && !(ei->flow = hwp_flow__new(ei->in.collector, NULL)))
		return cli_error("%s", hwp_errmsg());
	if (!(ei->rows = hwp_export__new(ei->in.collector, ei->flow, &eo)))
		return cli_error("%s", hwp_errmsg());
	struct hwp_call_graph *cg = o->calls ? hwp_pipeline__call_graph(ei->in.p) : NULL;
	if (cg) {
		struct hwp_call_graph_stats st = { .sz = sizeof(st) };

		hwp_call_graph__stats(cg, &st);
		cg_warn_unwind(input ? input : "-", &st);
		if (hwp_export__add_calls(ei->rows, cg) < 0)
			return cli_error("%s", hwp_errmsg());
	}
	struct hwp_timing *tm = o->timing ? hwp_pipeline__timing(ei->in.p) : NULL;
	/* (a recording without cycle counts has no latencies: nothing to add) */
	if (tm && hwp_export__add_timing(ei->rows, tm) < 0)
		return cli_error("%s", hwp_errmsg());
	return 0;
}

void export_input__close(struct export_input *ei)
{
	hwp_export__delete(ei->rows);
	hwp_flow__delete(ei->flow);
	report_input__close(&ei->in);
	memset(ei, 0, sizeof(*ei));
}
