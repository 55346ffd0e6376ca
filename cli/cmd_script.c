/* SPDX-License-Identifier: MIT */
/* hwprof script: samples as perf 6.1's `perf script -F ip,brstack`, or JSON. */
#include <string.h>

#include "cli.h"
#include "parse_options.h"
#include "hwprof/hwprof.h"
#include "hwprof/script.h"
#include "hwprof/session.h"

static const struct cmd_desc desc = {
	.name = "script",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

struct script_opts {
	const char *input;
	const char **inputs; /* every -i and positional input */
	size_t nr_inputs;
	bool hide_callchain, json;
	unsigned mem_fields; /* hwp_script__parse_fields(): -F named a memory field */
};

/* -F LIST into the struct script_opts of OPT */
static int take_fields(const char *cmd, const struct opt *opt, const char *arg)
{
	struct script_opts *o = opt->value;

	if (hwp_script__parse_fields(arg, &o->mem_fields) < 0)
		return cli_error("%s: -F '%s': supported are ip,brstack or some of "
				 "cpu,event,addr,data_src,weight,ip,phys_addr", cmd, arg);
	return 0;
}

/* Returns -1 to go on, else the exit code. */
static int parse_opts(int argc, char **argv, struct script_opts *o)
{
	bool force = false;
	const struct opt opts[] = {
		OPT_INPUT('i', "input", &o->input, &o->inputs, &o->nr_inputs, "FILE",
			  "perf.data, pipe-mode data, or perf script text (default: perf.data; '-' reads "
			  "standard input)"),
		OPT_BOOL('G', "hide-call-graph", &o->hide_callchain, "print the sample address instead of the callchain"),
		{ .kind = OPT_KIND_CALLBACK, .short_name = 'F', .long_name = "fields", .value = o, .argh = "LIST",
		  .cb = take_fields, .values = "ip brstack cpu event addr data_src weight phys_addr",
		  .help = "'ip,brstack' (or a subset), or precise-sample fields as perf prints them: some of "
			  "cpu,event,addr, data_src (with its decoding),weight,ip,phys_addr" },
		OPT_BOOL('f', "force", &force, "accepted for perf compatibility"),
		OPT_BOOL(0, "json", &o->json, "one JSON object per sample with every decoded field"),
		OPT_COMMON(),
		OPT_END(),
	};

	*o = (struct script_opts){ .input = "perf.data" };
	return parse_options(argc, argv, &desc, opts, NULL);
}

int cmd_script(int argc, char **argv)
{
	struct script_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	struct hwp_script_opts so = { .sz = sizeof(so), .json = o.json, .hide_callchain = o.hide_callchain,
				      .fields = o.mem_fields };
	struct hwp_session_opts sess = { .sz = sizeof(sess), .no_maps = !hwp_script__needs_maps(&so) };
	struct hwp_session *s = o.nr_inputs ? hwp_session__open_inputs(o.inputs, o.nr_inputs, &sess)
					    : hwp_session__open(o.input, &sess);
	if (!s)
		return cli_error("%s", hwp_errmsg());
	rc = hwp_script__write(s, &so, stdout) < 0 ? cli_error("%s", hwp_errmsg()) : 0;
	hwp_session__delete(s);
	return rc;
}
