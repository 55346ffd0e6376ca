/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/branch_report.h"
#include "pipeline/pipeline_checks.h"
#include "util/error.h"

const char *hwp__session_name(const struct hwp_session *s, char *buf, size_t len)
{
	*buf = 0;
	for (size_t i = 0; i < hwp_session__nr_inputs(s); i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", hwp_session__input_path(s, i));
	return buf;
}

/* A recording without a single sample: the program ran fewer events than
   the period (a command line adds how to record again). */
static int say_no_samples(struct hwp_session *s, const char *name)
{
	struct hwp_reader *r = hwp_session__input_reader(s, 0);
	const struct hwp_evsel *ev = hwp_reader__nr_evsels(r) ? hwp_reader__evsel(r, 0) : NULL;

	if (!ev || hwp_reader__is_text(r))
		return hwp__set_error(ENODATA, "%s: no samples", name);
	const char *event = ev->name ? ev->name : "sampled";
	if (hwp_attr__flag(&ev->attr, HWP_ATTR_FREQ))
		return hwp__set_error(ENODATA, "%s: no samples: the program ended before the first %s sample at "
				      "%" PRIu64 " Hz", name, event, ev->attr.sample_period);
	return hwp__set_error(ENODATA, "%s: no samples: the program ran fewer %s events than the period (%" PRIu64 ")",
			      name, event, ev->attr.sample_period);
}

int hwp_pipeline__check_samples(struct hwp_session *s, const struct hwp_branch_collector *c, bool branches)
{
	const struct hwp_branch_collect_stats *st = hwp_branch_collector__stats(c);
	char name[1024];

	hwp__session_name(s, name, sizeof(name));
	if (st->samples == 0)
		return say_no_samples(s, name);
	if (branches && st->branch_samples == 0)
		return hwp__set_error(ENODATA, "%s: no samples with branch stacks%s", name,
				      st->call_stack_mode ? " (only LBR call-stack samples, which are callchains)" : "");
	return 0;
}

/* Entries per module in the table: the modules a filter could name. */
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

int hwp_pipeline__check_module(struct hwp_session *s, const struct hwp_branch_collector *c, const char *dso)
{
	enum { MAX_MODS = 256, SHOWN = 5 };
	struct dso_count mods[MAX_MODS];
	struct hwp_symbolizer *sym = hwp_session__symbolizer(s);
	size_t nrows, n = 0;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(hwp_branch_collector__table(c), &nrows);
	char mod[512], list[1024] = "", name[1024];

	if (!sym)
		return -errno;
	for (size_t i = 0; i < nrows; i++) {
		count_module(mods, &n, MAX_MODS, rows[i].key.from.module, rows[i].c.count);
		count_module(mods, &n, MAX_MODS, rows[i].key.to.module, rows[i].c.count);
	}
	/* the library's own spelling of a module, as the filter compares it */
	for (size_t i = 0; i < n; i++) {
		struct hwp_code_loc l = { .module = mods[i].module };

		hwp_loc__format_dso(sym, &l, mod, sizeof(mod));
		if (!strcmp(mod, dso))
			return 0;
	}
	qsort(mods, n, sizeof(mods[0]), by_entries);
	hwp__session_name(s, name, sizeof(name));
	for (size_t i = 0; i < n && i < SHOWN; i++) {
		struct hwp_code_loc l = { .module = mods[i].module };

		hwp_loc__format_dso(sym, &l, mod, sizeof(mod));
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", mod);
	}
	if (n > SHOWN)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ", and %zu more", n - SHOWN);
	return hwp__set_error(ENOENT, "'%s' matches no module in %s; its modules, most branch entries first: %s",
			      dso, name, n ? list : "none");
}

int hwp__pipeline_check_ranges(const struct hwp_branch_collector *c, const char *name)
{
	const struct hwp_range_stats *rs = hwp_branch_collector__range_stats(c);
	char why[512] = "";

	if (rs->accepted)
		return 0;
	for (int r = 0; r < HWP_RANGE_REJECT_NR; r++)
		if (rs->rejected[r])
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s %" PRIu64, *why ? ", " : "",
				 hwp_range_reject__name(r), rs->rejected[r]);
	return hwp__set_error(ENODATA, "%s: no fall-through range between consecutive branch entries could be used "
			      "(%" PRIu64 " pairs%s%s)%s", name, rs->pairs, *why ? ": " : "", why,
			      rs->rejected[HWP_RANGE_FILTERED] ? "; record every taken branch (branch filter 'any')"
							      : "");
}
