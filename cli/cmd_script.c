/* SPDX-License-Identifier: MIT */
/* hwprof script: samples as perf 6.1's `perf script -F ip,brstack`, or JSON. */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "hwprof/hwprof.h"
#include "hwprof/outbuf.h"
#include "hwprof/perf_script.h"
#include "hwprof/sample_json.h"
#include "hwprof/maps.h"

static const char usage[] =
	"usage: hwprof script [-i FILE] [-G] [--json]\n"
	"\n"
	"Prints every sample as 'perf script -F ip,brstack' (perf 6.1) does: the\n"
	"sample address (or its callchain), then each branch-stack entry as\n"
	"FROM/TO/{M|P|-}/{X|-}/{A|-}/CYCLES/. Samples come in perf's time order.\n"
	"\n"
	"  -i, --input FILE        perf.data, pipe-mode data, or perf script text\n"
	"                          (default: perf.data; '-' reads standard input)\n"
	"  -G, --hide-call-graph   print the sample address instead of the callchain\n"
	"  -F, --fields LIST       only 'ip,brstack' (and its subsets) is supported\n"
	"  -f, --force             accepted for perf compatibility\n"
	"      --json              one JSON object per sample with every decoded field\n"
	CLI_COMMON_HELP
	"  -h, --help              this text\n";

int cmd_script(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "input", required_argument, NULL, 'i' },
		{ "hide-call-graph", no_argument, NULL, 'G' },
		{ "fields", required_argument, NULL, 'F' },
		{ "force", no_argument, NULL, 'f' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "perf.data";
	bool hide_callchain = false, json = false;
	int c;

	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:GF:fvq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'G':
			hide_callchain = true;
			break;
		case 'F':
			if (strcmp(optarg, "ip,brstack") && strcmp(optarg, "brstack,ip") &&
			    strcmp(optarg, "ip") && strcmp(optarg, "brstack"))
				return cli_error("script: -F '%s': only the fields ip and brstack are supported", optarg);
			break;
		case 'f':
			break;
		case 'j':
			json = true;
			break;
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind < argc)
		return cli_error("script: unexpected argument '%s'", argv[optind]);

	struct hwp_reader *r = cli_open_input(input);
	if (!r)
		return 1;
	struct hwp_ordered *q = hwp_ordered__new(r);
	struct hwp_outbuf out;
	int rc = 0;

	if (!q || hwp_outbuf__init(&out, stdout) < 0) {
		hwp_ordered__delete(q);
		hwp_reader__delete(r);
		return cli_error("out of memory");
	}
	struct hwp_event ev;
	int n;
	bool use_callchain = !hide_callchain;
	bool callchain_known = false;
	/* perf's address spaces, fed every record in delivery order: callchain
	   addresses print relative to their map. Not needed for -G or JSON.
	   perf script text input keeps its callchain addresses as they were
	   printed (perf 6.1 text already has them relative). */
	struct hwp_machine *machine = NULL;

	if (!hide_callchain && !json && !hwp_reader__is_text(r)) {
		machine = hwp_machine__new();
		if (!machine) {
			hwp_outbuf__finish(&out);
			hwp_ordered__delete(q);
			hwp_reader__delete(r);
			return cli_error("out of memory");
		}
	}
	while ((n = hwp_ordered__next(q, &ev)) > 0) {
		const struct hwp_thread *th = NULL;
		if (machine) {
			int err;
			if (ev.type == HWP_RECORD_SAMPLE && ev.evsel) {
				th = hwp_machine__sample_thread(machine, &ev);
				err = th ? 0 : -ENOMEM;
			} else {
				err = hwp_machine__process_event(machine, &ev);
			}
			if (err == -ENOMEM) {
				n = hwp_set_error(ENOMEM, "%s: out of memory tracking process maps at record %llu",
						  input, (unsigned long long)ev.index);
				break;
			}
			/* -EINVAL: a record too short for its type; perf skips it too */
		}
		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel)
			continue;
		if (!callchain_known) {
			/* perf uses callchains when any event records them (pipe mode
			   has all attrs before the first sample). */
			bool any = false;
			for (size_t i = 0; i < hwp_reader__nr_evsels(r); i++)
				any |= !!(hwp_reader__evsel(r, i)->attr.sample_type & HWP_SAMPLE_CALLCHAIN);
			use_callchain = use_callchain && any;
			callchain_known = true;
		}
		if (json)
			hwp_sample_json__print(&out, &ev);
		else
			hwp_perf_script__sample_in(&out, &ev, use_callchain, th);
	}
	if (n < 0)
		rc = cli_error("%s", hwp_errmsg());
	int werr = hwp_outbuf__finish(&out);
	if (werr && !rc)
		rc = cli_error("error writing output: %s", hwp_strerror(werr));
	hwp_machine__delete(machine);
	hwp_ordered__delete(q);
	hwp_reader__delete(r);
	return rc;
}
