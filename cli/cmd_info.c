/* SPDX-License-Identifier: MIT */
/* hwprof info: header facts, events, record counts, branch-stack shape, losses. */
#include "cli.h"
#include "parse_options.h"
#include "hwprof/hwprof.h"
#include "hwprof/info.h"

static const struct cmd_desc desc = {
	.name = "info",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

/* Fills the inputs and *json; -1 to go on, else the exit status. */
static int info_parse_opts(int argc, char **argv, const char **input, const char ***inputs, size_t *nr_inputs,
			   bool *json)
{
	const struct opt opts[] = {
		OPT_INPUT('i', "input", input, inputs, nr_inputs, "FILE",
			  "perf.data, pipe-mode data, or perf script text (default: perf.data; '-' reads "
			  "standard input)"),
		OPT_BOOL(0, "json", json, "the same facts as one JSON object"),
		OPT_COMMON(),
		OPT_END(),
	};

	return parse_options(argc, argv, &desc, opts, NULL);
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
	const char *input = "perf.data", **inputs = NULL;
	size_t nr_inputs = 0;
	bool json = false;
	int rc = info_parse_opts(argc, argv, &input, &inputs, &nr_inputs, &json);

	if (rc >= 0)
		return rc;
	return info_run(inputs, nr_inputs, json);
}
