/* SPDX-License-Identifier: MIT */
/* The memory reports' tables: samples grouped by code or data (hwprof mem),
   the latency histograms, and the cache lines shared between threads
   (hwprof c2c). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/branch_report.h"
#include "hwprof/perf_abi.h"
#include "output/render.h"
#include "report/report_internal.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

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
void hwp_report__print_mem_overview(const struct hwp_mem_report *r, const char *input, FILE *out)
{
	const struct hwp_mem_stats *t = hwp_mem_report__totals(r);
	const uint64_t (*hs)[HWP_MEM_SRC__COUNT] = hwp_mem_report__hist_by_source(r);
	uint64_t peak = 0;
	unsigned lo = HWP_MEM_HIST_BUCKETS, hi = 0;

	fprintf(out, "# %s: %" PRIu64 " memory samples (%" PRIu64 " loads, %" PRIu64 " stores), %" PRIu64
	       " HITM; latency avg %.1f, max %" PRIu64 " cycles%s\n",
	       input, t->samples, t->loads, t->stores, t->hitm, avg(t->lat_sum, t->samples), t->lat_max,
	       hwp_mem_report__modelled(r) ? " (modelled: emulated recording)" : "");
	if (!t->samples)
		return;
	fprintf(out, "#\n# %-14s %10s %8s %10s\n", "data source", "samples", "share", "avg lat");
	for (int s = 0; s < HWP_MEM_SRC__COUNT; s++)
		if (t->by_source[s])
			fprintf(out, "# %-14s %10" PRIu64 " %7.2f%% %10.1f\n", hwp_mem_source__name(s), t->by_source[s],
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
	fprintf(out, "#\n# %-12s %10s  %s\n", "latency", "samples", "(bar: share of the largest bucket; "
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
		fprintf(out, "# %-12s %10" PRIu64 "  %-40s %s\n", range, t->hist[b], bar,
		       t->hist[b] ? hwp_mem_source__name(best) : "");
	}
	fprintf(out, "#\n");
}

struct hwp_table *hwp_report__mem_histogram(const struct hwp_mem_report *r)
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
struct hwp_table *hwp_report__mem_selected_histogram(struct hwp_mem_report *r, const char *symbol,
						     const char *srcline, bool *none)
{
	const struct hwp_mem_group *g;
	size_t n = hwp_mem_report__groups(r, symbol ? HWP_MEM_BY_SYMBOL : HWP_MEM_BY_LINE, &g);
	const char *colon = srcline ? strrchr(srcline, ':') : NULL;
	unsigned line = colon ? (unsigned)strtoul(colon + 1, NULL, 10) : 0;
	uint64_t hist[HWP_MEM_HIST_BUCKETS] = { 0 }, total = 0;
	struct hwp_table *tab;

	*none = false;
	if (n == (size_t)-1)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool in = symbol ? g[i].symbol && !strcmp(g[i].symbol, symbol)
				    : g[i].line == line &&
					      file_matches(g[i].file, srcline, (size_t)(colon - srcline));
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

void hwp__report_data_type_text(const char *type, const char *member, bool stack_op, char *buf, size_t len)
{
	if (!type)
		snprintf(buf, len, "%s", stack_op ? "(stack operation)" : "unknown");
	else if (member)
		snprintf(buf, len, "%s.%s", type, member);
	else
		snprintf(buf, len, "%s", type);
}

void hwp__report_mem_p90(const struct hwp_mem_stats *st, char *buf, size_t len)
{
	uint64_t seen = 0, want = (st->samples * 9 + 9) / 10; /* the 90th percentile's rank */
	unsigned b = 0;

	for (; b < HWP_MEM_HIST_BUCKETS - 1; b++)
		if ((seen += st->hist[b]) >= want)
			break;
	bucket_range(b, buf, len);
}

void hwp_report__print_mem_typed(struct hwp_mem_report *r, FILE *out)
{
	uint64_t total = hwp_mem_report__totals(r)->samples, stack = 0;
	uint64_t typed = hwp_mem_report__typed(r, &stack);

	if (typed == (uint64_t)-1 || !total)
		return;
	fprintf(out, "# data types: %" PRIu64 " of %" PRIu64 " memory samples (%.1f%%) typed from DWARF; %" PRIu64
		" stack operations, %" PRIu64 " unknown\n",
		typed, total, 100.0 * (double)typed / (double)total, stack, total - typed - stack);
}

struct hwp_table *hwp_report__mem_groups(struct hwp_mem_report *r, int key, const struct hwp_report_opts *opts)
{
	struct hwp_session *s = hwp_mem_report__session(r);
	struct hwp_symbolizer *sym = hwp_session__symbolizer(s);
	uint64_t total = hwp_mem_report__totals(r)->samples;
	const struct hwp_mem_group *g;
	size_t n = hwp_mem_report__groups(r, key, &g), c0, loc0 = 0;
	struct hwp_table *t;
	bool code = key == HWP_MEM_BY_SYMBOL || key == HWP_MEM_BY_LINE || key == HWP_MEM_BY_IP;
	bool data = key == HWP_MEM_BY_ADDR || key == HWP_MEM_BY_CACHELINE || key == HWP_MEM_BY_OBJECT;
	size_t dt0 = 0;

	struct hwp_report_opts o;
	uint64_t shown = 0;

	if (n == (size_t)-1 || hwp__report_opts_load(opts, &o) < 0 || !(t = hwp_table__new()))
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
	} else if (key == HWP_MEM_BY_TYPE) {
		hwp_table__add_column(t, "Data type", "data_type_display", HWP_COL_TEXT);
		hwp_table__add_column_shown(t, "First instruction", "display", HWP_COL_TEXT, HWP_SHOW_TEXT);
	}
	/* the data type, by itself (TYPE) or of the instruction (IP) */
	if (key == HWP_MEM_BY_IP)
		hwp_table__add_column(t, "Data type", "data_type_display", HWP_COL_TEXT);
	if (key == HWP_MEM_BY_TYPE || key == HWP_MEM_BY_IP) {
		dt0 = hwp_table__columns(t);
		hwp_table__add_column_shown(t, "data_type", "data_type", HWP_COL_TEXT, HWP_SHOW_DATA);
		hwp_table__add_column_shown(t, "data_member", "data_member", HWP_COL_TEXT, HWP_SHOW_DATA);
		hwp_table__add_column_shown(t, "data_var", "data_var", HWP_COL_TEXT, HWP_SHOW_DATA);
	}
	for (size_t i = 0; i < n && shown < o.limit; i++) {
		char buf[512];
		size_t k = k0;

		if (code && !hwp_loc__matches(sym, &g[i].code, o.dso, o.sym))
			continue;
		shown++;
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
		} else if (key == HWP_MEM_BY_TYPE) {
			hwp__report_data_type_text(g[i].data_type, g[i].data_member, g[i].data_stack_op, buf,
						   sizeof(buf));
			hwp_table__set_text(t, k, buf);
			hwp_loc__format_symbol(sym, &g[i].code, buf, sizeof(buf));
			hwp_table__set_text(t, k + 1, buf);
		}
		if (key == HWP_MEM_BY_IP) {
			hwp__report_data_type_text(g[i].data_type, g[i].data_member, g[i].data_stack_op, buf,
						   sizeof(buf));
			hwp_table__set_text(t, dt0 - 1, buf);
		}
		if (dt0) {
			hwp_table__set_text(t, dt0, g[i].data_type);
			hwp_table__set_text(t, dt0 + 1, g[i].data_member);
			hwp_table__set_text(t, dt0 + 2, g[i].data_var);
		}
	}
	return t;
}


enum {
	C_RANK, C_ADDR, C_OBJECT, C_DMOD, C_DOFF, C_HITM, C_STORES, C_LOADS, C_SAMPLES, C_AVGLAT,
	C_THREADS, C_CPUS, C_OFFSET, C_TYPE, C_DTYPE, C_DMEMBER, C_CODE, C_LOC0
};

/* The one type a line's accesses X[0..N) name ("struct counters"), or NULL
   when they name none or several. */
static const char *line_type(const struct hwp_c2c_access *x, size_t n)
{
	const char *t = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!x[i].data_type)
			continue;
		if (t && strcmp(t, x[i].data_type))
			return NULL;
		t = x[i].data_type;
	}
	return t;
}

/* The rows that showed each instruction first: the columns of its code
   (C_CODE, the location's) are copied from there, formatted once (the
   lines' accesses name a few thousand instructions a hundred times). */
struct code_rows {
	struct code_row {
		struct hwp_code_loc code;
		size_t row;
	} *v;
	size_t nr, cap;
	struct hwp_hashmap map;
};

/* The row that showed CODE first (all of it: an unknown module's shows
   its address), or -1 (then this row, the last, will:
   noted, when memory allows). */
static int64_t code_row(struct code_rows *cr, const struct hwp_code_loc *code, size_t row)
{
	uint64_t h = hwp__hash_combine(hwp__hash64((uint64_t)(uint32_t)code->module), code->offset);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&cr->map, h);
	struct code_row *e;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (cr->v[i].code.module == code->module && cr->v[i].code.offset == code->offset &&
		    cr->v[i].code.cpumode == code->cpumode && cr->v[i].code.addr == code->addr)
			return (int64_t)cr->v[i].row;
	if ((e = HWP_VEC_PUSH(cr->v, cr->nr, cr->cap))) {
		if (hwp__hashmap_add(&cr->map, h, cr->nr - 1) < 0) {
			cr->nr--;
		} else {
			e->code = *code;
			e->row = row;
		}
	}
	return -1;
}

struct hwp_table *hwp_report__c2c(struct hwp_mem_report *r, const struct hwp_c2c *c,
				  const struct hwp_report_opts *opts)
{
	struct code_rows cr = { 0 };
	struct hwp_symbolizer *sym = hwp_session__symbolizer(hwp_mem_report__session(r));
	const struct hwp_c2c_line *lines;
	const struct hwp_c2c_access *acc = hwp_c2c__accesses(c);
	size_t n = hwp_c2c__lines(c, &lines);
	struct hwp_report_opts o;
	struct hwp_table *t;

	if (hwp__report_opts_load(opts, &o) < 0 || !(t = hwp_table__new()))
		return NULL;
	hwp_table__add_column(t, "#", "rank", HWP_COL_COUNT);
	hwp_table__add_column(t, "Cache line", "line_addr", HWP_COL_HEX);
	hwp_table__add_column(t, "Data object", "data_object", HWP_COL_TEXT);
	hwp_table__add_column_shown(t, "data_module", "data_module", HWP_COL_TEXT, HWP_SHOW_DATA);
	hwp_table__add_column_shown(t, "data_offset", "data_offset", HWP_COL_HEX, HWP_SHOW_DATA);
	hwp_table__add_column(t, "HITM", "hitm", HWP_COL_COUNT);
	hwp_table__add_column(t, "Stores", "stores", HWP_COL_COUNT);
	hwp_table__add_column(t, "Loads", "loads", HWP_COL_COUNT);
	hwp_table__add_column(t, "Samples", "samples", HWP_COL_COUNT);
	hwp_table__add_column(t, "Avg lat", "avg_latency", HWP_COL_REAL);
	hwp_table__add_column(t, "Threads", "threads", HWP_COL_COUNT);
	hwp_table__add_column(t, "CPUs", "cpus", HWP_COL_COUNT);
	hwp_table__add_column(t, "Offset", "line_offset", HWP_COL_HEX);
	hwp_table__add_column(t, "Data type", "data_type_display", HWP_COL_TEXT);
	hwp_table__add_column_shown(t, "data_type", "data_type", HWP_COL_TEXT, HWP_SHOW_DATA);
	hwp_table__add_column_shown(t, "data_member", "data_member", HWP_COL_TEXT, HWP_SHOW_DATA);
	hwp_table__add_column_shown(t, "Code", "code", HWP_COL_TEXT, HWP_SHOW_TEXT);
	hwp_report__add_loc_columns(t, HWP_LOC_NONE);
	/* every row's room at once (a line's row and its accesses'): no
	   copying of a growing table */
	size_t rows = 0;
	for (size_t i = 0; i < n && i < o.limit; i++)
		rows += 1 + lines[i].nr;
	if (hwp__table_reserve(t, rows) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	for (size_t i = 0; i < n && i < o.limit; i++) {
		const struct hwp_c2c_line *l = &lines[i];
		const char *type = line_type(acc + l->first, l->nr);
		const char *mod = l->data_module >= 0 && sym ? hwp_symbolizer__module_name(sym, l->data_module)
							     : NULL;
		char obj[512];

		if (mod)
			snprintf(obj, sizeof(obj), "%s+0x%" PRIx64, mod, l->data_offset);
		else
			snprintf(obj, sizeof(obj), "%s (pid %d)", l->region ? l->region : "unknown", (int)l->pid);
		/* the line */
		hwp_table__new_row(t);
		hwp_table__set_count(t, C_RANK, i + 1);
		hwp_table__set_count(t, C_ADDR, l->addr);
		hwp_table__set_text(t, C_OBJECT, obj);
		hwp_table__set_text(t, C_DMOD, mod);
		hwp_table__set_count(t, C_DOFF, l->data_offset);
		hwp_table__set_count(t, C_HITM, l->hitm);
		hwp_table__set_count(t, C_STORES, l->stores);
		hwp_table__set_count(t, C_LOADS, l->loads);
		hwp_table__set_count(t, C_SAMPLES, l->samples);
		hwp_table__set_real(t, C_AVGLAT, l->samples ? (double)l->lat_sum / (double)l->samples : 0);
		hwp_table__set_count(t, C_THREADS, l->nr_tids);
		hwp_table__set_count(t, C_CPUS, l->nr_cpus);
		hwp_table__set_text(t, C_TYPE, type);
		hwp_table__set_text(t, C_DTYPE, type);
		/* its offsets and the code touching them */
		for (size_t k = l->first; k < l->first + l->nr; k++) {
			const struct hwp_c2c_access *x = &acc[k];
			char code[768], src[512];

			hwp_table__new_row(t);
			hwp_table__set_count(t, C_RANK, i + 1);
			hwp_table__set_count(t, C_HITM, x->hitm);
			hwp_table__set_count(t, C_STORES, x->stores);
			hwp_table__set_count(t, C_LOADS, x->loads);
			hwp_table__set_count(t, C_SAMPLES, x->samples);
			hwp_table__set_real(t, C_AVGLAT, x->samples ? (double)x->lat_sum / (double)x->samples : 0);
			hwp_table__set_count(t, C_THREADS, x->nr_tids);
			hwp_table__set_count(t, C_CPUS, x->nr_cpus);
			hwp_table__set_count(t, C_OFFSET, x->offset);
			hwp__report_data_type_text(x->data_type, x->data_member, x->data_stack_op, src, sizeof(src));
			hwp_table__set_text(t, C_TYPE, src);
			hwp_table__set_text(t, C_DTYPE, x->data_type);
			hwp_table__set_text(t, C_DMEMBER, x->data_member);
			int64_t from = code_row(&cr, &x->code, hwp_table__rows(t) - 1);
			if (from >= 0 && hwp__table_copy_cells(t, (size_t)from, C_CODE,
							       hwp_table__columns(t) - C_CODE) == 0)
				continue;
			hwp_loc__format_srcline(sym, &x->code, src, sizeof(src));
			if (x->symbol)
				snprintf(code, sizeof(code), "%s+0x%" PRIx64 " %s", x->symbol, x->sym_offset, src);
			else
				snprintf(code, sizeof(code), "%s", src);
			hwp_table__set_text(t, C_CODE, code);
			hwp_report__set_loc(t, C_LOC0, sym, &x->code);
		}
	}
	free(cr.v);
	hwp__hashmap_free(&cr.map);
	return t;
}

void hwp_report__print_c2c_header(struct hwp_mem_report *r, const struct hwp_c2c *c, const char *input, FILE *out)
{
	const struct hwp_c2c_line *l;
	const struct hwp_mem_stats *st = hwp_mem_report__totals(r);

	fprintf(out, "# %s: %" PRIu64 " memory samples (%" PRIu64 " loads, %" PRIu64 " stores), %" PRIu64
		" HITM; %" PRIu64 " cache lines, %zu shared between threads%s\n#\n",
		input, st->samples, st->loads, st->stores, st->hitm, hwp_c2c__nr_lines_seen(c), hwp_c2c__lines(c, &l),
		hwp_mem_report__modelled(r) ? " (modelled: emulated recording)" : "");
	fflush(out);
}
