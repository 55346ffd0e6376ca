/* SPDX-License-Identifier: MIT */
/* hwprof callgraph's tables: children and self per function, and one
   function's callers and callees. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symbolizer_internal.h"
#include "output/json.h"
#include "output/outbuf.h"
#include "report/report_internal.h"
#include "util/error.h"

enum { C_CHILDREN, C_SELF, C_SAMPLES, C_DSO, C_SYM, C_CPERIOD, C_SPERIOD, C_SSAMPLES, C_MODULE, C_BUILDID,
       C_OFFSET, C_SYMBOL, C_INLINED, C_KERNEL, C_NCOLS };

static const struct hwp__report_column cg_cols[C_NCOLS] = {
	[C_CHILDREN] = { "Children", "children_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[C_SELF] = { "Self", "self_percent", HWP_COL_PERCENT, HWP_SHOW_ALL },
	[C_SAMPLES] = { "Samples", "children_samples", HWP_COL_COUNT, HWP_SHOW_ALL },
	[C_DSO] = { "Shared Object", "dso", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[C_SYM] = { "Symbol", "sym", HWP_COL_TEXT, HWP_SHOW_TEXT },
	[C_CPERIOD] = { "Children Period", "children_period", HWP_COL_COUNT, HWP_SHOW_DATA },
	[C_SPERIOD] = { "Self Period", "self_period", HWP_COL_COUNT, HWP_SHOW_DATA },
	[C_SSAMPLES] = { "Self Samples", "self_samples", HWP_COL_COUNT, HWP_SHOW_DATA },
	[C_MODULE] = { "Module", "module", HWP_COL_TEXT, HWP_SHOW_DATA },
	[C_BUILDID] = { "Build-ID", "build_id", HWP_COL_TEXT, HWP_SHOW_DATA },
	[C_OFFSET] = { "Offset", "offset", HWP_COL_HEX, HWP_SHOW_DATA },
	[C_SYMBOL] = { "Symbol Name", "symbol", HWP_COL_TEXT, HWP_SHOW_DATA },
	[C_INLINED] = { "Inlined", "inlined", HWP_COL_BOOL, HWP_SHOW_DATA },
	[C_KERNEL] = { "Kernel", "kernel", HWP_COL_BOOL, HWP_SHOW_DATA },
};

const char *hwp_report__cg_function_name(struct hwp_symbolizer *sym, const struct hwp_cg_function *f, char *buf,
					 size_t size)
{
	const char *mod;

	if (f->name)
		return f->name;
	/* kernel addresses are absolute: the module name adds nothing */
	mod = sym && f->module >= 0 && !f->kernel ? hwp_symbolizer__module_short_name(sym, f->module) : NULL;
	if (mod)
		snprintf(buf, size, "%s+0x%" PRIx64, mod, f->offset);
	else
		snprintf(buf, size, "0x%" PRIx64, f->offset);
	return buf;
}

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

/* One function's row: its counts given as CP/SP (children, self period) and
   CS/SS (samples), shares of TOTAL. */
static void fn_row(struct hwp_table *t, struct hwp_symbolizer *sym, const struct hwp_cg_function *f, uint64_t cp,
		   uint64_t sp, uint64_t cs, uint64_t ss, uint64_t total)
{
	const char *mod = sym && f->module >= 0 ? hwp_symbolizer__module_short_name(sym, f->module) : NULL;
	char buf[1024];

	hwp_table__new_row(t);
	hwp_table__set_real(t, C_CHILDREN, pct(cp, total));
	hwp_table__set_real(t, C_SELF, pct(sp, total));
	hwp_table__set_count(t, C_SAMPLES, cs);
	hwp_table__set_text(t, C_DSO, mod ? mod : "[unknown]");
	if (f->name)
		snprintf(buf, sizeof(buf), "[%c] %s%s", f->kernel ? 'k' : '.', f->name, f->inlined ? " (inlined)" : "");
	else
		snprintf(buf, sizeof(buf), "[%c] %#.16" PRIx64, f->kernel ? 'k' : '.',
			 sym && f->module >= 0 ? hwp__symbolizer_perf_address(sym, f->module, f->offset) : f->offset);
	hwp_table__set_text(t, C_SYM, buf);
	hwp_table__set_count(t, C_CPERIOD, cp);
	hwp_table__set_count(t, C_SPERIOD, sp);
	hwp_table__set_count(t, C_SSAMPLES, ss);
	if (sym && f->module >= 0) {
		hwp_table__set_text(t, C_MODULE, hwp_symbolizer__module_name(sym, f->module));
		hwp_table__set_text(t, C_BUILDID, hwp_symbolizer__module_build_id(sym, f->module));
	}
	hwp_table__set_count(t, C_OFFSET, f->offset);
	hwp_table__set_text(t, C_SYMBOL, f->name);
	hwp_table__set_count(t, C_INLINED, f->inlined);
	hwp_table__set_count(t, C_KERNEL, f->kernel);
}

static struct hwp_table *cg_table(void)
{
	struct hwp_table *t = hwp_table__new();

	if (t && hwp__report_add_columns(t, cg_cols, C_NCOLS) < 0) {
		hwp_table__delete(t);
		return NULL;
	}
	return t;
}

/* A function and its index, sorted by children, then self, then first seen. */
struct ranked {
	const struct hwp_cg_function *f;
	uint32_t i;
};

static int by_children(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (x->f->children_period != y->f->children_period)
		return x->f->children_period < y->f->children_period ? 1 : -1;
	if (x->f->self_period != y->f->self_period)
		return x->f->self_period < y->f->self_period ? 1 : -1;
	return x->i < y->i ? -1 : 1;
}

struct hwp_table *hwp_report__callgraph(struct hwp_symbolizer *sym, struct hwp_call_graph *cg,
					const struct hwp_report_opts *opts)
{
	struct hwp_report_opts o;
	const struct hwp_cg_function *f;
	size_t n = hwp_call_graph__functions(cg, &f);
	struct hwp_call_graph_stats st = { .sz = sizeof(st) };
	struct hwp_table *t;
	struct ranked *order;

	if (!f || hwp__report_opts_load(opts, &o) < 0)
		return NULL;
	t = cg_table();
	order = calloc(n + 1, sizeof(*order));
	if (!t || !order) {
		hwp_table__delete(t);
		free(order);
		return NULL;
	}
	hwp_call_graph__stats(cg, &st);
	for (size_t i = 0; i < n; i++)
		order[i] = (struct ranked){ &f[i], (uint32_t)i };
	qsort(order, n, sizeof(*order), by_children);
	for (size_t i = 0, shown = 0; i < n && shown < o.limit; i++) {
		const struct hwp_cg_function *x = order[i].f;

		if (!x->children_period && !x->children_samples)
			continue; /* inlined only: in the tree, not a row (as perf) */
		shown++;
		fn_row(t, sym, x, x->children_period, x->self_period, x->children_samples, x->self_samples, st.period);
	}
	free(order);
	return t;
}

struct edge {
	uint64_t period, samples;
};

/* The callers (SIDE 0) or callees (1) table of the outermost calls of NAME,
   with its heading (text) or its place in the JSON object. */
static int print_side(struct hwp_symbolizer *sym, const struct hwp_cg_function *f, size_t nf, struct edge *e,
		      int side, const char *name, const uint64_t tot[4], const struct hwp_report_opts *o, FILE *out)
{
	struct hwp_table *tb = cg_table();
	size_t rows = 0;
	int rc = 0;

	if (!tb)
		return -ENOMEM;
	for (uint64_t shown = 0; shown < o->limit; shown++) {
		size_t best = nf;
		for (size_t i = 0; i < nf; i++)
			if (e[i].period && (best == nf || e[i].period > e[best].period))
				best = i;
		if (best == nf)
			break;
		fn_row(tb, sym, &f[best], e[best].period, 0, e[best].samples, 0, tot[0]);
		e[best].period = 0;
		rows++;
	}
	if (o->fmt == HWP_TABLE_TEXT) {
		fprintf(out, "%s# %s of %s (children %" PRIu64 " samples, period %" PRIu64 "; self %" PRIu64
			" samples): share of its children count\n",
			side ? "\n" : "", side ? "Callees" : "Callers", name, tot[1], tot[0], tot[3]);
		if (!rows)
			fprintf(out, "# (none%s)\n", side ? ": all its samples are self" : ": it is a stack's root");
	} else if (o->fmt == HWP_TABLE_JSON) {
		if (side) {
			fprintf(out, ",\"callees\":");
		} else {
			struct hwp_outbuf ob;

			fflush(out);
			if ((rc = hwp__outbuf_init(&ob, out)) < 0) {
				hwp_table__delete(tb);
				return rc;
			}
			hwp__outbuf_puts(&ob, "{\"function\":");
			hwp__json_quote(&ob, name);
			hwp__outbuf_finish(&ob);
			fprintf(out, ",\"children_period\":%" PRIu64 ",\"children_samples\":%" PRIu64
				",\"self_period\":%" PRIu64 ",\"self_samples\":%" PRIu64 ",\"callers\":",
				tot[0], tot[1], tot[2], tot[3]);
		}
	}
	if (o->fmt != HWP_TABLE_TEXT || rows)
		rc = hwp__report_print(tb, o->fmt, out);
	hwp_table__delete(tb);
	return rc;
}

int hwp_report__print_callgraph_function(struct hwp_symbolizer *sym, struct hwp_call_graph *cg, const char *name,
					 const struct hwp_report_opts *opts, FILE *out)
{
	struct hwp_report_opts o;
	const struct hwp_cg_function *f;
	const struct hwp_cg_node *t;
	size_t nf = hwp_call_graph__functions(cg, &f);
	size_t nt = hwp_call_graph__tree(cg, &t);
	struct edge *callers = calloc(nf + 1, sizeof(*callers)), *callees = calloc(nf + 1, sizeof(*callees));
	bool *match = calloc(nf + 1, sizeof(*match));
	uint32_t *inside = calloc(nt + 1, sizeof(*inside)); /* a node below a match (1 + its index) */
	uint64_t tot[4] = { 0 }; /* children period, samples; self period, samples */
	bool any = false;
	char buf[1024];
	int rc = 0;

	if (!f || !t || hwp__report_opts_load(opts, &o) < 0) {
		rc = -EINVAL;
		goto out;
	}
	if (o.fmt == HWP_TABLE_CSV || o.fmt == HWP_TABLE_HTML) { /* two tables */
		rc = hwp__set_error(EINVAL, "the callers and callees of a function are two tables: text or JSON only");
		goto out;
	}
	if (!callers || !callees || !match || !inside) {
		rc = hwp__set_error(ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nf; i++)
		if (!strcmp(hwp_report__cg_function_name(sym, &f[i], buf, sizeof(buf)), name)) {
			any = match[i] = true;
			/* self as the report counts it: samples whose IP is in it */
			tot[2] += f[i].self_period;
			tot[3] += f[i].self_samples;
		}
	if (!any) {
		rc = 1;
		goto out;
	}
	for (size_t i = 1; i < nt; i++) {
		uint32_t p = t[i].parent;
		uint32_t above = inside[p];
		if (match[t[i].function] && !above) {
			/* an outermost call of NAME */
			inside[i] = (uint32_t)i + 1;
			tot[0] += t[i].total_period;
			tot[1] += t[i].total_samples;
			if (p) {
				callers[t[p].function].period += t[i].total_period;
				callers[t[p].function].samples += t[i].total_samples;
			}
		} else {
			inside[i] = above;
			if (above && inside[p] == (uint32_t)p + 1) {
				callees[t[i].function].period += t[i].total_period;
				callees[t[i].function].samples += t[i].total_samples;
			}
		}
	}
	for (int side = 0; side < 2 && !rc; side++)
		rc = print_side(sym, f, nf, side ? callees : callers, side, name, tot, &o, out);
	if (!rc && o.fmt == HWP_TABLE_JSON)
		fprintf(out, "}\n");
out:
	free(callers);
	free(callees);
	free(match);
	free(inside);
	return rc;
}
