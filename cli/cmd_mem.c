/* SPDX-License-Identifier: MIT */
/* hwprof mem: load latency and data sources of precise memory samples. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "mem_svg.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/mem.h"
#include "hwprof/session.h"

static const struct cmd_desc desc = {
	.name = "mem",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"Precise memory samples (Intel PEBS load latency and stores: DATA_SRC with\n"
		"WEIGHT or WEIGHT_STRUCT and ADDR; AMD IBS op samples; hwprof's emulated\n"
		"memory samples): totals, a log2 latency histogram, the breakdown by data\n"
		"source (L1, fill buffer, L2, L3, L3 HITM, peer cache, local and remote\n"
		"DRAM, remote cache, PMEM, CXL, I/O, uncached), then one table by KEY.\n"
		"Latency is the sample's weight in core cycles (IBS: DcMissLat, or\n"
		"tag-to-retire for ops that hit the data cache). Emulated recordings say\n"
		"their values are modelled.\n",
};

enum { SORT_HIST = HWP_MEM_KEY__COUNT };

struct mem_opts {
	struct report_opts r;
	int sort;
	bool loads, stores;
	unsigned cache_line;
	uint64_t limit;
	const char *svg;
	const char *symbol, *srcline;
};

/* -s KEY: names and the table each selects (sym and srcline as perf spells them) */
static const char *const sort_names[] = { "symbol", "sym", "line", "srcline", "ip", "addr", "cacheline",
					  "object", "source", "hist", NULL };
static const int sort_keys[] = { HWP_MEM_BY_SYMBOL, HWP_MEM_BY_SYMBOL, HWP_MEM_BY_LINE, HWP_MEM_BY_LINE,
				 HWP_MEM_BY_IP, HWP_MEM_BY_ADDR, HWP_MEM_BY_CACHELINE, HWP_MEM_BY_OBJECT,
				 HWP_MEM_BY_SOURCE, SORT_HIST };

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct mem_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT_AS(&o->r, "perf.data (default: perf.data)"),
		{ .kind = OPT_KIND_CHOICE, .short_name = 's', .long_name = "sort", .value = &o->sort, .argh = "KEY",
		  .choices = sort_names, .ivals = sort_keys,
		  .err = ": one of symbol, line, ip, addr, cacheline, object, source, hist",
		  .help = "the table: symbol (default), line, ip, addr, cacheline, object (data symbol or region: "
			  "[heap], [stack], anon, a file), source, hist" },
		OPT_BOOL(0, "loads", &o->loads, "only loads"),
		OPT_BOOL(0, "stores", &o->stores, "only stores"),
		OPT_CACHE_LINE(&o->cache_line),
		OPT_STRING(0, "symbol", &o->symbol, "NAME", "with -s hist: the histogram of one function's samples"),
		OPT_STRING(0, "srcline", &o->srcline, "F:N",
			   "with -s hist: the histogram of one source line's samples (F: the file's name or a "
			   "trailing part of its path)"),
		OPT_REPORT_LIMIT(&o->limit),
		OPT_STRING(0, "svg", &o->svg, "FILE", "also draw the latency histogram, stacked by data source"),
		OPT_REPORT_OUTPUT(&o->r),
		OPT_COMMON(),
		OPT_END(),
	};
	int rc;

	memset(o, 0, sizeof(*o));
	report_opts__init(&o->r);
	o->sort = HWP_MEM_BY_SYMBOL;
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	if (o->loads && o->stores)
		return cli_error("mem: --loads and --stores exclude each other");
	if ((o->symbol || o->srcline) && o->sort != SORT_HIST)
		return cli_error("mem: --symbol and --srcline select the histogram of -s hist");
	if (o->symbol && o->srcline)
		return cli_error("mem: --symbol and --srcline exclude each other");
	if (o->srcline) {
		const char *colon = strrchr(o->srcline, ':');
		char *end;
		if (!colon || colon == o->srcline || !colon[1] || (strtoul(colon + 1, &end, 10), *end))
			return cli_error("mem: --srcline '%s': FILE:LINE", o->srcline);
	}
	return -1;
}

static double avg(uint64_t sum, uint64_t n)
{
	return n ? (double)sum / (double)n : 0.0;
}

/* "64-127" for bucket 6; the last bucket is open. */
static void bucket_range(unsigned b, char *buf, size_t len)
{
	if (b == 0)
		snprintf(buf, len, "0-1");
	else if (b == HWP_MEM_HIST_BUCKETS - 1)
		snprintf(buf, len, "%llu+", 1ull << b);
	else
		snprintf(buf, len, "%llu-%llu", 1ull << b, (1ull << (b + 1)) - 1);
}

/* The summary, histogram and source breakdown as '#' lines (text only). */
static void print_overview(const struct hwp_mem_report *r, const char *input)
{
	const struct hwp_mem_stats *t = hwp_mem_report__totals(r);
	const uint64_t (*hs)[HWP_MEM_SRC__COUNT] = hwp_mem_report__hist_by_source(r);
	uint64_t peak = 0;
	unsigned lo = HWP_MEM_HIST_BUCKETS, hi = 0;

	printf("# %s: %" PRIu64 " memory samples (%" PRIu64 " loads, %" PRIu64 " stores), %" PRIu64
	       " HITM; latency avg %.1f, max %" PRIu64 " cycles%s\n",
	       input, t->samples, t->loads, t->stores, t->hitm, avg(t->lat_sum, t->samples), t->lat_max,
	       hwp_mem_report__modelled(r) ? " (modelled: emulated recording)" : "");
	if (!t->samples)
		return;
	printf("#\n# %-14s %10s %8s %10s\n", "data source", "samples", "share", "avg lat");
	for (int s = 0; s < HWP_MEM_SRC__COUNT; s++)
		if (t->by_source[s])
			printf("# %-14s %10" PRIu64 " %7.2f%% %10.1f\n", hwp_mem_source__name(s), t->by_source[s],
			       100.0 * (double)t->by_source[s] / (double)t->samples,
			       avg(t->lat_by_source[s], t->by_source[s]));
	for (unsigned b = 0; b < HWP_MEM_HIST_BUCKETS; b++)
		if (t->hist[b]) {
			if (b < lo)
				lo = b;
			hi = b;
			if (t->hist[b] > peak)
				peak = t->hist[b];
		}
	printf("#\n# %-12s %10s  %s\n", "latency", "samples", "(bar: share of the largest bucket; "
	       "then the bucket's main data source)");
	for (unsigned b = lo; b <= hi; b++) {
		char range[48], bar[41];
		int w = peak ? (int)(40 * t->hist[b] / peak) : 0, best = 0;
		for (int s = 1; s < HWP_MEM_SRC__COUNT; s++)
			if (hs[b][s] > hs[b][best])
				best = s;
		memset(bar, '#', (size_t)w);
		bar[w] = '\0';
		bucket_range(b, range, sizeof(range));
		printf("# %-12s %10" PRIu64 "  %-40s %s\n", range, t->hist[b], bar,
		       t->hist[b] ? hwp_mem_source__name(best) : "");
	}
	printf("#\n");
}

static struct hwp_table *hist_table(const struct hwp_mem_report *r)
{
	const struct hwp_mem_stats *t = hwp_mem_report__totals(r);
	const uint64_t (*hs)[HWP_MEM_SRC__COUNT] = hwp_mem_report__hist_by_source(r);
	struct hwp_table *tab = hwp_table__new();

	if (!tab)
		return NULL;
	hwp_table__add_column(tab, "Latency", "latency", HWP_COL_TEXT);
	hwp_table__add_column_shown(tab, "Min", "min", HWP_COL_COUNT, HWP_SHOW_DATA);
	hwp_table__add_column(tab, "Samples", "samples", HWP_COL_COUNT);
	for (int s = 0; s < HWP_MEM_SRC__COUNT; s++)
		hwp_table__add_column(tab, hwp_mem_source__name(s), hwp_mem_source__key(s), HWP_COL_COUNT);
	for (unsigned b = 0; b < HWP_MEM_HIST_BUCKETS; b++) {
		char range[48];
		if (!t->hist[b])
			continue;
		bucket_range(b, range, sizeof(range));
		hwp_table__new_row(tab);
		hwp_table__set_text(tab, 0, range);
		hwp_table__set_count(tab, 1, b ? 1ull << b : 0);
		hwp_table__set_count(tab, 2, t->hist[b]);
		for (int s = 0; s < HWP_MEM_SRC__COUNT; s++)
			hwp_table__set_count(tab, 3 + (size_t)s, hs[b][s]);
	}
	return tab;
}

/* True when FILE (a path) names the file F: equal, or ending in "/F". */
static bool file_matches(const char *file, const char *f, size_t flen)
{
	size_t n = file ? strlen(file) : 0;

	return n >= flen && !strncmp(file + n - flen, f, flen) && (n == flen || file[n - flen - 1] == '/');
}

/* The histogram of one function's or one line's samples (their groups'
   histograms summed); NULL with *NONE set when no sample is there. */
static struct hwp_table *selected_hist_table(struct hwp_mem_report *r, const struct mem_opts *o, bool *none)
{
	const struct hwp_mem_group *g;
	size_t n = hwp_mem_report__groups(r, o->symbol ? HWP_MEM_BY_SYMBOL : HWP_MEM_BY_LINE, &g);
	const char *colon = o->srcline ? strrchr(o->srcline, ':') : NULL;
	unsigned line = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
	uint64_t hist[HWP_MEM_HIST_BUCKETS] = { 0 }, total = 0;
	struct hwp_table *tab;

	*none = false;
	if (n == (size_t)-1)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool in = o->symbol ? g[i].symbol && !strcmp(g[i].symbol, o->symbol)
				    : g[i].line == line &&
					      file_matches(g[i].file, o->srcline, (size_t)(colon - o->srcline));
		for (unsigned b = 0; in && b < HWP_MEM_HIST_BUCKETS; b++) {
			hist[b] += g[i].st.hist[b];
			total += g[i].st.hist[b];
		}
	}
	if (!total) {
		*none = true;
		return NULL;
	}
	if (!(tab = hwp_table__new()))
		return NULL;
	hwp_table__add_column(tab, "Latency", "latency", HWP_COL_TEXT);
	hwp_table__add_column_shown(tab, "Min", "min", HWP_COL_COUNT, HWP_SHOW_DATA);
	hwp_table__add_column(tab, "Samples", "samples", HWP_COL_COUNT);
	hwp_table__add_column(tab, "Share", "share", HWP_COL_PERCENT);
	for (unsigned b = 0; b < HWP_MEM_HIST_BUCKETS; b++) {
		char range[48];
		if (!hist[b])
			continue;
		bucket_range(b, range, sizeof(range));
		hwp_table__new_row(tab);
		hwp_table__set_text(tab, 0, range);
		hwp_table__set_count(tab, 1, b ? 1ull << b : 0);
		hwp_table__set_count(tab, 2, hist[b]);
		hwp_table__set_real(tab, 3, 100.0 * (double)hist[b] / (double)total);
	}
	return tab;
}

/* Stats columns shared by every grouping. */
static size_t add_stat_columns(struct hwp_table *t)
{
	size_t first = hwp_table__columns(t);

	hwp_table__add_column(t, "Samples", "samples", HWP_COL_COUNT);
	hwp_table__add_column(t, "Share", "share", HWP_COL_PERCENT);
	hwp_table__add_column(t, "Loads", "loads", HWP_COL_COUNT);
	hwp_table__add_column(t, "Stores", "stores", HWP_COL_COUNT);
	hwp_table__add_column(t, "HITM", "hitm", HWP_COL_COUNT);
	hwp_table__add_column(t, "Avg lat", "avg_latency", HWP_COL_REAL);
	hwp_table__add_column(t, "Max lat", "max_latency", HWP_COL_COUNT);
	hwp_table__add_column_shown(t, "Lat sum", "latency_sum", HWP_COL_COUNT, HWP_SHOW_DATA);
	hwp_table__add_column_shown(t, "Top source", "top_source", HWP_COL_TEXT, HWP_SHOW_TEXT);
	for (int s = 0; s < HWP_MEM_SRC__COUNT; s++)
		hwp_table__add_column_shown(t, hwp_mem_source__key(s), hwp_mem_source__key(s), HWP_COL_COUNT,
					    HWP_SHOW_DATA);
	return first;
}

static void set_stats(struct hwp_table *t, size_t c, const struct hwp_mem_stats *st, uint64_t total)
{
	int best = 0;
	char top[48];

	hwp_table__set_count(t, c, st->samples);
	hwp_table__set_real(t, c + 1, total ? 100.0 * (double)st->samples / (double)total : 0.0);
	hwp_table__set_count(t, c + 2, st->loads);
	hwp_table__set_count(t, c + 3, st->stores);
	hwp_table__set_count(t, c + 4, st->hitm);
	hwp_table__set_real(t, c + 5, avg(st->lat_sum, st->samples));
	hwp_table__set_count(t, c + 6, st->lat_max);
	hwp_table__set_count(t, c + 7, st->lat_sum);
	for (int s = 1; s < HWP_MEM_SRC__COUNT; s++)
		if (st->by_source[s] > st->by_source[best])
			best = s;
	snprintf(top, sizeof(top), "%s %.0f%%", hwp_mem_source__name(best),
		 st->samples ? 100.0 * (double)st->by_source[best] / (double)st->samples : 0.0);
	hwp_table__set_text(t, c + 8, top);
	for (int s = 0; s < HWP_MEM_SRC__COUNT; s++)
		hwp_table__set_count(t, c + 9 + (size_t)s, st->by_source[s]);
}

static struct hwp_table *group_table(struct hwp_mem_report *r, int key, uint64_t limit)
{
	struct hwp_session *s = hwp_mem_report__session(r);
	struct hwp_symbolizer *sym = hwp_session__symbolizer(s);
	uint64_t total = hwp_mem_report__totals(r)->samples;
	const struct hwp_mem_group *g;
	size_t n = hwp_mem_report__groups(r, key, &g), c0, loc0 = 0;
	struct hwp_table *t;
	bool code = key == HWP_MEM_BY_SYMBOL || key == HWP_MEM_BY_LINE || key == HWP_MEM_BY_IP;
	bool data = key == HWP_MEM_BY_ADDR || key == HWP_MEM_BY_CACHELINE || key == HWP_MEM_BY_OBJECT;

	if (n == (size_t)-1 || !(t = hwp_table__new()))
		return NULL;
	c0 = add_stat_columns(t);
	size_t k0 = hwp_table__columns(t);
	if (key == HWP_MEM_BY_SOURCE) {
		hwp_table__add_column(t, "Data source", "source", HWP_COL_TEXT);
	} else if (code) {
		hwp_table__add_column_shown(t, key == HWP_MEM_BY_LINE ? "Source line" : "Symbol", "display",
					    HWP_COL_TEXT, HWP_SHOW_TEXT);
		hwp_table__add_column_shown(t, "Shared Object", "dso", HWP_COL_TEXT, HWP_SHOW_TEXT);
		loc0 = hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	} else if (data) {
		if (key != HWP_MEM_BY_OBJECT)
			hwp_table__add_column(t, key == HWP_MEM_BY_ADDR ? "Data address" : "Cache line",
					      "data_addr", HWP_COL_HEX);
		hwp_table__add_column(t, "Data object", "data_object", HWP_COL_TEXT);
		hwp_table__add_column_shown(t, "data_module", "data_module", HWP_COL_TEXT, HWP_SHOW_DATA);
		hwp_table__add_column_shown(t, "data_offset", "data_offset", HWP_COL_HEX, HWP_SHOW_DATA);
	}
	for (size_t i = 0; i < n && (!limit || i < limit); i++) {
		char buf[512];
		size_t k = k0;

		hwp_table__new_row(t);
		set_stats(t, c0, &g[i].st, total);
		if (key == HWP_MEM_BY_SOURCE) {
			hwp_table__set_text(t, k, hwp_mem_source__name(g[i].source));
		} else if (code) {
			if (key == HWP_MEM_BY_LINE)
				hwp_loc__format_srcline(sym, &g[i].code, buf, sizeof(buf));
			else if (key == HWP_MEM_BY_SYMBOL && g[i].symbol)
				snprintf(buf, sizeof(buf), "[%c] %s",
					 g[i].code.cpumode == HWP_MISC_KERNEL ? 'k' : '.', g[i].symbol);
			else
				hwp_loc__format_symbol(sym, &g[i].code, buf, sizeof(buf));
			hwp_table__set_text(t, k, buf);
			hwp_loc__format_dso(sym, &g[i].code, buf, sizeof(buf));
			hwp_table__set_text(t, k + 1, buf);
			hwp_report__set_loc(t, loc0, sym, &g[i].code);
		} else if (data) {
			const char *mod = g[i].data_module >= 0 && sym
						  ? hwp_symbolizer__module_name(sym, g[i].data_module) : NULL;
			if (key != HWP_MEM_BY_OBJECT)
				hwp_table__set_count(t, k++, g[i].data_addr);
			if (key == HWP_MEM_BY_OBJECT && g[i].symbol)
				snprintf(buf, sizeof(buf), "%s", g[i].symbol);
			else if (key != HWP_MEM_BY_OBJECT && g[i].data_module >= 0 && mod)
				snprintf(buf, sizeof(buf), "%s+0x%" PRIx64, mod, g[i].data_offset);
			else
				snprintf(buf, sizeof(buf), "%s", g[i].region ? g[i].region : "unknown");
			hwp_table__set_text(t, k, buf);
			hwp_table__set_text(t, k + 1, mod);
			if (key != HWP_MEM_BY_OBJECT)
				hwp_table__set_count(t, k + 2, g[i].data_offset);
		}
	}
	return t;
}

int cmd_mem(int argc, char **argv)
{
	struct mem_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = o.r.symfs };
	size_t ninputs;
	const char *const *inputs = report_opts__inputs(&o.r, &ninputs);
	struct hwp_session *s = hwp_session__open_inputs(inputs, ninputs, &so);
	if (!s)
		return cli_error("%s", hwp_errmsg());
	struct hwp_mem_report_opts mo = { .sz = sizeof(mo), .cache_line = o.cache_line,
					  .loads_only = o.loads, .stores_only = o.stores };
	struct hwp_mem_report *r = hwp_mem_report__new(s, &mo);
	struct hwp_table *t = NULL;
	bool none = false;

	if (!r) {
		rc = cli_error("%s", hwp_errmsg());
	} else if (hwp_mem_report__read(r) < 0) {
		rc = cli_error("%s", hwp_errmsg());
	} else if (hwp_mem_report__totals(r)->samples == 0) {
		rc = cli_error("%s: no memory samples (samples with a data source: record with "
			       "'hwprof record --mem', 'perf mem record' or 'perf record -d' on a "
			       "precise memory event)", o.r.input);
	} else if (!(t = o.sort != SORT_HIST ? group_table(r, o.sort, o.limit)
			 : o.symbol || o.srcline ? selected_hist_table(r, &o, &none) : hist_table(r))) {
		rc = none ? cli_error("%s: no memory samples in %s %s", o.r.input,
				      o.symbol ? "function" : "source line", o.symbol ? o.symbol : o.srcline)
			  : cli_error("%s", hwp_errmsg());
	} else if (o.svg && (rc = mem_write_svg(o.svg, o.r.input, r))) {
		/* the error is printed */
	} else {
		if (o.r.fmt == HWP_TABLE_TEXT) {
			print_overview(r, o.r.input);
			fflush(stdout);
		}
		rc = report_print_table(t, o.r.fmt);
	}
	hwp_table__delete(t);
	hwp_mem_report__delete(r);
	hwp_session__delete(s);
	return rc;
}
