/* SPDX-License-Identifier: MIT */
/* hwprof ranges: the code that ran straight through between consecutive branch records. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/range_profile.h"

static const struct cmd_desc desc = {
	.name = "ranges",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"Between an older branch record's target and the next newer record's source\n"
		"the program ran straight through: one row per distinct range, with how many\n"
		"times it ran, its length, its first and last instruction and the source line\n"
		"of its start; most frequent first. Ranges that cannot have run straight\n"
		"through are rejected and counted by reason (--stats): an end address of 0,\n"
		"an entry on a speculative wrong path, the duplicated newest entry of some\n"
		"Intel parts, stacks recorded with a branch filter other than 'any', ends\n"
		"unmapped or in different modules, end before start, longer than\n"
		"--max-range, an unconditional jump, call or return inside (decoded from the\n"
		"binary), an end that is no instruction boundary or outside the code.\n"
		"Recordings in LBR call-stack mode are refused.\n",
};

struct ranges_opts {
	struct report_opts ro;
	bool stats;
	int format; /* -1: table, else enum hwp_range_format */
	const char *binary, *output;
	uint64_t limit, max_range;
};

static const char *const range_formats[] = { "autofdo", "profgen", NULL };
static const int range_format_ids[] = { HWP_RANGE_FORMAT_AUTOFDO, HWP_RANGE_FORMAT_PROFGEN };

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct ranges_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->ro),
		OPT_BOOL(0, "stats", &o->stats, "counts of accepted and rejected ranges by reason"),
		{ .kind = OPT_KIND_CHOICE, .long_name = "format", .value = &o->format, .argh = "F",
		  .choices = range_formats, .ivals = range_format_ids,
		  .err = ": the formats are 'autofdo' and 'profgen'",
		  .help = "a text profile of one binary: 'autofdo' (range, address and branch counts, as "
			  "simpleperf inject writes for create_llvm_prof) or 'profgen' (range and branch counts, "
			  "as llvm-profgen --skip-symbolization writes and --unsymbolized-profile reads)" },
		OPT_STRING(0, "binary", &o->binary, "NAME",
			   "the binary for --format: path, base name or build-id (default: the main executable)"),
		OPT_STRING('o', "output", &o->output, "FILE", "write the --format profile to FILE (default: stdout)"),
		{ .kind = OPT_KIND_U64, .long_name = "max-range", .value = &o->max_range, .argh = "N", .umin = 1,
		  .umax = UINT64_MAX, .flags = OPT_HEX, .err = " is not a byte count >= 1",
		  .help = "reject ranges longer than N bytes (default 1048576)" },
		OPT_REPORT_LIMIT(&o->limit),
		OPT_REPORT_OUTPUT(&o->ro),
		OPT_COMMON(),
		OPT_END(),
	};
	int rc;

	memset(o, 0, sizeof(*o));
	report_opts__init(&o->ro);
	o->format = -1;
	o->limit = UINT64_MAX;
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	if (o->format >= 0 && (o->stats || o->ro.fmt != HWP_TABLE_TEXT))
		return cli_error("ranges: --format writes a profile: it takes neither --stats nor --json/--csv");
	if (o->format < 0 && (o->binary || o->output))
		return cli_error("ranges: --binary and -o go with --format autofdo|profgen");
	return -1;
}

static int by_count(const void *a, const void *b)
{
	const struct hwp_branch_row *x = *(const struct hwp_branch_row *const *)a;
	const struct hwp_branch_row *y = *(const struct hwp_branch_row *const *)b;

	if (x->c.count != y->c.count)
		return x->c.count < y->c.count ? 1 : -1;
	if (x->key.from.module != y->key.from.module)
		return x->key.from.module < y->key.from.module ? -1 : 1;
	if (x->key.from.offset != y->key.from.offset)
		return x->key.from.offset < y->key.from.offset ? -1 : 1;
	return x->key.to.offset < y->key.to.offset ? -1 : x->key.to.offset > y->key.to.offset;
}

enum { C_COUNT, C_SHARE, C_BYTES, C_START, C_END, C_SRCLINE, C_DSO, NCOLS };

static int print_ranges(struct report_input *in, const struct ranges_opts *o)
{
	struct hwp_symbolizer *sym = report_input__symbolizer(in);
	const struct hwp_branch_table *t = hwp_branch_collector__ranges(in->collector);
	uint64_t total = hwp_branch_table__total(t);
	size_t n;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(t, &n);
	const struct hwp_branch_row **order = malloc((n ? n : 1) * sizeof(*order));
	struct hwp_table *tab = hwp_table__new();
	char buf[1024];
	int rc;

	if (!order || !tab) {
		free(order);
		hwp_table__delete(tab);
		return cli_error("out of memory");
	}
	for (size_t i = 0; i < n; i++)
		order[i] = &rows[i];
	qsort(order, n, sizeof(*order), by_count);
	hwp_table__add_column_shown(tab, "Count", "count", HWP_COL_COUNT, HWP_SHOW_ALL);
	hwp_table__add_column_shown(tab, "Share", "share_percent", HWP_COL_PERCENT, HWP_SHOW_ALL);
	hwp_table__add_column_shown(tab, "Bytes", "bytes", HWP_COL_COUNT, HWP_SHOW_ALL);
	hwp_table__add_column_shown(tab, "Start", "start", HWP_COL_TEXT, HWP_SHOW_TEXT);
	hwp_table__add_column_shown(tab, "End", "end", HWP_COL_TEXT, HWP_SHOW_TEXT);
	hwp_table__add_column_shown(tab, "Source Line", "srcline", HWP_COL_TEXT, HWP_SHOW_TEXT);
	hwp_table__add_column_shown(tab, "Shared Object", "dso", HWP_COL_TEXT, HWP_SHOW_TEXT);
	size_t start_col = hwp_report__add_loc_columns(tab, HWP_LOC_START);
	size_t end_col = hwp_report__add_loc_columns(tab, HWP_LOC_END);
	for (size_t i = 0; i < n && i < o->limit; i++) {
		const struct hwp_branch_row *r = order[i];

		hwp_table__new_row(tab);
		hwp_table__set_count(tab, C_COUNT, r->c.count);
		hwp_table__set_real(tab, C_SHARE, total ? 100.0 * (double)r->c.count / (double)total : 0);
		/* the last instruction's length is not part of the key: bytes to its start */
		hwp_table__set_count(tab, C_BYTES, r->key.to.offset - r->key.from.offset);
		if (o->ro.fmt != HWP_TABLE_TEXT) {
			hwp_report__set_loc(tab, start_col, sym, &r->key.from);
			hwp_report__set_loc(tab, end_col, sym, &r->key.to);
			continue;
		}
		hwp_loc__format_addr(sym, &r->key.from, buf, sizeof(buf));
		hwp_table__set_text(tab, C_START, buf);
		hwp_loc__format_addr(sym, &r->key.to, buf, sizeof(buf));
		hwp_table__set_text(tab, C_END, buf);
		hwp_loc__format_srcline(sym, &r->key.from, buf, sizeof(buf));
		hwp_table__set_text(tab, C_SRCLINE, buf);
		hwp_loc__format_dso(sym, &r->key.from, buf, sizeof(buf));
		hwp_table__set_text(tab, C_DSO, buf);
	}
	report_input__warn_missing(in, true);
	rc = report_print_table(tab, o->ro.fmt);
	free(order);
	hwp_table__delete(tab);
	return rc;
}

static void stats_row(struct hwp_table *t, const char *outcome, const char *reason, uint64_t n, uint64_t pairs)
{
	hwp_table__new_row(t);
	hwp_table__set_text(t, 0, outcome);
	hwp_table__set_text(t, 1, reason);
	hwp_table__set_count(t, 2, n);
	hwp_table__set_real(t, 3, pairs ? 100.0 * (double)n / (double)pairs : 0);
}

static int print_stats(struct report_input *in, const struct ranges_opts *o)
{
	const struct hwp_range_stats *st = hwp_branch_collector__range_stats(in->collector);
	struct hwp_table *t = hwp_table__new();
	int rc;

	if (!t)
		return cli_error("out of memory");
	hwp_table__add_column(t, "Outcome", "outcome", HWP_COL_TEXT);
	hwp_table__add_column(t, "Reason", "reason", HWP_COL_TEXT);
	hwp_table__add_column(t, "Ranges", "ranges", HWP_COL_COUNT);
	hwp_table__add_column(t, "Share", "share_percent", HWP_COL_PERCENT);
	stats_row(t, "all", NULL, st->pairs, st->pairs);
	stats_row(t, "accepted", NULL, st->accepted, st->pairs);
	stats_row(t, "accepted", "not_decoded", st->unchecked, st->pairs);
	for (int r = 0; r < HWP_RANGE_REJECT_NR; r++)
		stats_row(t, "rejected", hwp_range_reject__name(r), st->rejected[r], st->pairs);
	if (o->ro.fmt == HWP_TABLE_TEXT)
		printf("%llu ranges between consecutive branch records; %zu distinct accepted\n",
		       (unsigned long long)st->pairs, st->distinct);
	rc = report_print_table(t, o->ro.fmt);
	hwp_table__delete(t);
	return rc;
}

static int write_profile(struct report_input *in, const struct ranges_opts *o)
{
	int module = o->binary ? hwp_range_profile__find_module(in->collector, o->binary)
			       : hwp_range_profile__default_module(in->collector);
	FILE *fp = stdout;
	int err;

	if (module < 0)
		return cli_error("%s", hwp_errmsg());
	if (o->output && strcmp(o->output, "-") && !(fp = fopen(o->output, "w")))
		return cli_error("%s: cannot write: %s", o->output, strerror(errno));
	err = hwp_range_profile__write(in->collector, module, o->format, fp);
	if (fp != stdout && fclose(fp) && !err)
		return cli_error("%s: write failed: %s", o->output, strerror(errno));
	return err < 0 ? cli_error("%s", hwp_errmsg()) : 0;
}

int cmd_ranges(int argc, char **argv)
{
	struct ranges_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .ranges = true, .max_range = o.max_range };
	struct report_input in;
	rc = report_input__load_branches(&in, &o.ro, &co);
	if (!rc) {
		const struct hwp_range_stats *st = hwp_branch_collector__range_stats(in.collector);

		if (st->unchecked)
			cli_warn("%llu of %llu accepted ranges were not decoded (binary missing, kernel, or no decoder): "
				 "not checked for branches inside",
				 (unsigned long long)st->unchecked, (unsigned long long)st->accepted);
		rc = o.stats ? print_stats(&in, &o) : o.format >= 0 ? write_profile(&in, &o) : print_ranges(&in, &o);
	}
	report_input__close(&in);
	return rc;
}
