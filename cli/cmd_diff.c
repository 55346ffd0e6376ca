/* SPDX-License-Identifier: MIT */
/* hwprof diff: what changed between two recordings, branch by branch. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "report_tables.h"
#include "hwprof/branch_report.h"
#include "hwprof/flow_diff.h"

static const struct cmd_desc desc = {
	.name = "diff",
	.args = "BEFORE AFTER",
	.flags = CMD_ARGS,
	.text =
		"What changed from the recording BEFORE to AFTER (same program, same or\n"
		"another build): per function and per basic block the share of the sampled\n"
		"instructions executed, per conditional branch the taken probability and the\n"
		"taken mispredicts per execution, each with the 95% interval of the change.\n"
		"Code is matched by module offset where the build-ids are equal, else by\n"
		"symbol, source line and rank on that line. Only significant changes are\n"
		"shown (interval excluding 0, and at least --min-change), largest impact\n"
		"first; intervals are conservative (executions in one branch stack are not\n"
		"counted as independent).\n",
};

struct diff_opts {
	struct flow_opts fo;
	const char *before, *after;
	bool all;
	struct hwp_flow_diff_opts d;
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct diff_opts *o)
{
	const struct opt opts[] = {
		OPT_BOOL(0, "all", &o->all, "also the changes that are not significant"),
		{ .kind = OPT_KIND_DOUBLE, .long_name = "min-change", .value = &o->d.min_change, .argh = "PCT",
		  .dmin = 0, .dmax = 100, .scale = 0.01, .flags = OPT_MIN_OPEN, .err = " is not a percentage above 0",
		  .help = "smallest change called significant, in percentage points (default 2)" },
		OPT_U64(0, "min-executions", &o->fo.min, "N", 0, UINT64_MAX, NULL,
			"compare branches with at least N sampled executions on one side (default 100)"),
		OPT_REPORT_LIMIT(&o->fo.limit),
		OPT_REPORT_OUTPUT(&o->fo.ro),
		OPT_COMMON(),
		OPT_END(),
	};
	struct cmd_args a;
	int rc;

	memset(o, 0, sizeof(*o));
	flow_opts__init(&o->fo);
	o->d = (struct hwp_flow_diff_opts){ .sz = sizeof(o->d) };
	if ((rc = parse_options(argc, argv, &desc, opts, &a)) >= 0)
		return rc;
	if (a.n != 2)
		return cli_error("diff: two recordings, BEFORE and AFTER (%d given)", a.n);
	o->before = a.v[0];
	o->after = a.v[1];
	if (!strcmp(o->before, "-") && !strcmp(o->after, "-"))
		return cli_error("diff: only one of BEFORE and AFTER can be standard input");
	o->d.min_executions = o->fo.min > 1 ? o->fo.min : 0;
	return -1;
}

enum { D_KIND, D_MEASURE, D_UNIT, D_BEFORE, D_AFTER, D_CHANGE, D_LO, D_HI, D_SIG, D_N_BEFORE, D_N_AFTER,
       D_IMPACT, D_WHERE, D_SRC, D_STATE, D_NCOLS };

static const struct {
	const char *title, *key;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
} cols[D_NCOLS] = {
	[D_KIND] = { "Kind", "kind", HWP_COL_TEXT, HWP_SHOW_ALL },
	[D_MEASURE] = { "Measure", "measure", HWP_COL_TEXT, HWP_SHOW_ALL },
	/* percent (changes in points) for proportions, cycles for latency */
	[D_UNIT] = { "Unit", "unit", HWP_COL_TEXT, HWP_SHOW_ALL },
	[D_BEFORE] = { "Before", "before", HWP_COL_REAL, HWP_SHOW_ALL },
	[D_AFTER] = { "After", "after", HWP_COL_REAL, HWP_SHOW_ALL },
	[D_CHANGE] = { "Change", "change", HWP_COL_REAL, HWP_SHOW_ALL },
	[D_LO] = { "95% CI low", "change_low", HWP_COL_REAL, HWP_SHOW_ALL },
	[D_HI] = { "95% CI high", "change_high", HWP_COL_REAL, HWP_SHOW_ALL },
	[D_SIG] = { "Significant", "significant", HWP_COL_BOOL, HWP_SHOW_DATA },
	[D_N_BEFORE] = { "N Before", "n_before", HWP_COL_COUNT, HWP_SHOW_DATA },
	[D_N_AFTER] = { "N After", "n_after", HWP_COL_COUNT, HWP_SHOW_DATA },
	[D_IMPACT] = { "Impact", "impact", HWP_COL_REAL, HWP_SHOW_DATA },
	[D_WHERE] = { "Where", "where", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[D_SRC] = { "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[D_STATE] = { "State", "state", HWP_COL_TEXT, HWP_SHOW_ALL },
};

/* "new", "gone" or "" (in both) */
static const char *state_of(const struct hwp_flow_diff_row *r)
{
	return r->before.module < 0 ? "new" : r->after.module < 0 ? "gone" : "";
}

static void diff_row(struct hwp_table *t, struct hwp_symbolizer *sb, struct hwp_symbolizer *sa,
		     const struct hwp_flow_diff_row *r, enum hwp_table_format fmt)
{
	/* named in the recording that has it, AFTER's when both do */
	bool in_after = r->after.module >= 0;
	struct hwp_symbolizer *sym = in_after ? sa : sb;
	const struct hwp_code_loc *l = in_after ? &r->after : &r->before;
	char buf[1024];

	hwp_table__new_row(t);
	hwp_table__set_text(t, D_KIND, hwp_diff_kind__name(r->kind));
	hwp_table__set_text(t, D_MEASURE, hwp_diff_measure__name(r->measure));
	double scale = r->measure == HWP_DIFF_LATENCY ? 1 : 100;

	hwp_table__set_text(t, D_UNIT, r->measure == HWP_DIFF_LATENCY ? "cycles" : "%");
	hwp_table__set_real(t, D_BEFORE, scale * r->v_before);
	hwp_table__set_real(t, D_AFTER, scale * r->v_after);
	hwp_table__set_real(t, D_CHANGE, scale * r->change);
	hwp_table__set_real(t, D_LO, scale * r->change_lo);
	hwp_table__set_real(t, D_HI, scale * r->change_hi);
	hwp_table__set_text(t, D_STATE, state_of(r));
	if (table_for_people(fmt)) {
		if (r->kind == HWP_DIFF_FUNCTION)
			hwp_loc__format_symbol(sym, l, buf, sizeof(buf));
		else
			hwp_loc__format_addr(sym, l, buf, sizeof(buf));
		hwp_table__set_text(t, D_WHERE, buf);
		hwp_loc__format_srcline(sym, l, buf, sizeof(buf));
		hwp_table__set_text(t, D_SRC, buf);
		return;
	}
	hwp_table__set_count(t, D_SIG, r->significant);
	hwp_table__set_count(t, D_N_BEFORE, r->n_before);
	hwp_table__set_count(t, D_N_AFTER, r->n_after);
	hwp_table__set_real(t, D_IMPACT, r->impact);
	if (r->before.module >= 0)
		hwp_report__set_loc(t, D_NCOLS, sb, &r->before);
	if (r->after.module >= 0)
		hwp_report__set_loc(t, D_NCOLS + HWP_REPORT_LOC_COLUMNS, sa, &r->after);
}

struct hwp_table *diff_table(struct flow_input *b, struct flow_input *a, const struct hwp_flow_diff *d,
			     uint64_t limit, bool all, enum hwp_table_format fmt)
{
	struct hwp_symbolizer *sb = report_input__symbolizer(&b->in), *sa = report_input__symbolizer(&a->in);
	struct hwp_table *t = hwp_table__new();
	const struct hwp_flow_diff_row *r;
	uint64_t shown = 0;
	size_t n;

	if (!t)
		return NULL;
	for (size_t k = 0; k < D_NCOLS; k++)
		hwp_table__add_column_shown(t, cols[k].title, cols[k].key, cols[k].kind, cols[k].show);
	hwp_report__add_loc_columns(t, HWP_LOC_BEFORE);
	hwp_report__add_loc_columns(t, HWP_LOC_AFTER);
	r = hwp_flow_diff__rows(d, &n);
	for (size_t i = 0; i < n && shown < limit && (all || r[i].significant); i++, shown++)
		diff_row(t, sb, sa, &r[i], fmt);
	return t;
}

static int print_diff(struct flow_input *b, struct flow_input *a, const struct diff_opts *o)
{
	struct hwp_flow_diff *d = hwp_flow_diff__new(b->flow, b->in.collector, a->flow, a->in.collector, &o->d);
	const struct hwp_flow_diff_stats *st;
	struct hwp_table *t;
	int rc;

	if (!d || (b->timing && a->timing && hwp_flow_diff__add_timing(d, b->timing, a->timing) < 0)) {
		hwp_flow_diff__delete(d);
		return cli_error("%s", hwp_errmsg());
	}
	if (!(t = diff_table(b, a, d, o->fo.limit, o->all, o->fo.ro.fmt))) {
		hwp_flow_diff__delete(d);
		return cli_error("out of memory");
	}
	st = hwp_flow_diff__stats(d);
	if (o->fo.ro.fmt == HWP_TABLE_TEXT)
		printf("# %zu significant change%s among %zu functions, %zu blocks, %zu branches and %zu block "
		       "latencies compared%s\n"
		       "# (%s -> %s; intervals count %.1f and %.1f executions per observation%s)\n",
		       st->significant, st->significant == 1 ? "" : "s", st->functions, st->blocks, st->branches,
		       st->latencies, st->matched_by_symbol ? " (build-ids differ: matched by symbol and line)" : "",
		       o->before, o->after, st->deff_before, st->deff_after,
		       b->timing && hwp_timing__source(b->timing) == HWP_CYCLES_MODELLED ? "; cycles modelled by the emulator" : "");
	rc = st->significant || o->all || o->fo.ro.fmt != HWP_TABLE_TEXT ? report_print_table(t, o->fo.ro.fmt) : 0;
	if (!st->significant && o->fo.ro.fmt == HWP_TABLE_TEXT)
		printf("no significant change\n");
	hwp_table__delete(t);
	hwp_flow_diff__delete(d);
	return rc;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o;
	struct flow_input b, a;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct flow_opts ob = o.fo, oa = o.fo;

	ob.ro.input = o.before;
	oa.ro.input = o.after;
	rc = flow_input__load(&b, &ob, "diff", FLOW_WITH_TIMING);
	if (!rc) {
		rc = flow_input__load(&a, &oa, "diff", FLOW_WITH_TIMING);
		if (!rc)
			rc = print_diff(&b, &a, &o);
		flow_input__close(&a);
	}
	flow_input__close(&b);
	return rc;
}
