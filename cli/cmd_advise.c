/* SPDX-License-Identifier: MIT */
/* hwprof advise: ranked findings with their evidence and what to do. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"
#include "hwprof/advise.h"
#include "hwprof/branch_report.h"

static const char usage[] =
	"usage: hwprof advise [-i FILE] [--kind K] [--limit N] [--min-share PCT]\n"
	"                     [--min-executions N] [--bias PCT] [--mispredict-rate PCT]\n"
	"                     [--dominance PCT] [--spread X] [--penalty CYCLES]\n"
	"                     [--dram-share PCT]\n"
	"                     [--symfs DIR] [--json | --csv]\n"
	"\n"
	"Findings, largest estimated share of the work first, each with its evidence\n"
	"and what to do about it:\n"
	"  biased-branch     a hot forward conditional branch taken most of the time\n"
	"                    (its taken probability's 95% lower bound >= --bias, 75%)\n"
	"  mispredict        a branch mispredicted per execution (lower bound >=\n"
	"                    --mispredict-rate, 10%: a 95/5 data branch mispredicts ~5%)\n"
	"  monomorphic-call  an indirect call whose top target's share has a lower\n"
	"                    bound >= --dominance (90%)\n"
	"  spread-function   a hot function whose hot blocks (90% of its work) touch\n"
	"                    >= --spread (1.5) times the cache lines their bytes need\n"
	"  multimodal-block  a block whose latency has two or more peaks (recordings\n"
	"                    with cycle counts: hwprof timing's modes); its share is\n"
	"                    of all cycles\n"
	"  dram-loads        a source line whose sampled loads come from DRAM in >=\n"
	"                    --dram-share (20%) of them (memory samples: record --mem)\n"
	"  false-sharing     a cache line with HITMs written by several threads at\n"
	"                    different offsets; memory findings' share is of all\n"
	"                    sampled load latency\n"
	"The share is of the sampled instructions executed (mispredicts: their\n"
	"penalty, --penalty cycles each, over the instructions at one per cycle);\n"
	"findings below --min-share (0.5%) and branches with fewer than\n"
	"--min-executions (200) sampled executions are left out.\n"
	"\n"
	"  -i, --input FILE     perf.data or perf script text (default: perf.data)\n"
	"      --kind K         only findings of kind K\n"
	REPORT_LIMIT_HELP
	"      --symfs DIR      look for binaries under DIR\n"
	"      --json, --csv    machine-readable output\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

struct advise_opts {
	struct flow_opts fo;
	struct hwp_advise_opts a;
	int kind; /* -1: all */
};

/* PCT in (0, 100] as a fraction, or X > 1 (SPREAD); <0 when bad. */
static double parse_number(const char *arg, bool percent)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !(v > 0) || (percent && v > 100))
		return -1;
	return percent ? v / 100 : v;
}

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct advise_opts *o)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		FLOW_LONGOPTS,
		{ "kind", required_argument, NULL, 'K' },
		{ "min-share", required_argument, NULL, 1 },
		{ "bias", required_argument, NULL, 2 },
		{ "mispredict-rate", required_argument, NULL, 3 },
		{ "dominance", required_argument, NULL, 4 },
		{ "spread", required_argument, NULL, 5 },
		{ "penalty", required_argument, NULL, 6 },
		{ "dram-share", required_argument, NULL, 7 },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const names[] = { NULL, "min-share", "bias", "mispredict-rate", "dominance",
					     "spread", "penalty", "dram-share" };
	int c, r;

	memset(o, 0, sizeof(*o));
	flow_opts__init(&o->fo);
	o->a.sz = sizeof(o->a);
	o->kind = -1;
	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		if (c >= 1 && c <= 7) {
			bool pct = c <= 4 || c == 7;
			double v = parse_number(optarg, pct);

			if (v < 0 || (c == 5 && v <= 1))
				return cli_error("advise: --%s '%s' is not %s", names[c], optarg,
						 pct ? "a percentage in (0, 100]" : c == 5 ? "a ratio above 1" : "a positive number");
			double *dst[] = { NULL, &o->a.min_share, &o->a.bias, &o->a.mispredict_rate, &o->a.dominance,
					  &o->a.spread, &o->a.penalty, &o->a.dram_share };
			*dst[c] = v;
			continue;
		}
		if (c == 'K') {
			for (unsigned k = 0; k < HWP_FIND_KIND_NR; k++)
				if (!strcmp(optarg, hwp_finding_kind__name(k)))
					o->kind = (int)k;
			if (o->kind < 0)
				return cli_error("advise: --kind '%s': the kinds are biased-branch, mispredict, "
						 "monomorphic-call, spread-function, multimodal-block, dram-loads and "
						 "false-sharing", optarg);
			continue;
		}
		if (c == 'd' || c == 'y') {
			fputs(usage, stderr);
			return 1;
		}
		if ((r = flow_opts__take(&o->fo, "advise", c, optarg)) < 0)
			return 1;
		if (r)
			continue;
		fputs(usage, stderr);
		return 1;
	}
	if (optind < argc)
		return cli_error("advise: unexpected argument '%s'", argv[optind]);
	o->a.min_executions = o->fo.min > 1 ? o->fo.min : 0;
	return -1;
}

int cmd_advise(int argc, char **argv)
{
	struct advise_opts o;
	struct flow_input fi;
	struct hwp_advisor *a = NULL;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	rc = flow_input__load(&fi, &o.fo, "advise", FLOW_WITH_TIMING | FLOW_WITH_MEM);
	if (!rc && !(a = flow_input__advisor(&fi, &o.a)))
		rc = cli_error("%s", hwp_errmsg());
	if (!rc) {
		struct hwp_symbolizer *sym = report_input__symbolizer(&fi.in);
		size_t n;
		const struct hwp_finding *f = hwp_advisor__findings(a, &n);

		if (fi.flow)
			flow_input__note(&fi);
		report_input__warn_missing(&fi.in, true);
		struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o.fo.ro.fmt, .limit = o.fo.limit };
		struct hwp_table *t = NULL;

		if (o.fo.ro.fmt == HWP_TABLE_TEXT)
			hwp_report__print_findings(sym, f, n, o.kind, &ro, stdout);
		else if (!(t = hwp_report__findings(sym, f, n, o.kind, &ro)))
			rc = cli_error("out of memory");
		else
			rc = report_print_table(t, ro.fmt);
		hwp_table__delete(t);
	}
	hwp_advisor__delete(a);
	flow_input__close(&fi);
	return rc;
}
