/* SPDX-License-Identifier: MIT */
/* hwprof timing: basic-block latency distributions, loop iteration times, IPC. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/timing.h"

static const struct cmd_desc desc = {
	.name = "timing",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

struct timing_opts {
	struct flow_opts f;
	const char *block, *svg;
	bool histograms, loops;
};

static int parse_opts(int argc, char **argv, struct timing_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->f.ro),
		OPT_STRING(0, "block", &o->block, "WHERE",
			   "the occurrence-rate table (cycles, samples, rate) of the blocks containing WHERE: an "
			   "address (0x4005d0, as recorded or the ELF address), SYM or SYM+OFF, or FILE:LINE"),
		OPT_BOOL(0, "histograms", &o->histograms, "the occurrence-rate rows of every block shown"),
		OPT_BOOL(0, "loops", &o->loops,
			 "per loop back edge: cycles per iteration, for iterations whose every branch lies in one stack"),
		OPT_STRING(0, "svg", &o->svg, "FILE",
			   "draw the occurrence-rate chart, modes marked, of the first block shown (or loop, with "
			   "--loops) to FILE"),
		OPT_FLOW_FILTER(&o->f),
		OPT_REPORT_OUTPUT(&o->f.ro),
		OPT_COMMON(),
		OPT_END(),
	};
	int rc;

	memset(o, 0, sizeof(*o));
	flow_opts__init(&o->f);
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	if (o->loops && (o->block || o->histograms))
		return cli_error("timing: --loops times back edges; --block and --histograms show blocks");
	return -1;
}

/* The recording's blocks (or loops) timed; the exit code (0: go on). */
static int load(struct report_input *in, const struct timing_opts *o)
{
	/* LBR call-stack recordings are refused by the range counting; they carry no cycles anyway */
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .ranges = true, .no_addresses = true,
					      .drop_meaningless_prediction = true };
	struct hwp_timing_opts to = { .sz = sizeof(to), .loops = o->loops };
	struct hwp_pipeline_opts po = { .analyses = HWP_ANALYSIS_TIMING, .collect = &co, .timing = &to,
					.dso = o->f.dso };
	int rc = report_input__run_with(in, &o->f.ro, "timing", &po);

	if (!rc && hwp_timing__check(hwp_pipeline__timing(in->p), o->f.ro.input) < 0)
		rc = cli_error("%s", hwp_errmsg());
	return rc;
}

static int print_blocks(struct report_input *in, const struct timing_opts *o)
{
	struct hwp_timing *tm = hwp_pipeline__timing(in->p);
	enum hwp_cycles_source src = hwp_timing__source(tm);
	struct hwp_symbolizer *sym = report_input__symbolizer(in);
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->f.ro.fmt, .limit = o->f.limit,
				      .min_executions = o->f.min, .dso = o->f.dso, .sym = o->f.sym };
	size_t n, shown, *idx;
	const struct hwp_timing_block *b = hwp_timing__blocks(tm, &n);
	char buf[1024];
	int rc = 0;

	if (!(idx = calloc(n ? n : 1, sizeof(*idx))))
		return cli_error("out of memory");
	size_t timed = n;

	if (o->block) {
		int found = hwp_timing__find(tm, o->block, idx, n);

		if (found < 0) {
			free(idx);
			return cli_error("timing: --block %s", hwp_errmsg());
		}
		n = (size_t)found;
		if (!n) {
			free(idx);
			return cli_error("%s: no timed block contains %s (%zu blocks timed; 'hwprof timing' lists them)",
					 o->f.ro.input, o->block, timed);
		}
	} else {
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
	}
	shown = hwp_report__select_blocks(sym, b, idx, n, &ro); /* --dso, --sym, --min-executions, --limit */
	if (o->svg && shown) {
		char title[1100];

		hwp_report__timing_block_name(sym, &b[idx[0]].start, &b[idx[0]].end, buf, sizeof(buf));
		snprintf(title, sizeof(title), "Block latency: %s", buf);
		if ((rc = cli_write_svg(o->svg, hwp_report__timing_chart(title, &b[idx[0]].d, src,
									     "one basic block"))))
			goto out;
	} else if (o->svg) {
		cli_warn("no block to draw: %s not written", o->svg);
	}
	if (o->block || o->histograms) {
		if (hwp_report__print_timing_rates(sym, b, idx, shown, src, ro.fmt, stdout) < 0)
			rc = cli_error("%s", hwp_errmsg());
		goto out;
	}
	struct hwp_table *t = hwp_report__timing_blocks(sym, tm, idx, shown, &ro);
	if (!t) {
		rc = cli_error("out of memory");
		goto out;
	}
	report_input__warn_missing(in, true);
	if (ro.fmt == HWP_TABLE_TEXT)
		hwp_report__print_timing_header(tm, false, stdout);
	rc = report_print_table(t, ro.fmt);
	hwp_table__delete(t);
out:
	free(idx);
	return rc;
}

static int print_loops(struct report_input *in, const struct timing_opts *o)
{
	struct hwp_timing *tm = hwp_pipeline__timing(in->p);
	enum hwp_cycles_source src = hwp_timing__source(tm);
	struct hwp_symbolizer *sym = report_input__symbolizer(in);
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->f.ro.fmt, .limit = o->f.limit,
				      .min_executions = o->f.min, .dso = o->f.dso, .sym = o->f.sym };
	size_t n, shown, *idx;
	const struct hwp_timing_loop *l = hwp_timing__loops(tm, &n);
	struct hwp_table *t = NULL;
	int rc = 0;

	if (!(idx = calloc(n ? n : 1, sizeof(*idx))))
		return cli_error("out of memory");
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	shown = hwp_report__select_loops(sym, l, idx, n, &ro);
	if (o->svg && shown) {
		char buf[1024], head[512], title[1600];

		hwp_loc__format_addr(sym, &l[idx[0]].branch, buf, sizeof(buf));
		hwp_loc__format_addr(sym, &l[idx[0]].head, head, sizeof(head));
		snprintf(title, sizeof(title), "Loop iteration time: %s -> %s", buf, head);
		rc = cli_write_svg(o->svg, hwp_report__timing_chart(title, &l[idx[0]].d, src,
								       "iterations of one loop"));
	} else if (o->svg) {
		cli_warn("no loop to draw: %s not written", o->svg);
	}
	if (!rc && !(t = hwp_report__timing_loops(sym, tm, idx, shown, &ro)))
		rc = cli_error("out of memory");
	if (!rc) {
		report_input__warn_missing(in, true);
		if (ro.fmt == HWP_TABLE_TEXT)
			hwp_report__print_timing_header(tm, true, stdout);
		rc = report_print_table(t, ro.fmt);
	}
	hwp_table__delete(t);
	free(idx);
	return rc;
}

int cmd_timing(int argc, char **argv)
{
	struct timing_opts o;
	struct report_input in;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	rc = load(&in, &o);
	if (!rc)
		rc = o.loops ? print_loops(&in, &o) : print_blocks(&in, &o);
	report_input__close(&in);
	return rc;
}
