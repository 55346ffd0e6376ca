/* SPDX-License-Identifier: MIT */
/* hwprof mem: load latency and data sources of precise memory samples. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_callgraph.h"
#include "cli_report.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/mem.h"
#include "hwprof/session.h"

static const struct cmd_desc desc = {
	.name = "mem",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
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
	bool children, latency;
};

/* -s KEY: names and the table each selects (sym and srcline as perf spells them) */
static const char *const sort_names[] = { "symbol", "sym", "line", "srcline", "ip", "addr", "cacheline",
					  "object", "source", "type", "hist", NULL };
static const int sort_keys[] = { HWP_MEM_BY_SYMBOL, HWP_MEM_BY_SYMBOL, HWP_MEM_BY_LINE, HWP_MEM_BY_LINE,
				 HWP_MEM_BY_IP, HWP_MEM_BY_ADDR, HWP_MEM_BY_CACHELINE, HWP_MEM_BY_OBJECT,
				 HWP_MEM_BY_SOURCE, HWP_MEM_BY_TYPE, SORT_HIST };

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct mem_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT_AS(&o->r, "perf.data (default: perf.data)"),
		OPT_REPORT_JOBS(&o->r),
		{ .kind = OPT_KIND_CHOICE, .short_name = 's', .long_name = "sort", .value = &o->sort, .argh = "KEY",
		  .choices = sort_names, .ivals = sort_keys,
		  .err = ": one of symbol, line, ip, addr, cacheline, object, source, type, hist",
		  .help = "the table: symbol (default), line, ip, addr, cacheline, object (data symbol or region: "
			  "[heap], [stack], anon, a file), source, type (the data type and member from DWARF, "
			  "as perf annotate --data-type), hist" },
		OPT_BOOL(0, "loads", &o->loads, "only loads"),
		OPT_BOOL(0, "stores", &o->stores, "only stores"),
		OPT_CACHE_LINE(&o->cache_line),
		OPT_STRING(0, "symbol", &o->symbol, "NAME", "with -s hist: the histogram of one function's samples"),
		OPT_STRING(0, "srcline", &o->srcline, "F:N",
			   "with -s hist: the histogram of one source line's samples (F: the file's name or a "
			   "trailing part of its path)"),
		OPT_REPORT_LIMIT(&o->limit),
		OPT_STRING(0, "svg", &o->svg, "FILE", "also draw the latency histogram, stacked by data source"),
		OPT_BOOL(0, "children", &o->children,
			 "the memory samples' call graph: children and self per function, as perf report --children "
			 "(needs call stacks: -g or --call-graph dwarf)"),
		OPT_BOOL(0, "latency", &o->latency, "with --children: weigh each sample by its latency in cycles"),
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
	if (o->latency && !o->children)
		return cli_error("mem: --latency weighs the call graph of --children");
	if (o->children && (o->loads || o->stores || o->svg || o->symbol || o->srcline || o->sort != HWP_MEM_BY_SYMBOL))
		return cli_error("mem: --children shows the call graph of every memory sample: no -s, --loads, --stores, "
				 "--svg, --symbol or --srcline");
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

int cmd_mem(int argc, char **argv)
{
	struct mem_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	if (o.children)
		return cg_children_report("mem", &o.r, HWP_CG_MEMORY, o.latency, o.limit);
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = o.r.symfs };
	size_t ninputs;
	const char *const *inputs = report_opts__inputs(&o.r, &ninputs);
	struct hwp_session *s = hwp_session__open_inputs(inputs, ninputs, &so);
	if (!s)
		return cli_error("%s", hwp_errmsg());
	/* only the table asked for is collected */
	int key = o.sort != SORT_HIST ? o.sort : o.symbol ? HWP_MEM_BY_SYMBOL : o.srcline ? HWP_MEM_BY_LINE : -1;
	struct hwp_mem_report_opts mo = { .sz = sizeof(mo), .cache_line = o.cache_line,
					  .loads_only = o.loads, .stores_only = o.stores,
					  .collect = key < 0 ? HWP_MEM_COLLECT_TOTALS : HWP_MEM_COLLECT_KEY(key) };
	struct hwp_mem_report *r = hwp_mem_report__new(s, &mo);
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o.r.fmt, .limit = o.limit };
	struct hwp_table *t = NULL;
	bool none = false;

	if (!r) {
		rc = cli_error("%s", hwp_errmsg());
	} else if (hwp_mem_report__read_jobs(r, o.r.jobs) < 0) {
		rc = cli_error("%s", hwp_errmsg());
	} else if (hwp_mem_report__totals(r)->samples == 0) {
		rc = cli_error("%s: no memory samples (samples with a data source: record with "
			       "'hwprof record --mem', 'perf mem record' or 'perf record -d' on a "
			       "precise memory event)", o.r.input);
	} else if (!(t = o.sort != SORT_HIST ? hwp_report__mem_groups(r, o.sort, &ro)
			 : o.symbol || o.srcline ? hwp_report__mem_selected_histogram(r, o.symbol, o.srcline, &none)
						 : hwp_report__mem_histogram(r))) {
		rc = none ? cli_error("%s: no memory samples in %s %s", o.r.input,
				      o.symbol ? "function" : "source line", o.symbol ? o.symbol : o.srcline)
			  : cli_error("%s", hwp_errmsg());
	} else if (o.svg && (rc = cli_write_svg(o.svg, hwp_report__mem_chart(r, o.r.input)))) {
		/* the error is printed */
	} else {
		if (o.r.fmt == HWP_TABLE_TEXT)
			hwp_report__print_mem_overview(r, o.r.input, stdout);
		/* how much of it DWARF could type: on stderr, so that data
		   formats stay one document */
		if (o.sort == HWP_MEM_BY_TYPE || o.sort == HWP_MEM_BY_IP)
			hwp_report__print_mem_typed(r, o.r.fmt == HWP_TABLE_TEXT ? stdout : stderr);
		rc = report_print_table_jobs(t, o.r.fmt, o.r.jobs);
	}
	hwp_table__delete(t);
	hwp_mem_report__delete(r);
	hwp_session__delete(s);
	return rc;
}
