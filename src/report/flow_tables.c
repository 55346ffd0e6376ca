/* SPDX-License-Identifier: MIT */
/* The flow's tables: conditional branches (hwprof probs) and basic blocks
   (hwprof blocks). */
#include <math.h>
#include <string.h>

#include "hwprof/branch_report.h"
#include "report/report_internal.h"

enum {
	C_EXEC, C_TAKEN_PCT, C_LO, C_HI, C_HOT, C_MISP_TAKEN, C_MISP_EXEC, C_BRANCH, C_SRC, C_TARGET,
	C_TAKEN, C_NOT_TAKEN, C_ENTRIES, C_WITH_INFO, C_MISPRED, C_MISP_EXEC_LO, C_MISP_EXEC_HI,
	C_NCOLS
};

static const struct hwp__report_column cond_cols[C_NCOLS] = {
	[C_EXEC] = { "Executions", "executions", HWP_COL_COUNT, HWP_SHOW_ALL },
	[C_TAKEN_PCT] = { "Taken", "taken_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[C_LO] = { "95% CI low", "taken_low_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[C_HI] = { "95% CI high", "taken_high_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[C_HOT] = { "Hot", "hot_taken", HWP_COL_BOOL, HWP_SHOW_DATA },
	[C_MISP_TAKEN] = { "Mispred/taken", "mispredict_taken_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[C_MISP_EXEC] = { "Mispred/exec", "mispredict_per_execution_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[C_BRANCH] = { "Branch", "branch", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[C_SRC] = { "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[C_TARGET] = { "Target", "target", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[C_TAKEN] = { "Taken Executions", "taken", HWP_COL_COUNT, HWP_SHOW_DATA },
	[C_NOT_TAKEN] = { "Not Taken", "not_taken", HWP_COL_COUNT, HWP_SHOW_DATA },
	[C_ENTRIES] = { "Taken Entries", "taken_entries", HWP_COL_COUNT, HWP_SHOW_DATA },
	[C_WITH_INFO] = { "With Mispredict Bits", "taken_with_info", HWP_COL_COUNT, HWP_SHOW_DATA },
	[C_MISPRED] = { "Mispredicted", "taken_mispredicted", HWP_COL_COUNT, HWP_SHOW_DATA },
	[C_MISP_EXEC_LO] = { "Mispred/exec low", "mispredict_per_execution_low_percent", HWP_COL_PERCENT, HWP_SHOW_DATA },
	[C_MISP_EXEC_HI] = { "Mispred/exec high", "mispredict_per_execution_high_percent", HWP_COL_PERCENT, HWP_SHOW_DATA },
};

static void cond_row(struct hwp_table *t, struct hwp_symbolizer *sym, const struct hwp_flow_cond *c,
		     enum hwp_table_format fmt)
{
	char buf[1024];

	hwp_table__new_row(t);
	hwp_table__set_count(t, C_EXEC, c->executions);
	hwp_table__set_real(t, C_TAKEN_PCT, 100 * c->p_taken);
	hwp_table__set_real(t, C_LO, 100 * c->p_taken_lo);
	hwp_table__set_real(t, C_HI, 100 * c->p_taken_hi);
	hwp__report_set_real(t, C_MISP_TAKEN, 100 * c->mispred_taken);
	hwp__report_set_real(t, C_MISP_EXEC, 100 * c->mispred_per_exec);
	if (hwp_report__for_people(fmt)) {
		hwp_loc__format_addr(sym, &c->site, buf, sizeof(buf));
		if (c->hot_taken) /* the flag, where the eye reads the branch */
			strncat(buf, "  [hot: taken]", sizeof(buf) - strlen(buf) - 1);
		hwp_table__set_text(t, C_BRANCH, buf);
		hwp_loc__format_srcline(sym, &c->site, buf, sizeof(buf));
		hwp_table__set_text(t, C_SRC, buf);
		if (c->target.module >= 0) {
			hwp_loc__format_addr(sym, &c->target, buf, sizeof(buf));
			hwp_table__set_text(t, C_TARGET, buf);
		}
		return;
	}
	hwp_table__set_count(t, C_HOT, c->hot_taken);
	hwp_table__set_count(t, C_TAKEN, c->taken);
	hwp_table__set_count(t, C_NOT_TAKEN, c->not_taken);
	hwp_table__set_count(t, C_ENTRIES, c->taken_entries);
	hwp_table__set_count(t, C_WITH_INFO, c->taken_with_info);
	hwp_table__set_count(t, C_MISPRED, c->taken_mispredicted);
	hwp__report_set_real(t, C_MISP_EXEC_LO, 100 * c->mispred_per_exec_lo);
	hwp__report_set_real(t, C_MISP_EXEC_HI, 100 * c->mispred_per_exec_hi);
	hwp_report__set_loc(t, C_NCOLS, sym, &c->site);
	if (c->target.module >= 0)
		hwp_report__set_loc(t, C_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &c->target);
}

struct hwp_table *hwp_report__conds(struct hwp_symbolizer *sym, const struct hwp_flow_cond *c, size_t n,
				     const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	struct hwp_table *t;
	uint64_t shown = 0;

	if (hwp__report_opts_load(opts, &o) < 0 || !(t = hwp_table__new()))
		return NULL;
	if (hwp__report_add_columns(t, cond_cols, C_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	hwp_report__add_loc_columns(t, HWP_LOC_TARGET);
	for (size_t i = 0; i < n && shown < o.limit && c[i].executions >= o.min_executions; i++) {
		if (!hwp_loc__matches(sym, &c[i].site, o.dso, o.sym))
			continue;
		cond_row(t, sym, &c[i], o.fmt);
		shown++;
	}
	return t;
}

enum { B_COUNT, B_SHARE, B_INSNS, B_BYTES, B_END, B_BLOCK, B_SRC, B_LAST_SRC, B_INSN_EXEC, B_LAST, B_LAST_LINE, B_NCOLS };

static const struct hwp__report_column block_cols[B_NCOLS] = {
	[B_COUNT] = { "Executions", "count", HWP_COL_COUNT, HWP_SHOW_ALL },
	[B_SHARE] = { "Insns %", "instructions_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[B_INSNS] = { "Insns", "instructions", HWP_COL_COUNT, HWP_SHOW_ALL },
	[B_BYTES] = { "Bytes", "size", HWP_COL_COUNT, HWP_SHOW_ALL },
	[B_END] = { "Ends", "end", HWP_COL_TEXT, HWP_SHOW_ALL },
	[B_BLOCK] = { "Block", "block", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[B_SRC] = { "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[B_LAST_SRC] = { "Last Line", "last_srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[B_INSN_EXEC] = { "Instructions Executed", "instructions_executed", HWP_COL_COUNT, HWP_SHOW_DATA },
	[B_LAST] = { "Last Offset", "last_offset", HWP_COL_HEX, HWP_SHOW_DATA },
	[B_LAST_LINE] = { "Last Line", "last_line", HWP_COL_COUNT, HWP_SHOW_DATA },
};

struct hwp_table *hwp_report__blocks(struct hwp_symbolizer *sym, const struct hwp_flow *flow,
				      const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	struct hwp_table *t;
	size_t n;
	const struct hwp_flow_block *b = hwp_flow__blocks(flow, &n);
	uint64_t shown = 0, total = hwp_flow__stats(flow)->instructions;
	char buf[1024];

	if (hwp__report_opts_load(opts, &o) < 0 || !(t = hwp_table__new()))
		return NULL;
	if (hwp__report_add_columns(t, block_cols, B_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	for (size_t i = 0; i < n && shown < o.limit && b[i].count >= o.min_executions; i++) {
		if (!hwp_loc__matches(sym, &b[i].start, o.dso, o.sym))
			continue;
		shown++;
		hwp_table__new_row(t);
		hwp_table__set_count(t, B_COUNT, b[i].count);
		/* the block's share of all instructions executed in the ranges */
		hwp_table__set_real(t, B_SHARE, total ? 100.0 * (double)(b[i].count * b[i].insns) / (double)total : 0);
		hwp_table__set_count(t, B_INSNS, b[i].insns);
		hwp_table__set_count(t, B_BYTES, b[i].size);
		hwp_table__set_text(t, B_END, hwp_flow_end__name(b[i].end_class));
		if (hwp_report__for_people(o.fmt)) {
			hwp_loc__format_addr(sym, &b[i].start, buf, sizeof(buf));
			hwp_table__set_text(t, B_BLOCK, buf);
			hwp_loc__format_srcline(sym, &b[i].start, buf, sizeof(buf));
			hwp_table__set_text(t, B_SRC, buf);
			hwp_loc__format_srcline(sym, &b[i].last, buf, sizeof(buf));
			hwp_table__set_text(t, B_LAST_SRC, buf);
			continue;
		}
		struct hwp_loc_fields f;

		hwp_table__set_count(t, B_INSN_EXEC, b[i].count * b[i].insns);
		hwp_table__set_count(t, B_LAST, b[i].last.offset);
		hwp_loc__fields(sym, &b[i].last, &f);
		if (f.line)
			hwp_table__set_count(t, B_LAST_LINE, f.line);
		hwp_report__set_loc(t, B_NCOLS, sym, &b[i].start);
	}
	return t;
}

