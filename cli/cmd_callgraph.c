/* SPDX-License-Identifier: MIT */
/* hwprof callgraph: children and self per function, as perf report --children. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_callgraph.h"
#include "cli_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/report.h"

static const char usage[] =
	"usage: hwprof callgraph [-i FILE] [--function NAME] [--limit N] [--no-inline]\n"
	"                        [--stitch-lbr] [--symfs DIR] [--json | --csv]\n"
	"\n"
	"Call graph of the sampled call stacks (perf record -g, --call-graph lbr, or\n"
	"emulated call-stack recordings), per function as 'perf report --children':\n"
	"Children is the share of the event count (period) of the samples with the\n"
	"function anywhere on their stack (once per sample), Self the share of those\n"
	"whose IP is in it. Inlined functions are rows of their own (children only,\n"
	"as perf shows them). With --function NAME: the function's callers and callees\n"
	"(outermost calls of NAME; shares of its children count).\n"
	"\n"
	"  -i, --input FILE     perf.data or perf script text (default: perf.data)\n"
	"  -f, --function NAME  callers and callees of the function NAME\n"
	REPORT_LIMIT_HELP
	"      --no-inline      no inlined frames (each address is its function only)\n"
	"      --stitch-lbr     LBR call stacks continued from the thread's earlier\n"
	"                       samples, as perf report --stitch-lbr\n"
	"      --symfs DIR      look for binaries under DIR\n"
	"      --json           JSON rows\n"
	"      --csv            CSV rows (not with --function)\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

struct cg_opts {
	struct report_opts ro;
	const char *function;
	uint64_t limit;
	bool no_inline, stitch_lbr;
};

static int report(struct cg_input *in, const struct cg_opts *o)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit };
	struct hwp_table *t = hwp_report__callgraph(hwp_session__symbolizer(in->session), in->cg, &ro);
	int rc;

	if (!t)
		return cli_error("%s", hwp_errmsg());
	cg_input__warn_missing(in);
	rc = report_print_table(t, ro.fmt);
	hwp_table__delete(t);
	return rc;
}

/* Callers and callees of the outermost calls of NAME in the function tree. */
static int function_report(struct cg_input *in, const struct cg_opts *o)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit };
	int rc = hwp_report__print_callgraph_function(hwp_session__symbolizer(in->session), in->cg, o->function, &ro,
						      stdout);

	if (rc > 0)
		return cli_error("%s: no function '%s' on any sampled stack", o->ro.input, o->function);
	if (rc < 0)
		return cli_error("%s", hwp_errmsg());
	cg_input__warn_missing(in);
	return 0;
}

enum { OPT_LIMIT = 256, OPT_NO_INLINE, OPT_STITCH };

int cmd_callgraph(int argc, char **argv)
{
	static const struct option longopts[] = {
		REPORT_LONGOPTS,
		{ "function", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
		{ "stitch-lbr", no_argument, NULL, OPT_STITCH },
		CLI_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cg_opts o = { .limit = UINT64_MAX };
	struct cg_input in;
	int c, rc;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	report_opts__init(&o.ro);
	while ((c = getopt_long(argc, argv, "i:f:vqh", longopts, NULL)) != -1) {
		if (report_opts__take(&o.ro, c, optarg) || cli_common_opt(c))
			continue;
		switch (c) {
		case 'f':
			o.function = optarg;
			break;
		case OPT_LIMIT:
			if ((rc = report_parse_limit("callgraph", optarg, &o.limit)))
				return rc;
			break;
		case OPT_NO_INLINE:
			o.no_inline = true;
			break;
		case OPT_STITCH:
			o.stitch_lbr = true;
			break;
		default:
			fprintf(stderr, "%s", usage);
			return 1;
		}
	}
	if (optind < argc)
		return cli_error("callgraph: unexpected argument '%s'", argv[optind]);
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
