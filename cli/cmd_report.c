/* SPDX-License-Identifier: MIT */
/* hwprof report --html: every report of one recording (or a comparison) in one page. */
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "report_tables.h"
#include "timing_out.h"
#include "hwprof/advise.h"
#include "hwprof/flame.h"
#include "hwprof/flow_diff.h"
#include "hwprof/html_page.h"
#include "hwprof/data_src.h"
#include "hwprof/mem.h"
#include "hwprof/session.h"

static const struct cmd_desc desc = {
	.name = "report",
	.args = "[FILE...]",
	.synopsis2 = "--html FILE --diff BEFORE AFTER [--limit N] [--symfs DIR]",
	.flags = CMD_ARGS,
	.text =
		"Writes one self-contained HTML page (no network, no external scripts) with\n"
		"the recording's summary, the advise findings, hot branches, mispredicts,\n"
		"branch probabilities and hot blocks, from one pass over the recording;\n"
		"every table sorts by a click on a column and filters by the box above it.\n"
		"With --diff: the changes from BEFORE to AFTER (hwprof diff), both\n"
		"summaries, and AFTER's findings.\n",
};

struct report_cmd_opts {
	struct flow_opts fo;
	const char *html, *before, *after;
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct report_cmd_opts *o)
{
	bool diff = false;
	const struct opt opts[] = {
		{ .kind = OPT_KIND_STRING, .long_name = "html", .value = &o->html, .argh = "FILE", .flags = OPT_REQUIRED,
		  .help = "the page to write ('-': standard output)" },
		OPT_REPORT_INPUT(&o->fo.ro),
		OPT_BOOL(0, "diff", &diff, "compare the recordings BEFORE and AFTER"),
		OPT_U64(0, "limit", &o->fo.limit, "N", 1, UINT64_MAX, ": the number of rows must be a count of at least 1",
			"rows per table (default 50)"),
		OPT_REPORT_SYMFS(&o->fo.ro),
		OPT_COMMON(),
		OPT_END(),
	};
	struct cmd_args a;
	int rc;

	memset(o, 0, sizeof(*o));
	flow_opts__init(&o->fo);
	o->fo.limit = 50;
	if ((rc = parse_options(argc, argv, &desc, opts, &a)) >= 0)
		return rc;
	if (!o->html)
		return cli_error("report: which page? --html FILE");
	if (diff) {
		if (a.n != 2)
			return cli_error("report: --diff takes two recordings, BEFORE and AFTER (%d given)", a.n);
		o->before = a.v[0];
		o->after = a.v[1];
		return -1;
	}
	struct opt_inputs in = { &o->fo.ro.input, &o->fo.ro.inputs, &o->fo.ro.nr_inputs };

	for (int k = 0; k < a.n; k++) /* positional inputs, as -i */
		opt_inputs__add(&in, a.v[k]);
	opt_inputs__done(&in);
	return -1;
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

static struct hwp_table *summary_table(struct flow_input *fi, const char *input)
{
	struct hwp_table *t = hwp_table__new();
	struct hwp_reader *r = hwp_session__reader(fi->in.session);
	const struct hwp_branch_collect_stats *st = hwp_branch_collector__stats(fi->in.collector);
	const struct hwp_range_stats *rs = hwp_branch_collector__range_stats(fi->in.collector);
	const struct hwp_flow_stats *fs = fi->flow ? hwp_flow__stats(fi->flow) : NULL;
	const struct hwp_header_info *h = hwp_session__header(fi->in.session);
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
	if (fi->mem) {
		const struct hwp_mem_stats *ms = hwp_mem_report__totals(fi->mem);

		fact(t, "Memory samples", "%" PRIu64 " (%" PRIu64 " loads, %" PRIu64 " stores, %" PRIu64 " HITM)%s",
		     ms->samples, ms->loads, ms->stores, ms->hitm,
		     hwp_mem_report__modelled(fi->mem) ? "; modelled by the emulator's cache" : "");
	}
	return t;
}

/* Adds TABLE under a section, or says it could not be made. */
static int section(struct hwp_html_page *p, const char *title, const char *note, struct hwp_table *t)
{
	hwp_html_page__section(p, title, note);
	if (!t)
		return cli_error("%s", hwp_errmsg());
	hwp_html_page__table(p, t);
	hwp_table__delete(t);
	return 0;
}

static int findings(struct hwp_html_page *p, struct flow_input *fi, uint64_t limit)
{
	struct hwp_advise_opts ao = { .sz = sizeof(ao) };
	struct hwp_advisor *a = flow_input__advisor(fi, &ao);
	const struct hwp_finding *f;
	size_t n;
	int rc;

	if (!a)
		return cli_error("%s", hwp_errmsg());
	f = hwp_advisor__findings(a, &n);
	rc = section(p, "Findings (hwprof advise)",
		     n ? "Largest estimated share of the work first; each row's action says what to do."
		       : "No finding above the default thresholds.",
		     advise_table(report_input__symbolizer(&fi->in), f, n, limit, -1, HWP_TABLE_HTML));
	hwp_advisor__delete(a);
	return rc;
}

/* The chart C, inlined in the page. */
static int chart_into(struct hwp_html_page *p, struct hwp_chart *c)
{
	struct hwp_outbuf o;
	size_t len;
	char *svg;

	if (hwp_outbuf__init(&o, NULL) < 0)
		return cli_error("out of memory");
	hwp_chart__render(c, &o);
	if (!(svg = hwp_outbuf__take(&o, &len)))
		return cli_error("out of memory");
	hwp_html_page__svg(p, svg, len);
	free(svg);
	return 0;
}

/* Block latency: the table of the blocks by total cycles, and the chart of
   the hottest block with two peaks (else of the hottest block). */
static int timing_section(struct hwp_html_page *p, struct flow_input *fi, uint64_t limit)
{
	struct hwp_symbolizer *sym = report_input__symbolizer(&fi->in);
	enum hwp_cycles_source src;
	const struct hwp_timing_block *b;
	size_t n, *idx, pick = 0;
	char title[1100], name[1024];
	int rc;

	if (!fi->timing) {
		hwp_html_page__section(p, "Block latency (hwprof timing)",
				       "The recording carries no cycle counts (AMD LBRv2, stacks synthesized from a trace, "
				       "or recorded with no_cycles): no block latency.");
		return 0;
	}
	src = hwp_timing__source(fi->timing);
	b = hwp_timing__blocks(fi->timing, &n);
	if (!(idx = calloc(n ? n : 1, sizeof(*idx))))
		return cli_error("out of memory");
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	rc = section(p, "Block latency (hwprof timing)",
		     src == HWP_CYCLES_MODELLED
			     ? "Cycles per basic block, by total cycles. Cycles are MODELLED by hwprof's emulator "
			       "(a cost model), not measured on hardware."
			     : "Cycles per basic block from the branch records' cycle counts, by total cycles.",
		     timing_blocks_table(sym, fi->timing, idx, n < limit ? n : limit, HWP_TABLE_HTML));
	free(idx);
	if (rc || !n)
		return rc;
	for (size_t i = 0; i < n && i < limit; i++)
		if (b[i].d.nmodes >= 2) {
			pick = i;
			break;
		}
	timing_block_name(sym, &b[pick].start, &b[pick].end, name, sizeof(name));
	snprintf(title, sizeof(title), "Block latency: %s", name);
	struct hwp_chart *c = timing_chart(title, &b[pick].d, src, "one basic block");
	if (!c)
		return cli_error("%s", hwp_errmsg());
	rc = chart_into(p, c);
	hwp_chart__delete(c);
	return rc;
}

/* The flame graph of the samples' call stacks, inlined (hwprof flame's SVG). */
static int flame_section(struct hwp_html_page *p, struct flow_input *fi)
{
	struct hwp_call_graph_stats st = { 0 };
	struct hwp_flame_svg_opts so = { .sz = sizeof(so), .title = "Flame graph (hwprof flame)" };
	struct hwp_flame *f;
	struct hwp_outbuf o;
	size_t len;
	char *svg = NULL;

	if (fi->calls)
		hwp_call_graph__stats(fi->calls, &st);
	if (!st.with_callchain) {
		hwp_html_page__section(p, "Flame graph (hwprof flame)",
				       "The samples carry no call stacks: record with -g or --call-graph lbr for one.");
		return 0;
	}
	hwp_html_page__section(p, "Flame graph (hwprof flame)",
			       "Call stacks of the samples: hover for counts, click to zoom, search by name.");
	if (!(f = hwp_flame__new()) || hwp_flame__add_call_graph(f, HWP_FLAME_AFTER, fi->calls, fi->in.session, false) < 0 ||
	    hwp_outbuf__init(&o, NULL) < 0) {
		hwp_flame__delete(f);
		return cli_error("%s", hwp_errmsg());
	}
	if (hwp_flame__render_svg(f, &o, &so) < 0 || !(svg = hwp_outbuf__take(&o, &len))) {
		hwp_outbuf__finish(&o);
		hwp_flame__delete(f);
		return cli_error("writing the flame graph: %s", hwp_errmsg());
	}
	hwp_html_page__svg(p, svg, len);
	free(svg);
	hwp_flame__delete(f);
	return 0;
}

/* Memory: where the sampled accesses were served from, and the source
   lines with the most load latency (hwprof mem's tables, shortened). */
static int mem_section(struct hwp_html_page *p, struct flow_input *fi, uint64_t limit)
{
	const struct hwp_mem_stats *ms = hwp_mem_report__totals(fi->mem);
	const struct hwp_mem_group *g;
	size_t n = hwp_mem_report__groups(fi->mem, HWP_MEM_BY_LINE, &g);
	struct hwp_table *src = hwp_table__new(), *lines = hwp_table__new();
	char buf[512];
	int rc;

	if (!src || !lines || n == (size_t)-1) {
		hwp_table__delete(src);
		hwp_table__delete(lines);
		return cli_error("%s", hwp_errmsg());
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
	rc = section(p, "Memory (hwprof mem)",
		     hwp_mem_report__modelled(fi->mem)
			     ? "Precise memory samples by data source; latencies and sources MODELLED by hwprof's "
			       "emulated cache hierarchy, not measured."
			     : "Precise memory samples (PEBS/IBS) by data source.",
		     src);
	if (!rc)
		rc = section(p, "Memory by source line", "Source lines by sampled accesses, with their load latency.",
			     lines);
	else
		hwp_table__delete(lines);
	return rc;
}

static int one_recording(struct hwp_html_page *p, struct flow_input *fi, const struct report_cmd_opts *o)
{
	struct flow_opts fo = o->fo;
	int rc;

	fo.ro.fmt = HWP_TABLE_HTML;
	if ((rc = section(p, "Summary", NULL, summary_table(fi, fo.ro.input))) ||
	    (rc = findings(p, fi, o->fo.limit)))
		return rc;
	if (!fi->flow) /* memory samples alone */
		return mem_section(p, fi, o->fo.limit);
	if (
	    (rc = section(p, "Hot branches (hwprof branches)", "Taken branches by module and symbol, most sampled first.",
			  branches_table(&fi->in, o->fo.limit))) ||
	    (rc = section(p, "Mispredicts (hwprof mispredicts)",
			  "Branches by mispredicted entries; rates per execution for conditional branches "
			  "(taken mispredicts only: a lower bound).",
			  mispredicts_table(&fi->in, fi->flow, o->fo.limit, 1, HWP_TABLE_HTML))) ||
	    (rc = section(p, "Branch probabilities (hwprof probs)",
			  "Conditional branches by sampled executions, taken probability with its 95% Wilson interval.",
			  probs_table(fi, &fo))))
		return rc;
	if ((rc = section(p, "Hot blocks (hwprof blocks)", "Basic blocks by sampled executions and instructions.",
			  blocks_table(fi, &fo))))
		return rc;
	if ((rc = timing_section(p, fi, o->fo.limit)) || (rc = flame_section(p, fi)))
		return rc;
	return fi->mem ? mem_section(p, fi, o->fo.limit) : 0;
}

static int comparison(struct hwp_html_page *p, struct flow_input *b, struct flow_input *a,
		      const struct report_cmd_opts *o)
{
	struct hwp_flow_diff_opts dopt = { .sz = sizeof(dopt) };
	struct hwp_flow_diff *d = hwp_flow_diff__new(b->flow, b->in.collector, a->flow, a->in.collector, &dopt);
	int rc;

	if (!d || (b->timing && a->timing && hwp_flow_diff__add_timing(d, b->timing, a->timing) < 0)) {
		hwp_flow_diff__delete(d);
		return cli_error("%s", hwp_errmsg());
	}
	const struct hwp_flow_diff_stats *st = hwp_flow_diff__stats(d);
	char note[512];

	snprintf(note, sizeof(note), "%zu significant changes among %zu functions, %zu blocks and %zu branches%s.",
		 st->significant, st->functions, st->blocks, st->branches,
		 st->matched_by_symbol ? " (build-ids differ: matched by symbol and line)" : "");
	rc = section(p, "Changes (hwprof diff)", note, diff_table(b, a, d, o->fo.limit, false, HWP_TABLE_HTML));
	hwp_flow_diff__delete(d);
	if (!rc)
		rc = section(p, "Before", NULL, summary_table(b, o->before));
	if (!rc)
		rc = section(p, "After", NULL, summary_table(a, o->after));
	if (!rc)
		rc = findings(p, a, o->fo.limit);
	return rc;
}

static int write_page(const struct report_cmd_opts *o, struct flow_input *b, struct flow_input *a)
{
	FILE *fp = strcmp(o->html, "-") ? fopen(o->html, "w") : stdout;
	struct hwp_outbuf out;
	struct hwp_html_page *p;
	char title[512];
	int rc;

	if (!fp)
		return cli_error("%s: cannot write: %s", o->html, strerror(errno));
	if (hwp_outbuf__init(&out, fp) < 0) {
		if (fp != stdout)
			fclose(fp);
		return cli_error("out of memory");
	}
	if (a)
		snprintf(title, sizeof(title), "hwprof: %s -> %s", o->before, o->after);
	else
		snprintf(title, sizeof(title), "hwprof report: %s", o->fo.ro.input);
	if (!(p = hwp_html_page__new(&out, title))) {
		hwp_outbuf__finish(&out);
		if (fp != stdout)
			fclose(fp);
		return cli_error("%s", hwp_errmsg());
	}
	rc = a ? comparison(p, b, a, o) : one_recording(p, b, o);
	int err = hwp_html_page__finish(p);
	if (!err)
		err = hwp_outbuf__finish(&out);
	else
		hwp_outbuf__finish(&out);
	if (fp != stdout && fclose(fp) && !err)
		err = -errno;
	if (err && !rc)
		rc = cli_error("%s: write failed: %s", o->html, strerror(-err));
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd_opts o;
	struct flow_input b, a;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (!o.before) {
		rc = flow_input__load(&b, &o.fo, "report", FLOW_WITH_TIMING | FLOW_WITH_CALLS | FLOW_WITH_MEM);
		if (!rc)
			rc = write_page(&o, &b, NULL);
		flow_input__close(&b);
		return rc;
	}
	struct flow_opts ob = o.fo, oa = o.fo;

	ob.ro.input = o.before;
	oa.ro.input = o.after;
	rc = flow_input__load(&b, &ob, "report", FLOW_WITH_TIMING);
	if (!rc) {
		rc = flow_input__load(&a, &oa, "report", FLOW_WITH_TIMING);
		if (!rc)
			rc = write_page(&o, &b, &a);
		flow_input__close(&a);
	}
	flow_input__close(&b);
	return rc;
}
