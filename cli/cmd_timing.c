/* SPDX-License-Identifier: MIT */
/* hwprof timing: basic-block latency distributions, loop iteration times, IPC. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "timing_out.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/timing.h"

static const struct cmd_desc desc = {
	.name = "timing",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"How long basic blocks take, in cycles, from the cycle counts of branch records\n"
		"(Intel LBR, Skylake and later): an entry's count is the time since the entry\n"
		"before it, so it is the latency of the code that ran straight through between\n"
		"them. Per block: latency samples, min, median, mean, p90, p99, max, the modes\n"
		"(peaks) of the distribution, instructions and IPC, by total cycles. Counts of 0\n"
		"(unknown) are left out. Cycles of emulated recordings are modelled, and said so.\n",
};

struct timing_opts {
	struct flow_opts f;
	const char *block, *svg;
	bool histograms, loops;
};

static int parse_opts(int argc, char **argv, struct timing_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->f.ro),
		OPT_STRING(0, "block", &o->block, "WHERE",
			   "the occurrence-rate table (cycles, samples, rate) of the blocks containing WHERE: an "
			   "address (0x4005d0, as recorded or the ELF address), SYM or SYM+OFF, or FILE:LINE"),
		OPT_BOOL(0, "histograms", &o->histograms, "the occurrence-rate rows of every block shown"),
		OPT_BOOL(0, "loops", &o->loops,
			 "per loop back edge: cycles per iteration, for iterations whose every branch lies in one stack"),
		OPT_STRING(0, "svg", &o->svg, "FILE",
			   "draw the occurrence-rate chart, modes marked, of the first block shown (or loop, with "
			   "--loops) to FILE"),
		OPT_FLOW_FILTER(&o->f),
		OPT_REPORT_OUTPUT(&o->f.ro),
		OPT_COMMON(),
		OPT_END(),
	};
	int rc;

	memset(o, 0, sizeof(*o));
	flow_opts__init(&o->f);
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	if (o->loops && (o->block || o->histograms))
		return cli_error("timing: --loops times back edges; --block and --histograms show blocks");
	return -1;
}

/* Why a recording has no cycle counts, plainly. */
static int say_no_cycles(const char *input, const struct hwp_timing_stats *st)
{
	/* the most specific first: a filter the recording chose, then the source */
	const char *why = st->no_cycles_filter ? "it was recorded with no_cycles (-j ...,no_cycles)"
			  : st->synthesized ? "its branch stacks were synthesized from an instruction trace (Arm ETM or "
					      "Intel PT through 'perf inject'), which carries no cycle counts"
			  : st->amd ? "it was recorded on an AMD CPU, whose branch records (LBRv2, BRS) carry no cycle counts"
			  : st->call_stack && !st->stacks ? "its stacks are LBR call stacks (call chains), recorded without cycles"
			  : "every entry's count is 0 (unknown): Intel CPUs record LBR cycles from Skylake on";

	return cli_error("%s: the branch records carry no cycle counts: %s. There is nothing to time "
			 "(hwprof branches and hwprof probs work without cycles)", input, why);
}

struct timing_input {
	struct report_input in;
	struct hwp_timing *t;
	enum hwp_cycles_source src;
};

static int load(struct timing_input *ti, const struct timing_opts *o)
{
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .ranges = true, .no_addresses = true,
					      .drop_meaningless_prediction = true };
	struct hwp_timing_opts to = { .sz = sizeof(to), .loops = o->loops };
	int rc;

	memset(ti, 0, sizeof(*ti));
	/* LBR call-stack recordings are refused by the range counting; they carry no cycles anyway */
	if ((rc = report_input__open(&ti->in, &o->f.ro, &co)))
		return rc;
	if (!(ti->t = hwp_timing__new(ti->in.session, ti->in.collector, &to)) || hwp_timing__read(ti->t) < 0)
		return cli_error("%s", hwp_errmsg());
	if ((rc = report_input__check_read(&ti->in, &o->f.ro)))
		return rc;
	if (o->f.dso && (rc = report_input__check_dso(&ti->in, "timing", o->f.ro.input, o->f.dso)))
		return rc;
	const struct hwp_timing_stats *st = hwp_timing__stats(ti->t);
	ti->src = hwp_timing__source(ti->t);
	if (ti->src == HWP_CYCLES_NONE)
		return say_no_cycles(o->f.ro.input, st);
	if (!st->latencies && !st->iterations)
		return cli_error("%s: no block latency: of %" PRIu64 " pairs of consecutive branch entries, %" PRIu64
				 " have a range that cannot be used ('hwprof ranges --stats' says why) and %" PRIu64
				 " have no cycle count%s", o->f.ro.input, st->pairs, st->rejected, st->unknown_cycles,
				 st->filtered_stacks ? "; stacks recorded with a branch filter other than 'any' are not "
						       "sequences of branches" : "");
	if (st->modelled && st->measured)
		cli_warn("%s mixes modelled (emulated) and measured cycles", o->f.ro.input);
	if (st->dropped_by_decoding)
		cli_warn("%" PRIu64 " latency samples dropped: their ranges could not have run straight through "
			 "(decoded)", st->dropped_by_decoding);
	return 0;
}

static void close_input(struct timing_input *ti)
{
	hwp_timing__delete(ti->t);
	report_input__close(&ti->in);
}

enum {
	T_SAMPLES, T_SHARE, T_MIN, T_MEDIAN, T_MEAN, T_P90, T_P99, T_MAX, T_MODES, T_INSNS, T_IPC, T_BLOCK,
	T_SRC, T_LAST_SRC, T_SOURCE, T_TOTAL, T_MODE_CYCLES, T_NMODES, T_START_ADDR, T_END_ADDR, T_NCOLS
};

static const struct {
	const char *title, *key;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
} cols[T_NCOLS] = {
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

/* "12 (80%), 250 (20%)" for people; "12:80.0;250:20.0" for programs. */
static void format_modes(const struct hwp_timing_dist *d, bool data, char *buf, size_t len)
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
	format_modes(d, data, buf, sizeof(buf));
	hwp_table__set_text(t, T_MODES, buf);
	if (data) {
		hwp_table__set_count(t, T_TOTAL, d->cycles_sum);
		if (d->nmodes)
			hwp_table__set_count(t, T_MODE_CYCLES, d->modes[0].cycles);
		hwp_table__set_count(t, T_NMODES, d->nmodes);
	}
}

static struct hwp_table *new_table(bool loops)
{
	struct hwp_table *t = hwp_table__new();

	if (!t)
		return NULL;
	for (size_t k = 0; k < T_NCOLS; k++) {
		const char *title = cols[k].title, *key = cols[k].key;

		/* the same columns name a loop's parts */
		if (loops && k == T_BLOCK)
			title = "Back Edge", key = "back_edge";
		else if (loops && k == T_INSNS)
			title = "Branches/Iter", key = "branches_per_iteration";
		else if (loops && k == T_START_ADDR)
			title = "Branch Address", key = "branch_addr";
		else if (loops && k == T_END_ADDR)
			title = "Head Address", key = "head_addr";
		hwp_table__add_column_shown(t, title, key, loops && k == T_INSNS ? HWP_COL_REAL : cols[k].kind,
					    cols[k].show);
	}
	hwp_report__add_loc_columns(t, loops ? HWP_LOC_FROM : HWP_LOC_START);
	hwp_report__add_loc_columns(t, loops ? HWP_LOC_TO : HWP_LOC_END);
	return t;
}

static void header_line(const struct timing_input *ti, const char *what)
{
	const struct hwp_timing_stats *st = hwp_timing__stats(ti->t);

	printf("# %s; cycles %s%s\n# %" PRIu64 " latency samples from %" PRIu64 " stacks (%" PRIu64
	       " pairs of consecutive entries: %" PRIu64 " with an unusable range, %" PRIu64
	       " with unknown cycles)\n#\n",
	       what, timing_source_name(ti->src),
	       ti->src == HWP_CYCLES_MODELLED ? " by the emulator's cost model, not measured on hardware"
					      : " by the CPU's branch records",
	       st->latencies - st->dropped_by_decoding, st->stacks, st->pairs, st->rejected, st->unknown_cycles);
	fflush(stdout);
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

struct hwp_table *timing_blocks_table(struct hwp_symbolizer *sym, struct hwp_timing *tm, const size_t *idx,
				      size_t n, enum hwp_table_format fmt)
{
	bool data = !table_for_people(fmt);
	size_t nb;
	const struct hwp_timing_block *b = hwp_timing__blocks(tm, &nb);
	enum hwp_cycles_source src = hwp_timing__source(tm);
	struct hwp_table *t = new_table(false);
	uint64_t total = 0;
	char buf[1024];

	if (!t)
		return NULL;
	for (size_t i = 0; i < nb; i++)
		total += b[i].d.cycles_sum;
	for (size_t k = 0; k < n; k++) {
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
		hwp_table__set_text(t, T_SOURCE, timing_source_name(src));
		hwp_table__set_count(t, T_START_ADDR, r->start.addr);
		hwp_table__set_count(t, T_END_ADDR, r->end.addr);
		hwp_report__set_loc(t, T_NCOLS, sym, &r->start);
		hwp_report__set_loc(t, T_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &r->end);
	}
	return t;
}

static int print_blocks(struct timing_input *ti, const struct timing_opts *o)
{
	struct hwp_symbolizer *sym = report_input__symbolizer(&ti->in);
	bool data = o->f.ro.fmt != HWP_TABLE_TEXT;
	size_t n, shown = 0, *idx;
	const struct hwp_timing_block *b = hwp_timing__blocks(ti->t, &n);
	char buf[1024];
	int rc = 0;

	if (!(idx = calloc(n ? n : 1, sizeof(*idx))))
		return cli_error("out of memory");
	size_t timed = n;

	if (o->block) {
		int found = hwp_timing__find(ti->t, o->block, idx, n);

		if (found < 0) {
			free(idx);
			return cli_error("timing: --block %s", hwp_errmsg());
		}
		n = (size_t)found;
		if (!n) {
			free(idx);
			return cli_error("%s: no timed block contains %s (%zu blocks timed; 'hwprof timing' lists them)",
					 o->f.ro.input, o->block, timed);
		}
	} else {
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
	}
	/* --dso, --sym, --min-executions, --limit */
	for (size_t i = 0; i < n && shown < o->f.limit; i++)
		if (b[idx[i]].d.samples >= o->f.min && flow_input__keep_loc(sym, &o->f, &b[idx[i]].start))
			idx[shown++] = idx[i];
	if (o->svg && shown) {
		char title[1100];

		timing_block_name(sym, &b[idx[0]].start, &b[idx[0]].end, buf, sizeof(buf));
		snprintf(title, sizeof(title), "Block latency: %s", buf);
		if ((rc = timing_write_svg(o->svg, title, &b[idx[0]].d, ti->src, "one basic block")))
			goto out;
	} else if (o->svg) {
		cli_warn("no block to draw: %s not written", o->svg);
	}
	if (o->block || o->histograms) {
		rc = timing_print_rates(sym, b, idx, shown, ti->src, o->f.ro.fmt);
		goto out;
	}
	struct hwp_table *t = timing_blocks_table(sym, ti->t, idx, shown, o->f.ro.fmt);
	if (!t) {
		rc = cli_error("out of memory");
		goto out;
	}
	report_input__warn_missing(&ti->in, true);
	if (!data)
		header_line(ti, "basic blocks by total cycles");
	rc = report_print_table(t, o->f.ro.fmt);
	hwp_table__delete(t);
out:
	free(idx);
	return rc;
}

static int print_loops(struct timing_input *ti, const struct timing_opts *o)
{
	struct hwp_symbolizer *sym = report_input__symbolizer(&ti->in);
	bool data = o->f.ro.fmt != HWP_TABLE_TEXT;
	size_t n, shown = 0;
	const struct hwp_timing_loop *l = hwp_timing__loops(ti->t, &n);
	uint64_t total = 0;
	char buf[1024], head[512];
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		total += l[i].d.cycles_sum;
	struct hwp_table *t = new_table(true);
	if (!t)
		return cli_error("out of memory");
	for (size_t i = 0; i < n && shown < o->f.limit; i++) {
		const struct hwp_timing_loop *r = &l[i];

		if (r->d.samples < o->f.min || !flow_input__keep_loc(sym, &o->f, &r->branch))
			continue;
		if (o->svg && !shown) {
			char title[1600];

			hwp_loc__format_addr(sym, &r->branch, buf, sizeof(buf));
			hwp_loc__format_addr(sym, &r->head, head, sizeof(head));
			snprintf(title, sizeof(title), "Loop iteration time: %s -> %s", buf, head);
			if ((rc = timing_write_svg(o->svg, title, &r->d, ti->src, "iterations of one loop")))
				break;
		}
		shown++;
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
		hwp_table__set_text(t, T_SOURCE, timing_source_name(ti->src));
		hwp_table__set_count(t, T_START_ADDR, r->branch.addr);
		hwp_table__set_count(t, T_END_ADDR, r->head.addr);
		hwp_report__set_loc(t, T_NCOLS, sym, &r->branch);
		hwp_report__set_loc(t, T_NCOLS + HWP_REPORT_LOC_COLUMNS, sym, &r->head);
	}
	if (!rc && o->svg && !shown)
		cli_warn("no loop to draw: %s not written", o->svg);
	if (!rc) {
		report_input__warn_missing(&ti->in, true);
		if (!data) {
			printf("# %" PRIu64 " loop iterations timed (whole inside one stack)\n",
			       hwp_timing__stats(ti->t)->iterations);
			header_line(ti, "loop back edges by total cycles per iteration");
		}
		rc = report_print_table(t, o->f.ro.fmt);
	}
	hwp_table__delete(t);
	return rc;
}

int cmd_timing(int argc, char **argv)
{
	struct timing_opts o;
	struct timing_input ti;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	rc = load(&ti, &o);
	if (!rc)
		rc = o.loops ? print_loops(&ti, &o) : print_blocks(&ti, &o);
	close_input(&ti);
	return rc;
}
