/* SPDX-License-Identifier: MIT */
/* hwprof report --html: every report of one recording (or a comparison) in one page. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "hwprof/report.h"

static const struct cmd_desc desc = {
	.name = "report",
	.args = "[FILE...]",
	.synopsis2 = "--html FILE --diff BEFORE AFTER [--limit N] [--symfs DIR]",
	.flags = CMD_ARGS,
};

struct report_cmd_opts {
	struct flow_opts fo;
	const char *html, *before, *after, *prefix;
	uint64_t functions;
	unsigned prefix_strip;
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
		{ .kind = OPT_KIND_U64, .long_name = "functions", .value = OPT_PTR(uint64_t, &o->functions), .argh = "N",
		  .umin = 1, .umax = 1000, .err = ": the number of functions must be 1 to 1000",
		  .help = "annotate the N hottest functions, and those the findings name (default 5)" },
		OPT_STRING(0, "prefix", &o->prefix, "DIR", "look for source files under DIR (as perf annotate)"),
		OPT_UINT(0, "prefix-strip", &o->prefix_strip, "N", 0, 4096, ": a number of directories",
			 "drop N leading directories of the source files' paths first"),
		OPT_FLOW_INFER(&o->fo),
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

static int write_page(const struct report_cmd_opts *o, struct flow_input *b, struct flow_input *a)
{
	struct hwp_html_report_opts ho = { .sz = sizeof(ho), .limit = o->fo.limit, .input = o->fo.ro.input,
					   .before = o->before, .after = o->after, .path = o->html,
					   .functions = o->functions, .prefix = o->prefix,
					   .prefix_strip = o->prefix_strip };
	FILE *fp = strcmp(o->html, "-") ? fopen(o->html, "w") : stdout;
	int rc;

	if (!fp)
		return cli_error("%s: cannot write: %s", o->html, strerror(errno));
	rc = a ? hwp_report__html_diff(b->in.p, a->in.p, &ho, fp) : hwp_report__html(b->in.p, &ho, fp);
	if (rc < 0)
		rc = cli_error("%s", hwp_errmsg());
	if (fp != stdout && fclose(fp) && !rc)
		rc = cli_error("%s: write failed: %s", o->html, strerror(errno));
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
		rc = flow_input__load(&b, &o.fo, "report", FLOW_WITH_TIMING | FLOW_WITH_CALLS | FLOW_WITH_MEM | FLOW_WITH_IPS);
		if (!rc && b.flow)
			flow_input__bias(&b, &o.fo);
		if (!rc)
			rc = write_page(&o, &b, NULL);
		flow_input__close(&b);
		return rc;
	}
	struct flow_opts ob = o.fo, oa = o.fo;

	ob.ro.input = o.before;
	oa.ro.input = o.after;
	ob.ro.inputs = oa.ro.inputs = NULL; /* one recording each */
	ob.ro.nr_inputs = oa.ro.nr_inputs = 0;
	if (o.fo.infer)
		return cli_error("report: --diff compares the sampled counts (their intervals are those of samples): "
				 "leave out --infer");
	ob.no_infer = oa.no_infer = true; /* as hwprof diff */
	rc = flow_input__load(&b, &ob, "report", FLOW_WITH_TIMING);
	if (!rc) {
		/* AFTER's findings link to its annotated code, as one recording's do */
		rc = flow_input__load(&a, &oa, "report", FLOW_WITH_TIMING | FLOW_WITH_MEM | FLOW_WITH_IPS);
		if (!rc)
			rc = write_page(&o, &b, &a);
		flow_input__close(&a);
	}
	flow_input__close(&b);
	return rc;
}
