/* SPDX-License-Identifier: MIT */
/* hwprof info: header facts, events, record counts, branch-stack shape, losses. */
#include <getopt.h>

#include "cli.h"
#include "hwprof/hwprof.h"
#include "hwprof/info.h"

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

/* The body, over the inputs the options named: the library reads them and
   writes what they hold; a warning (samples lost) comes through the log. */
static int info_run(const char *const *inputs, size_t n, bool json)
{
	if (hwp_info__write_inputs(inputs, n, json ? HWP_TABLE_JSON : HWP_TABLE_TEXT, stdout) < 0)
		return cli_error("%s", hwp_errmsg());
	return 0;
}

int cmd_info(int argc, char **argv)
{
	const char *input = "perf.data";
	bool json = false;
	int rc;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	rc = info_parse_opts(argc, argv, &input, &json);
	if (rc)
		return rc;
	return info_run(&input, 1, json);
}
