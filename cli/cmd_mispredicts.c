/* SPDX-License-Identifier: MIT */
/* hwprof mispredicts: one row per branch, ranked by how many mispredicts it causes. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_fleet.h"
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
	.text =
		"One row per branch instruction: sampled executions (taken branches in the\n"
		"branch stacks), mispredicted ones, the mispredict rate with its 95% Wilson\n"
		"score interval, the branch's share of all mispredicts, its symbol and source\n"
		"line, and its most frequent target; sorted by mispredict count (impact).\n"
		"\n"
		"When the stacks record every taken branch (-j any) and the binaries are\n"
		"found, rates are per execution: a conditional branch's executions include\n"
		"the not-taken ones, from the code that ran straight through between\n"
		"entries (see 'hwprof probs'); branch records hold no not-taken branch, so\n"
		"its rate counts taken mispredicts only (a lower bound); every other branch\n"
		"is taken whenever it runs. Otherwise rates are per taken execution. The\n"
		"rate column's title (and rate_basis in JSON/CSV) says which.\n",
};

struct mispredicts_opts {
	struct report_opts ro;
	uint64_t min_samples, limit;
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct mispredicts_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->ro),
		OPT_U64(0, "min-samples", &o->min_samples, "N", 0, UINT64_MAX, NULL,
			"hide branches sampled fewer than N times (default 1)"),
		OPT_REPORT_LIMIT(&o->limit),
		OPT_REPORT_OUTPUT(&o->ro),
		OPT_COMMON(),
		OPT_END(),
	};

	report_opts__init(&o->ro);
	o->min_samples = 1;
	o->limit = UINT64_MAX;
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

/* The ranked table of TAB's branches; the exit code. ES (NULL: none) gives
   executions; ST (NULL: none) the collector's counts for the notes. */
static int print_rows(const struct hwp_branch_table *tab, struct hwp_symbolizer *sym,
		      const struct hwp_branch_collect_stats *st, const struct mispredicts_opts *o,
		      const struct hwp_exec_source *es, struct report_input *in)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit,
				      .min_executions = o->min_samples };
	struct hwp_table *t = hwp_report__mispredicts(sym, tab, es, &ro);
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
		puts(hwp_report__mispredicts_note(es != NULL));
	rc = report_print_table(t, o->ro.fmt);
	hwp_table__delete(t);
	return rc;
}

static int print_report(struct report_input *in, const struct mispredicts_opts *o, struct hwp_flow *f)
{
	struct hwp_exec_source es = { .flow = f };

	return print_rows(hwp_branch_collector__table(in->collector), report_input__symbolizer(in),
			  hwp_branch_collector__stats(in->collector), o, f ? &es : NULL, in);
}

/*
 * The fleet's rows: with the binaries at hand, the walk over the summed
 * ranges gives the executions exactly as for one recording of them all;
 * without (nothing decodes), the conditional branches' rows do.
 */
int fleet_mispredicts(int argc, char **argv, struct fleet_source *fs)
{
	struct mispredicts_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if ((rc = fleet_source__load(fs, o.ro.symfs, -1)))
		return rc;
	struct hwp_branch_table *split = hwp_export__branch_table(fs->rows, HWP_EXPORT_BRANCH, fs->sym);
	struct hwp_branch_table *tab = split ? hwp_branch_table__new(0) : NULL;
	struct hwp_branch_table *ranges = tab ? hwp_export__branch_table(fs->rows, HWP_EXPORT_RANGE, fs->sym) : NULL;
	struct hwp_branch_collector *col = NULL;
	struct hwp_flow *flow = NULL;
	size_t ns = 0;
	const struct hwp_branch_row *sr = split ? hwp_branch_table__rows(split, &ns) : NULL;
	struct hwp_flow_cond *c = NULL;
	struct hwp_exec_source es = { 0 };

	if (!ranges) {
		rc = cli_error("%s", hwp_errmsg());
		goto out;
	}
	/* a recording's table is not split by type: merged so */
	for (size_t i = 0; i < ns; i++)
		if (hwp_branch_table__add_row(tab, &sr[i]) < 0) {
			rc = cli_error("%s", hwp_errmsg());
			goto out;
		}
	col = hwp_branch_collector__from_tables(fs->sym, "fleet", tab, ranges);
	tab = ranges = NULL; /* the collector's now */
	if (!col) {
		rc = cli_error("%s", hwp_errmsg());
		goto out;
	}
	if (hwp_branch_table__size(hwp_branch_collector__ranges(col)) &&
	    (flow = hwp_flow__new(col, NULL)) && hwp_flow__stats(flow)->ranges_walked) {
		es.flow = flow;
	} else {
		/* the cond rows, by site */
		if (!(c = hwp_report__export_conds(fs->rows, fs->sym, &es.nconds))) {
			rc = cli_error("%s", hwp_errmsg());
			goto out;
		}
		hwp_report__sort_conds_by_site(c, es.nconds);
		es.conds = c;
	}
	rc = print_rows(hwp_branch_collector__table(col), fs->sym, NULL, &o,
			es.flow || es.nconds ? &es : NULL, NULL);
out:
	free(c);
	hwp_flow__delete(flow);
	hwp_branch_collector__delete(col);
	hwp_branch_table__delete(split);
	hwp_branch_table__delete(tab);
	hwp_branch_table__delete(ranges);
	return rc;
}

int cmd_mispredicts(int argc, char **argv)
{
	struct mispredicts_opts o;
	struct report_input in;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	/* executions from the walk of the ranges, when the stacks allow it */
	rc = report_input__run(&in, &o.ro, NULL, HWP_ANALYSIS_EXECUTIONS, NULL, NULL, NULL);
	if (!rc && !say_no_information(o.ro.input, hwp_branch_collector__stats(in.collector)))
		rc = print_report(&in, &o, hwp_pipeline__flow(in.p));
	report_input__close(&in);
	return rc;
}
