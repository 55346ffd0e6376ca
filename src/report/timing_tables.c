/* SPDX-License-Identifier: MIT */
/* hwprof timing's tables: block latencies, loop iteration times, the
   occurrence rates of blocks, and the chart of one distribution. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "hwprof/branch_report.h"
#include "output/chart.h"
#include "output/outbuf.h"
#include "report/report_internal.h"
#include "util/error.h"

const char *hwp_report__cycles_name(enum hwp_cycles_source src)
{
	return src == HWP_CYCLES_MODELLED ? "modelled" : src == HWP_CYCLES_MEASURED ? "measured" : "none";
}

void hwp_report__timing_block_name(struct hwp_symbolizer *sym, const struct hwp_code_loc *start,
				   const struct hwp_code_loc *end, char *buf, size_t len)
{
	char a[512], s0[512], s1[512];

	hwp_loc__format_addr(sym, start, a, sizeof(a));
	hwp_loc__format_srcline(sym, start, s0, sizeof(s0));
	hwp_loc__format_srcline(sym, end, s1, sizeof(s1));
	snprintf(buf, len, "%s .. +0x%" PRIx64 "%s%s%s%s%s", a, end->offset - start->offset,
		 strcmp(s0, "??:0") ? " (" : "", strcmp(s0, "??:0") ? s0 : "",
		 strcmp(s0, "??:0") && strcmp(s1, s0) && strcmp(s1, "??:0") ? " - " : "",
		 strcmp(s0, "??:0") && strcmp(s1, s0) && strcmp(s1, "??:0") ? s1 : "",
		 strcmp(s0, "??:0") ? ")" : "");
}

enum {
	T_SAMPLES, T_SHARE, T_MIN, T_MEDIAN, T_MEAN, T_P90, T_P99, T_MAX, T_MODES, T_INSNS, T_IPC, T_BLOCK,
	T_SRC, T_LAST_SRC, T_SOURCE, T_TOTAL, T_MODE_CYCLES, T_NMODES, T_START_ADDR, T_END_ADDR, T_NCOLS
};

static const struct hwp__report_column timing_cols[T_NCOLS] = {
	[T_SAMPLES] = { "Samples", "samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	[T_SHARE] = { "Cycles %", "cycles_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[T_MIN] = { "Min", "min", HWP_COL_COUNT, HWP_SHOW_ALL },
	[T_MEDIAN] = { "Median", "median", HWP_COL_COUNT, HWP_SHOW_ALL },
	[T_MEAN] = { "Mean", "mean", HWP_COL_REAL, HWP_SHOW_ALL },
	[T_P90] = { "P90", "p90", HWP_COL_COUNT, HWP_SHOW_ALL },
	[T_P99] = { "P99", "p99", HWP_COL_COUNT, HWP_SHOW_ALL },
	[T_MAX] = { "Max", "max", HWP_COL_COUNT, HWP_SHOW_ALL },
	[T_MODES] = { "Modes (share)", "modes", HWP_COL_TEXT, HWP_SHOW_ALL },
	[T_INSNS] = { "Insns", "instructions", HWP_COL_COUNT, HWP_SHOW_ALL },
	[T_IPC] = { "IPC", "ipc", HWP_COL_REAL, HWP_SHOW_ALL },
	[T_BLOCK] = { "Block", "block", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[T_SRC] = { "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[T_LAST_SRC] = { "Last Line", "last_srcline", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[T_SOURCE] = { "Cycles Source", "cycles_source", HWP_COL_TEXT, HWP_SHOW_DATA },
	[T_TOTAL] = { "Total Cycles", "cycles_total", HWP_COL_COUNT, HWP_SHOW_DATA },
	[T_MODE_CYCLES] = { "Mode Cycles", "mode_cycles", HWP_COL_COUNT, HWP_SHOW_DATA },
	[T_NMODES] = { "Modes", "nmodes", HWP_COL_COUNT, HWP_SHOW_DATA },
	[T_START_ADDR] = { "Start Address", "start_addr", HWP_COL_HEX, HWP_SHOW_DATA },
	[T_END_ADDR] = { "End Address", "end_addr", HWP_COL_HEX, HWP_SHOW_DATA },
};

void hwp__timing_modes_text(const struct hwp_timing_dist *d, bool data, char *buf, size_t len)
{
	*buf = 0;
	for (size_t m = 0; m < d->nmodes; m++) {
		double pct = 100.0 * (double)d->modes[m].samples / (double)d->samples;
		size_t at = strlen(buf);

		snprintf(buf + at, len - at, data ? "%s%" PRIu32 ":%.1f" : "%s%" PRIu32 " (%.0f%%)",
			 m ? (data ? ";" : ", ") : "", d->modes[m].cycles, pct);
	}
}

static void set_dist(struct hwp_table *t, const struct hwp_timing_dist *d, uint64_t total, bool data)
{
	char buf[256];

	hwp_table__set_count(t, T_SAMPLES, d->samples);
	hwp_table__set_real(t, T_SHARE, total ? 100.0 * (double)d->cycles_sum / (double)total : 0);
	hwp_table__set_count(t, T_MIN, d->min);
	hwp_table__set_count(t, T_MEDIAN, d->median);
	hwp_table__set_real(t, T_MEAN, d->mean);
	hwp_table__set_count(t, T_P90, d->p90);
	hwp_table__set_count(t, T_P99, d->p99);
	hwp_table__set_count(t, T_MAX, d->max);
	hwp__timing_modes_text(d, data, buf, sizeof(buf));
	hwp_table__set_text(t, T_MODES, buf);
	if (data) {
		hwp_table__set_count(t, T_TOTAL, d->cycles_sum);
		if (d->nmodes)
			hwp_table__set_count(t, T_MODE_CYCLES, d->modes[0].cycles);
		hwp_table__set_count(t, T_NMODES, d->nmodes);
	}
}

/* The columns of the block table, or (LOOPS) the same naming a loop's parts. */
static struct hwp_table *timing_table(bool loops)
{
	struct hwp_table *t = hwp_table__new();

	if (!t)
		return NULL;
	for (size_t k = 0; k < T_NCOLS; k++) {
		const char *title = timing_cols[k].title, *key = timing_cols[k].key;

		if (loops && k == T_BLOCK)
			title = "Back Edge", key = "back_edge";
		else if (loops && k == T_INSNS)
			title = "Branches/Iter", key = "branches_per_iteration";
		else if (loops && k == T_START_ADDR)
			title = "Branch Address", key = "branch_addr";
		else if (loops && k == T_END_ADDR)
			title = "Head Address", key = "head_addr";
		if (hwp_table__add_column_shown(t, title, key, loops && k == T_INSNS ? HWP_COL_REAL : timing_cols[k].kind,
						timing_cols[k].show) < 0) {
			hwp_table__delete(t);
			return NULL;
		}
	}
	hwp_report__add_loc_columns(t, loops ? HWP_LOC_FROM : HWP_LOC_START);
	hwp_report__add_loc_columns(t, loops ? HWP_LOC_TO : HWP_LOC_END);
	return t;
}

/* "[.] walk+0x3b..+0x4f": the block's first and last instruction */
static void block_range(struct hwp_symbolizer *sym, const struct hwp_timing_block *b, char *buf, size_t len)
{
	struct hwp_loc_fields a, z;
	size_t n;

	hwp_loc__format_addr(sym, &b->start, buf, len);
	n = strlen(buf);
	hwp_loc__fields(sym, &b->start, &a);
	hwp_loc__fields(sym, &b->end, &z);
	if (a.symbol && z.symbol && !strcmp(a.symbol, z.symbol))
		snprintf(buf + n, len - n, "..+0x%" PRIx64, z.sym_offset);
	else
		snprintf(buf + n, len - n, "..[+0x%" PRIx64 "]", b->end.offset - b->start.offset);
}

size_t hwp_report__select_blocks(struct hwp_symbolizer *sym, const struct hwp_timing_block *b, size_t *idx,
				 size_t n, const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	size_t shown = 0;

	if (hwp__report_opts_load(opts, &o) < 0)
		return 0;
	for (size_t i = 0; i < n && shown < o.limit; i++)
		if (b[idx[i]].d.samples >= o.min_executions && hwp_loc__matches(sym, &b[idx[i]].start, o.dso, o.sym))
			idx[shown++] = idx[i];
	return shown;
}

size_t hwp_report__select_loops(struct hwp_symbolizer *sym, const struct hwp_timing_loop *l, size_t *idx,
				size_t n, const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	size_t shown = 0;

	if (hwp__report_opts_load(opts, &o) < 0)
		return 0;
	for (size_t i = 0; i < n && shown < o.limit; i++)
		if (l[idx[i]].d.samples >= o.min_executions && hwp_loc__matches(sym, &l[idx[i]].branch, o.dso, o.sym))
			idx[shown++] = idx[i];
	return shown;
}

struct hwp_table *hwp_report__timing_blocks(struct hwp_symbolizer *sym, struct hwp_timing *tm, const size_t *idx,
					    size_t n, const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	size_t nb;
	const struct hwp_timing_block *b = hwp_timing__blocks(tm, &nb);
	enum hwp_cycles_source src = hwp_timing__source(tm);
	struct hwp_table *t;
	uint64_t total = 0;
	char buf[1024];

	if (hwp__report_opts_load(opts, &o) < 0 || !(t = timing_table(false)))
		return NULL;
	bool data = !hwp_report__for_people(o.fmt);
	for (size_t i = 0; i < nb; i++)
		total += b[i].d.cycles_sum;
	for (size_t k = 0; k < n && k < o.limit; k++) {
		const struct hwp_timing_block *r = &b[idx[k]];

		hwp_table__new_row(t);
		set_dist(t, &r->d, total, data);
		if (r->insns) {
			hwp_table__set_count(t, T_INSNS, r->insns);
			hwp_table__set_real(t, T_IPC, r->ipc);
		}
		if (!data) {
			block_range(sym, r, buf, sizeof(buf));
			hwp_table__set_text(t, T_BLOCK, buf);
			hwp_loc__format_srcline(sym, &r->start, buf, sizeof(buf));
			hwp_table__set_text(t, T_SRC, buf);
			hwp_loc__format_srcline(sym, &r->end, buf, sizeof(buf));
			hwp_table__set_text(t, T_LAST_SRC, buf);
			continue;
		}
		hwp_table__set_text(t, T_SOURCE, hwp_report__cycles_name(src));
		hwp_table__set_count(t, T_START_ADDR, r->start.addr);
		hwp_table__set_count(t, T_END_ADDR, r->end.addr);
		hwp_report__set_loc(t, T_NCOLS, sym, &r->start);
		hwp_report__set_loc(t, T_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &r->end);
	}
	return t;
}

struct hwp_table *hwp_report__timing_loops(struct hwp_symbolizer *sym, struct hwp_timing *tm, const size_t *idx,
					   size_t n, const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	size_t nl;
	const struct hwp_timing_loop *l = hwp_timing__loops(tm, &nl);
	enum hwp_cycles_source src = hwp_timing__source(tm);
	struct hwp_table *t;
	uint64_t total = 0;
	char buf[1024], head[512];

	if (hwp__report_opts_load(opts, &o) < 0 || !(t = timing_table(true)))
		return NULL;
	bool data = !hwp_report__for_people(o.fmt);
	for (size_t i = 0; i < nl; i++)
		total += l[i].d.cycles_sum;
	for (size_t k = 0; k < n && k < o.limit; k++) {
		const struct hwp_timing_loop *r = &l[idx[k]];

		hwp_table__new_row(t);
		set_dist(t, &r->d, total, data);
		hwp_table__set_real(t, T_INSNS, r->entries_mean);
		if (!data) {
			hwp_loc__format_addr(sym, &r->branch, buf, sizeof(buf));
			hwp_loc__format_addr(sym, &r->head, head, sizeof(head));
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " -> %s", head);
			hwp_table__set_text(t, T_BLOCK, buf);
			hwp_loc__format_srcline(sym, &r->head, buf, sizeof(buf));
			hwp_table__set_text(t, T_SRC, buf);
			hwp_loc__format_srcline(sym, &r->branch, buf, sizeof(buf));
			hwp_table__set_text(t, T_LAST_SRC, buf);
			continue;
		}
		hwp_table__set_text(t, T_SOURCE, hwp_report__cycles_name(src));
		hwp_table__set_count(t, T_START_ADDR, r->branch.addr);
		hwp_table__set_count(t, T_END_ADDR, r->head.addr);
		hwp_report__set_loc(t, T_NCOLS, sym, &r->branch);
		hwp_report__set_loc(t, T_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &r->head);
	}
	return t;
}

void hwp_report__print_timing_header(struct hwp_timing *t, bool loops, FILE *out)
{
	const struct hwp_timing_stats *st = hwp_timing__stats(t);
	enum hwp_cycles_source src = hwp_timing__source(t);

	if (loops)
		fprintf(out, "# %" PRIu64 " loop iterations timed (whole inside one stack)\n", st->iterations);
	fprintf(out, "# %s; cycles %s%s\n# %" PRIu64 " latency samples from %" PRIu64 " stacks (%" PRIu64
		" pairs of consecutive entries: %" PRIu64 " with an unusable range, %" PRIu64
		" with unknown cycles)\n#\n",
		loops ? "loop back edges by total cycles per iteration" : "basic blocks by total cycles",
		hwp_report__cycles_name(src),
		src == HWP_CYCLES_MODELLED ? " by the emulator's cost model, not measured on hardware"
					   : " by the CPU's branch records",
		st->latencies - st->dropped_by_decoding, st->stacks, st->pairs, st->rejected, st->unknown_cycles);
	fflush(out);
}

enum { R_CYCLES, R_SAMPLES, R_RATE, R_CUM, R_MODE, R_SOURCE, R_START_ADDR, R_NCOLS };

static const struct hwp__report_column rate_cols[R_NCOLS] = {
	[R_CYCLES] = { "Cycles", "cycles", HWP_COL_COUNT, HWP_SHOW_ALL },
	[R_SAMPLES] = { "Samples", "samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	[R_RATE] = { "Rate", "rate_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[R_CUM] = { "Cumulative", "cumulative_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[R_MODE] = { "Mode", "mode", HWP_COL_COUNT, HWP_SHOW_ALL },
	[R_SOURCE] = { "Cycles Source", "cycles_source", HWP_COL_TEXT, HWP_SHOW_DATA },
	[R_START_ADDR] = { "Start Address", "start_addr", HWP_COL_HEX, HWP_SHOW_DATA },
};

/* DATA: the columns that name the block (one table for several blocks). */
static struct hwp_table *rate_table(bool data)
{
	struct hwp_table *t = hwp_table__new();

	if (!t)
		return NULL;
	if (hwp__report_add_columns(t, rate_cols, R_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	if (data) {
		hwp_table__add_column_shown(t, "End Address", "end_addr", HWP_COL_HEX, HWP_SHOW_DATA);
		hwp_report__add_loc_columns(t, HWP_LOC_START);
		hwp_report__add_loc_columns(t, HWP_LOC_END);
	}
	return t;
}

static void rate_rows(struct hwp_table *t, struct hwp_symbolizer *sym, const struct hwp_timing_block *b,
		      enum hwp_cycles_source src, bool data)
{
	const struct hwp_timing_dist *d = &b->d;
	uint64_t cum = 0;

	for (size_t v = 0; v < d->nvalues; v++) {
		hwp_table__new_row(t);
		cum += d->values[v].samples;
		hwp_table__set_count(t, R_CYCLES, d->values[v].cycles);
		hwp_table__set_count(t, R_SAMPLES, d->values[v].samples);
		hwp_table__set_real(t, R_RATE, 100.0 * (double)d->values[v].samples / (double)d->samples);
		hwp_table__set_real(t, R_CUM, 100.0 * (double)cum / (double)d->samples);
		/* the mode's rank (1 = most samples) on the value it names */
		for (size_t m = 0; m < d->nmodes; m++)
			if (d->modes[m].cycles == d->values[v].cycles)
				hwp_table__set_count(t, R_MODE, m + 1);
		hwp_table__set_text(t, R_SOURCE, hwp_report__cycles_name(src));
		if (!data)
			continue;
		hwp_table__set_count(t, R_START_ADDR, b->start.addr);
		hwp_table__set_count(t, R_NCOLS, b->end.addr);
		hwp_report__set_loc(t, R_NCOLS + 1, sym, &b->start);
		hwp_report__set_loc(t, R_NCOLS + 1 + HWP_REPORT_LOC_COLUMNS, sym, &b->end);
	}
}

int hwp_report__print_timing_rates(struct hwp_symbolizer *sym, const struct hwp_timing_block *blocks,
				   const size_t *idx, size_t n, enum hwp_cycles_source src, enum hwp_table_format fmt,
				   FILE *out)
{
	bool data = fmt != HWP_TABLE_TEXT;
	struct hwp_table *t = NULL;
	char name[2048];
	int rc = 0;

	if (data) {
		if (!(t = rate_table(true)))
			return hwp__set_error(ENOMEM, "out of memory");
		for (size_t i = 0; i < n; i++)
			rate_rows(t, sym, &blocks[idx[i]], src, true);
		rc = hwp__report_print(t, fmt, out);
		hwp_table__delete(t);
		return rc;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		const struct hwp_timing_block *b = &blocks[idx[i]];
		char ipc[64] = "";

		hwp_report__timing_block_name(sym, &b->start, &b->end, name, sizeof(name));
		if (b->insns)
			snprintf(ipc, sizeof(ipc), "; %" PRIu32 " instructions, IPC %.2f", b->insns, b->ipc);
		fprintf(out, "%s# block %s\n# %" PRIu64 " samples, %s cycles: min %" PRIu32 ", median %" PRIu32
			", mean %.1f, p90 %" PRIu32 ", p99 %" PRIu32 ", max %" PRIu32 "; %zu mode%s%s\n#\n",
			i ? "\n" : "", name, b->d.samples, hwp_report__cycles_name(src), b->d.min, b->d.median,
			b->d.mean, b->d.p90, b->d.p99, b->d.max, b->d.nmodes, b->d.nmodes == 1 ? "" : "s", ipc);
		if (!(t = rate_table(false)))
			return hwp__set_error(ENOMEM, "out of memory");
		rate_rows(t, sym, b, src, false);
		fflush(out);
		rc = hwp__report_print(t, fmt, out);
		hwp_table__delete(t);
	}
	return rc;
}

struct hwp_chart *hwp_report__timing_chart(const char *title, const struct hwp_timing_dist *d,
					   enum hwp_cycles_source src, const char *what)
{
	char sub[512], tip[128], note[256];
	struct hwp_chart_opts co = { .sz = sizeof(co), .title = title, .subtitle = sub };
	double top = 0;

	snprintf(sub, sizeof(sub), "%s: %" PRIu64 " samples, median %" PRIu32 ", mean %.1f, p99 %" PRIu32
		 " cycles", what, d->samples, d->median, d->mean, d->p99);
	struct hwp_chart *c = hwp__chart_new(&co);
	if (!c)
		return NULL;
	/* A long thin tail would squeeze the peaks into a corner: the axis ends
	   past the 99.5th percentile and the last mode, and a note counts the
	   samples beyond it. */
	uint64_t seen = 0, beyond = 0;
	uint32_t cut = d->max;
	for (size_t v = 0; v < d->nvalues; v++) {
		seen += d->values[v].samples;
		if (seen * 1000 >= d->samples * 995) {
			cut = d->values[v].cycles;
			break;
		}
	}
	for (size_t m = 0; m < d->nmodes; m++)
		if (d->modes[m].cycles > cut)
			cut = d->modes[m].cycles;
	cut = cut + cut / 10 + 1;
	if (cut >= d->max)
		cut = d->max;
	for (size_t v = 0; v < d->nvalues; v++) {
		double rate = 100.0 * (double)d->values[v].samples / (double)d->samples;

		if (d->values[v].cycles > cut)
			beyond += d->values[v].samples;
		else if (rate > top)
			top = rate;
	}
	double lo = d->min > 0 ? d->min - 0.5 : 0, hi = cut + 0.5;
	int err = hwp__chart_axis(c, HWP_CHART_X, src == HWP_CYCLES_MODELLED ? "cycles (modelled)" : "cycles",
				  lo, hi, HWP_AXIS_INTEGER);
	if (!err)
		err = hwp__chart_axis(c, HWP_CHART_Y, "occurrence rate", 0, top > 0 ? top * 1.08 : 1,
				      HWP_AXIS_PERCENT);
	for (size_t v = 0; v < d->nvalues && !err && d->values[v].cycles <= cut; v++) {
		double rate = 100.0 * (double)d->values[v].samples / (double)d->samples;

		snprintf(tip, sizeof(tip), "%" PRIu32 " cycles: %" PRIu64 " samples (%.2f%%)", d->values[v].cycles,
			 d->values[v].samples, rate);
		err = hwp__chart_bar(c, d->values[v].cycles - 0.5, d->values[v].cycles + 0.5, rate, 0, tip);
	}
	for (size_t m = 0; m < d->nmodes && !err; m++) {
		snprintf(tip, sizeof(tip), "mode %" PRIu32 " (%.0f%%)", d->modes[m].cycles,
			 100.0 * (double)d->modes[m].samples / (double)d->samples);
		err = hwp__chart_mark(c, d->modes[m].cycles, 1, tip);
	}
	snprintf(note, sizeof(note), "%s", src == HWP_CYCLES_MODELLED
		 ? "Cycles are modelled by hwprof's emulator (a cost model), not measured on hardware."
		 : "Cycles measured by the CPU's branch records (LBR): the time since the previous taken branch.");
	if (!err && beyond) {
		char tail[160];

		snprintf(tail, sizeof(tail), "%" PRIu64 " samples (%.2f%%) above %" PRIu32 " cycles, up to %" PRIu32
			 ", are not drawn.", beyond, 100.0 * (double)beyond / (double)d->samples, cut, d->max);
		err = hwp__chart_note(c, tail);
	}
	if (!err)
		err = hwp__chart_note(c, note);
	if (err) {
		hwp__chart_delete(c);
		return NULL;
	}
	return c;
}
