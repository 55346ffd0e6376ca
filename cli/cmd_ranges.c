/* SPDX-License-Identifier: MIT */
/* hwprof ranges: the code that ran straight through between consecutive branch records. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "hwprof/report.h"
#include "hwprof/branch_report.h"
#include "hwprof/cs_profile.h"
#include "hwprof/hwprof.h"
#include "hwprof/symbolize.h"
#include "hwprof/range_profile.h"

static const struct cmd_desc desc = {
	.name = "ranges",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

struct ranges_opts {
	struct report_opts ro;
	bool stats;
	int format; /* -1: table, else enum hwp_range_format */
	const char *binary, *output;
	uint64_t limit, max_range;
};

#define FORMAT_PROFGEN_CS 100 /* hwprof/cs_profile.h's, not a range profile */
static const char *const range_formats[] = { "autofdo", "profgen", "profgen-cs", NULL };
static const int range_format_ids[] = { HWP_RANGE_FORMAT_AUTOFDO, HWP_RANGE_FORMAT_PROFGEN, FORMAT_PROFGEN_CS };

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct ranges_opts *o)
{
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o->ro),
		OPT_BOOL(0, "stats", &o->stats, "counts of accepted and rejected ranges by reason"),
		{ .kind = OPT_KIND_CHOICE, .long_name = "format", .value = &o->format, .argh = "F",
		  .choices = range_formats, .ivals = range_format_ids,
		  .err = ": the formats are 'autofdo', 'profgen' and 'profgen-cs'",
		  .help = "a text profile of one binary: 'autofdo' (range, address and branch counts, as "
			  "simpleperf inject writes for create_llvm_prof), 'profgen' (range and branch counts, "
			  "as llvm-profgen --skip-symbolization writes and --unsymbolized-profile reads) or "
			  "'profgen-cs' (the same per calling context, from samples with call chains and branch "
			  "stacks, for a binary with pseudo probes: llvm-profgen's virtual unwinder)" },
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
		return cli_error("ranges: --binary and -o go with --format autofdo|profgen|profgen-cs");
	return -1;
}

static int print_ranges(struct report_input *in, const struct ranges_opts *o)
{
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o->ro.fmt, .limit = o->limit };
	struct hwp_table *t = hwp_report__ranges(report_input__symbolizer(in),
						 hwp_branch_collector__ranges(in->collector), &ro);
	int rc;

	if (!t)
		return cli_error("out of memory");
	report_input__warn_missing(in, true);
	rc = report_print_table(t, ro.fmt);
	hwp_table__delete(t);
	return rc;
}

static int print_stats(struct report_input *in, const struct ranges_opts *o)
{
	const struct hwp_range_stats *st = hwp_branch_collector__range_stats(in->collector);
	struct hwp_table *t = hwp_report__range_stats(st);
	int rc;

	if (!t)
		return cli_error("out of memory");
	if (o->ro.fmt == HWP_TABLE_TEXT)
		printf("%llu ranges between consecutive branch records; %zu distinct accepted\n",
		       (unsigned long long)st->pairs, st->distinct);
	rc = report_print_table_jobs(t, o->ro.fmt, o->ro.jobs);
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
	if (o->format == FORMAT_PROFGEN_CS) {
		/* a second pass over the recordings, now that the binary is known */
		const char *path = hwp_symbolizer__module_file(report_input__symbolizer(in), module);
		struct hwp_cs_opts co = { .sz = sizeof(co), .symfs = o->ro.symfs,
					  .format = HWP_CS_FORMAT_UNSYMBOLIZED };
		size_t n;
		const char *const *inputs = report_opts__inputs(&o->ro, &n);

		err = path ? hwp_cs_profile__write(inputs, n, path, &co, fp) : -ENOENT;
	} else {
		err = hwp_range_profile__write(in->collector, module, o->format, fp);
	}
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
