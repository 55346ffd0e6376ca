/* SPDX-License-Identifier: MIT */
/* hwprof export: a recording's aggregates as rows for any loader, or pprof. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_export.h"
#include "hwprof/export.h"

static const struct cmd_desc desc = {
	.name = "export",
	.args = "[FILE...]",
	.flags = CMD_INPUTS,
};

int cmd_export(int argc, char **argv)
{
	static const char *const fmts[] = { "tsv", "csv", "json", "pprof", NULL };
	struct export_opts o;
	const char *output = NULL;
	int fmt = 0, rc;
	const struct opt opts[] = {
		OPT_REPORT_INPUT(&o.ro),
		OPT_CHOICE(0, "format", &fmt, "F", fmts, ": the formats are 'tsv', 'csv', 'json' and 'pprof'",
			   "'tsv' (default; ClickHouse's TabSeparated with a header line), 'csv', 'json' (JSON "
			   "lines), or 'pprof': a gzipped pprof profile of the branches (one sample per branch at "
			   "its source, values branches/mispredicts/cycles, labels target and type) and of the "
			   "call stacks where the recording has them (-g, --call-graph lbr or dwarf: one sample "
			   "per stack, values samples and period) for pprof, Pyroscope or Parca"),
		OPT_STRING('o', "output", &output, "FILE", "write to FILE (default: stdout)"),
		OPT_EXPORT(&o),
		OPT_COMMON(),
		OPT_END(),
	};

	export_opts__init(&o);
	if ((rc = parse_options(argc, argv, &desc, opts, NULL)) >= 0)
		return rc;
	/* pprof holds branches and call stacks: no need to decode for blocks */
	if (fmt == 3)
		o.no_flow = o.calls = true;

	struct export_input ei;
	rc = export_input__load(&ei, &o, o.ro.input);
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
