/* SPDX-License-Identifier: MIT */
/* hwprof annotate: one function's code with the recording's numbers on it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_flow.h"
#include "cli_report.h"
#include "hwprof/annotate.h"
#include "hwprof/hwprof.h"
#include "hwprof/mem.h"
#include "hwprof/perf_data.h"
#include "hwprof/pipeline.h"
#include "hwprof/report.h"
#include "hwprof/session.h"

static const struct cmd_desc desc = {
	.name = "annotate",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

struct annotate_cli {
	struct report_opts r;
	const char *sym, *addr, *color, *prefix;
	unsigned prefix_strip;
	uint64_t limit;
	bool no_source, lines;
	bool infer, no_infer; /* --infer, --no-infer (OPT_FLOW_INFER) */
};

static int parse_opts(int argc, char **argv, struct annotate_cli *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->r),
		OPT_STRING('s', "sym", &o->sym, "FUNC", "the function FUNC (its name as the reports print it)"),
		OPT_STRING(0, "addr", &o->addr, "ADDR",
			   "the function holding ADDR (its ELF address, as objdump and perf annotate print it)"),
		{ .kind = OPT_KIND_U64, .long_name = "limit", .value = OPT_PTR(uint64_t, &o->limit), .argh = "N",
		  .umin = 1, .umax = UINT64_MAX, .err = ": the number of functions must be at least 1",
		  .help = "without --sym or --addr: the N hottest functions (default: 5)" },
		OPT_BOOL(0, "no-source", &o->no_source, "no source lines over the instructions"),
		OPT_STRING(0, "prefix", &o->prefix, "DIR", "look for source files under DIR (as perf annotate)"),
		OPT_UINT(0, "prefix-strip", &o->prefix_strip, "N", 0, 4096, ": a number of directories",
			 "drop N leading directories of the source files' paths first"),
		OPT_BOOL(0, "lines", &o->lines,
			 "per source line of the functions: samples, share, instructions, branch executions, "
			 "mispredicts, memory samples and latency (inlined code on its own line)"),
		OPT_STRING(0, "color", &o->color, "WHEN",
			   "colour hot lines: always, never or auto (default: when standard output is a terminal)"),
		OPT_FLOW_INFER(o),
		OPT_REPORT_OUTPUT(&o->r),
		OPT_COMMON(),
		OPT_END(),
	};
	int rc;

	memset(o, 0, sizeof(*o));
	report_opts__init(&o->r);
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	if (o->sym && o->addr)
		return cli_error("annotate: --sym and --addr each name the function: give one");
	if (o->color && strcmp(o->color, "always") && strcmp(o->color, "never") && strcmp(o->color, "auto"))
		return cli_error("annotate: --color %s: always, never or auto", o->color);
	return -1;
}

/* The inputs' sampling events: whether any records branch stacks, and the
   header's note on skid (precise events land on the instruction). */
static int look(const struct report_opts *r, bool *branches, char *note, size_t len)
{
	size_t n;
	const char *const *inputs = report_opts__inputs(r, &n);
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = r->symfs };
	struct hwp_session *s = hwp_session__open_inputs(inputs, n, &so);
	bool precise = true, any = false;
	char events[160] = "";
	size_t used = 0;

	if (!s)
		return cli_error("%s", hwp_errmsg());
	*branches = false;
	for (size_t i = 0; i < hwp_session__nr_inputs(s); i++) {
		struct hwp_reader *rd = hwp_session__input_reader(s, i);

		for (size_t e = 0; e < hwp_reader__nr_evsels(rd); e++) {
			const struct hwp_evsel *ev = hwp_reader__evsel(rd, e);

			*branches |= (ev->attr.sample_type & HWP_SAMPLE_BRANCH_STACK) != 0;
			precise &= hwp_attr__precise_ip(&ev->attr) > 0;
			/* every event's name (the header says which were sampled) */
			if (ev->name && used < sizeof(events) && !strstr(events, ev->name))
				used += (size_t)snprintf(events + used, sizeof(events) - used, "%s%s",
							 used ? ", " : "", ev->name);
			any = true;
		}
	}
	snprintf(note, len, "%s%s%s", any ? ", " : "", any ? (used ? events : "samples") : "",
		 !any ? "" : precise ? " (precise: each sample is the instruction that caused it)"
				     : " (not precise: a sample may land a few instructions after the one that caused it)");
	hwp_session__delete(s);
	return 0;
}

int cmd_annotate(int argc, char **argv)
{
	struct annotate_cli o;
	struct report_input in = { 0 };
	struct hwp_annotation *a = NULL;
	bool branches = false;
	char note[256], *end;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct hwp_annotate_opts ao = { .sz = sizeof(ao), .sym = o.sym, .limit = o.limit };
	if (o.addr) {
		errno = 0;
		ao.addr = strtoull(o.addr, &end, 0);
		if (errno || *end || !*o.addr)
			return cli_error("annotate: --addr %s: not an address (0x401136)", o.addr);
		ao.has_addr = true;
	}
	if ((rc = look(&o.r, &branches, note, sizeof(note))))
		return rc;
	if (o.infer && !branches)
		return cli_error("annotate: --infer: %s has no branch stacks to infer counts from", o.r.input);
	/* every sample's IP; with branch stacks also what they tell of the code */
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .ranges = branches, .no_addresses = true,
					      .drop_meaningless_prediction = true,
					      .ip_samples = HWP_IP_SAMPLES_BY_EVENT };
	struct hwp_flow_opts fo;
	struct hwp_pipeline_opts po = {
		.analyses = HWP_ANALYSIS_MEM | (branches ? HWP_ANALYSIS_FLOW | HWP_ANALYSIS_TIMING : 0),
		.collect = &co,
		.flow = &fo,
	};
	if ((rc = cli_flow_opts(o.infer, o.no_infer, "annotate", &fo)) ||
	    (rc = report_input__run_with(&in, &o.r, "annotate", &po)))
		return rc;
	cli_flow_inferred(hwp_pipeline__flow(in.p), in.collector, o.infer);
	struct hwp_symbolizer *sym = report_input__symbolizer(&in);
	if (!(a = hwp_annotate__new(in.p, &ao))) {
		rc = cli_error("%s", hwp_errmsg());
		goto out;
	}
	if (o.lines || o.r.fmt != HWP_TABLE_TEXT) {
		struct hwp_table *t = o.lines ? hwp_report__annotate_lines(a) : hwp_report__annotate(sym, a);

		rc = t ? report_print_table_jobs(t, o.r.fmt, o.r.jobs) : cli_error("out of memory");
		hwp_table__delete(t);
	} else {
		bool color = o.color ? !strcmp(o.color, "always") || (!strcmp(o.color, "auto") && isatty(1))
				     : isatty(1) && !getenv("NO_COLOR");
		size_t missing = 0;
		struct hwp_annotate_text_opts to = { .sz = sizeof(to), .source = !o.no_source, .color = color,
						     .event_note = note, .prefix = o.prefix,
						     .prefix_strip = o.prefix_strip, .missing = &missing };

		if (hwp_report__print_annotation(sym, a, &to, stdout) < 0)
			rc = cli_error("annotate: cannot write: %s", hwp_errmsg());
		else if (missing)
			cli_warn("annotate: %zu source file%s not found: their lines show no text (--prefix DIR, "
				 "--prefix-strip N)", missing, missing > 1 ? "s" : "");
	}
	/* the share of memory samples whose data type DWARF names: a footer
	   in text, on stderr beside a data format */
	{
		struct hwp_mem_report *mr = hwp_pipeline__mem(in.p);
		if (rc == 0 && mr && hwp_mem_report__totals(mr)->samples) {
			if (o.r.fmt == HWP_TABLE_TEXT && !o.lines)
				fputc('\n', stdout);
			hwp_report__print_mem_typed(mr, o.r.fmt == HWP_TABLE_TEXT && !o.lines ? stdout : stderr);
		}
	}
	report_input__warn_missing(&in, !o.no_source);
out:
	hwp_annotation__delete(a);
	report_input__close(&in);
	return rc;
}
