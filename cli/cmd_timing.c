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
	.text =
		"How long basic blocks take, in cycles, from the cycle counts of branch records\n"
		"(Intel LBR, Skylake and later): an entry's count is the time since the entry\n"
		"before it, so it is the latency of the code that ran straight through between\n"
		"them. Per block: latency samples, min, median, mean, p90, p99, max, the modes\n"
		"(peaks) of the distribution, instructions and IPC, by total cycles. Counts of 0\n"
		"(unknown) are left out. Cycles of emulated recordings are modelled, and said so.\n",
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

/* Why a recording has no cycle counts, plainly. */
static int say_no_cycles(const char *input, const struct hwp_timing_stats *st)
{
	/* the most specific first: a filter the recording chose, then the source */
	const char *why = st->no_cycles_filter ? "it was recorded with no_cycles (-j ...,no_cycles)"
			  : st->synthesized ? "its branch stacks were synthesized from an instruction trace (Arm ETM or "
					      "Intel PT through 'perf inject'), which carries no cycle counts"
			  : st->amd ? "it was recorded on an AMD CPU, whose branch records (LBRv2, BRS) carry no cycle counts"
			  : st->call_stack && !st->stacks ? "its stacks are LBR call stacks (call chains), recorded without cycles"
			  : "every entry's count is 0 (unknown): Intel CPUs record LBR cycles from Skylake on";

	return cli_error("%s: the branch records carry no cycle counts: %s. There is nothing to time "
			 "(hwprof branches and hwprof probs work without cycles)", input, why);
}

struct timing_input {
	struct report_input in;
	struct hwp_timing *t;
	enum hwp_cycles_source src;
};

static int load(struct timing_input *ti, const struct timing_opts *o)
{
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .ranges = true, .no_addresses = true,
					      .drop_meaningless_prediction = true };
	struct hwp_timing_opts to = { .sz = sizeof(to), .loops = o->loops };
	int rc;

	memset(ti, 0, sizeof(*ti));
	/* LBR call-stack recordings are refused by the range counting; they carry no cycles anyway */
	if ((rc = report_input__open(&ti->in, &o->f.ro, &co)))
		return rc;
	if (!(ti->t = hwp_timing__new(ti->in.session, ti->in.collector, &to)) || hwp_timing__read(ti->t) < 0)
		return cli_error("%s", hwp_errmsg());
	if ((rc = report_input__check_read(&ti->in, &o->f.ro)))
		return rc;
	if (o->f.dso && (rc = report_input__check_dso(&ti->in, "timing", o->f.ro.input, o->f.dso)))
		return rc;
	const struct hwp_timing_stats *st = hwp_timing__stats(ti->t);
	ti->src = hwp_timing__source(ti->t);
	if (ti->src == HWP_CYCLES_NONE)
		return say_no_cycles(o->f.ro.input, st);
	if (!st->latencies && !st->iterations)
		return cli_error("%s: no block latency: of %" PRIu64 " pairs of consecutive branch entries, %" PRIu64
				 " have a range that cannot be used ('hwprof ranges --stats' says why) and %" PRIu64
				 " have no cycle count%s", o->f.ro.input, st->pairs, st->rejected, st->unknown_cycles,
				 st->filtered_stacks ? "; stacks recorded with a branch filter other than 'any' are not "
						       "sequences of branches" : "");
	if (st->modelled && st->measured)
		cli_warn("%s mixes modelled (emulated) and measured cycles", o->f.ro.input);
	if (st->dropped_by_decoding)
		cli_warn("%" PRIu64 " latency samples dropped: their ranges could not have run straight through "
			 "(decoded)", st->dropped_by_decoding);
	return 0;
}

static void close_input(struct timing_input *ti)
{
	hwp_timing__delete(ti->t);
	report_input__close(&ti->in);
}

static int print_blocks(struct timing_input *ti, const struct timing_opts *o)
{
	struct hwp_symbolizer *sym = report_input__symbolizer(&ti->in);
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->f.ro.fmt, .limit = o->f.limit,
				      .min_executions = o->f.min, .dso = o->f.dso, .sym = o->f.sym };
	size_t n, shown, *idx;
	const struct hwp_timing_block *b = hwp_timing__blocks(ti->t, &n);
	char buf[1024];
	int rc = 0;

	if (!(idx = calloc(n ? n : 1, sizeof(*idx))))
		return cli_error("out of memory");
	size_t timed = n;

	if (o->block) {
		int found = hwp_timing__find(ti->t, o->block, idx, n);

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
		if ((rc = cli_write_svg(o->svg, hwp_report__timing_chart(title, &b[idx[0]].d, ti->src,
									     "one basic block"))))
			goto out;
	} else if (o->svg) {
		cli_warn("no block to draw: %s not written", o->svg);
	}
	if (o->block || o->histograms) {
		if (hwp_report__print_timing_rates(sym, b, idx, shown, ti->src, ro.fmt, stdout) < 0)
			rc = cli_error("%s", hwp_errmsg());
		goto out;
	}
	struct hwp_table *t = hwp_report__timing_blocks(sym, ti->t, idx, shown, &ro);
	if (!t) {
		rc = cli_error("out of memory");
		goto out;
	}
	report_input__warn_missing(&ti->in, true);
	if (ro.fmt == HWP_TABLE_TEXT)
		hwp_report__print_timing_header(ti->t, false, stdout);
	rc = report_print_table(t, ro.fmt);
	hwp_table__delete(t);
out:
	free(idx);
	return rc;
}

static int print_loops(struct timing_input *ti, const struct timing_opts *o)
{
	struct hwp_symbolizer *sym = report_input__symbolizer(&ti->in);
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->f.ro.fmt, .limit = o->f.limit,
				      .min_executions = o->f.min, .dso = o->f.dso, .sym = o->f.sym };
	size_t n, shown, *idx;
	const struct hwp_timing_loop *l = hwp_timing__loops(ti->t, &n);
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
		rc = cli_write_svg(o->svg, hwp_report__timing_chart(title, &l[idx[0]].d, ti->src,
								       "iterations of one loop"));
	} else if (o->svg) {
		cli_warn("no loop to draw: %s not written", o->svg);
	}
	if (!rc && !(t = hwp_report__timing_loops(sym, ti->t, idx, shown, &ro)))
		rc = cli_error("out of memory");
	if (!rc) {
		report_input__warn_missing(&ti->in, true);
		if (ro.fmt == HWP_TABLE_TEXT)
			hwp_report__print_timing_header(ti->t, true, stdout);
		rc = report_print_table(t, ro.fmt);
	}
	hwp_table__delete(t);
	free(idx);
	return rc;
}

int cmd_timing(int argc, char **argv)
{
	struct timing_opts o;
	struct timing_input ti;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	rc = load(&ti, &o);
	if (!rc)
		rc = o.loops ? print_loops(&ti, &o) : print_blocks(&ti, &o);
	close_input(&ti);
	return rc;
}
