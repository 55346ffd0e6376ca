/* SPDX-License-Identifier: MIT */
/* hwprof mispredicts: one row per branch, ranked by how many mispredicts it causes. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_fleet.h"
#include "cli_flow.h"
#include "cli_report.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/flow.h"
#include "hwprof/hwprof.h"
#include "hwprof/mispredicts.h"
#include "hwprof/perf_abi.h"

static const struct cmd_desc desc = {
	.name = "mispredicts",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

struct mispredicts_opts {
	struct report_opts ro;
	uint64_t min_samples, limit;
	bool infer, no_infer; /* --infer, --no-infer (OPT_FLOW_INFER) */
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct mispredicts_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->ro),
		OPT_U64(0, "min-samples", &o->min_samples, "N", 0, UINT64_MAX, NULL,
			"hide branches sampled fewer than N times (default 1)"),
		OPT_REPORT_LIMIT(&o->limit),
		OPT_FLOW_INFER(o),
		OPT_REPORT_OUTPUT(&o->ro),
		OPT_COMMON(),
		OPT_END(),
	};

	report_opts__init(&o->ro);
	o->min_samples = 1;
	o->limit = UINT64_MAX;
	o->infer = o->no_infer = false;
	return parse_options(argc, argv, &desc, opts, NULL);
}

/* Nothing to rank: says why instead of printing a table of zeros. */
static bool say_no_information(const char *input, const struct hwp_branch_collect_stats *st)
{
	if (st->entries_with_flags && st->entries_without_prediction < st->entries)
		return false;
	printf("%s: no mispredict information in %llu branch entries: %s\n", input,
	       (unsigned long long)st->entries,
	       st->synthesized_stacks ? "the branch stacks were synthesized from an instruction trace (perf inject --itrace from Arm ETM/CoreSight or Intel PT), which cannot tell predicted from mispredicted branches"
	       : st->no_flags_filter ? "recorded with -j ...,no_flags"
				     : "neither the mispredicted nor the predicted bit is set in any entry");
	return true;
}

/* Prints T (rates per execution when PER_EXEC), with the notes on what
   the counts cover: ST (NULL: none) the collector's, IN (NULL: none) the
   modules without debug info. The exit code. */
static int print_table(struct hwp_table *t, const struct hwp_branch_collect_stats *st, const struct mispredicts_opts *o,
		       bool per_exec, struct report_input *in)
{
	int rc;

	if (!t)
		return cli_error("%s", hwp_errmsg());
	if (st && st->entries_without_prediction)
		cli_warn("%llu of %llu branch entries come from stacks without prediction information (synthesized or NO_FLAGS): they count as sampled but not in rates",
			 (unsigned long long)st->entries_without_prediction, (unsigned long long)st->entries);
	if (st && st->entries_with_flags < st->entries)
		cli_warn("%llu of %llu branch entries carry no mispredict bit; rates count only the others",
			 (unsigned long long)(st->entries - st->entries_with_flags), (unsigned long long)st->entries);
	if (in)
		report_input__warn_missing(in, true); /* the Source Line column */
	if (o->ro.fmt == HWP_TABLE_TEXT)
		puts(hwp_report__mispredicts_note(per_exec));
	rc = report_print_table_jobs(t, o->ro.fmt, o->ro.jobs);
	hwp_table__delete(t);
	return rc;
}

static struct hwp_report_opts table_opts(const struct mispredicts_opts *o)
{
	return (struct hwp_report_opts){ .sz = sizeof(struct hwp_report_opts), .fmt = o->ro.fmt, .limit = o->limit,
					 .min_executions = o->min_samples };
}

/* The fleet's rows, summed over hosts. */
int fleet_mispredicts(int argc, char **argv, struct fleet_source *fs)
{
	struct mispredicts_opts o;
	struct hwp_report_opts ro;
	bool per_exec = false;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (o.infer)
		return cli_error("mispredicts: --infer: the fleet's rows are summed counts per branch, without the "
				 "blocks the inference balances: infer from a recording");
	if ((rc = fleet_source__load(fs, o.ro.symfs, -1)))
		return rc;
	ro = table_opts(&o);
	return print_table(hwp_report__export_mispredicts(fs->rows, fs->sym, &ro, &per_exec), NULL, &o, per_exec, NULL);
}

int cmd_mispredicts(int argc, char **argv)
{
	struct mispredicts_opts o;
	struct report_input in;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	/* executions from the walk of the ranges, when the stacks allow it */
	struct hwp_flow_opts fo;
	struct hwp_pipeline_opts po = { .analyses = HWP_ANALYSIS_EXECUTIONS, .flow = &fo };

	if ((rc = cli_flow_opts(o.infer, o.no_infer, "mispredicts", &fo)))
		return rc;
	rc = report_input__run_with(&in, &o.ro, NULL, &po);
	if (!rc && !say_no_information(o.ro.input, hwp_branch_collector__stats(in.collector))) {
		struct hwp_report_opts ro = table_opts(&o);
		struct hwp_exec_source es = { .flow = hwp_pipeline__flow(in.p) };

		cli_flow_inferred(es.flow, in.collector, o.infer);
		if (o.infer && !es.flow)
			cli_warn("--infer: %s gives no execution counts to adjust (no fall-through ranges decoded): "
				 "the rates are per taken branch", o.ro.input);

		rc = print_table(hwp_report__mispredicts(report_input__symbolizer(&in),
							 hwp_branch_collector__table(in.collector), es.flow ? &es : NULL,
							 &ro),
				 hwp_branch_collector__stats(in.collector), &o, es.flow != NULL, &in);
	}
	report_input__close(&in);
	return rc;
}
