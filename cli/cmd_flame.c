/* SPDX-License-Identifier: MIT */
/* hwprof flame: flame graphs of the call stacks (SVG, folded, differential). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_callgraph.h"
#include "cli_report.h"
#include "hwprof/flame.h"
#include "hwprof/hwprof.h"

static const struct cmd_desc desc = {
	.name = "flame",
	.args = "[FILE...]",
	.synopsis2 = "--diff BEFORE AFTER [-o FILE] [--folded] ...",
	.flags = CMD_ARGS,
};

struct flame_opts {
	const char *input, *output, *title, *symfs;
	const char **inputs; /* every -i and positional input */
	size_t nr_inputs;
	const char *before, *after; /* --diff BEFORE AFTER */
	bool folded, pprof, diff, period, no_inline, stitch_lbr, memory, hitm, latency;
	unsigned width, jobs;
};

/* PATHS[0..N): one recording, or several read as one (-i repeated). */
static int add_inputs(struct hwp_flame *f, enum hwp_flame_side side, const char *const *paths, size_t n,
		      const struct flame_opts *o)
{
	struct cg_input in;
	struct hwp_call_graph_opts co = { .sz = sizeof(co), .no_inline = o->no_inline, .stitch_lbr = o->stitch_lbr,
					  .samples = o->hitm ? HWP_CG_HITM : o->memory ? HWP_CG_MEMORY : HWP_CG_ALL,
					  .latency = o->latency };
	int rc = cg_input__load(&in, "flame", paths, n, o->symfs, &co, o->jobs);

	if (!rc && hwp_flame__add_call_graph(f, side, in.cg, in.session, o->period || o->latency) < 0)
		rc = cli_error("%s: %s", paths[0], hwp_errmsg());
	if (!rc)
		cg_input__warn_missing(&in);
	cg_input__close(&in);
	return rc;
}


static int parse(int argc, char **argv, struct flame_opts *o)
{
	const struct opt opts[] = {
		OPT_INPUT('i', "input", &o->input, &o->inputs, &o->nr_inputs, "FILE",
			  "perf.data or perf script text (default: perf.data)"),
		OPT_UINT('j', "jobs", &o->jobs, "N", 1, 4096, ": the number of threads must be from 1 to 4096",
			 "read on N threads (default: the CPUs available; the same output)"),
		OPT_STRING('o', "output", &o->output, "FILE", "write to FILE (default: standard output)"),
		OPT_BOOL(0, "folded", &o->folded, "folded stacks instead of the SVG"),
		OPT_BOOL(0, "pprof", &o->pprof, "a gzipped pprof profile of the stacks instead of the SVG (-o FILE)"),
		OPT_BOOL(0, "diff", &o->diff, "two inputs, BEFORE and AFTER: a differential graph"),
		OPT_BOOL(0, "period", &o->period, "count the event's period, not samples"),
		OPT_STRING(0, "title", &o->title, "TEXT", "the SVG's title"),
		OPT_UINT(0, "width", &o->width, "N", 100, 100000, ": pixels from 100 to 100000",
			 "the SVG's width in pixels (default: 1200)"),
		OPT_BOOL(0, "no-inline", &o->no_inline, "no inlined frames"),
		OPT_MEMORY_SAMPLES(&o->memory, &o->hitm, &o->latency),
		OPT_BOOL(0, "stitch-lbr", &o->stitch_lbr,
			 "LBR call stacks continued from the thread's earlier samples, as perf report --stitch-lbr"),
		OPT_STRING(0, "symfs", &o->symfs, "DIR", "look for binaries under DIR"),
		OPT_COMMON(),
		OPT_END(),
	};
	struct cmd_args a;
	int rc;

	memset(o, 0, sizeof(*o));
	o->input = "perf.data";
	if ((rc = parse_options(argc, argv, &desc, opts, &a)) >= 0)
		return rc;
	if (o->pprof && (o->folded || o->diff))
		return cli_error("flame: --pprof writes one recording's stacks: not with --%s", o->folded ? "folded" : "diff");
	if (o->diff) {
		if (a.n != 2 || o->nr_inputs)
			return cli_error("flame: --diff takes two recordings, BEFORE and AFTER");
		o->before = a.v[0];
		o->after = a.v[1];
		return -1;
	}
	struct opt_inputs in = { &o->input, &o->inputs, &o->nr_inputs };

	for (int k = 0; k < a.n; k++) /* positional inputs, as -i */
		opt_inputs__add(&in, a.v[k]);
	opt_inputs__done(&in);
	return -1;
}

int cmd_flame(int argc, char **argv)
{
	struct flame_opts o;
	struct hwp_flame *f;
	FILE *fp = stdout;
	int rc;

	if ((rc = parse(argc, argv, &o)) >= 0)
		return rc;
	if (!(f = hwp_flame__new()))
		return cli_error("%s", hwp_errmsg());
	if (o.diff)
		rc = add_inputs(f, HWP_FLAME_BEFORE, &o.before, 1, &o) ||
		     add_inputs(f, HWP_FLAME_AFTER, &o.after, 1, &o);
	else
		rc = o.nr_inputs ? add_inputs(f, HWP_FLAME_AFTER, o.inputs, o.nr_inputs, &o)
				 : add_inputs(f, HWP_FLAME_AFTER, &o.input, 1, &o);
	if (!rc && o.output && strcmp(o.output, "-") && !(fp = fopen(o.output, "w")))
		rc = cli_error("%s: cannot write: %s", o.output, strerror(errno));
	if (!rc) {
		char sub[1024];
		snprintf(sub, sizeof(sub), o.diff ? "%s -> %s" : "%s", o.diff ? o.before : o.input,
			 o.diff ? o.after : "");
		struct hwp_flame_svg_opts so = { .sz = sizeof(so), .title = o.title, .subtitle = sub,
						 .unit = o.latency ? "cycles" : o.period ? "period" : "samples", .width = o.width };
		if ((o.pprof ? hwp_flame__write_pprof(f, so.unit, fp)
		     : o.folded ? hwp_flame__write_folded(f, fp) : hwp_flame__write_svg(f, fp, &so)) < 0)
			rc = cli_error("%s: %s", o.output ? o.output : "stdout", hwp_errmsg());
	}
	if (fp && fp != stdout && fclose(fp) && !rc)
		rc = cli_error("%s: %s", o.output, strerror(errno));
	hwp_flame__delete(f);
	return rc;
}
