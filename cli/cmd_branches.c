/* SPDX-License-Identifier: MIT */
/* hwprof branches: the hot-branch table, keyed by perf's branch sort keys. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_report.h"
#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"

static const char usage[] =
	"usage: hwprof branches [-i FILE] [--sort KEYS] [--dso NAME] [--sym TEXT]\n"
	"                       [--min-percent P] [--symfs DIR] [--json | --csv]\n"
	"\n"
	"Counts every branch-stack entry under its source and target, rows keyed by\n"
	"perf's branch sort keys (as 'perf report -b --sort KEYS'), hottest first.\n"
	"Overhead is each row's share of all branch entries, as perf's branch mode.\n"
	"\n"
	"  -i, --input FILE     perf.data or perf script text (default: perf.data)\n"
	"  -s, --sort KEYS      comma-separated: symbol_from, symbol_to, srcline_from,\n"
	"                       srcline_to, dso_from, dso_to, addr_from, addr_to, type,\n"
	"                       mispredict, cycles\n"
	"                       (default: dso_from,symbol_from,dso_to,symbol_to)\n"
	"      --dso NAME       only rows whose source or target module is NAME\n"
	"      --sym TEXT       only rows whose source or target symbol contains TEXT\n"
	"      --min-percent P  hide rows below P% of all entries\n"
	"      --symfs DIR      look for binaries under DIR\n"
	"      --json, --csv    machine-readable output\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

int cmd_branches(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		REPORT_LONGOPTS,
		{ "sort", required_argument, NULL, 's' },
		{ "dso", required_argument, NULL, 'd' },
		{ "sym", required_argument, NULL, 'y' },
		{ "min-percent", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sort = "dso_from,symbol_from,dso_to,symbol_to";
	struct hwp_branch_report_filter filter = { 0 };
	struct report_opts ro;
	int c;

	report_opts__init(&ro);
	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:s:vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		if (report_opts__take(&ro, c, optarg))
			continue;
		switch (c) {
		case 's':
			sort = optarg;
			break;
		case 'd':
			filter.dso = optarg;
			break;
		case 'y':
			filter.sym = optarg;
			break;
		case 'm': {
			char *end;
			filter.min_percent = strtod(optarg, &end);
			if (*end || filter.min_percent < 0 || filter.min_percent > 100)
				return cli_error("branches: --min-percent '%s' is not a percentage", optarg);
			break;
		}
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind < argc)
		return cli_error("branches: unexpected argument '%s'", argv[optind]);

	enum hwp_branch_key_id keys[HWP_MAX_SORT_KEYS];
	int nkeys = hwp_branch_keys__parse(sort, keys, HWP_MAX_SORT_KEYS - 1);
	if (nkeys < 0)
		return cli_error("branches: --sort '%s': %s", sort, hwp_errmsg());

	struct hwp_branch_collect_opts co = { .sz = sizeof(co), .split = hwp_branch_keys__split(keys, (size_t)nkeys) };
	struct report_input in;
	int rc = report_input__load_branches(&in, &ro, &co);
	if (rc) {
		report_input__close(&in);
		return rc;
	}
	struct hwp_branch_report *rep = hwp_branch_report__new(hwp_branch_collector__table(in.collector),
								report_input__symbolizer(&in), keys, (size_t)nkeys, &filter);
	struct hwp_table *t = hwp_table__new();
	if (!rep || !t) {
		hwp_table__delete(t);
		hwp_branch_report__delete(rep);
		report_input__close(&in);
		return cli_error("out of memory");
	}
	hwp_table__add_column(t, "Overhead", "percent", HWP_COL_PERCENT);
	hwp_table__add_column(t, "Samples", "count", HWP_COL_COUNT);
	for (int k = 0; k < nkeys; k++)
		hwp_table__add_column(t, hwp_branch_key__title(keys[k]), hwp_branch_key__name(keys[k]), HWP_COL_TEXT);
	const struct hwp_branch_report_row *rows;
	size_t nr = hwp_branch_report__rows(rep, &rows);
	uint64_t total = hwp_branch_report__total(rep);
	for (size_t i = 0; i < nr; i++) {
		hwp_table__new_row(t);
		hwp_table__set_real(t, 0, total ? 100.0 * (double)rows[i].c.count / (double)total : 0);
		hwp_table__set_count(t, 1, rows[i].c.count);
		for (int k = 0; k < nkeys; k++)
			hwp_table__set_text(t, 2 + (size_t)k, rows[i].cells[k]);
	}
	report_input__warn_missing(&in);
	rc = report_print_table(t, ro.fmt);
	hwp_table__delete(t);
	hwp_branch_report__delete(rep);
	report_input__close(&in);
	return rc;
}
