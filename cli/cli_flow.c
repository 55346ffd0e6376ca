/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/branch_report.h"

void flow_opts__init(struct flow_opts *o)
{
	report_opts__init(&o->ro);
	o->dso = o->sym = NULL;
	o->limit = UINT64_MAX;
	o->min = 1;
	o->infer = o->no_infer = false;
}

int flow_input__load(struct flow_input *fi, const struct flow_opts *o, const char *cmd, unsigned with)
{
	int rc;

	memset(fi, 0, sizeof(*fi));
	/* the FLOW_WITH_* bits are the pipeline's analyses */
	struct hwp_flow_opts fo;

	if ((rc = cli_flow_opts(o->infer, o->no_infer, cmd, &fo)))
		return rc;
	struct hwp_pipeline_opts po = { .analyses = HWP_ANALYSIS_FLOW | with, .dso = o->dso, .sym = o->sym,
					.flow = &fo };

	if ((rc = report_input__run_with(&fi->in, &o->ro, cmd, &po)))
		return rc;
	fi->flow = hwp_pipeline__flow(fi->in.p);
	fi->paths = hwp_pipeline__paths(fi->in.p);
	fi->timing = hwp_pipeline__timing(fi->in.p);
	if (fi->timing && hwp_timing__source(fi->timing) == HWP_CYCLES_NONE)
		fi->timing = NULL; /* no cycle counts: nothing timed */
	fi->calls = hwp_pipeline__call_graph(fi->in.p);
	fi->mem = hwp_pipeline__mem(fi->in.p);
	return 0;
}

struct hwp_advisor *flow_input__advisor(struct flow_input *fi, const struct hwp_advise_opts *opts)
{
	return hwp_pipeline__advise(fi->in.p, opts);
}

void flow_input__close(struct flow_input *fi)
{
	report_input__close(&fi->in);
	fi->flow = NULL;
	fi->paths = NULL;
	fi->timing = NULL;
	fi->calls = NULL;
	fi->mem = NULL;
}

bool flow_input__keep(struct flow_input *fi, const struct flow_opts *o, const struct hwp_code_loc *l)
{
	return flow_input__keep_loc(report_input__symbolizer(&fi->in), o, l);
}

bool flow_input__keep_loc(struct hwp_symbolizer *sym, const struct flow_opts *o, const struct hwp_code_loc *l)
{
	return hwp_loc__matches(sym, l, o->dso, o->sym);
}

void flow_input__note(struct flow_input *fi)
{
	const struct hwp_range_stats *rs = hwp_branch_collector__range_stats(fi->in.collector);
	const struct hwp_flow_stats *fs = hwp_flow__stats(fi->flow);
	uint64_t rejected = rs->pairs - rs->accepted;

	if (rejected)
		cli_warn("%" PRIu64 " of %" PRIu64 " ranges between consecutive branch entries were rejected "
			 "('hwprof ranges --stats' says why)", rejected, rs->pairs);
	if (fs->range_runs_skipped)
		cli_warn("%" PRIu64 " of %" PRIu64 " ranges could not be decoded (%" PRIu64
			 " distinct without a binary, %" PRIu64 " not decoding to their end): their "
			 "branches and blocks are not counted", fs->range_runs_skipped,
			 fs->range_runs + fs->range_runs_skipped, fs->ranges_no_binary, fs->ranges_bad_decode);
}

void flow_input__bias(struct flow_input *fi, const struct flow_opts *o)
{
	cli_flow_inferred(fi->flow, fi->in.collector, o->infer);
}

int cli_flow_opts(bool infer, bool no_infer, const char *cmd, struct hwp_flow_opts *fo)
{
	if (infer && no_infer)
		return cli_error("%s: --infer and --no-infer: give one", cmd);
	*fo = (struct hwp_flow_opts){ .sz = sizeof(*fo), .infer = infer,
				      .infer_depth = no_infer ? 0 : HWP_FLOW_INFER_DEPTH };
	return 0;
}

void cli_flow_inferred(const struct hwp_flow *f, const struct hwp_branch_collector *c, bool asked)
{
	if (!f || !hwp_flow__stats(f)->inferred)
		return;
	if (!asked)
		cli_flow_auto_note(c);
	cli_flow_bias(f);
}

void cli_flow_auto_note(const struct hwp_branch_collector *c)
{
	if (!cli_quiet())
		fprintf(stderr,
			"hwprof: branch stacks of at most %" PRIu64 " entries: flow-consistent counts (as --infer; "
			"--no-infer for the sampled ones)\n",
			hwp_branch_collector__stats(c)->deepest);
}

void cli_flow_bias(const struct hwp_flow *f)
{
	size_t n;
	const struct hwp_flow_function *fn = hwp_flow__functions(f, &n);
	double wb = 0, wa = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		wb += fn[i].bias_before * (double)fn[i].considered;
		wa += fn[i].bias_after * (double)fn[i].considered;
		k += fn[i].considered;
	}
	cli_info("--infer: %zu functions, profile bias %.2f%% before, %.2f%% after (mean over %zu blocks)", n,
		 k ? wb / (double)k : 0, k ? wa / (double)k : 0, k);
	for (size_t i = 0; i < n && i < 20; i++)
		if (fn[i].considered)
			cli_info("--infer: %s: %zu blocks, bias %.2f%% -> %.2f%% over %zu, counts %" PRIu64
				 " -> %" PRIu64 " (%" PRIu64 " moved)", fn[i].name, fn[i].blocks, fn[i].bias_before,
				 fn[i].bias_after, fn[i].considered, fn[i].count_before, fn[i].count_after,
				 fn[i].changed);
}

int flow_opts__parse(int argc, char **argv, const struct cmd_desc *cmd, struct flow_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->ro),
		OPT_FLOW_FILTER(o),
		OPT_FLOW_INFER(o),
		OPT_REPORT_OUTPUT(&o->ro),
		OPT_COMMON(),
		OPT_END(),
	};

	flow_opts__init(o);
	return parse_options(argc, argv, cmd, opts, NULL);
}
