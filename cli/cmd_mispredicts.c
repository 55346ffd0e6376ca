/* SPDX-License-Identifier: MIT */
/* hwprof mispredicts: one row per branch, ranked by how many mispredicts it causes. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_fleet.h"
#include "cli_report.h"
#include "hwprof/report.h"
#include "report_tables.h"
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
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);   /* the branch: module, build_id, offset, ... */
	hwp_report__add_loc_columns(t, HWP_LOC_TARGET); /* its most frequent target */
}

/* The rate per execution of R's branch, when the flow analysis F knows how
   often it ran: a conditional branch's from its walk, any other branch's
   is its taken rate (it is taken whenever it runs). False: per taken
   execution only. */
/* Where per-execution counts come from: the local walk, or the fleet's
   conditional-branch rows (sorted by site). */
struct exec_source {
	struct hwp_flow *flow;
	const struct hwp_flow_cond *conds;
	size_t nconds;
};

static int by_site(const void *a, const void *b)
{
	const struct hwp_flow_cond *x = a, *y = b;

	if (x->site.module != y->site.module)
		return x->site.module < y->site.module ? -1 : 1;
	return x->site.offset < y->site.offset ? -1 : x->site.offset > y->site.offset;
}

static const struct hwp_flow_cond *cond_at(const struct exec_source *es, const struct hwp_code_loc *site)
{
	struct hwp_flow_cond key = { .site = *site };

	if (es->flow)
		return hwp_flow__cond_at(es->flow, site);
	return es->conds ? bsearch(&key, es->conds, es->nconds, sizeof(key), by_site) : NULL;
}

static bool per_execution(const struct exec_source *es, const struct hwp_mispredict_row *r, uint64_t *exec,
			  double *rate, double *lo, double *hi)
{
	const struct hwp_flow_cond *c;
	struct hwp_flow *f = es ? es->flow : NULL;

	if (!es || r->site.module < 0)
		return false;
	if ((c = cond_at(es, &r->site))) {
		if (c->mispred_per_exec != c->mispred_per_exec) /* NaN: no bits */
			return false;
		*exec = c->executions;
		*rate = c->mispred_per_exec;
		*lo = c->mispred_per_exec_lo;
		*hi = c->mispred_per_exec_hi;
		return true;
	}
	/* any other branch is taken whenever it runs; a conditional one no
	   range ran over, or code that cannot be decoded, is unknown (and the
	   fleet's rows do not say what a branch is) */
	if (!f)
		return false;
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
		    enum hwp_table_format fmt, const struct exec_source *f)
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
		hwp_report__set_loc(t, NCOLS, sym, &r->site);
		hwp_report__set_loc(t, NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &r->top_target);
		return;
	}
	hwp_loc__format_addr(sym, &r->site, buf, sizeof(buf));
	hwp_table__set_text(t, 6, buf);
	hwp_loc__format_srcline(sym, &r->site, buf, sizeof(buf));
	hwp_table__set_text(t, 7, buf);
	hwp_loc__format_addr(sym, &r->top_target, buf, sizeof(buf));
	hwp_table__set_text(t, 8, buf);
}

/* TAB's branches ranked by mispredicts; ES (NULL: none) gives executions.
   NULL: out of memory (hwp_errmsg()). */
static struct hwp_table *rows_table(const struct hwp_branch_table *tab, struct hwp_symbolizer *sym,
				    const struct exec_source *es, uint64_t limit, uint64_t min_samples,
				    enum hwp_table_format fmt)
{
	size_t nr;
	uint64_t total, shown = 0;
	struct hwp_mispredict_row *rows = hwp_mispredicts__build(tab, &nr, &total);
	struct hwp_table *t = rows ? hwp_table__new() : NULL;

	if (!t) {
		free(rows);
		return NULL;
	}
	add_columns(t, es != NULL);
	for (size_t i = 0; i < nr && shown < limit; i++) {
		if (rows[i].sampled < min_samples)
			continue;
		add_row(t, sym, &rows[i], fmt, es);
		shown++;
	}
	free(rows);
	return t;
}

struct hwp_table *mispredicts_table(struct report_input *in, struct hwp_flow *f, uint64_t limit,
				     uint64_t min_samples, enum hwp_table_format fmt)
{
	struct exec_source es = { .flow = f };

	return rows_table(hwp_branch_collector__table(in->collector), report_input__symbolizer(in), f ? &es : NULL,
			  limit, min_samples, fmt);
}

/* The ranked table of TAB's branches; the exit code. ES (NULL: none) gives
   executions; ST (NULL: none) the collector's counts for the notes. */
static int print_rows(const struct hwp_branch_table *tab, struct hwp_symbolizer *sym,
		      const struct hwp_branch_collect_stats *st, const struct mispredicts_opts *o,
		      const struct exec_source *es, struct report_input *in)
{
	struct hwp_table *t = rows_table(tab, sym, es, o->limit, o->min_samples, o->ro.fmt);
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
		puts(es ? "# Rate/exec: per execution; conditional branches count their not-taken runs and only taken mispredicts (a lower bound)"
		        : "# Rate/taken: per taken execution; no fall-through ranges, so not-taken runs are unknown");
	rc = report_print_table(t, o->ro.fmt);
	hwp_table__delete(t);
	return rc;
}

static int print_report(struct report_input *in, const struct mispredicts_opts *o, struct hwp_flow *f)
{
	struct exec_source es = { .flow = f };

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
	struct hwp_branch_table *ct = ranges ? hwp_export__branch_table(fs->rows, HWP_EXPORT_COND, fs->sym) : NULL;
	struct hwp_branch_collector *col = NULL;
	struct hwp_flow *flow = NULL;
	size_t n = 0, nc = 0, ns = 0;
	const struct hwp_export_row *r = hwp_export__rows(fs->rows, &n);
	const struct hwp_branch_row *cr = ct ? hwp_branch_table__rows(ct, &nc) : NULL;
	const struct hwp_branch_row *sr = split ? hwp_branch_table__rows(split, &ns) : NULL;
	struct hwp_flow_cond *c = calloc(n ? n : 1, sizeof(*c));
	struct exec_source es = { .conds = c };

	if (!ct || !c) {
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
		/* the cond rows, in order, are the table's rows (one per site) */
		for (size_t i = 0, k = 0; i < n && k < nc; i++) {
			if (r[i].kind != HWP_EXPORT_COND)
				continue;
			c[k].site = cr[k].key.from;
			c[k].taken = r[i].count;
			c[k].not_taken = r[i].not_taken;
			c[k].taken_entries = r[i].entries;
			c[k].taken_with_info = r[i].mispred + r[i].predicted;
			c[k].taken_mispredicted = r[i].mispred;
			hwp_flow_cond__finish(&c[k], 0);
			es.nconds = ++k;
		}
		qsort(c, es.nconds, sizeof(*c), by_site);
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
	hwp_branch_table__delete(ct);
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
