/* SPDX-License-Identifier: MIT */
/* hwprof script: samples as perf 6.1's `perf script -F ip,brstack`, or JSON. */
#include <string.h>

#include "cli.h"
#include "parse_options.h"
#include "hwprof/hwprof.h"
#include "outbuf.h"
#include "perf_script.h"
#include "sample_json.h"
#include "hwprof/session.h"

static const struct cmd_desc desc = {
	.name = "script",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
	.text =
		"Prints every sample as 'perf script -F ip,brstack' (perf 6.1) does: the\n"
		"sample address (or its callchain), then each branch-stack entry as\n"
		"FROM/TO/{M|P|-}/{X|-}/{A|-}/CYCLES/. Samples come in perf's time order.\n"
		"With memory fields (-F event,cpu,ip,addr,weight,data_src) it prints them as\n"
		"perf does, data_src with its decoding (|OP LOAD|LVL L1 or L1 hit|SNP ...).\n",
};

struct script_opts {
	const char *input;
	const char **inputs; /* every -i and positional input */
	size_t nr_inputs;
	bool hide_callchain, json;
	unsigned mem_fields; /* HWP_SCRIPT_F_*: -F named a memory field */
};

/* -F LIST: "ip,brstack" and its subsets, or fields of precise samples
   (perf script -F event,cpu,ip,addr,weight,data_src,phys_addr). */
static int parse_fields(const char *list, unsigned *mem_fields)
{
	static const struct { const char *name; unsigned flag; } names[] = {
		{ "cpu", HWP_SCRIPT_F_CPU }, { "event", HWP_SCRIPT_F_EVENT },
		{ "addr", HWP_SCRIPT_F_ADDR }, { "data_src", HWP_SCRIPT_F_DATA_SRC },
		{ "weight", HWP_SCRIPT_F_WEIGHT }, { "ip", HWP_SCRIPT_F_IP },
		{ "phys_addr", HWP_SCRIPT_F_PHYS_ADDR },
	};
	char buf[256], *tok, *save = NULL;
	unsigned f = 0;
	bool brstack = false;

	if (strlen(list) >= sizeof(buf))
		return -1;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;
		if (!strcmp(tok, "brstack")) {
			brstack = true;
			continue;
		}
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return -1;
		f |= names[i].flag;
	}
	if (f & ~(unsigned)HWP_SCRIPT_F_IP) {
		if (brstack)
			return -1;
		*mem_fields = f;
	} else {
		*mem_fields = 0;
	}
	return 0;
}

/* -F LIST into the struct script_opts of OPT */
static int take_fields(const char *cmd, const struct opt *opt, const char *arg)
{
	struct script_opts *o = opt->value;

	if (parse_fields(arg, &o->mem_fields) < 0)
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

/* Every sample of S to OUT (JSW: as JSON); 0 or <0 (hwp_errmsg()). */
static int print_samples(struct hwp_session *s, const struct script_opts *o, struct hwp_outbuf *out,
			 struct hwp_json_writer *jw)
{
	/* perf script text keeps its callchain addresses as printed (perf 6.1
	   text already has them relative to their map). */
	bool relative = hwp_session__machine(s) && !hwp_session__is_text(s);
	bool use_callchain = !o->hide_callchain, callchain_known = false;
	struct hwp_event ev;
	const struct hwp_thread *th;
	int n, name_width = 0, data_src_width = 0;

	if (o->mem_fields & HWP_SCRIPT_F_EVENT) {
		/* perf pads event names to the longest of the file */
		struct hwp_reader *r = hwp_session__reader(s);
		for (size_t i = 0; r && i < hwp_reader__nr_evsels(r); i++) {
			const struct hwp_evsel *e = hwp_reader__evsel(r, i);
			if (e->name && (int)strlen(e->name) > name_width)
				name_width = (int)strlen(e->name);
		}
	}

	while ((n = hwp_session__next(s, &ev, &th)) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel)
			continue;
		if (!callchain_known) {
			/* perf uses callchains when any event records them. */
			use_callchain = use_callchain && (hwp_session__sample_types(s) & HWP_SAMPLE_CALLCHAIN);
			callchain_known = true;
		}
		if (jw)
			hwp__sample_json_write(jw, &ev);
		else if (o->mem_fields)
			hwp__perf_script_mem_sample(out, &ev, o->mem_fields, name_width, &data_src_width);
		else
			hwp__perf_script_sample_in(out, &ev, use_callchain, relative ? th : NULL);
	}
	return n;
}

int cmd_script(int argc, char **argv)
{
	struct script_opts o;
	int rc = parse_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	/* perf's address spaces print callchain addresses relative to their
	   map; -G and JSON do not need them. */
	struct hwp_session_opts so = { .sz = sizeof(so), .no_maps = o.hide_callchain || o.json || o.mem_fields };
	struct hwp_session *s = o.nr_inputs ? hwp_session__open_inputs(o.inputs, o.nr_inputs, &so)
					    : hwp_session__open(o.input, &so);
	if (!s)
		return cli_error("%s", hwp_errmsg());
	struct hwp_outbuf out;
	struct hwp_json_writer *jw = NULL;
	rc = 0;
	if (hwp__outbuf_init(&out, stdout) < 0) {
		hwp_session__delete(s);
		return cli_error("%s", hwp_errmsg());
	}
	if (o.json && !(jw = hwp__json_writer_new(&out)))
		rc = cli_error("%s", hwp_errmsg());
	else if (print_samples(s, &o, &out, jw) < 0)
		rc = cli_error("%s", hwp_errmsg());
	hwp__json_writer_delete(jw);
	int werr = hwp__outbuf_finish(&out);
	if (werr && !rc)
		rc = cli_error("error writing output: %s", hwp_strerror(werr));
	hwp_session__delete(s);
	return rc;
}
