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
}

/* One pass over the session into the collector, the timing and the call
   graph (those asked), then what each does at the end. */
static int read_all(struct flow_input *fi)
{
	struct hwp_event ev;
	const struct hwp_thread *th;
	int r;

	while ((r = hwp_session__next(fi->in.session, &ev, &th)) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE)
			continue;
		/* the timing takes a sample after the collector counted it */
		if ((r = hwp_branch_collector__add(fi->in.collector, &ev, th)) < 0 ||
		    (fi->timing && (r = hwp_timing__add(fi->timing, &ev, th)) < 0) ||
		    (fi->calls && (r = hwp_call_graph__add(fi->calls, &ev, th)) < 0) ||
		    (fi->mem && (r = hwp_mem_report__add(fi->mem, &ev, th)) < 0))
			return r;
	}
	if (r < 0 || (r = hwp_branch_collector__check_ranges(fi->in.collector)) < 0)
		return r;
	return fi->timing ? hwp_timing__build(fi->timing) : 0;
}

int flow_input__load(struct flow_input *fi, const struct flow_opts *o, const char *cmd, unsigned with)
{
	/* mispredict bits of synthesized or NO_FLAGS stacks mean nothing */
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .ranges = true, .no_addresses = true,
					      .drop_meaningless_prediction = true };
	int rc;

	memset(fi, 0, sizeof(*fi));
	if (!with) {
		if ((rc = report_input__load_branches(&fi->in, &o->ro, &co)))
			return rc;
	} else {
		struct hwp_timing_opts to = { .sz = sizeof(to) };

		if ((rc = report_input__open(&fi->in, &o->ro, &co)))
			return rc;
		/* one pass: the paths or the timing read the session into the collector too */
		if ((with & FLOW_WITH_PATHS) && (!(fi->paths = hwp_paths__new(fi->in.session, fi->in.collector, NULL)) ||
						 hwp_paths__read(fi->paths) < 0))
			return cli_error("%s", hwp_errmsg());
		if ((with & FLOW_WITH_TIMING) && !(fi->timing = hwp_timing__new(fi->in.session, fi->in.collector, &to)))
			return cli_error("%s", hwp_errmsg());
		if ((with & FLOW_WITH_CALLS) && !(fi->calls = hwp_call_graph__new(fi->in.session, NULL)))
			return cli_error("%s", hwp_errmsg());
		if ((with & FLOW_WITH_MEM) && !(fi->mem = hwp_mem_report__new(fi->in.session, NULL)))
			return cli_error("%s", hwp_errmsg());
		if ((with & (FLOW_WITH_TIMING | FLOW_WITH_CALLS | FLOW_WITH_MEM)) && read_all(fi) < 0)
			return cli_error("%s", hwp_errmsg());
		if (fi->mem && !hwp_mem_report__totals(fi->mem)->samples) {
			hwp_mem_report__delete(fi->mem);
			fi->mem = NULL;
		}
		/* memory samples alone: no branch analysis, the memory report only */
		if (fi->mem && !hwp_branch_collector__stats(fi->in.collector)->branch_samples)
			return 0;
		if ((rc = report_input__check_read(&fi->in, &o->ro)))
			return rc;
		if (fi->timing && hwp_timing__source(fi->timing) == HWP_CYCLES_NONE) {
			hwp_timing__delete(fi->timing); /* no cycle counts: nothing timed */
			fi->timing = NULL;
		}
	}
	if (o->dso && (rc = report_input__check_dso(&fi->in, cmd, o->ro.input, o->dso)))
		return rc;
	const struct hwp_range_stats *rs = hwp_branch_collector__range_stats(fi->in.collector);
	if (!rs->accepted) {
		char why[512] = "";

		for (int r = 0; r < HWP_RANGE_REJECT_NR; r++)
			if (rs->rejected[r])
				snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s %" PRIu64,
					 *why ? ", " : "", hwp_range_reject__name(r), rs->rejected[r]);
		return cli_error("%s: no fall-through range between consecutive branch entries "
				 "could be used (%" PRIu64 " pairs%s%s)%s", o->ro.input, rs->pairs,
				 *why ? ": " : "", why,
				 rs->rejected[HWP_RANGE_FILTERED] ? "; record every taken branch (-j any, the default of -b)" : "");
	}
	fi->flow = hwp_flow__new(fi->in.collector, NULL);
	if (!fi->flow)
		return cli_error("%s", hwp_errmsg());
	return 0;
}

struct hwp_advisor *flow_input__advisor(struct flow_input *fi, const struct hwp_advise_opts *opts)
{
	struct hwp_advisor *a = hwp_advisor__new(opts);

	if (a && ((fi->flow && hwp_advisor__add_flow(a, fi->flow, fi->in.collector) < 0) ||
		  (fi->timing && hwp_advisor__add_timing(a, fi->timing) < 0) ||
		  (fi->mem && hwp_advisor__add_mem(a, fi->mem) < 0))) {
		hwp_advisor__delete(a);
		return NULL;
	}
	return a;
}

void flow_input__close(struct flow_input *fi)
{
	hwp_paths__delete(fi->paths);
	hwp_timing__delete(fi->timing);
	hwp_call_graph__delete(fi->calls);
	hwp_mem_report__delete(fi->mem);
	hwp_flow__delete(fi->flow);
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
	if (o->dso) {
		char name[512];

		hwp_loc__format_dso(sym, l, name, sizeof(name));
		if (strcmp(name, o->dso))
			return false;
	}
	if (o->sym) {
		struct hwp_loc_fields f;

		hwp_loc__fields(sym, l, &f);
		if (!(f.symbol && strstr(f.symbol, o->sym)) && !(f.demangled && strstr(f.demangled, o->sym)))
			return false;
	}
	return true;
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

int flow_opts__parse(int argc, char **argv, const struct cmd_desc *cmd, struct flow_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->ro),
		OPT_FLOW_FILTER(o),
		OPT_REPORT_OUTPUT(&o->ro),
		OPT_COMMON(),
		OPT_END(),
	};

	flow_opts__init(o);
	return parse_options(argc, argv, cmd, opts, NULL);
}
