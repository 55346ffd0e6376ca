/* SPDX-License-Identifier: MIT */
/* hwprof paths: hot paths, blocks executed in sequence within a function. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"

static const struct cmd_desc desc = {
	.name = "paths",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"Hot paths: the basic blocks executed in sequence inside one function, as the\n"
		"branch stacks saw them (straight-line ranges joined by taken branches), by\n"
		"how often they ran. A path ends at a call, a return, a jump out of the\n"
		"function and at a backward branch (a loop's back edge: one trip through a\n"
		"loop body is one path). Only paths wholly inside a stack count, so long\n"
		"paths are sampled less often than short ones. Per path: runs, its share of\n"
		"all paths counted, blocks, instructions, the function, the blocks' offsets\n"
		"in it and their source lines.\n",
};

enum { P_COUNT, P_SHARE, P_BLOCKS, P_INSNS, P_FUNC, P_PATH, P_LINES, P_OFFSETS, P_LINE_LIST, P_LAST, P_NCOLS };

static const struct {
	const char *title, *key;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
} cols[P_NCOLS] = {
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

static int print_paths(struct flow_input *fi, const struct flow_opts *o)
{
	struct hwp_symbolizer *sym = report_input__symbolizer(&fi->in);
	struct hwp_table *t = hwp_table__new();
	size_t n;
	const struct hwp_path *p = t ? hwp_paths__build(fi->paths, fi->flow, &n) : NULL;
	uint64_t shown = 0, total = 0;
	int rc;

	if (!p) {
		hwp_table__delete(t);
		return cli_error("%s", t ? hwp_errmsg() : "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		total += p[i].count;
	for (size_t k = 0; k < P_NCOLS; k++)
		hwp_table__add_column_shown(t, cols[k].title, cols[k].key, cols[k].kind, cols[k].show);
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	for (size_t i = 0; i < n && shown < o->limit && p[i].count >= o->min; i++) {
		if (!flow_input__keep(fi, o, &p[i].blocks[0]))
			continue;
		path_row(t, sym, &p[i], total, o->ro.fmt);
		shown++;
	}
	flow_input__note(fi);
	const struct hwp_paths_stats *st = hwp_paths__stats(fi->paths);
	if (st->truncated)
		cli_warn("%" PRIu64 " paths cut by the start or end of a stack (or an unusable range) were left "
			 "out, %" PRIu64 " complete ones counted", st->truncated, st->paths);
	report_input__warn_missing(&fi->in, true);
	rc = report_print_table(t, o->ro.fmt);
	hwp_table__delete(t);
	return rc;
}

int cmd_paths(int argc, char **argv)
{
	struct flow_opts o;
	int rc = flow_opts__parse(argc, argv, &desc, &o);
	struct flow_input fi;

	if (rc >= 0)
		return rc;
	rc = flow_input__load(&fi, &o, "paths", FLOW_WITH_PATHS);
	if (!rc)
		rc = print_paths(&fi, &o);
	flow_input__close(&fi);
	return rc;
}
