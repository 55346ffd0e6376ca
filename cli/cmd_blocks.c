/* SPDX-License-Identifier: MIT */
/* hwprof blocks: basic blocks by sampled executions. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "report_fields.h"
#include "report_tables.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"

static const struct cmd_desc desc = {
	.name = "blocks",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"Basic blocks by sampled executions. Between consecutive branch-stack entries\n"
		"the code ran straight through; every block in such a range ran once. Blocks\n"
		"start at every branch target the records hold and after every branch, and\n"
		"end at every branch. Per block: executions, instructions, bytes, how it ends,\n"
		"its start and the source lines of its first and last instructions.\n",
};

enum { B_COUNT, B_SHARE, B_INSNS, B_BYTES, B_END, B_BLOCK, B_SRC, B_LAST_SRC, B_INSN_EXEC, B_LAST, B_LAST_LINE, B_NCOLS };

static const struct {
	const char *title, *key;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
} cols[B_NCOLS] = {
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

struct hwp_table *blocks_table(struct flow_input *fi, const struct flow_opts *o)
{
	struct hwp_symbolizer *sym = report_input__symbolizer(&fi->in);
	struct hwp_table *t = hwp_table__new();
	size_t n;
	const struct hwp_flow_block *b = hwp_flow__blocks(fi->flow, &n);
	uint64_t shown = 0, total = hwp_flow__stats(fi->flow)->instructions;
	char buf[1024];

	if (!t)
		return NULL;
	for (size_t k = 0; k < B_NCOLS; k++)
		hwp_table__add_column_shown(t, cols[k].title, cols[k].key, cols[k].kind, cols[k].show);
	report_fields__add_columns(t, LOC_NONE);
	for (size_t i = 0; i < n && shown < o->limit && b[i].count >= o->min; i++) {
		if (!flow_input__keep(fi, o, &b[i].start))
			continue;
		shown++;
		hwp_table__new_row(t);
		hwp_table__set_count(t, B_COUNT, b[i].count);
		/* the block's share of all instructions executed in the ranges */
		hwp_table__set_real(t, B_SHARE, total ? 100.0 * (double)(b[i].count * b[i].insns) / (double)total : 0);
		hwp_table__set_count(t, B_INSNS, b[i].insns);
		hwp_table__set_count(t, B_BYTES, b[i].size);
		hwp_table__set_text(t, B_END, hwp_flow_end__name(b[i].end_class));
		if (table_for_people(o->ro.fmt)) {
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
		report_fields__set(t, B_NCOLS, sym, &b[i].start);
	}
	return t;
}

static int print_blocks(struct flow_input *fi, const struct flow_opts *o)
{
	struct hwp_table *t = blocks_table(fi, o);
	int rc;

	if (!t)
		return cli_error("out of memory");
	flow_input__note(fi);
	report_input__warn_missing(&fi->in, true);
	rc = report_print_table(t, o->ro.fmt);
	hwp_table__delete(t);
	return rc;
}

int cmd_blocks(int argc, char **argv)
{
	struct flow_opts o;
	int rc = flow_opts__parse(argc, argv, &desc, &o);
	struct flow_input fi;

	if (rc >= 0)
		return rc;
	rc = flow_input__load(&fi, &o, "blocks", 0);
	if (!rc)
		rc = print_blocks(&fi, &o);
	flow_input__close(&fi);
	return rc;
}
