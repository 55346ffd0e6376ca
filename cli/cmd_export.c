/* SPDX-License-Identifier: MIT */
/* hwprof export: a recording's aggregates as rows for any loader, or pprof. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_export.h"
#include "hwprof/export.h"

static const char usage[] =
	"usage: hwprof export [-i FILE] [--format tsv|csv|json|pprof] [-o FILE]\n"
	"                     [--host NAME] [--window S,E] [--no-flow] [--symfs DIR]\n"
	"\n"
	"A recording's aggregates as rows keyed by build-id and module offsets (the\n"
	"same binary in any process, at any load address, has the same keys), so the\n"
	"rows of many hosts add up: kind 'branch' (taken branches: entries,\n"
	"mispredicts, cycle sums and a log2 cycle histogram), 'range' (fall-through\n"
	"ranges between branch records: what PGO profiles are made of), 'block'\n"
	"(basic blocks: executions) and 'cond' (conditional branches: taken and not\n"
	"taken). Columns: host, window_start, window_end, kind, build_id, module,\n"
	"from_off, to_build_id, to_module, to_off, type, count, entries, not_taken,\n"
	"mispred, predicted, cycles_sum, cycles_n, cycles_hist.\n"
	"\n"
	"  -i, --input FILE     perf.data or perf script text (default: perf.data)\n"
	"      --format F       'tsv' (default; ClickHouse's TabSeparated with a header\n"
	"                       line), 'csv', 'json' (JSON lines), or 'pprof': a gzipped\n"
	"                       pprof profile of the branches (one sample per branch at\n"
	"                       its source, values branches/mispredicts/cycles, labels\n"
	"                       target and type) for pprof, Pyroscope or Parca\n"
	"  -o, --output FILE    write to FILE (default: stdout)\n"
	EXPORT_HELP
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		EXPORT_LONGOPTS,
		{ "input", required_argument, NULL, 'i' },
		{ "symfs", required_argument, NULL, 'S' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const fmts[] = { "tsv", "csv", "json", "pprof" };
	struct export_opts o;
	const char *output = NULL;
	int fmt = 0, c, r;

	export_opts__init(&o);
	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "i:o:vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		if ((r = export_opts__take(&o, "export", c, optarg)) < 0)
			return 1;
		if (r)
			continue;
		switch (c) {
		case 'i':
			o.ro.input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'f':
			fmt = -1;
			for (int k = 0; k < 4; k++)
				if (!strcmp(optarg, fmts[k]))
					fmt = k;
			if (fmt < 0)
				return cli_error("export: --format '%s': the formats are 'tsv', 'csv', 'json' and 'pprof'",
						 optarg);
			break;
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind < argc)
		return cli_error("export: unexpected argument '%s'", argv[optind]);
	/* pprof holds only branches: no need to decode for blocks */
	if (fmt == 3)
		o.no_flow = true;

	struct export_input ei;
	int rc = export_input__load(&ei, &o, o.ro.input);
	FILE *fp = stdout;

	if (!rc && output && strcmp(output, "-") && !(fp = fopen(output, "w")))
		rc = cli_error("%s: cannot write: %s", output, strerror(errno));
	if (!rc) {
		int err = fmt == 3 ? hwp_export__write_pprof(ei.rows, fp)
				   : hwp_export__write(ei.rows, 0, SIZE_MAX, (enum hwp_export_format)fmt, true, fp);

		if (fp != stdout && fclose(fp) && !err)
			rc = cli_error("%s: write failed: %s", output, strerror(errno));
		else if (err < 0)
			rc = cli_error("%s", hwp_errmsg());
	}
	export_input__close(&ei);
	return rc;
}
