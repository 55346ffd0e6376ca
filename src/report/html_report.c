/* SPDX-License-Identifier: MIT */
/* The HTML report (hwprof report --html): every report of one pass in one
   self-contained page, or the comparison of two passes. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/annotate.h"
#include "hwprof/branch_report.h"
#include "hwprof/data_src.h"
#include "hwprof/flame.h"
#include "hwprof/perf_data.h"
#include "output/chart.h"
#include "output/html_page.h"
#include "output/render.h"
#include "report/html_annotate.h"
#include "report/report_internal.h"
#include "util/error.h"
#include "util/opts.h"

/* What a page's sections read from one pass. */
struct page_input {
	struct hwp_pipeline *p;
	struct hwp_symbolizer *sym;
	struct hwp_branch_collector *col;
	struct hwp_flow *flow;
	struct hwp_timing *timing; /* NULL: no cycle counts */
	struct hwp_call_graph *calls;
	struct hwp_mem_report *mem;
};

static void page_input(struct page_input *in, struct hwp_pipeline *p)
{
	in->p = p;
	in->sym = hwp_pipeline__symbolizer(p);
	in->col = hwp_pipeline__branches(p);
	in->flow = hwp_pipeline__flow(p);
	in->timing = hwp_pipeline__timing(p);
	if (in->timing && hwp_timing__source(in->timing) == HWP_CYCLES_NONE)
		in->timing = NULL; /* no cycle counts: nothing timed */
	in->calls = hwp_pipeline__call_graph(p);
	in->mem = hwp_pipeline__mem(p);
}

/* A two-column table: what, and how much. */
static void fact(struct hwp_table *t, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fact(struct hwp_table *t, const char *what, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hwp_table__new_row(t);
	hwp_table__set_text(t, 0, what);
	hwp_table__set_text(t, 1, buf);
}

struct hwp_table *hwp_report__summary(struct hwp_pipeline *p, const char *input)
{
	struct hwp_table *t = hwp_table__new();
	struct hwp_session *s = hwp_pipeline__session(p);
	struct hwp_branch_collector *col = hwp_pipeline__branches(p);
	struct hwp_flow *flow = hwp_pipeline__flow(p);
	struct hwp_mem_report *mem = hwp_pipeline__mem(p);
	struct hwp_reader *r = hwp_session__reader(s);
	const struct hwp_branch_collect_stats *st = hwp_branch_collector__stats(col);
	const struct hwp_range_stats *rs = hwp_branch_collector__range_stats(col);
	const struct hwp_flow_stats *fs = flow ? hwp_flow__stats(flow) : NULL;
	const struct hwp_header_info *h = hwp_session__header(s);
	char why[512] = "";

	if (!t)
		return NULL;
	hwp_table__add_column(t, "Item", "item", HWP_COL_TEXT);
	hwp_table__add_column(t, "Value", "value", HWP_COL_TEXT);
	fact(t, "Input", "%s", input);
	if (h && h->hostname)
		fact(t, "Host", "%s (%s)", h->hostname, h->osrelease ? h->osrelease : "?");
	for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++) {
		const struct hwp_evsel *e = hwp_reader__evsel(r, i);

		fact(t, "Event", "%s", e->name ? e->name : "?");
	}
	fact(t, "Samples", "%" PRIu64 " (%" PRIu64 " with a branch stack)", st->samples, st->branch_samples);
	fact(t, "Branch entries", "%" PRIu64 " (%.1f per stack)", st->entries,
	     st->branch_samples ? (double)st->entries / (double)st->branch_samples : 0);
	for (int k = 0; k < HWP_RANGE_REJECT_NR; k++)
		if (rs->rejected[k])
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s %" PRIu64, *why ? ", " : "",
				 hwp_range_reject__name(k), rs->rejected[k]);
	fact(t, "Fall-through ranges", "%" PRIu64 " of %" PRIu64 " accepted%s%s%s", rs->accepted, rs->pairs,
	     *why ? " (rejected: " : "", why, *why ? ")" : "");
	if (fs)
		fact(t, "Instructions in the ranges", "%" PRIu64 " (%" PRIu64 " ranges not decoded)", fs->instructions,
		     fs->range_runs_skipped);
	if (fs && fs->inferred)
		fact(t, "Execution counts", "flow-consistent: adjusted to conserve flow (branch stacks of up to %" PRIu64
		     " entries)", st->deepest);
	if (mem) {
		const struct hwp_mem_stats *ms = hwp_mem_report__totals(mem);

		fact(t, "Memory samples", "%" PRIu64 " (%" PRIu64 " loads, %" PRIu64 " stores, %" PRIu64 " HITM)%s",
		     ms->samples, ms->loads, ms->stores, ms->hitm,
		     hwp_mem_report__modelled(mem) ? "; modelled by the emulator's cache" : "");
	}
	return t;
}

/* The column of T whose JSON key is KEY, or the columns' count. */
static size_t column_keyed(const struct hwp_table *t, const char *key)
{
	size_t n = hwp_table__columns(t);

	for (size_t j = 0; j < n; j++) {
		struct hwp_table_column c = { .sz = sizeof(c) };

		if (hwp_table__column(t, j, &c) == 0 && c.key && !strcmp(c.key, key))
			return j;
	}
	return n;
}

/* Row I's number in column COL (of KIND), 0 where it has none. */
static double cell_value(const struct hwp_table *t, size_t i, size_t col, enum hwp_col_kind kind)
{
	double v = 0;
	uint64_t u;

	if (kind == HWP_COL_PERCENT)
		hwp_table__cell_real(t, i, col, &v);
	else if (hwp_table__cell_count(t, i, col, &u))
		v = (double)u;
	return v;
}

/* The rows of T worth showing at first, by its column KEY (rows sorted by
   it, descending): none under 1% of the whole, and no more once 99% of it
   is shown; at least 5. A percent column is of the whole recording (100);
   a count of the table's rows' sum. 0 (every row) when the rest would be 2
   rows or fewer. */
static size_t rows_that_matter(const struct hwp_table *t, const char *key)
{
	size_t rows = hwp_table__rows(t), col = column_keyed(t, key), i;
	struct hwp_table_column c = { .sz = sizeof(c) };
	double total = 0, cum = 0;

	if (col == hwp_table__columns(t) || hwp_table__column(t, col, &c) < 0)
		return 0;
	if (c.kind == HWP_COL_PERCENT)
		total = 100;
	else
		for (i = 0; i < rows; i++)
			total += cell_value(t, i, col, c.kind);
	for (i = 0; i < rows; i++) {
		double v = cell_value(t, i, col, c.kind);

		if (i >= 5 && (cum >= 0.99 * total || v < 0.01 * total))
			break;
		cum += v;
	}
	return i + 2 >= rows ? 0 : i;
}

/* Adds T under a section, its rows that matter by column KEY first (NULL:
   every row); <0 when T could not be made (hwp_errmsg()). */
static int section_by(struct hwp_html_page *page, const char *title, const char *note, struct hwp_table *t,
		      const char *key)
{
	hwp__html_page_section(page, title, note);
	if (!t)
		return -1;
	struct hwp__html_table_opts ho = { .visible = key ? rows_that_matter(t, key) : 0 };
	hwp__html_page_table_opts(page, t, &ho);
	hwp_table__delete(t);
	return 0;
}

static int section(struct hwp_html_page *page, const char *title, const char *note, struct hwp_table *t)
{
	return section_by(page, title, note, t, NULL);
}

/* Findings annotated at most: their functions are annotated too. */
#define LINKED_FINDINGS 25

enum { F_RANK, F_KIND, F_SHARE, F_WHERE, F_SRC, F_EVIDENCE, F_ACTION, F_TECHNIQUE, F_NCOLS };

static const struct hwp__report_column finding_cols[F_NCOLS] = {
	[F_RANK] = { "Rank", "rank", HWP_COL_COUNT, HWP_SHOW_ALL },
	[F_KIND] = { "Kind", "kind", HWP_COL_TEXT, HWP_SHOW_ALL },
	[F_SHARE] = { "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[F_WHERE] = { "Where", "where", HWP_COL_TEXT, HWP_SHOW_ALL },
	[F_SRC] = { "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_ALL },
	[F_EVIDENCE] = { "Evidence", "evidence", HWP_COL_TEXT, HWP_SHOW_ALL },
	[F_ACTION] = { "Action", "action", HWP_COL_TEXT, HWP_SHOW_ALL },
	[F_TECHNIQUE] = { "Technique", "technique", HWP_COL_TEXT, HWP_SHOW_ALL },
};

/* The findings F[0..N) for people: rank, kind, share, where (a link to its
   instruction in the annotated code A, when A holds it), source line, the
   evidence in a sentence (its numbers: no column of its own, mostly empty,
   per number) and the action; the technique as a detail. */
static int findings_section(struct hwp_html_page *page, const struct page_input *in, const struct hwp_finding *f,
			    size_t n, const struct hwp_annotation *a, const struct hwp_report_opts *ro)
{
	struct hwp_table *t = hwp_table__new();
	char **links = calloc(n ? n : 1, sizeof(*links));
	char buf[1024];
	size_t rows = 0;
	int rc = -1;

	hwp__html_page_section(page, "Findings (hwprof advise)",
			       !n ? "No finding above the default thresholds."
			       : a ? "Largest estimated share of the work first; each row's action says what to do, its "
				     "place links to the instruction in the annotated code below."
				   : "Largest estimated share of the work first; each row's action says what to do.");
	if (!t || !links || hwp__report_add_columns(t, finding_cols, F_NCOLS) < 0) {
		hwp__set_error(ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n && rows < ro->limit; i++, rows++) {
		hwp_table__new_row(t);
		hwp_table__set_count(t, F_RANK, rows + 1);
		hwp_table__set_text(t, F_KIND, hwp_finding_kind__name(f[i].kind));
		hwp_table__set_real(t, F_SHARE, 100 * f[i].share);
		hwp_loc__format_addr(in->sym, &f[i].loc, buf, sizeof(buf));
		hwp_table__set_text(t, F_WHERE, buf);
		hwp_loc__format_srcline(in->sym, &f[i].loc, buf, sizeof(buf));
		hwp_table__set_text(t, F_SRC, buf);
		hwp_report__finding_evidence(&f[i], buf, sizeof(buf));
		/* with call stacks: where its function is called from */
		size_t used = strlen(buf);
		if (used + 2 < sizeof(buf) && f[i].callers) {
			strcpy(buf + used, "; ");
			hwp_report__finding_callers(&f[i], buf + used + 2, sizeof(buf) - used - 2);
		}
		hwp_table__set_text(t, F_EVIDENCE, buf);
		hwp_table__set_text(t, F_ACTION, hwp_finding_kind__action(f[i].kind));
		hwp_table__set_text(t, F_TECHNIQUE, hwp_finding_kind__technique(f[i].kind));
		if (a && hwp__html_annotation_link(a, &f[i].loc, buf, sizeof(buf)) && !(links[rows] = strdup(buf))) {
			hwp__set_error(ENOMEM, "out of memory");
			goto out;
		}
	}
	if (n) {
		struct hwp__html_table_opts ho = { .main = F_TECHNIQUE, .link_col = F_WHERE,
						   .links = (const char *const *)links,
						   .wrap = 1u << F_EVIDENCE | 1u << F_ACTION };

		hwp__html_page_table_opts(page, t, &ho);
	}
	rc = 0;
out:
	for (size_t i = 0; i < rows; i++)
		free(links[i]);
	free(links);
	hwp_table__delete(t);
	return rc;
}

/* The findings of a comparison's second pass, with no code to link to. */
/* The annotated code of the hottest functions and of those the first
   findings F[0..N) name; NULL with WHY said when there is none. */
static struct hwp_annotation *annotate(const struct page_input *in, const struct hwp_finding *f, size_t n,
				       const struct hwp_code_loc *extra, size_t nextra,
				       const struct hwp_html_report_opts *o, char *why, size_t len)
{
	size_t nf = n < LINKED_FINDINGS ? n : LINKED_FINDINGS, nalso = nf + nextra;
	struct hwp_code_loc *also = calloc(nalso ? nalso : 1, sizeof(*also));
	struct hwp_annotate_opts ao = { .sz = sizeof(ao), .limit = o->functions ? o->functions : 5, .also = also,
					.nalso = nalso };
	struct hwp_annotation *a;

	if (!also) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < nf; i++)
		also[i] = f[i].loc;
	for (size_t i = 0; i < nextra; i++)
		also[nf + i] = extra[i];
	if (!(a = hwp_annotate__new(in->p, &ao)))
		snprintf(why, len, "%s", hwp_errmsg());
	free(also);
	return a;
}

static int code_section(struct hwp_html_page *page, const struct page_input *in, const struct hwp_annotation *a,
			const char *why, const struct hwp_html_report_opts *o)
{
	char note[1024];
	struct hwp__html_code_opts co = { .prefix = o->prefix, .prefix_strip = o->prefix_strip, .timing = in->timing };

	if (!a) {
		snprintf(note, sizeof(note), "No annotated code: %s", why);
		hwp__html_page_section(page, "Annotated code (hwprof annotate)", note);
		return 0;
	}
	hwp__html_page_section(page, "Annotated code (hwprof annotate)",
			       "The hottest functions and those the findings name: each instruction with its samples "
			       "(share of the function's), at a conditional branch its sampled executions, taken "
			       "probability and mispredicts per execution, at a block's start its executions and "
			       "cycles (median, p90, IPC, the distribution as a sparkline), at a load or store its "
			       "memory samples; source lines over their instructions, arrows from each jump to its "
			       "target (blue forward, orange back; fainter when rarely taken).");
	return hwp__html_annotation(page, in->sym, a, &co);
}

/* The chart C, inlined in the page. */
static int chart_into(struct hwp_html_page *page, struct hwp_chart *c)
{
	struct hwp_outbuf o;
	size_t len;
	char *svg;

	if (hwp__outbuf_init(&o, NULL) < 0)
		return hwp__set_error(ENOMEM, "out of memory");
	hwp__chart_render(c, &o);
	if (!(svg = hwp__outbuf_take(&o, &len)))
		return hwp__set_error(ENOMEM, "out of memory");
	hwp__html_page_svg(page, svg, len);
	free(svg);
	return 0;
}

/* Block latency: the table of the blocks by total cycles, and the chart of
   the hottest block with two peaks (else of the hottest block). */
static int timing_section(struct hwp_html_page *page, const struct page_input *in, const struct hwp_report_opts *ro)
{
	enum hwp_cycles_source src;
	const struct hwp_timing_block *b;
	size_t n, *idx, pick = 0;
	char title[1100], name[1024];
	int rc;

	if (!in->timing) {
		hwp__html_page_section(page, "Block latency (hwprof timing)",
				       "The recording carries no cycle counts (AMD LBRv2, stacks synthesized from a trace, "
				       "or recorded with no_cycles): no block latency.");
		return 0;
	}
	src = hwp_timing__source(in->timing);
	b = hwp_timing__blocks(in->timing, &n);
	if (!(idx = calloc(n ? n : 1, sizeof(*idx))))
		return hwp__set_error(ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	rc = section_by(page, "Block latency (hwprof timing)",
		     src == HWP_CYCLES_MODELLED
			     ? "Cycles per basic block, by total cycles. Cycles are MODELLED by hwprof's emulator "
			       "(a cost model), not measured on hardware."
			     : "Cycles per basic block from the branch records' cycle counts, by total cycles.",
		     hwp_report__timing_blocks(in->sym, in->timing, idx, n, ro), "cycles_percent");
	free(idx);
	if (rc || !n)
		return rc;
	for (size_t i = 0; i < n && i < ro->limit; i++)
		if (b[i].d.nmodes >= 2) {
			pick = i;
			break;
		}
	hwp_report__timing_block_name(in->sym, &b[pick].start, &b[pick].end, name, sizeof(name));
	snprintf(title, sizeof(title), "Block latency: %s", name);
	struct hwp_chart *c = hwp_report__timing_chart(title, &b[pick].d, src, "one basic block");
	if (!c)
		return -1;
	rc = chart_into(page, c);
	hwp__chart_delete(c);
	return rc;
}

/* The flame graph of the samples' call stacks, inlined (hwprof flame's SVG). */
static int flame_section(struct hwp_html_page *page, const struct page_input *in)
{
	struct hwp_call_graph_stats st = { .sz = sizeof(st) };
	struct hwp_flame_svg_opts so = { .sz = sizeof(so), .title = "Flame graph (hwprof flame)" };
	struct hwp_flame *f;
	struct hwp_outbuf o;
	size_t len;
	char *svg = NULL;

	if (in->calls)
		hwp_call_graph__stats(in->calls, &st);
	if (!st.with_callchain) /* no stacks: no section (the pipeline has no call graph then) */
		return 0;
	uint64_t early = st.unwind_no_stack + st.unwind_stack_short + st.unwind_no_binary + st.unwind_stopped;
	char text[512];
	size_t tlen = (size_t)snprintf(text, sizeof(text), "%s",
				       "Call stacks of the samples: hover for counts, click to zoom, search by name.");
	/* unwound user stacks that stop early are said here too (a stack
	   missing its callers is not silently shorter) */
	if (early && tlen < sizeof(text))
		snprintf(text + tlen, sizeof(text) - tlen,
			 " %" PRIu64 " of the %" PRIu64 " user stacks unwound from their stack copies (perf record "
			 "--call-graph dwarf) end before their outermost frame: %" PRIu64 " ran past the copy, %" PRIu64
			 " reached a binary not found, %" PRIu64 " had no copy, %" PRIu64 " stopped without CFI.",
			 early, st.user_stacks, st.unwind_stack_short, st.unwind_no_binary, st.unwind_no_stack,
			 st.unwind_stopped);
	hwp__html_page_section(page, "Flame graph (hwprof flame)", text);
	if (!(f = hwp_flame__new()) ||
	    hwp_flame__add_call_graph(f, HWP_FLAME_AFTER, in->calls, hwp_pipeline__session(in->p), false) < 0 ||
	    hwp__outbuf_init(&o, NULL) < 0) {
		hwp_flame__delete(f);
		return -1;
	}
	if (hwp__flame_render_svg(f, &o, &so) < 0 || !(svg = hwp__outbuf_take(&o, &len))) {
		char why[512];

		snprintf(why, sizeof(why), "%s", hwp_errmsg());
		hwp__outbuf_finish(&o);
		hwp_flame__delete(f);
		return hwp__set_error(EIO, "writing the flame graph: %s", why);
	}
	hwp__html_page_svg(page, svg, len);
	free(svg);
	hwp_flame__delete(f);
	return 0;
}

/* Memory: where the sampled accesses were served from, and the source
   lines with the most load latency (hwprof mem's tables, shortened). */
static int mem_section(struct hwp_html_page *page, const struct page_input *in, uint64_t limit)
{
	const struct hwp_mem_stats *ms = hwp_mem_report__totals(in->mem);
	const struct hwp_mem_group *g;
	size_t n = hwp_mem_report__groups(in->mem, HWP_MEM_BY_LINE, &g);
	struct hwp_table *src = hwp_table__new(), *lines = hwp_table__new();
	char buf[512];
	int rc;

	if (!src || !lines || n == (size_t)-1) {
		hwp_table__delete(src);
		hwp_table__delete(lines);
		return -1;
	}
	hwp_table__add_column(src, "Data Source", "source", HWP_COL_TEXT);
	hwp_table__add_column(src, "Samples", "samples", HWP_COL_COUNT);
	hwp_table__add_column(src, "Share", "share_percent", HWP_COL_PERCENT);
	hwp_table__add_column(src, "Mean Latency", "mean_latency", HWP_COL_REAL);
	for (int s = 0; s < HWP_MEM_SRC__COUNT; s++) {
		if (!ms->by_source[s])
			continue;
		hwp_table__new_row(src);
		hwp_table__set_text(src, 0, hwp_mem_source__name((enum hwp_mem_source)s));
		hwp_table__set_count(src, 1, ms->by_source[s]);
		hwp_table__set_real(src, 2, 100.0 * (double)ms->by_source[s] / (double)ms->samples);
		hwp_table__set_real(src, 3, (double)ms->lat_by_source[s] / (double)ms->by_source[s]);
	}
	hwp_table__add_column(lines, "Samples", "samples", HWP_COL_COUNT);
	hwp_table__add_column(lines, "Loads", "loads", HWP_COL_COUNT);
	hwp_table__add_column(lines, "Latency %", "latency_percent", HWP_COL_PERCENT);
	hwp_table__add_column(lines, "Mean Latency", "mean_latency", HWP_COL_REAL);
	hwp_table__add_column(lines, "DRAM %", "dram_percent", HWP_COL_PERCENT);
	hwp_table__add_column(lines, "HITM", "hitm", HWP_COL_COUNT);
	hwp_table__add_column(lines, "Function", "symbol", HWP_COL_TEXT);
	hwp_table__add_column(lines, "Source Line", "srcline", HWP_COL_TEXT);
	for (size_t i = 0; i < n && i < limit; i++) {
		const struct hwp_mem_stats *st = &g[i].st;
		uint64_t dram = st->by_source[HWP_MEM_SRC_LOCAL_DRAM] + st->by_source[HWP_MEM_SRC_REMOTE_DRAM];

		hwp_table__new_row(lines);
		hwp_table__set_count(lines, 0, st->samples);
		hwp_table__set_count(lines, 1, st->loads);
		hwp_table__set_real(lines, 2, ms->lat_sum ? 100.0 * (double)st->lat_sum / (double)ms->lat_sum : 0);
		hwp_table__set_real(lines, 3, st->samples ? (double)st->lat_sum / (double)st->samples : 0);
		hwp_table__set_real(lines, 4, st->loads ? 100.0 * (double)dram / (double)st->loads : 0);
		hwp_table__set_count(lines, 5, st->hitm);
		hwp_table__set_text(lines, 6, g[i].symbol ? g[i].symbol : "?");
		snprintf(buf, sizeof(buf), "%s:%u", g[i].file ? g[i].file : "??", g[i].line);
		hwp_table__set_text(lines, 7, buf);
	}
	rc = section(page, "Memory (hwprof mem)",
		     hwp_mem_report__modelled(in->mem)
			     ? "Precise memory samples by data source; latencies and sources MODELLED by hwprof's "
			       "emulated cache hierarchy, not measured."
			     : "Precise memory samples (PEBS/IBS) by data source.",
		     src);
	if (!rc)
		rc = section_by(page, "Memory by source line",
				"Source lines by sampled accesses, with their load latency.", lines, "samples");
	else
		hwp_table__delete(lines);
	return rc;
}

/* Whether the memory report holds samples of memory accesses: a load, a
   store or a latency (samples of other events, a cpu-clock's, may be
   counted there with nothing of the access known). */
static bool mem_known(const struct page_input *in)
{
	const struct hwp_mem_stats *ms = in->mem ? hwp_mem_report__totals(in->mem) : NULL;

	return ms && (ms->loads || ms->stores || ms->lat_sum);
}

/* hwprof branches' table with its default keys. */
static struct hwp_table *branches_table(const struct page_input *in, const struct hwp_report_opts *ro)
{
	struct hwp_branch_report_filter filter = { 0 };
	struct hwp_branch_report_opts bo = { .sz = sizeof(bo), .filter = &filter };
	enum hwp_branch_key_id keys[HWP_MAX_SORT_KEYS];
	struct hwp_branch_report *rep;
	struct hwp_table *t;
	int n = hwp_branch_keys__parse("dso_from,symbol_from,dso_to,symbol_to", keys, HWP_MAX_SORT_KEYS - 1);

	if (n < 0)
		return NULL;
	rep = hwp_branch_report__new_opts(hwp_branch_collector__table(in->col), in->sym, keys, (size_t)n, &bo);
	t = rep ? hwp_report__branches(in->sym, rep, keys, (size_t)n, NULL, ro) : NULL;
	hwp_branch_report__delete(rep);
	return t;
}

/* IN's findings, each linked to its instruction in the annotated code of
   the hottest functions, of those the findings name and of those holding
   EXTRA[0..NEXTRA) (a comparison's changes). */
static int findings_and_code(struct hwp_html_page *page, const struct page_input *in,
			     const struct hwp_code_loc *extra, size_t nextra, const struct hwp_html_report_opts *o,
			     const struct hwp_report_opts *ro)
{
	struct hwp_advise_opts ao = { .sz = sizeof(ao) };
	struct hwp_advisor *adv = hwp_pipeline__advise(in->p, &ao);
	struct hwp_annotation *ann = NULL;
	const struct hwp_finding *f = NULL;
	size_t nf = 0;
	char why[512] = "";
	int rc;

	if (!adv)
		return -1;
	f = hwp_advisor__findings(adv, &nf);
	ann = annotate(in, f, nf < ro->limit ? nf : ro->limit, extra, nextra, o, why, sizeof(why));
	rc = findings_section(page, in, f, nf, ann, ro);
	if (!rc)
		rc = code_section(page, in, ann, why, o);
	hwp_annotation__delete(ann);
	hwp_advisor__delete(adv);
	return rc;
}

static int one_recording(struct hwp_html_page *page, const struct page_input *in, const char *input,
			 const struct hwp_html_report_opts *o, const struct hwp_report_opts *ro)
{
	/* the fall-through tables hide branches and blocks never executed */
	struct hwp_report_opts fo = *ro;
	struct hwp_exec_source es = { .flow = in->flow };
	int rc;

	if ((rc = findings_and_code(page, in, NULL, 0, o, ro)) || (rc = flame_section(page, in)))
		return rc;
	fo.min_executions = 1;
	if (!in->flow) { /* memory samples alone, or samples with no branch stack */
		if (mem_known(in) && (rc = mem_section(page, in, ro->limit)))
			return rc;
		return section(page, "Summary", NULL, hwp_report__summary(in->p, input));
	}
	size_t nc;
	const struct hwp_flow_cond *c = hwp_flow__conds(in->flow, &nc);
	if ((rc = section_by(page, "Hot branches (hwprof branches)",
			     "Taken branches by module and symbol, most sampled first.", branches_table(in, ro),
			     "percent")) ||
	    (rc = section_by(page, "Mispredicts (hwprof mispredicts)",
			     "Branches by mispredicted entries; rates per execution for conditional branches "
			     "(taken mispredicts only: a lower bound).",
			     hwp_report__mispredicts(in->sym, hwp_branch_collector__table(in->col), &es, &fo),
			     "share_percent")) ||
	    (rc = section_by(page, "Branch probabilities (hwprof probs)",
			     "Conditional branches by sampled executions, taken probability with its 95% Wilson interval.",
			     hwp_report__conds(in->sym, c, nc, &fo), "executions")))
		return rc;
	if ((rc = section_by(page, "Hot blocks (hwprof blocks)", "Basic blocks by sampled executions and instructions.",
			     hwp_report__blocks(in->sym, in->flow, &fo), "count")))
		return rc;
	if ((rc = timing_section(page, in, ro)))
		return rc;
	if (mem_known(in) && (rc = mem_section(page, in, ro->limit)))
		return rc;
	return section(page, "Summary", NULL, hwp_report__summary(in->p, input));
}

static int comparison(struct hwp_html_page *page, const struct page_input *b, const struct page_input *a,
		      const struct hwp_html_report_opts *o, const struct hwp_report_opts *ro)
{
	struct hwp_flow_diff_opts dopt = { .sz = sizeof(dopt) };
	struct hwp_flow_diff *d = hwp_flow_diff__new(b->flow, b->col, a->flow, a->col, &dopt);
	int rc;

	if (!d || (b->timing && a->timing && hwp_flow_diff__add_timing(d, b->timing, a->timing) < 0) ||
	    ((b->calls || a->calls) && hwp_flow_diff__add_calls(d, b->calls, a->calls) < 0)) {
		hwp_flow_diff__delete(d);
		return -1;
	}
	const struct hwp_flow_diff_stats *st = hwp_flow_diff__stats(d);
	char note[512];

	snprintf(note, sizeof(note), "%zu significant changes among %zu functions, %zu blocks and %zu branches%s.",
		 st->significant, st->functions, st->blocks, st->branches,
		 st->matched_by_symbol ? " (build-ids differ: matched by symbol and line)" : "");
	rc = section(page, "Changes (hwprof diff)", note, hwp_report__diff(b->sym, a->sym, d, false, ro));
	/* the code of the most significant changes, as it is after them */
	size_t nr, nchanged = 0;
	const struct hwp_flow_diff_row *r = hwp_flow_diff__rows(d, &nr);
	struct hwp_code_loc changed[LINKED_FINDINGS];
	for (size_t i = 0; i < nr && nchanged < LINKED_FINDINGS; i++)
		if (r[i].significant && r[i].after.module >= 0)
			changed[nchanged++] = r[i].after;
	if (!rc)
		rc = section(page, "Before", NULL, hwp_report__summary(b->p, o->before));
	if (!rc)
		rc = section(page, "After", NULL, hwp_report__summary(a->p, o->after));
	if (!rc)
		rc = findings_and_code(page, a, changed, nchanged, o, ro);
	hwp_flow_diff__delete(d);
	return rc;
}

/* The page of one pass (B alone) or of the comparison of B and A, on OUT.
   Whatever fails, the page is finished: the sections made so far. */
static int write_page(struct hwp_pipeline *before, struct hwp_pipeline *after,
		      const struct hwp_html_report_opts *opts, FILE *out)
{
	struct hwp_html_report_opts o;
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = HWP_TABLE_HTML };
	struct page_input b, a;
	struct hwp_outbuf ob;
	struct hwp_html_page *page;
	char title[512], why[512];
	int rc, err;

	if (HWP_OPTS_LOAD(opts, &o, struct hwp_html_report_opts))
		return -EINVAL;
	ro.limit = o.limit ? o.limit : 50;
	if (!o.input)
		o.input = "perf.data";
	if (!o.before)
		o.before = "before";
	if (!o.after)
		o.after = "after";
	page_input(&b, before);
	if (after)
		page_input(&a, after);
	if (hwp__outbuf_init(&ob, out) < 0)
		return hwp__set_error(ENOMEM, "out of memory");
	if (after)
		snprintf(title, sizeof(title), "hwprof: %s -> %s", o.before, o.after);
	else
		snprintf(title, sizeof(title), "hwprof report: %s", o.input);
	if (!(page = hwp__html_page_new(&ob, title))) {
		snprintf(why, sizeof(why), "%s", hwp_errmsg());
		hwp__outbuf_finish(&ob);
		return hwp__set_error(ENOMEM, "%s", why);
	}
	rc = after ? comparison(page, &b, &a, &o, &ro) : one_recording(page, &b, o.input, &o, &ro);
	if (rc < 0) /* the finishing below must not overwrite why */
		snprintf(why, sizeof(why), "%s", hwp_errmsg());
	err = hwp__html_page_finish(page);
	if (!err)
		err = hwp__outbuf_finish(&ob);
	else
		hwp__outbuf_finish(&ob);
	if (rc < 0)
		return hwp__set_error(EIO, "%s", why);
	if (err)
		return hwp__set_error(-err, "%s%swrite failed: %s", o.path ? o.path : "", o.path ? ": " : "",
				      hwp_strerror(err));
	return 0;
}

int hwp_report__html(struct hwp_pipeline *p, const struct hwp_html_report_opts *o, FILE *out)
{
	return write_page(p, NULL, o, out);
}

int hwp_report__html_diff(struct hwp_pipeline *before, struct hwp_pipeline *after,
			  const struct hwp_html_report_opts *o, FILE *out)
{
	return write_page(before, after, o, out);
}
