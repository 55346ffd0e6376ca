/* SPDX-License-Identifier: MIT */
/* hwprof mem: load latency and data sources of precise memory samples. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "chart_out.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/mem.h"
#include "hwprof/session.h"

static const char usage[] =
	"usage: hwprof mem [-i FILE] [-s KEY] [--loads | --stores] [--cache-line N]\n"
	"                  [--limit N] [--svg FILE] [--symfs DIR] [--json | --csv]\n"
	"       hwprof mem -s hist [--symbol NAME | --srcline FILE:LINE] [-i FILE] ...\n"
	"\n"
	"Precise memory samples (Intel PEBS load latency and stores: DATA_SRC with\n"
	"WEIGHT or WEIGHT_STRUCT and ADDR; AMD IBS op samples; hwprof's emulated\n"
	"memory samples): totals, a log2 latency histogram, the breakdown by data\n"
	"source (L1, fill buffer, L2, L3, L3 HITM, peer cache, local and remote\n"
	"DRAM, remote cache, PMEM, CXL, I/O, uncached), then one table by KEY.\n"
	"Latency is the sample's weight in core cycles (IBS: DcMissLat, or\n"
	"tag-to-retire for ops that hit the data cache). Emulated recordings say\n"
	"their values are modelled.\n"
	"\n"
	"  -i, --input FILE     perf.data (default: perf.data)\n"
	"  -s, --sort KEY       the table: symbol (default), line, ip, addr,\n"
	"                       cacheline, object (data symbol or region: [heap],\n"
	"                       [stack], anon, a file), source, hist\n"
	"      --loads          only loads\n"
	"      --stores         only stores\n"
	"      --cache-line N   cache line size in bytes (default: 64)\n"
	"      --symbol NAME    with -s hist: the histogram of one function's samples\n"
	"      --srcline F:N    with -s hist: the histogram of one source line's samples\n"
	"                       (F: the file's name or a trailing part of its path)\n"
	REPORT_LIMIT_HELP
	"      --svg FILE       also draw the latency histogram, stacked by data source\n"
	"      --symfs DIR      look for binaries under DIR\n"
	"      --json           the table as JSON (machine fields: module, offset, ...)\n"
	"      --csv            the table as CSV\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

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

static const struct { const char *name; int key; } sort_keys[] = {
	{ "symbol", HWP_MEM_BY_SYMBOL }, { "sym", HWP_MEM_BY_SYMBOL }, { "line", HWP_MEM_BY_LINE },
	{ "srcline", HWP_MEM_BY_LINE }, { "ip", HWP_MEM_BY_IP }, { "addr", HWP_MEM_BY_ADDR },
	{ "cacheline", HWP_MEM_BY_CACHELINE }, { "object", HWP_MEM_BY_OBJECT },
	{ "source", HWP_MEM_BY_SOURCE }, { "hist", SORT_HIST },
};

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct mem_opts *o)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		REPORT_LONGOPTS,
		{ "sort", required_argument, NULL, 's' },
		{ "loads", no_argument, NULL, 'L' },
		{ "stores", no_argument, NULL, 'T' },
		{ "cache-line", required_argument, NULL, 'C' },
		{ "limit", required_argument, NULL, 'l' },
		{ "svg", required_argument, NULL, 'G' },
		{ "symbol", required_argument, NULL, 'Y' },
		{ "srcline", required_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	report_opts__init(&o->r);
	o->sort = HWP_MEM_BY_SYMBOL;
	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:s:vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c) || report_opts__take(&o->r, c, optarg))
			continue;
		switch (c) {
		case 's': {
			size_t i;
			for (i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
				if (!strcmp(optarg, sort_keys[i].name))
					break;
			if (i == sizeof(sort_keys) / sizeof(sort_keys[0]))
				return cli_error("mem: --sort '%s': one of symbol, line, ip, addr, cacheline, "
						 "object, source, hist", optarg);
			o->sort = sort_keys[i].key;
			break;
		}
		case 'L':
			o->loads = true;
			break;
		case 'T':
			o->stores = true;
			break;
		case 'C': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 0);
			if (*end || v < 8 || v > 4096 || (v & (v - 1)))
				return cli_error("mem: --cache-line '%s': a power of two from 8 to 4096", optarg);
			o->cache_line = (unsigned)v;
			break;
		}
		case 'l':
			if (report_parse_limit("mem", optarg, &o->limit))
				return 1;
			break;
		case 'G':
			o->svg = optarg;
			break;
		case 'Y':
			o->symbol = optarg;
			break;
		case 'N':
			o->srcline = optarg;
			break;
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind < argc)
		return cli_error("mem: unexpected argument '%s'", argv[optind]);
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
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o.r.fmt, .limit = o.limit };
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
	} else if (!(t = o.sort != SORT_HIST ? hwp_report__mem_groups(r, o.sort, &ro)
			 : o.symbol || o.srcline ? hwp_report__mem_selected_histogram(r, o.symbol, o.srcline, &none)
						 : hwp_report__mem_histogram(r))) {
		rc = none ? cli_error("%s: no memory samples in %s %s", o.r.input,
				      o.symbol ? "function" : "source line", o.symbol ? o.symbol : o.srcline)
			  : cli_error("%s", hwp_errmsg());
	} else if (o.svg && (rc = chart_write_svg(o.svg, hwp_report__mem_chart(r, o.r.input)))) {
		/* the error is printed */
	} else {
		if (o.r.fmt == HWP_TABLE_TEXT)
			hwp_report__print_mem_overview(r, o.r.input, stdout);
		rc = report_print_table(t, o.r.fmt);
	}
	hwp_table__delete(t);
	hwp_mem_report__delete(r);
	hwp_session__delete(s);
	return rc;
}
