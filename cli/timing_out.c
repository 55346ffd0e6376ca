/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "hwprof/report.h"
#include "timing_out.h"
#include "hwprof/branch_report.h"
#include "hwprof/chart.h"
#include "hwprof/outbuf.h"

const char *timing_source_name(enum hwp_cycles_source src)
{
	return src == HWP_CYCLES_MODELLED ? "modelled" : src == HWP_CYCLES_MEASURED ? "measured" : "none";
}

void timing_block_name(struct hwp_symbolizer *sym, const struct hwp_code_loc *start,
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

enum { R_CYCLES, R_SAMPLES, R_RATE, R_CUM, R_MODE, R_SOURCE, R_START_ADDR, R_NCOLS };

static const struct {
	const char *title, *key;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
} rcols[R_NCOLS] = {
	[R_CYCLES] = { "Cycles", "cycles", HWP_COL_COUNT, HWP_SHOW_ALL },
	[R_SAMPLES] = { "Samples", "samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	[R_RATE] = { "Rate", "rate_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[R_CUM] = { "Cumulative", "cumulative_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[R_MODE] = { "Mode", "mode", HWP_COL_COUNT, HWP_SHOW_ALL },
	[R_SOURCE] = { "Cycles Source", "cycles_source", HWP_COL_TEXT, HWP_SHOW_DATA },
	[R_START_ADDR] = { "Start Address", "start_addr", HWP_COL_HEX, HWP_SHOW_DATA },
};

static struct hwp_table *rate_table(bool data)
{
	struct hwp_table *t = hwp_table__new();

	if (!t)
		return NULL;
	for (size_t k = 0; k < R_NCOLS; k++)
		hwp_table__add_column_shown(t, rcols[k].title, rcols[k].key, rcols[k].kind, rcols[k].show);
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
		hwp_table__set_text(t, R_SOURCE, timing_source_name(src));
		if (!data)
			continue;
		hwp_table__set_count(t, R_START_ADDR, b->start.addr);
		hwp_table__set_count(t, R_NCOLS, b->end.addr);
		hwp_report__set_loc(t, R_NCOLS + 1, sym, &b->start);
		hwp_report__set_loc(t, R_NCOLS + 1 + HWP_REPORT_LOC_COLUMNS, sym, &b->end);
	}
}

int timing_print_rates(struct hwp_symbolizer *sym, const struct hwp_timing_block *blocks, const size_t *idx,
		       size_t n, enum hwp_cycles_source src, enum hwp_table_format fmt)
{
	bool data = fmt != HWP_TABLE_TEXT;
	struct hwp_table *t = NULL;
	char name[2048];
	int rc = 0;

	if (data) {
		if (!(t = rate_table(true)))
			return cli_error("out of memory");
		for (size_t i = 0; i < n; i++)
			rate_rows(t, sym, &blocks[idx[i]], src, true);
		rc = report_print_table(t, fmt);
		hwp_table__delete(t);
		return rc;
	}
	for (size_t i = 0; i < n && !rc; i++) {
		const struct hwp_timing_block *b = &blocks[idx[i]];

		char ipc[64] = "";

		timing_block_name(sym, &b->start, &b->end, name, sizeof(name));
		if (b->insns)
			snprintf(ipc, sizeof(ipc), "; %" PRIu32 " instructions, IPC %.2f", b->insns, b->ipc);
		printf("%s# block %s\n# %" PRIu64 " samples, %s cycles: min %" PRIu32 ", median %" PRIu32
		       ", mean %.1f, p90 %" PRIu32 ", p99 %" PRIu32 ", max %" PRIu32 "; %zu mode%s%s\n#\n",
		       i ? "\n" : "", name, b->d.samples, timing_source_name(src), b->d.min, b->d.median, b->d.mean,
		       b->d.p90, b->d.p99, b->d.max, b->d.nmodes, b->d.nmodes == 1 ? "" : "s", ipc);
		if (!(t = rate_table(false)))
			return cli_error("out of memory");
		rate_rows(t, sym, b, src, false);
		fflush(stdout);
		rc = report_print_table(t, fmt);
		hwp_table__delete(t);
	}
	return rc;
}

struct hwp_chart *timing_chart(const char *title, const struct hwp_timing_dist *d, enum hwp_cycles_source src,
				const char *what)
{
	char sub[512], tip[128], note[256];
	struct hwp_chart_opts co = { .sz = sizeof(co), .title = title, .subtitle = sub };
	double top = 0;

	snprintf(sub, sizeof(sub), "%s: %" PRIu64 " samples, median %" PRIu32 ", mean %.1f, p99 %" PRIu32
		 " cycles", what, d->samples, d->median, d->mean, d->p99);
	struct hwp_chart *c = hwp_chart__new(&co);
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
	int err = hwp_chart__axis(c, HWP_CHART_X, src == HWP_CYCLES_MODELLED ? "cycles (modelled)" : "cycles",
				  lo, hi, HWP_AXIS_INTEGER);
	if (!err)
		err = hwp_chart__axis(c, HWP_CHART_Y, "occurrence rate", 0, top > 0 ? top * 1.08 : 1,
				      HWP_AXIS_PERCENT);
	for (size_t v = 0; v < d->nvalues && !err && d->values[v].cycles <= cut; v++) {
		double rate = 100.0 * (double)d->values[v].samples / (double)d->samples;

		snprintf(tip, sizeof(tip), "%" PRIu32 " cycles: %" PRIu64 " samples (%.2f%%)", d->values[v].cycles,
			 d->values[v].samples, rate);
		err = hwp_chart__bar(c, d->values[v].cycles - 0.5, d->values[v].cycles + 0.5, rate, 0, tip);
	}
	for (size_t m = 0; m < d->nmodes && !err; m++) {
		snprintf(tip, sizeof(tip), "mode %" PRIu32 " (%.0f%%)", d->modes[m].cycles,
			 100.0 * (double)d->modes[m].samples / (double)d->samples);
		err = hwp_chart__mark(c, d->modes[m].cycles, 1, tip);
	}
	snprintf(note, sizeof(note), "%s", src == HWP_CYCLES_MODELLED
		 ? "Cycles are modelled by hwprof's emulator (a cost model), not measured on hardware."
		 : "Cycles measured by the CPU's branch records (LBR): the time since the previous taken branch.");
	if (!err && beyond) {
		char tail[160];

		snprintf(tail, sizeof(tail), "%" PRIu64 " samples (%.2f%%) above %" PRIu32 " cycles, up to %" PRIu32
			 ", are not drawn.", beyond, 100.0 * (double)beyond / (double)d->samples, cut, d->max);
		err = hwp_chart__note(c, tail);
	}
	if (!err)
		err = hwp_chart__note(c, note);
	if (err) {
		hwp_chart__delete(c);
		return NULL;
	}
	return c;
}

int timing_write_svg(const char *path, const char *title, const struct hwp_timing_dist *d,
		     enum hwp_cycles_source src, const char *what)
{
	struct hwp_chart *c = timing_chart(title, d, src, what);

	if (!c)
		return cli_error("%s", hwp_errmsg());
	FILE *fp = fopen(path, "w");
	if (!fp) {
		hwp_chart__delete(c);
		return cli_error("%s: %s", path, strerror(errno));
	}
	struct hwp_outbuf o;
	if (hwp_outbuf__init(&o, fp) < 0) {
		fclose(fp);
		hwp_chart__delete(c);
		return cli_error("out of memory");
	}
	hwp_chart__render(c, &o);
	hwp_chart__delete(c);
	int werr = hwp_outbuf__finish(&o);
	if (fclose(fp) && !werr)
		werr = -errno;
	if (werr)
		return cli_error("%s: error writing: %s", path, hwp_strerror(werr));
	return 0;
}
