/* SPDX-License-Identifier: MIT */
/* hwprof skid: precise against non-precise attribution, line by line. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/session.h"
#include "hwprof/skid.h"

static const struct cmd_desc desc = {
	.name = "skid",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

struct skid_cli {
	struct report_opts r;
	int precise, imprecise;
	bool dist;
	uint64_t limit;
};

/* Returns -1 to go on, else the exit code. */
/* --precise N, --imprecise N: an event index as 'hwprof info' lists them */
#define OPT_EVENT_INDEX(l, v, h) OPT_INT(0, l, v, "N", 0, 1000000, ": an event index (0, 1, ...)", h)

static int parse_opts(int argc, char **argv, struct skid_cli *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT_AS(&o->r, "perf.data (default: perf.data)"),
		OPT_REPORT_JOBS(&o->r),
		OPT_EVENT_INDEX("precise", &o->precise,
				"the precise event, by index as 'hwprof info' lists them (default: the highest "
				"precise_ip)"),
		OPT_EVENT_INDEX("imprecise", &o->imprecise, "the other event (default: the first with precise_ip 0)"),
		OPT_BOOL(0, "dist", &o->dist, "the table is the skid distribution, not the lines"),
		OPT_REPORT_LIMIT(&o->limit),
		OPT_REPORT_OUTPUT(&o->r),
		OPT_COMMON(),
		OPT_END(),
	};

	memset(o, 0, sizeof(*o));
	report_opts__init(&o->r);
	o->precise = o->imprecise = -1;
	return parse_options(argc, argv, &desc, opts, NULL);
}

int cmd_skid(int argc, char **argv)
{
	struct skid_cli o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = o.r.symfs };
	size_t ninputs;
	const char *const *inputs = report_opts__inputs(&o.r, &ninputs);
	struct hwp_session *s = hwp_session__open_inputs(inputs, ninputs, &so);
	if (!s)
		return cli_error("%s", hwp_errmsg());
	struct hwp_skid_opts ko = { .sz = sizeof(ko), .precise = o.precise, .imprecise = o.imprecise,
				   .jobs = o.r.jobs };
	struct hwp_skid *k = hwp_skid__new(s, &ko);
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o.r.fmt, .limit = o.limit };
	struct hwp_table *t = NULL;

	if (!k) {
		rc = cli_error("%s", hwp_errmsg());
	} else if (!(t = o.dist ? hwp_report__skid_distribution(k)
				: hwp_report__skid_lines(hwp_session__symbolizer(s), k, &ro))) {
		rc = cli_error("%s", hwp_errmsg());
	} else {
		if (o.r.fmt == HWP_TABLE_TEXT)
			hwp_report__print_skid_header(k, o.r.input, stdout);
		rc = report_print_table_jobs(t, o.r.fmt, o.r.jobs);
	}
	hwp_table__delete(t);
	hwp_skid__delete(k);
	hwp_session__delete(s);
	return rc;
}
