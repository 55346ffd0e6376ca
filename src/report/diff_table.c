/* SPDX-License-Identifier: MIT */
/* What changed between two recordings (hwprof diff): the rows and the
   summary above them. */
#include <stdio.h>

#include "hwprof/branch_report.h"
#include "report/report_internal.h"

enum { D_KIND, D_MEASURE, D_UNIT, D_BEFORE, D_AFTER, D_CHANGE, D_LO, D_HI, D_SIG, D_N_BEFORE, D_N_AFTER,
       D_IMPACT, D_WHERE, D_SRC, D_STATE, D_NCOLS };

static const struct hwp__report_column diff_cols[D_NCOLS] = {
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
	double scale = r->measure == HWP_DIFF_LATENCY ? 1 : 100;
	char buf[1024];

	hwp_table__new_row(t);
	hwp_table__set_text(t, D_KIND, hwp_diff_kind__name(r->kind));
	hwp_table__set_text(t, D_MEASURE, hwp_diff_measure__name(r->measure));
	hwp_table__set_text(t, D_UNIT, r->measure == HWP_DIFF_LATENCY ? "cycles" : "%");
	hwp_table__set_real(t, D_BEFORE, scale * r->v_before);
	hwp_table__set_real(t, D_AFTER, scale * r->v_after);
	hwp_table__set_real(t, D_CHANGE, scale * r->change);
	hwp_table__set_real(t, D_LO, scale * r->change_lo);
	hwp_table__set_real(t, D_HI, scale * r->change_hi);
	hwp_table__set_text(t, D_STATE, state_of(r));
	if (hwp_report__for_people(fmt)) {
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

struct hwp_table *hwp_report__diff(struct hwp_symbolizer *sb, struct hwp_symbolizer *sa,
				   const struct hwp_flow_diff *d, bool all, const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	const struct hwp_flow_diff_row *r;
	struct hwp_table *t;
	uint64_t shown = 0;
	size_t n;

	if (hwp__report_opts_load(opts, &o) < 0 || !(t = hwp_table__new()))
		return NULL;
	if (hwp__report_add_columns(t, diff_cols, D_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	hwp_report__add_loc_columns(t, HWP_LOC_BEFORE);
	hwp_report__add_loc_columns(t, HWP_LOC_AFTER);
	r = hwp_flow_diff__rows(d, &n);
	for (size_t i = 0; i < n && shown < o.limit && (all || r[i].significant); i++, shown++)
		diff_row(t, sb, sa, &r[i], o.fmt);
	return t;
}

void hwp_report__print_diff_summary(const struct hwp_flow_diff *d, const char *before, const char *after,
				    bool modelled, FILE *out)
{
	const struct hwp_flow_diff_stats *st = hwp_flow_diff__stats(d);

	fprintf(out, "# %zu significant change%s among %zu functions, %zu blocks, %zu branches and %zu block "
		"latencies compared%s\n"
		"# (%s -> %s; intervals count %.1f and %.1f executions per observation%s)\n",
		st->significant, st->significant == 1 ? "" : "s", st->functions, st->blocks, st->branches,
		st->latencies, st->matched_by_symbol ? " (build-ids differ: matched by symbol and line)" : "",
		before, after, st->deff_before, st->deff_after, modelled ? "; cycles modelled by the emulator" : "");
	/* (nothing more without call stacks: the summary is what it was) */
	if (st->children)
		fprintf(out, "# call stacks: %zu functions' children share compared (samples with the function on "
			"the stack, as perf report --children; one sample one observation)\n", st->children);
	if (st->calls_missing == 1 || st->calls_missing == 2)
		fprintf(out, "# children not compared: %s has no call stacks (its samples carry no call chains)\n",
			st->calls_missing == 1 ? before : after);
}
