/* SPDX-License-Identifier: MIT */
/* hwprof mispredicts: one row per branch, ranked by how many mispredicts it causes. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "report_fields.h"
#include "report_tables.h"
#include "hwprof/branch_report.h"
#include "hwprof/flow.h"
#include "hwprof/hwprof.h"
#include "hwprof/mispredicts.h"
#include "hwprof/perf_abi.h"

static const char usage[] =
	"usage: hwprof mispredicts [-i FILE] [--min-samples N] [--limit N] [--symfs DIR]\n"
	"                          [--json | --csv]\n"
	"\n"
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
	"rate column's title (and rate_basis in JSON/CSV) says which.\n"
	"\n"
	"  -i, --input FILE     perf.data or perf script text (default: perf.data)\n"
	"      --min-samples N  hide branches sampled fewer than N times (default 1)\n"
	REPORT_LIMIT_HELP
	"      --symfs DIR      look for binaries under DIR\n"
	"      --json, --csv    machine-readable output\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

static int parse_count(const char *s, uint64_t *v)
{
	char *end;
	unsigned long long x = strtoull(s, &end, 10);
	if (*s == '-' || *end || end == s)
		return -1;
	*v = x;
	return 0;
}

struct mispredicts_opts {
	struct report_opts ro;
	uint64_t min_samples, limit;
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct mispredicts_opts *o)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		REPORT_LONGOPTS,
		{ "min-samples", required_argument, NULL, 'm' },
		{ "limit", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	report_opts__init(&o->ro);
	o->min_samples = 1;
	o->limit = UINT64_MAX;
	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c) || report_opts__take(&o->ro, c, optarg))
			continue;
		if (c == 'm' && parse_count(optarg, &o->min_samples))
			return cli_error("mispredicts: --min-samples '%s' is not a count", optarg);
		if (c == 'l' && report_parse_limit("mispredicts", optarg, &o->limit))
			return 1;
		if (c != 'm' && c != 'l') {
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind < argc)
		return cli_error("mispredicts: unexpected argument '%s'", argv[optind]);
	return -1;
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

/* Counts for everyone; display strings for text; separate fields of the
   branch and of its top target for programs. */
static const struct {
	const char *title, *key;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
} cols[] = {
	{ "Mispredicts", "mispredicted", HWP_COL_COUNT, HWP_SHOW_ALL },
	{ "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	{ "Sampled", "sampled", HWP_COL_COUNT, HWP_SHOW_ALL },
	{ "Rate", "rate_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	{ "95% CI low", "rate_low_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	{ "95% CI high", "rate_high_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	{ "Branch", "branch", HWP_COL_TEXT, HWP_SHOW_TEXT },
	{ "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	{ "Top Target", "top_target", HWP_COL_TEXT, HWP_SHOW_TEXT },
	{ "Targets", "targets", HWP_COL_COUNT, HWP_SHOW_ALL },
	{ "Top Target Count", "target_count", HWP_COL_COUNT, HWP_SHOW_DATA },
	{ "Executions", "executions", HWP_COL_COUNT, HWP_SHOW_ALL },
	{ "Rate Basis", "rate_basis", HWP_COL_TEXT, HWP_SHOW_DATA },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))

enum { COL_EXEC = 11, COL_BASIS = 12 };

/* Per execution (ranges available): the rate column says so; without, the
   executions column is not shown in text. */
static void add_columns(struct hwp_table *t, bool per_exec)
{
	for (size_t k = 0; k < NCOLS; k++) {
		const char *title = cols[k].title;
		enum hwp_col_show show = cols[k].show;

		if (k == 3)
			title = per_exec ? "Rate/exec" : "Rate/taken";
		if (k == COL_EXEC && !per_exec)
			show = HWP_SHOW_DATA;
		hwp_table__add_column_shown(t, title, cols[k].key, cols[k].kind, show);
	}
	report_fields__add_columns(t, LOC_NONE);   /* the branch: module, build_id, offset, ... */
	report_fields__add_columns(t, LOC_TARGET); /* its most frequent target */
}

/* The rate per execution of R's branch, when the flow analysis F knows how
   often it ran: a conditional branch's from its walk, any other branch's
   is its taken rate (it is taken whenever it runs). False: per taken
   execution only. */
static bool per_execution(struct hwp_flow *f, const struct hwp_mispredict_row *r, uint64_t *exec,
			  double *rate, double *lo, double *hi)
{
	const struct hwp_flow_cond *c;

	if (!f || r->site.module < 0)
		return false;
	if ((c = hwp_flow__cond_at(f, &r->site))) {
		if (c->mispred_per_exec != c->mispred_per_exec) /* NaN: no bits */
			return false;
		*exec = c->executions;
		*rate = c->mispred_per_exec;
		*lo = c->mispred_per_exec_lo;
		*hi = c->mispred_per_exec_hi;
		return true;
	}
	/* any other branch is taken whenever it runs; a conditional one no
	   range ran over, or code that cannot be decoded, is unknown */
	int kind = hwp_flow__branch_kind(f, &r->site);
	if (kind < 0 || kind == HWP_FLOW_END_COND || kind == HWP_FLOW_END_FALLTHROUGH ||
	    kind == HWP_FLOW_END_OTHER)
		return false;
	*exec = r->sampled;
	*rate = r->rate;
	*lo = r->rate_lo;
	*hi = r->rate_hi;
	return true;
}

static void add_row(struct hwp_table *t, struct hwp_symbolizer *sym, const struct hwp_mispredict_row *r,
		    enum hwp_table_format fmt, struct hwp_flow *f)
{
	char buf[1024];
	uint64_t exec = 0;
	double rate = r->rate, lo = r->rate_lo, hi = r->rate_hi;
	bool pe = per_execution(f, r, &exec, &rate, &lo, &hi);

	hwp_table__new_row(t);
	hwp_table__set_count(t, 0, r->mispredicted);
	hwp_table__set_real(t, 1, 100 * r->share);
	hwp_table__set_count(t, 2, r->sampled);
	hwp_table__set_real(t, 3, 100 * rate);
	hwp_table__set_real(t, 4, 100 * lo);
	hwp_table__set_real(t, 5, 100 * hi);
	if (pe)
		hwp_table__set_count(t, COL_EXEC, exec);
	hwp_table__set_text(t, COL_BASIS, pe ? "execution" : "taken");
	hwp_table__set_count(t, 9, r->targets);
	hwp_table__set_count(t, 10, r->top_target_count);
	if (!table_for_people(fmt)) {
		report_fields__set(t, NCOLS, sym, &r->site);
		report_fields__set(t, NCOLS + REPORT_LOC_COLUMNS, sym, &r->top_target);
		return;
	}
	hwp_loc__format_addr(sym, &r->site, buf, sizeof(buf));
	hwp_table__set_text(t, 6, buf);
	hwp_loc__format_srcline(sym, &r->site, buf, sizeof(buf));
	hwp_table__set_text(t, 7, buf);
	hwp_loc__format_addr(sym, &r->top_target, buf, sizeof(buf));
	hwp_table__set_text(t, 8, buf);
}

struct hwp_table *mispredicts_table(struct report_input *in, struct hwp_flow *f, uint64_t limit,
				     uint64_t min_samples, enum hwp_table_format fmt)
{
	size_t nr;
	uint64_t total, shown = 0;
	struct hwp_mispredict_row *rows = hwp_mispredicts__build(hwp_branch_collector__table(in->collector), &nr, &total);
	struct hwp_table *t = rows ? hwp_table__new() : NULL;

	if (!t) {
		free(rows);
		return NULL;
	}
	add_columns(t, f != NULL);
	for (size_t i = 0; i < nr && shown < limit; i++) {
		if (rows[i].sampled < min_samples)
			continue;
		add_row(t, report_input__symbolizer(in), &rows[i], fmt, f);
		shown++;
	}
	free(rows);
	return t;
}

/* The ranked table of IN's branches; the exit code. */
static int print_report(struct report_input *in, const struct mispredicts_opts *o, struct hwp_flow *f)
{
	const struct hwp_branch_collect_stats *st = hwp_branch_collector__stats(in->collector);
	struct hwp_table *t = mispredicts_table(in, f, o->limit, o->min_samples, o->ro.fmt);
	int rc;

	if (!t)
		return cli_error("%s", hwp_errmsg());
	if (st->entries_without_prediction)
		cli_warn("%llu of %llu branch entries come from stacks without prediction information (synthesized or NO_FLAGS): they count as sampled but not in rates",
			 (unsigned long long)st->entries_without_prediction, (unsigned long long)st->entries);
	if (st->entries_with_flags < st->entries)
		cli_warn("%llu of %llu branch entries carry no mispredict bit; rates count only the others",
			 (unsigned long long)(st->entries - st->entries_with_flags), (unsigned long long)st->entries);
	report_input__warn_missing(in, true); /* the Source Line column */
	if (o->ro.fmt == HWP_TABLE_TEXT)
		puts(f ? "# Rate/exec: per execution; conditional branches count their not-taken runs and only taken mispredicts (a lower bound)"
		       : "# Rate/taken: per taken execution; no fall-through ranges, so not-taken runs are unknown");
	rc = report_print_table(t, o->ro.fmt);
	hwp_table__delete(t);
	return rc;
}

/* Whether some event recorded LBR call stacks (no ranges: counted without). */
static bool call_stacks(struct report_input *in)
{
	struct hwp_reader *r = hwp_session__reader(in->session);

	for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++)
		if (hwp_reader__evsel(r, i)->attr.branch_sample_type & HWP_BRANCH_CALL_STACK)
			return true;
	return false;
}

int cmd_mispredicts(int argc, char **argv)
{
	struct mispredicts_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .drop_meaningless_prediction = true,
					      .ranges = true, .no_addresses = true };
	struct report_input in;
	struct hwp_flow *f = NULL;

	rc = report_input__open(&in, &o.ro, &co);
	if (!rc && call_stacks(&in)) {
		/* call chains hold no ranges, and the collector refuses them so */
		hwp_branch_collector__delete(in.collector);
		co.ranges = co.no_addresses = false;
		if (!(in.collector = hwp_branch_collector__new(in.session, &co)))
			rc = cli_error("%s", hwp_errmsg());
	}
	if (!rc && hwp_branch_collector__read(in.collector) < 0)
		rc = cli_error("%s", hwp_errmsg());
	if (!rc)
		rc = report_input__check_read(&in, &o.ro);
	if (!rc && co.ranges && hwp_branch_collector__range_stats(in.collector)->accepted) {
		f = hwp_flow__new(in.collector, NULL);
		if (!f)
			rc = cli_error("%s", hwp_errmsg());
		else if (!hwp_flow__stats(f)->ranges_walked) {
			hwp_flow__delete(f); /* nothing decoded: no execution counts */
			f = NULL;
		}
	}
	if (!rc && !say_no_information(o.ro.input, hwp_branch_collector__stats(in.collector)))
		rc = print_report(&in, &o, f);
	hwp_flow__delete(f);
	report_input__close(&in);
	return rc;
}
