/* SPDX-License-Identifier: MIT */
/* hwprof info: header facts, events, record counts, branch-stack shape, losses. */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "hwprof/file_stats.h"
#include "hwprof/hwprof.h"
#include "hwprof/outbuf.h"
#include "hwprof/report.h"

static const char usage[] =
	"usage: hwprof info [-i FILE] [--json]\n"
	"\n"
	"One pass over the file: header facts (as 'perf report --header-only'),\n"
	"each event with its attr decoded, records per type and samples per event,\n"
	"the branch-stack depth histogram, which branch fields carry data\n"
	"(mispred, predicted, cycles, type, spec, ...), and lost or throttled\n"
	"samples (a warning when more than 1% were lost).\n"
	"\n"
	"  -i, --input FILE   perf.data, pipe-mode data, or perf script text\n"
	"                     (default: perf.data; '-' reads standard input)\n"
	"      --json         the same facts as one JSON object\n"
	CLI_COMMON_HELP
	"  -h, --help         this text\n";

/* Fills *input and *json; nonzero (the exit status) on a bad option. */
static int info_parse_opts(int argc, char **argv, const char **input, bool *json)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "input", required_argument, NULL, 'i' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		switch (c) {
		case 'i':
			*input = optarg;
			break;
		case 'j':
			*json = true;
			break;
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind < argc)
		return cli_error("info: unexpected argument '%s'", argv[optind]);
	return 0;
}

/* Prints what ST counted in R, then warns when many samples were lost. */
static int info_output(const struct hwp_reader *r, const struct hwp_file_stats *st, bool json)
{
	struct hwp_outbuf out;
	int rc = 0;

	if (hwp_outbuf__init(&out, stdout) < 0)
		return cli_error("out of memory");
	if (hwp_report__info(r, st, json ? HWP_TABLE_JSON : HWP_TABLE_TEXT, &out) < 0)
		rc = cli_error("info: %s", hwp_errmsg());
	int werr = hwp_outbuf__finish(&out);
	if (werr && !rc)
		rc = cli_error("error writing output: %s", hwp_strerror(werr));
	uint64_t samples = hwp_file_stats__totals(st)->samples, lost = hwp_report__lost_samples(st);
	if (lost * 100 > samples)
		cli_warn("%s: %" PRIu64 " samples lost (%.1f%% of %" PRIu64 " recorded): results under-count; record with a larger buffer (-m) or a lower frequency",
			 hwp_reader__path(r), lost, samples ? 100.0 * (double)lost / (double)samples : 0.0, samples);
	return rc;
}

int cmd_info(int argc, char **argv)
{
	const char *input = "perf.data";
	bool json = false;
	struct hwp_reader *r;
	struct hwp_file_stats *st;
	struct hwp_event ev;
	int n, rc;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	rc = info_parse_opts(argc, argv, &input, &json);
	if (rc)
		return rc;
	r = cli_open_input(input);
	if (!r)
		return 1;
	st = hwp_file_stats__new();
	if (!st) {
		hwp_reader__delete(r);
		return cli_error("%s", hwp_errmsg());
	}
	while ((n = hwp_reader__next(r, &ev)) > 0)
		hwp_file_stats__add(st, &ev);
	rc = n < 0 ? cli_error("%s", hwp_errmsg()) : info_output(r, st, json);
	hwp_file_stats__delete(st);
	hwp_reader__delete(r);
	return rc;
}
