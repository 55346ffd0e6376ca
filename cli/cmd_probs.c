/* SPDX-License-Identifier: MIT */
/* hwprof probs: which way conditional branches go, and where indirect ones go. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "report_tables.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"

static const struct cmd_desc desc = {
	.name = "probs",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"Conditional branches by sampled executions. Between consecutive branch-stack\n"
		"entries the code ran straight through: a conditional branch inside such a\n"
		"range was not taken, one ending it was taken. Per branch: executions, the\n"
		"taken probability with its 95% Wilson score interval, '[hot: taken]' after\n"
		"the branch when even the interval's lower bound is above 50% (the hot\n"
		"direction is the taken one: inverting the condition or moving the block\n"
		"makes it fall through); the mispredicted share of its taken executions, and\n"
		"taken mispredicts per execution (branch records hold no not-taken branch, so a\n"
		"mispredicted not-taken execution is never seen: a lower bound).\n"
		"\n"
		"With --indirect: indirect jumps and calls (switch tables, virtual and\n"
		"function-pointer calls, PLT stubs), one row per site and target with the\n"
		"target's share of the site's taken entries, sites by entries.\n",
};

/* Returns -1 to go on, else the exit code. */
int probs_parse_opts(int argc, char **argv, struct flow_opts *o, bool *indirect)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->ro),
		OPT_BOOL(0, "indirect", indirect, "target distributions of indirect jumps and calls"),
		OPT_FLOW_FILTER(o),
		OPT_REPORT_OUTPUT(&o->ro),
		OPT_COMMON(),
		OPT_END(),
	};

	flow_opts__init(o);
	*indirect = false;
	return parse_options(argc, argv, &desc, opts, NULL);
}

/* The table of conditional branches C[0..N) (sorted), for probs and the fleet. */
static struct hwp_table *conds_table(struct hwp_symbolizer *sym, const struct hwp_flow_cond *c, size_t n,
				     const struct flow_opts *o)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit,
				      .min_executions = o->min, .dso = o->dso, .sym = o->sym };

	return hwp_report__conds(sym, c, n, &ro);
}

struct hwp_table *probs_table(struct flow_input *fi, const struct flow_opts *o)
{
	size_t n;
	const struct hwp_flow_cond *c = hwp_flow__conds(fi->flow, &n);

	return conds_table(report_input__symbolizer(&fi->in), c, n, o);
}

int probs_print_conds(struct hwp_symbolizer *sym, const struct hwp_flow_cond *c, size_t n,
		      const struct flow_opts *o)
{
	struct hwp_table *t = conds_table(sym, c, n, o);
	int rc;

	if (!t)
		return cli_error("out of memory");
	rc = report_print_table(t, o->ro.fmt);
	hwp_table__delete(t);
	return rc;
}

static int print_conds(struct flow_input *fi, const struct flow_opts *o)
{
	size_t n;
	const struct hwp_flow_cond *c = hwp_flow__conds(fi->flow, &n);

	flow_input__note(fi);
	report_input__warn_missing(&fi->in, true);
	return probs_print_conds(report_input__symbolizer(&fi->in), c, n, o);
}

enum { I_COUNT, I_SHARE, I_MISP, I_KIND, I_SITE, I_TARGET, I_SRC, I_SITE_COUNT, I_TARGETS, I_RANK, I_NCOLS };

static const struct {
	const char *title, *key;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
} icols[I_NCOLS] = {
	[I_COUNT] = { "Entries", "count", HWP_COL_COUNT, HWP_SHOW_ALL },
	[I_SHARE] = { "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[I_MISP] = { "Mispredicted", "mispredicted", HWP_COL_COUNT, HWP_SHOW_ALL },
	[I_KIND] = { "Kind", "kind", HWP_COL_TEXT, HWP_SHOW_ALL },
	[I_SITE] = { "Site", "site", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[I_TARGET] = { "Target", "target", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[I_SRC] = { "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[I_SITE_COUNT] = { "Site Entries", "site_count", HWP_COL_COUNT, HWP_SHOW_DATA },
	[I_TARGETS] = { "Targets", "targets", HWP_COL_COUNT, HWP_SHOW_DATA },
	[I_RANK] = { "Rank", "rank", HWP_COL_COUNT, HWP_SHOW_DATA },
};

/* "jump", "call", or "plt" for a jump in a PLT stub (its symbol says so). */
static const char *indirect_kind(struct hwp_symbolizer *sym, const struct hwp_flow_indirect *s)
{
	struct hwp_loc_fields f;

	if (s->call)
		return "call";
	hwp_loc__fields(sym, &s->site, &f);
	return f.symbol && strstr(f.symbol, "@plt") ? "plt" : "jump";
}

static int print_indirect(struct flow_input *fi, const struct flow_opts *o)
{
	struct hwp_symbolizer *sym = report_input__symbolizer(&fi->in);
	struct hwp_table *t = hwp_table__new();
	size_t n;
	const struct hwp_flow_indirect *s = hwp_flow__indirect(fi->flow, &n);
	uint64_t shown = 0;
	char buf[1024];
	int rc;

	if (!t)
		return cli_error("out of memory");
	for (size_t k = 0; k < I_NCOLS; k++)
		hwp_table__add_column_shown(t, icols[k].title, icols[k].key, icols[k].kind, icols[k].show);
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	hwp_report__add_loc_columns(t, HWP_LOC_TARGET);
	/* --limit counts sites: a site's distribution is shown whole */
	for (size_t i = 0; i < n && shown < o->limit && s[i].count >= o->min; i++) {
		if (!flow_input__keep(fi, o, &s[i].site))
			continue;
		shown++;
		for (size_t k = 0; k < s[i].ntargets; k++) {
			const struct hwp_flow_target *tg = &s[i].targets[k];

			hwp_table__new_row(t);
			hwp_table__set_count(t, I_COUNT, tg->count);
			hwp_table__set_real(t, I_SHARE, 100 * tg->share);
			hwp_table__set_count(t, I_MISP, tg->mispredicted);
			hwp_table__set_text(t, I_KIND, indirect_kind(sym, &s[i]));
			if (o->ro.fmt != HWP_TABLE_TEXT) {
				hwp_table__set_count(t, I_SITE_COUNT, s[i].count);
				hwp_table__set_count(t, I_TARGETS, s[i].ntargets);
				hwp_table__set_count(t, I_RANK, k + 1);
				hwp_report__set_loc(t, I_NCOLS, sym, &s[i].site);
				hwp_report__set_loc(t, I_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &tg->loc);
				continue;
			}
			/* the site once, above its targets */
			if (k == 0) {
				hwp_loc__format_addr(sym, &s[i].site, buf, sizeof(buf));
				hwp_table__set_text(t, I_SITE, buf);
				hwp_loc__format_srcline(sym, &s[i].site, buf, sizeof(buf));
				hwp_table__set_text(t, I_SRC, buf);
			}
			hwp_loc__format_addr(sym, &tg->loc, buf, sizeof(buf));
			hwp_table__set_text(t, I_TARGET, buf);
		}
	}
	report_input__warn_missing(&fi->in, true);
	rc = report_print_table(t, o->ro.fmt);
	hwp_table__delete(t);
	return rc;
}

int cmd_probs(int argc, char **argv)
{
	struct flow_opts o;
	bool indirect;
	int rc = probs_parse_opts(argc, argv, &o, &indirect);
	struct flow_input fi;

	if (rc >= 0)
		return rc;
	rc = flow_input__load(&fi, &o, "probs", 0);
	if (!rc)
		rc = indirect ? print_indirect(&fi, &o) : print_conds(&fi, &o);
	flow_input__close(&fi);
	return rc;
}
