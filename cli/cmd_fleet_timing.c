/* SPDX-License-Identifier: MIT */
/* hwprof fleet timing: block latency distributions over every host's rows. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "cli_fleet.h"
#include "hwprof/fleet.h"
#include "hwprof/report.h"
#include "hwprof/timing.h"

int fleet_timing(int argc, char **argv, struct fleet_source *fs)
{
	struct flow_opts o;
	bool histograms = false;
	const struct opt opts[] = {
		OPT_BOOL(0, "histograms", &histograms, "(timing) the occurrence-rate rows of every block shown"),
		OPT_FLOW_FILTER(&o),
		OPT_REPORT_OUTPUT(&o.ro),
		OPT_COMMON(),
		OPT_END(),
	};
	const struct cmd_desc d = { .name = "fleet timing" };
	struct hwp_symbolizer_opts so = { .sz = sizeof(so) };
	struct hwp_symbolizer *sym = NULL;
	struct hwp_timing *tm = NULL;
	size_t n, shown, *idx = NULL;
	int rc;

	flow_opts__init(&o);
	if ((rc = parse_options(argc, argv, &d, opts, NULL)) >= 0)
		return rc;
	rc = 0;
	so.symfs = o.ro.symfs;
	if (!(sym = hwp_symbolizer__new(&so)))
		return cli_error("%s", hwp_errmsg());
	if (!(tm = hwp_fleet__fetch_timing(fs->fleet, &fs->flt, sym))) {
		rc = cli_error("fleet timing: %s", hwp_errmsg());
		goto out;
	}
	const struct hwp_timing_block *b = hwp_timing__blocks(tm, &n);
	enum hwp_cycles_source src = hwp_timing__source(tm);
	struct hwp_report_opts ro = { .sz = sizeof(ro), .fmt = o.ro.fmt, .limit = o.limit, .min_executions = o.min,
				      .dso = o.dso, .sym = o.sym };

	if (!n) {
		rc = cli_error("fleet timing: no block latencies%s in %s (pushed recordings whose branch records carry "
			       "cycle counts have them)",
			       fs->flt.build_id || fs->flt.nhosts || fs->flt.since || fs->flt.until ? " for these filters" : "",
			       hwp_fleet__url(fs->fleet));
		goto out;
	}
	if (!(idx = calloc(n, sizeof(*idx)))) {
		rc = cli_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	shown = hwp_report__select_blocks(sym, b, idx, n, &ro); /* --dso, --sym, --min-executions, --limit */
	if (histograms) {
		if (hwp_report__print_timing_rates(sym, b, idx, shown, src, ro.fmt, stdout) < 0)
			rc = cli_error("%s", hwp_errmsg());
		goto out;
	}
	struct hwp_table *t = hwp_report__timing_blocks(sym, tm, idx, shown, &ro);
	if (!t) {
		rc = cli_error("out of memory");
		goto out;
	}
	if (ro.fmt == HWP_TABLE_TEXT)
		printf("# basic blocks by total cycles, over the fleet's hosts; cycles %s%s\n# %" PRIu64
		       " latency samples\n#\n",
		       hwp_report__cycles_name(src),
		       src == HWP_CYCLES_MODELLED ? " by the emulator's cost model, not measured on hardware"
						  : " by the CPU's branch records",
		       hwp_timing__stats(tm)->latencies);
	rc = report_print_table(t, ro.fmt);
	hwp_table__delete(t);
out:
	free(idx);
	hwp_timing__delete(tm);
	hwp_symbolizer__delete(sym);
	return rc;
}
