/* SPDX-License-Identifier: MIT */
/* hwprof callgraph: children and self per function, as perf report --children. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_callgraph.h"
#include "cli_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/json.h"
#include "hwprof/outbuf.h"
#include "hwprof/table.h"

static const struct cmd_desc desc = {
	.name = "callgraph",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"Call graph of the sampled call stacks (perf record -g, --call-graph lbr, or\n"
		"emulated call-stack recordings), per function as 'perf report --children':\n"
		"Children is the share of the event count (period) of the samples with the\n"
		"function anywhere on their stack (once per sample), Self the share of those\n"
		"whose IP is in it. Inlined functions are rows of their own (children only,\n"
		"as perf shows them). With --function NAME: the function's callers and callees\n"
		"(outermost calls of NAME; shares of its children count).\n",
};

struct cg_opts {
	struct report_opts ro;
	const char *function;
	uint64_t limit;
	bool no_inline, stitch_lbr;
};

enum { C_CHILDREN, C_SELF, C_SAMPLES, C_DSO, C_SYM, C_CPERIOD, C_SPERIOD, C_SSAMPLES, C_MODULE, C_BUILDID,
       C_OFFSET, C_SYMBOL, C_INLINED, C_KERNEL, C_NCOLS };

static const struct {
	const char *title, *key;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
} cols[C_NCOLS] = {
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

static double pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

/* One function's row: its counts given as C_PERIOD/S_PERIOD/C_SAMPLES/S_SAMPLES. */
static void fn_row(struct hwp_table *t, struct cg_input *in, const struct hwp_cg_function *f, uint64_t cp,
		   uint64_t sp, uint64_t cs, uint64_t ss, uint64_t total)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(in->session);
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
		snprintf(buf, sizeof(buf), "[%c] 0x%016" PRIx64, f->kernel ? 'k' : '.', f->offset);
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

static struct hwp_table *new_table(void)
{
	struct hwp_table *t = hwp_table__new();

	for (size_t k = 0; t && k < C_NCOLS; k++)
		hwp_table__add_column_shown(t, cols[k].title, cols[k].key, cols[k].kind, cols[k].show);
	return t;
}

static const struct hwp_cg_function *g_funcs;

static int by_children(const void *a, const void *b)
{
	const struct hwp_cg_function *x = &g_funcs[*(const uint32_t *)a], *y = &g_funcs[*(const uint32_t *)b];

	if (x->children_period != y->children_period)
		return x->children_period < y->children_period ? 1 : -1;
	if (x->self_period != y->self_period)
		return x->self_period < y->self_period ? 1 : -1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static int report(struct cg_input *in, const struct cg_opts *o)
{
	const struct hwp_cg_function *f;
	size_t n = hwp_call_graph__functions(in->cg, &f);
	struct hwp_call_graph_stats st;
	struct hwp_table *t = new_table();
	uint32_t *order = calloc(n + 1, sizeof(*order));
	int rc;

	if (!t || !order || !f) {
		hwp_table__delete(t);
		free(order);
		return cli_error("%s", !f ? hwp_errmsg() : "out of memory");
	}
	hwp_call_graph__stats(in->cg, &st);
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	g_funcs = f;
	qsort(order, n, sizeof(*order), by_children);
	for (size_t i = 0, shown = 0; i < n && shown < o->limit; i++) {
		const struct hwp_cg_function *x = &f[order[i]];
		if (!x->children_period && !x->children_samples)
			continue; /* inlined only: in the tree, not a row (as perf) */
		shown++;
		fn_row(t, in, x, x->children_period, x->self_period, x->children_samples, x->self_samples, st.period);
	}
	cg_input__warn_missing(in);
	rc = report_print_table(t, o->ro.fmt);
	hwp_table__delete(t);
	free(order);
	return rc;
}

struct edge {
	uint64_t period, samples;
};

/* Callers and callees of the outermost calls of NAME in the function tree. */
static int function_report(struct cg_input *in, const struct cg_opts *o)
{
	const struct hwp_cg_function *f;
	const struct hwp_cg_node *t;
	size_t nf = hwp_call_graph__functions(in->cg, &f);
	size_t nt = hwp_call_graph__tree(in->cg, &t);
	struct edge *callers = calloc(nf + 1, sizeof(*callers)), *callees = calloc(nf + 1, sizeof(*callees));
	bool *match = calloc(nf + 1, sizeof(*match));
	uint32_t *inside = calloc(nt + 1, sizeof(*inside)); /* a node below a match (1 + its index) */
	uint64_t total = 0, self = 0, total_s = 0, self_s = 0;
	bool any = false;
	char buf[1024];
	int rc = 0;

	if (!f || !t) {
		rc = cli_error("%s", hwp_errmsg());
		goto out;
	}
	if (!callers || !callees || !match || !inside) {
		rc = cli_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < nf; i++)
		if (!strcmp(cg_function_name(in, &f[i], buf, sizeof(buf)), o->function)) {
			any = match[i] = true;
			/* self as the report counts it: samples whose IP is in it */
			self += f[i].self_period;
			self_s += f[i].self_samples;
		}
	if (!any) {
		rc = cli_error("%s: no function '%s' on any sampled stack", o->ro.input, o->function);
		goto out;
	}
	for (size_t i = 1; i < nt; i++) {
		uint32_t p = t[i].parent;
		uint32_t above = inside[p];
		if (match[t[i].function] && !above) {
			/* an outermost call of NAME */
			inside[i] = (uint32_t)i + 1;
			total += t[i].total_period;
			total_s += t[i].total_samples;
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
	for (int side = 0; side < 2; side++) {
		struct edge *e = side ? callees : callers;
		struct hwp_table *tb = new_table();
		size_t rows = 0;

		if (!tb) {
			rc = cli_error("out of memory");
			goto out;
		}
		for (uint64_t shown = 0; shown < o->limit; shown++) {
			size_t best = nf;
			for (size_t i = 0; i < nf; i++)
				if (e[i].period && (best == nf || e[i].period > e[best].period))
					best = i;
			if (best == nf)
				break;
			fn_row(tb, in, &f[best], e[best].period, 0, e[best].samples, 0, total);
			e[best].period = 0;
			rows++;
		}
		if (o->ro.fmt == HWP_TABLE_TEXT) {
			printf("%s# %s of %s (children %" PRIu64 " samples, period %" PRIu64 "; self %" PRIu64
			       " samples): share of its children count\n",
			       side ? "\n" : "", side ? "Callees" : "Callers", o->function, total_s, total, self_s);
			if (!rows)
				printf("# (none%s)\n", side ? ": all its samples are self" : ": it is a stack's root");
		} else if (o->ro.fmt == HWP_TABLE_JSON) {
			if (side) {
				printf(",\"callees\":");
			} else {
				struct hwp_outbuf ob;
				hwp_outbuf__init(&ob, stdout);
				hwp_outbuf__puts(&ob, "{\"function\":");
				hwp_json_quote(&ob, o->function);
				hwp_outbuf__finish(&ob);
				printf(",\"children_period\":%" PRIu64 ",\"children_samples\":%" PRIu64
				       ",\"self_period\":%" PRIu64 ",\"self_samples\":%" PRIu64 ",\"callers\":",
				       total, total_s, self, self_s);
			}
		}
		if (o->ro.fmt != HWP_TABLE_TEXT || rows) {
			fflush(stdout);
			rc = report_print_table(tb, o->ro.fmt);
		}
		hwp_table__delete(tb);
		if (rc)
			goto out;
	}
	if (o->ro.fmt == HWP_TABLE_JSON)
		printf("}\n");
	cg_input__warn_missing(in);
out:
	free(callers);
	free(callees);
	free(match);
	free(inside);
	return rc;
}

int cmd_callgraph(int argc, char **argv)
{
	struct cg_opts o = { .limit = UINT64_MAX };
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o.ro),
		OPT_STRING('f', "function", &o.function, "NAME", "callers and callees of the function NAME"),
		OPT_REPORT_LIMIT(&o.limit),
		OPT_BOOL(0, "no-inline", &o.no_inline, "no inlined frames (each address is its function only)"),
		OPT_BOOL(0, "stitch-lbr", &o.stitch_lbr,
			 "LBR call stacks continued from the thread's earlier samples, as perf report --stitch-lbr"),
		OPT_REPORT_SYMFS(&o.ro),
		OPT_SET_ENUM(0, "json", &o.ro.fmt, HWP_TABLE_JSON, 0, "JSON rows"),
		OPT_SET_ENUM(0, "csv", &o.ro.fmt, HWP_TABLE_CSV, 0, "CSV rows (not with --function)"),
		OPT_COMMON(),
		OPT_END(),
	};
	struct cg_input in;
	int rc;

	report_opts__init(&o.ro);
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	if (o.function && o.ro.fmt == HWP_TABLE_CSV)
		return cli_error("callgraph: --function prints two tables (callers, callees): use --json, not --csv");
	size_t n;
	const char *const *inputs = report_opts__inputs(&o.ro, &n);

	rc = cg_input__load(&in, "callgraph", inputs, n, o.ro.symfs, o.no_inline, o.stitch_lbr);
	if (!rc)
		rc = o.function ? function_report(&in, &o) : report(&in, &o);
	cg_input__close(&in);
	return rc;
}
