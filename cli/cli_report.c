/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"

void report_opts__init(struct report_opts *o)
{
	o->input = "perf.data";
	o->inputs = NULL;
	o->nr_inputs = 0;
	o->symfs = NULL;
	o->fmt = HWP_TABLE_TEXT;
	o->jobs = 0;
}

/*
 * A recording without a single sample: the program ran fewer events than
 * the period. Recording again with branch stacks or --emulate would not
 * help (it may already be emulated): a lower period would.
 */
static int say_no_samples(struct hwp_session *s, const char *input)
{
	struct hwp_reader *r = hwp_session__input_reader(s, 0);
	const struct hwp_evsel *ev = hwp_reader__nr_evsels(r) ? hwp_reader__evsel(r, 0) : NULL;

	if (!ev || hwp_reader__is_text(r))
		return cli_error("%s: no samples", input);
	bool freq = hwp_attr__flag(&ev->attr, HWP_ATTR_FREQ);
	const char *name = ev->name ? ev->name : "sampled";
	if (!strcmp(name, "branches:emulated"))
		return cli_error("%s: no samples: the program ran fewer taken branches than the period "
				 "(%" PRIu64 "): record again with a lower one (hwprof record --emulate "
				 "-c N)", input, ev->attr.sample_period);
	if (freq)
		return cli_error("%s: no samples: the program ended before the first %s sample at "
				 "%" PRIu64 " Hz: record again with a higher frequency (-F N) or a "
				 "period (-c N)", input, name, ev->attr.sample_period);
	return cli_error("%s: no samples: the program ran fewer %s events than the period (%" PRIu64
			 "): record again with a lower period (-c N) or by frequency (-F N)",
			 input, name, ev->attr.sample_period);
}

/* The library's error for a failed read or check, with how to record again
   when there was no sample at all. */
/* CALLS: call stacks would have done (the pass asked for them). */
static int say_read_error(struct report_input *in, const struct report_opts *o, bool calls)
{
	const struct hwp_branch_collect_stats *st = in->collector ? hwp_branch_collector__stats(in->collector) : NULL;

	if (!st || !hwp_session__input_stats(in->session, hwp_session__nr_inputs(in->session) - 1)->done)
		return cli_error("%s", hwp_errmsg());
	if (!st->samples)
		return say_no_samples(in->session, o->input);
	if (!st->branch_samples && calls)
		return cli_error("%s, nor call stacks (record with 'perf record -b', -g or --call-graph, or 'hwprof "
				 "record --emulate')", hwp_errmsg());
	if (!st->branch_samples)
		return cli_error("%s (record with 'perf record -b' or 'hwprof record --emulate')", hwp_errmsg());
	return cli_error("%s", hwp_errmsg());
}

const char *const *report_opts__inputs(const struct report_opts *o, size_t *n)
{
	if (o->inputs && o->nr_inputs) {
		*n = o->nr_inputs;
		return o->inputs;
	}
	*n = 1;
	return &o->input;
}

int report_input__run_with(struct report_input *in, const struct report_opts *o, const char *cmd,
			   struct hwp_pipeline_opts *po)
{
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = o->symfs };
	size_t n;
	const char *const *inputs = report_opts__inputs(o, &n);
	int rc;

	memset(in, 0, sizeof(*in));
	po->sz = sizeof(*po);
	po->session = &so;
	po->jobs = o->jobs;
	if (!(in->p = hwp_pipeline__open(inputs, n, po)))
		return cli_error("%s", hwp_errmsg());
	in->session = hwp_pipeline__session(in->p);
	in->collector = hwp_pipeline__branches(in->p);
	if ((rc = hwp_pipeline__run(in->p)) == -ENOENT && po->dso)
		return cli_error("%s: --dso %s", cmd, hwp_errmsg());
	return rc < 0 ? say_read_error(in, o, po->analyses & HWP_ANALYSIS_CALLS) : 0;
}

int report_input__run(struct report_input *in, const struct report_opts *o, const char *cmd, unsigned analyses,
		      const struct hwp_branch_collect_opts *collect, const char *dso, const char *sym)
{
	struct hwp_pipeline_opts po = { .analyses = analyses, .collect = collect, .dso = dso, .sym = sym };

	return report_input__run_with(in, o, cmd, &po);
}

int report_input__open(struct report_input *in, const struct report_opts *o,
		       const struct hwp_branch_collect_opts *collect)
{
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = o->symfs };
	size_t n;
	const char *const *inputs = report_opts__inputs(o, &n);

	memset(in, 0, sizeof(*in));
	in->session = hwp_session__open_inputs(inputs, n, &so);
	if (!in->session)
		return cli_error("%s", hwp_errmsg());
	in->collector = hwp_branch_collector__new(in->session, collect);
	if (!in->collector)
		return cli_error("%s", hwp_errmsg());
	return 0;
}

int report_input__check_read(struct report_input *in, const struct report_opts *o)
{
	return hwp_pipeline__check_samples(in->session, in->collector, true) < 0 ? say_read_error(in, o, false) : 0;
}

int report_input__load_branches(struct report_input *in, const struct report_opts *o,
				const struct hwp_branch_collect_opts *collect)
{
	return report_input__run(in, o, NULL, HWP_ANALYSIS_BRANCHES, collect, NULL, NULL);
}

int report_input__check_dso(struct report_input *in, const char *cmd, const char *input, const char *dso)
{
	(void)input;
	return hwp_pipeline__check_module(in->session, in->collector, dso) < 0
		       ? cli_error("%s: --dso %s", cmd, hwp_errmsg())
		       : 0;
}

void report_input__close(struct report_input *in)
{
	if (in->p) {
		hwp_pipeline__delete(in->p);
	} else {
		hwp_branch_collector__delete(in->collector);
		hwp_session__delete(in->session);
	}
	memset(in, 0, sizeof(*in));
}

struct hwp_symbolizer *report_input__symbolizer(struct report_input *in)
{
	return hwp_session__symbolizer(in->session);
}

void report_input__warn_missing(struct report_input *in, bool srclines)
{
	struct hwp_symbolizer *sym = report_input__symbolizer(in);
	char line[2048];

	/* missing debug info matters only to a report that shows source lines */
	if (!(srclines ? hwp_symbolizer__missing_warning(sym, line, sizeof(line))
		       : hwp_symbolizer__missing_symbols_warning(sym, line, sizeof(line))))
		return;
	/* the library speaks of a symfs root; hwprof takes it as --symfs */
	cli_warn("%s%s", line, strstr(line, "symfs root") ? " (a symfs root is given with --symfs DIR)" : "");
}

int report_print_table(const struct hwp_table *t, enum hwp_table_format f)
{
	return report_print_table_jobs(t, f, 1);
}

int report_print_table_jobs(const struct hwp_table *t, enum hwp_table_format f, unsigned jobs)
{
	return hwp_table__print_jobs(t, f, stdout, jobs) < 0 ? cli_error("%s", hwp_errmsg()) : 0;
}
