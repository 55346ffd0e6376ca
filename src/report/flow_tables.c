/* SPDX-License-Identifier: MIT */
/* The flow's tables: conditional branches and indirect branches' targets
   (hwprof probs), basic blocks (hwprof blocks), paths (hwprof paths). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
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


enum { I_COUNT, I_SHARE, I_MISP, I_KIND, I_SITE, I_TARGET, I_SRC, I_SITE_COUNT, I_TARGETS, I_RANK, I_NCOLS };

static const struct hwp__report_column indirect_cols[I_NCOLS] = {
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

/* One site's rows: one per target, the site named once above them (text). */
static void indirect_rows(struct hwp_table *t, struct hwp_symbolizer *sym, const struct hwp_flow_indirect *s,
			  enum hwp_table_format fmt)
{
	char buf[1024];

	for (size_t k = 0; k < s->ntargets; k++) {
		const struct hwp_flow_target *tg = &s->targets[k];

		hwp_table__new_row(t);
		hwp_table__set_count(t, I_COUNT, tg->count);
		hwp_table__set_real(t, I_SHARE, 100 * tg->share);
		hwp_table__set_count(t, I_MISP, tg->mispredicted);
		hwp_table__set_text(t, I_KIND, indirect_kind(sym, s));
		if (fmt != HWP_TABLE_TEXT) {
			hwp_table__set_count(t, I_SITE_COUNT, s->count);
			hwp_table__set_count(t, I_TARGETS, s->ntargets);
			hwp_table__set_count(t, I_RANK, k + 1);
			hwp_report__set_loc(t, I_NCOLS, sym, &s->site);
			hwp_report__set_loc(t, I_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &tg->loc);
			continue;
		}
		if (k == 0) {
			hwp_loc__format_addr(sym, &s->site, buf, sizeof(buf));
			hwp_table__set_text(t, I_SITE, buf);
			hwp_loc__format_srcline(sym, &s->site, buf, sizeof(buf));
			hwp_table__set_text(t, I_SRC, buf);
		}
		hwp_loc__format_addr(sym, &tg->loc, buf, sizeof(buf));
		hwp_table__set_text(t, I_TARGET, buf);
	}
}

struct hwp_table *hwp_report__indirect(struct hwp_symbolizer *sym, const struct hwp_flow *flow,
				       const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	struct hwp_table *t;
	size_t n;
	const struct hwp_flow_indirect *s = hwp_flow__indirect(flow, &n);
	uint64_t shown = 0;

	if (hwp__report_opts_load(opts, &o) < 0 || !(t = hwp_table__new()))
		return NULL;
	if (hwp__report_add_columns(t, indirect_cols, I_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	hwp_report__add_loc_columns(t, HWP_LOC_TARGET);
	/* the limit counts sites: a site's distribution is shown whole */
	for (size_t i = 0; i < n && shown < o.limit && s[i].count >= o.min_executions; i++) {
		if (!hwp_loc__matches(sym, &s[i].site, o.dso, o.sym))
			continue;
		shown++;
		indirect_rows(t, sym, &s[i], o.fmt);
	}
	return t;
}

enum { P_COUNT, P_SHARE, P_BLOCKS, P_INSNS, P_FUNC, P_PATH, P_LINES, P_OFFSETS, P_LINE_LIST, P_LAST, P_NCOLS };

static const struct hwp__report_column path_cols[P_NCOLS] = {
	[P_COUNT] = { "Runs", "count", HWP_COL_COUNT, HWP_SHOW_ALL },
	[P_SHARE] = { "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[P_BLOCKS] = { "Blocks", "blocks", HWP_COL_COUNT, HWP_SHOW_ALL },
	[P_INSNS] = { "Insns", "instructions", HWP_COL_COUNT, HWP_SHOW_ALL },
	[P_FUNC] = { "Function", "function", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[P_PATH] = { "Path (block offsets in the function)", "path", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[P_LINES] = { "Source Lines", "srclines", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[P_OFFSETS] = { "Block Offsets", "block_offsets", HWP_COL_TEXT, HWP_SHOW_DATA },
	[P_LINE_LIST] = { "Block Lines", "block_lines", HWP_COL_TEXT, HWP_SHOW_DATA },
	[P_LAST] = { "Last Offset", "last_offset", HWP_COL_HEX, HWP_SHOW_DATA },
};

/* Appends FMT's text to BUF (LEN bytes), keeping it terminated. */
static void append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t at = strlen(buf);
	va_list ap;

	if (at + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + at, len - at, fmt, ap);
	va_end(ap);
}

static void path_row(struct hwp_table *t, struct hwp_symbolizer *sym, const struct hwp_path *p, uint64_t total,
		     enum hwp_table_format fmt)
{
	char path[4096] = "", lines[4096] = "", buf[1024];
	unsigned last_line = 0;
	const char *last_file = NULL;

	hwp_table__new_row(t);
	hwp_table__set_count(t, P_COUNT, p->count);
	hwp_table__set_real(t, P_SHARE, total ? 100.0 * (double)p->count / (double)total : 0);
	hwp_table__set_count(t, P_BLOCKS, p->nblocks);
	hwp_table__set_count(t, P_INSNS, p->insns);
	for (size_t k = 0; k < p->nblocks; k++) {
		struct hwp_loc_fields f;

		hwp_loc__fields(sym, &p->blocks[k], &f);
		if (fmt == HWP_TABLE_TEXT) {
			if (f.symbol)
				append(path, sizeof(path), "%s+0x%" PRIx64, k ? " > " : "", f.sym_offset);
			else
				append(path, sizeof(path), "%s0x%" PRIx64, k ? " > " : "", f.offset);
			/* a line once, however many blocks it spans in a row */
			if (f.line && (f.line != last_line || !last_file || !f.file || strcmp(f.file, last_file))) {
				const char *base = f.file ? strrchr(f.file, '/') : NULL;

				if (!last_file || !f.file || strcmp(f.file, last_file))
					append(lines, sizeof(lines), "%s%s:%u", *lines ? " " : "",
					       base ? base + 1 : f.file ? f.file : "??", f.line);
				else
					append(lines, sizeof(lines), " %u", f.line);
				last_line = f.line;
				last_file = f.file;
			}
		} else {
			append(path, sizeof(path), "%s0x%" PRIx64, k ? " " : "", f.offset);
			append(lines, sizeof(lines), "%s%u", k ? " " : "", f.line);
		}
	}
	if (fmt == HWP_TABLE_TEXT) {
		hwp_loc__format_symbol(sym, &p->blocks[0], buf, sizeof(buf));
		hwp_table__set_text(t, P_FUNC, buf);
		hwp_table__set_text(t, P_PATH, path);
		hwp_table__set_text(t, P_LINES, lines);
		return;
	}
	hwp_table__set_text(t, P_OFFSETS, path);
	hwp_table__set_text(t, P_LINE_LIST, lines);
	hwp_table__set_count(t, P_LAST, p->last.offset);
	hwp_report__set_loc(t, P_NCOLS, sym, &p->blocks[0]);
}

struct hwp_table *hwp_report__paths(struct hwp_symbolizer *sym, const struct hwp_path *p, size_t n,
				    const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	struct hwp_table *t;
	uint64_t shown = 0, total = 0;

	if (hwp__report_opts_load(opts, &o) < 0 || !(t = hwp_table__new()))
		return NULL;
	if (hwp__report_add_columns(t, path_cols, P_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	for (size_t i = 0; i < n; i++)
		total += p[i].count;
	for (size_t i = 0; i < n && shown < o.limit && p[i].count >= o.min_executions; i++) {
		if (!hwp_loc__matches(sym, &p[i].blocks[0], o.dso, o.sym))
			continue;
		path_row(t, sym, &p[i], total, o.fmt);
		shown++;
	}
	return t;
}
