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
}

int report_opts__one_input(const char *cmd, size_t nr)
{
	if (nr <= 1)
		return 0;
	return cli_error("%s: several inputs (%zu) are not supported by this command yet", cmd, nr);
}

/*
 * A recording without a single sample: the program ran fewer events than
 * the period. Recording again with branch stacks or --emulate would not
 * help (it may already be emulated): a lower period would.
 */
static int say_no_samples(struct report_input *in, const char *input)
{
	struct hwp_reader *r = hwp_session__reader(in->session);
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

int report_input__open(struct report_input *in, const struct report_opts *o,
		       const struct hwp_branch_collect_opts *collect)
{
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = o->symfs };

	memset(in, 0, sizeof(*in));
	in->session = hwp_session__open(o->input, &so);
	if (!in->session)
		return cli_error("%s", hwp_errmsg());
	in->collector = hwp_branch_collector__new(in->session, collect);
	if (!in->collector)
		return cli_error("%s", hwp_errmsg());
	return 0;
}

int report_input__check_read(struct report_input *in, const struct report_opts *o)
{
	const struct hwp_branch_collect_stats *st = hwp_branch_collector__stats(in->collector);
	if (st->samples == 0)
		return say_no_samples(in, o->input);
	if (st->branch_samples == 0)
		return cli_error("%s: no samples with branch stacks%s (record with 'perf record -b' or 'hwprof record --emulate')",
				 o->input, st->call_stack_mode ? " (only LBR call-stack samples, which are callchains)" : "");
	return 0;
}

int report_input__load_branches(struct report_input *in, const struct report_opts *o,
				const struct hwp_branch_collect_opts *collect)
{
	int rc = report_input__open(in, o, collect);

	if (rc)
		return rc;
	if (hwp_branch_collector__read(in->collector) < 0)
		return cli_error("%s", hwp_errmsg());
	return report_input__check_read(in, o);
}

/* Entries per module in the table: the modules a --dso could name. */
struct dso_count {
	int32_t module;
	uint64_t entries;
};

static int by_entries(const void *a, const void *b)
{
	const struct dso_count *x = a, *y = b;

	return x->entries < y->entries ? 1 : x->entries > y->entries ? -1 : x->module - y->module;
}

static void count_module(struct dso_count *mods, size_t *n, size_t max, int32_t module, uint64_t c)
{
	for (size_t i = 0; i < *n; i++)
		if (mods[i].module == module) {
			mods[i].entries += c;
			return;
		}
	if (*n < max)
		mods[(*n)++] = (struct dso_count){ module, c };
}

int report_input__check_dso(struct report_input *in, const char *cmd, const char *input, const char *dso)
{
	enum { MAX_MODS = 256, SHOWN = 5 };
	struct dso_count mods[MAX_MODS];
	struct hwp_symbolizer *sym = report_input__symbolizer(in);
	size_t nrows, n = 0;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(hwp_branch_collector__table(in->collector), &nrows);
	char name[512], list[1024] = "";

	for (size_t i = 0; i < nrows; i++) {
		count_module(mods, &n, MAX_MODS, rows[i].key.from.module, rows[i].c.count);
		count_module(mods, &n, MAX_MODS, rows[i].key.to.module, rows[i].c.count);
	}
	/* the library's own spelling of a module, as the filter compares it */
	for (size_t i = 0; i < n; i++) {
		struct hwp_code_loc l = { .module = mods[i].module };

		hwp_loc__format_dso(sym, &l, name, sizeof(name));
		if (!strcmp(name, dso))
			return 0;
	}
	qsort(mods, n, sizeof(mods[0]), by_entries);
	for (size_t i = 0; i < n && i < SHOWN; i++) {
		struct hwp_code_loc l = { .module = mods[i].module };

		hwp_loc__format_dso(sym, &l, name, sizeof(name));
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", name);
	}
	if (n > SHOWN)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ", and %zu more", n - SHOWN);
	return cli_error("%s: --dso '%s' matches no module in %s; its modules, most branch entries first: %s",
			 cmd, dso, input, n ? list : "none");
}

void report_input__close(struct report_input *in)
{
	hwp_branch_collector__delete(in->collector);
	hwp_session__delete(in->session);
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
	struct hwp_outbuf out;

	if (hwp_outbuf__init(&out, stdout) < 0)
		return cli_error("out of memory");
	hwp_table__render(t, f, &out);
	int err = hwp_outbuf__finish(&out);
	return err ? cli_error("error writing output: %s", hwp_strerror(err)) : 0;
}
