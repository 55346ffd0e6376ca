/* SPDX-License-Identifier: MIT */
/* hwprof fleet: the ClickHouse tables, and reports over every host's rows. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "cli_fleet.h"
#include "hwprof/fleet.h"
#include "hwprof/report.h"

static const struct cmd_desc desc = {
	.name = "fleet",
	.args = "init|branches|probs|mispredicts|timing|rows|hosts URL [FILTERS] [OPTIONS]",
	.flags = CMD_SUBCOMMANDS,
};

/* The fleet's options, for its --help and completion: the filters, init's
   --cluster, rows' --format and --kind (each subcommand's table has its own). */
static const char *const row_formats[] = { "tsv", "csv", "json", NULL };
static const char *const row_kinds[] = { "branch", "range", "block", "cond", NULL };

#define OPT_ROWS(fmt, kind)                                                                          \
	OPT_CHOICE(0, "format", fmt, "F", row_formats, ": the formats are 'tsv', 'csv' and 'json'",      \
		   "(rows) tsv (default), csv or json"),                                                 \
	OPT_CHOICE(0, "kind", kind, "K", row_kinds, ": the kinds are branch, range, block and cond",     \
		   "(rows) only rows of kind K: branch, range, block or cond")
#define OPT_CLUSTER(v) OPT_STRING(0, "cluster", v, "NAME", "(init) the cluster of the Distributed table")

static int fleet_init(int argc, char **argv)
{
	const char *cluster = NULL, *table = NULL;
	struct fleet_auth auth = { 0 };
	const struct opt opts[] = {
		OPT_CLUSTER(&cluster),
		OPT_STRING(0, "table", &table, "NAME", "the rows table (default hwprof_rows)"),
		OPT_FLEET_AUTH(&auth),
		OPT_COMMON(),
		OPT_END(),
	};
	const struct cmd_desc d = { .name = "fleet init", .args = "URL...", .flags = CMD_ARGS };
	struct cmd_args a;
	int rc = parse_options(argc, argv, &d, opts, &a);

	if (rc >= 0)
		return rc;
	if (!a.n)
		return cli_error("fleet init: which server? give its URL (http://HOST:8123/)");
	rc = 0;
	for (int i = 0; i < a.n && !rc; i++) {
		struct hwp_fleet_opts fo = { .sz = sizeof(fo), .table = table };
		struct hwp_fleet *f = NULL;

		if ((rc = fleet_auth__apply(&auth, "fleet init", a.v[i], &fo)))
			break;
		f = hwp_fleet__open(a.v[i], &fo);
		fleet_auth__free(&auth);
		if (!f || hwp_fleet__init(f, cluster) < 0)
			rc = cli_error("fleet init: %s", hwp_errmsg());
		hwp_fleet__close(f);
	}
	return rc;
}

/* fleet rows / hosts: their own few options after the filters. */
static int fleet_rows(int argc, char **argv, struct fleet_source *fs)
{
	int fmt = 0, kind = -1;
	const struct opt opts[] = { OPT_ROWS(&fmt, &kind), OPT_COMMON(), OPT_END() };
	const struct cmd_desc d = { .name = "fleet rows" };
	int rc = parse_options(argc, argv, &d, opts, NULL);

	if (rc >= 0)
		return rc;
	rc = fleet_source__load(fs, NULL, kind);
	if (!rc && hwp_export__write(fs->rows, 0, SIZE_MAX, (enum hwp_export_format)fmt, true, stdout) < 0)
		rc = cli_error("%s", hwp_errmsg());
	return rc;
}

static int fleet_hosts(int argc, char **argv, struct fleet_source *fs)
{
	const struct opt opts[] = { OPT_COMMON(), OPT_END() };
	const struct cmd_desc d = { .name = "fleet hosts" };
	char *ans = NULL;
	int rc = parse_options(argc, argv, &d, opts, NULL);

	if (rc >= 0)
		return rc;
	if (fs->flt.build_id || fs->flt.nhosts || fs->flt.since || fs->flt.until)
		return cli_error("fleet hosts: lists every host; it takes no filter");
	if (hwp_fleet__hosts(fs->fleet, &ans) < 0)
		return cli_error("fleet hosts: %s", hwp_errmsg());
	fputs(ans, stdout);
	free(ans);
	return 0;
}

static int fleet_probs(int argc, char **argv, struct fleet_source *fs)
{
	struct flow_opts o;
	bool indirect;
	int rc = probs_parse_opts(argc, argv, &o, &indirect);

	if (rc >= 0)
		return rc;
	if (indirect)
		return cli_error("fleet probs: --indirect: the rows keep no indirect-branch targets apart (use fleet branches)");
	if (o.infer)
		return cli_error("fleet probs: --infer: the rows are summed counts per branch, without the blocks the "
				 "inference balances: infer from a recording");
	if ((rc = fleet_source__load(fs, o.ro.symfs, HWP_EXPORT_COND)))
		return rc;
	size_t n;
	struct hwp_flow_cond *c = hwp_report__export_conds(fs->rows, fs->sym, &n);

	if (!c)
		return cli_error("out of memory");
	hwp_report__sort_conds_by_executions(c, n);
	rc = probs_print_conds(fs->sym, c, n, &o);
	free(c);
	return rc;
}

int cmd_fleet(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*run)(int argc, char **argv, struct fleet_source *fs);
	} subs[] = {
		{ "branches", fleet_branches },
		{ "probs", fleet_probs },
		{ "mispredicts", fleet_mispredicts },
		{ "timing", fleet_timing },
		{ "rows", fleet_rows },
		{ "hosts", fleet_hosts },
	};

	struct fleet_source shown; /* (the fields the help's table names) */
	const char *cluster;
	int fmt, kind;
	bool histograms;
	const struct opt opts[] = {
		OPT_FLEET_FILTER(&shown), OPT_CLUSTER(&cluster), OPT_ROWS(&fmt, &kind),
		OPT_BOOL(0, "histograms", &histograms, "(timing) the occurrence-rate rows of every block shown"),
		OPT_COMMON(), OPT_END(),
	};

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--list-options")) {
		if (argc < 2) {
			parse_options__usage(&desc, opts, stderr);
			return 1;
		}
		return parse_options(2, argv, &desc, opts, NULL) == 0 ? 0 : 1;
	}
	if (!strcmp(argv[1], "init"))
		return fleet_init(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		if (strcmp(argv[1], subs[i].name))
			continue;
		if (argc < 3 || argv[2][0] == '-') {
			if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
				parse_options__usage(&desc, opts, stdout);
				return 0;
			}
			return cli_error("fleet %s: which server? give its URL (http://HOST:8123/) after '%s'",
					 subs[i].name, subs[i].name);
		}
		struct fleet_source fs;
		char cmd[64];
		/* the command's own parser sees "fleet-CMD [options]" */
		int sub_argc = argc - 2;
		char **sub_argv = argv + 2;

		snprintf(cmd, sizeof(cmd), "fleet %s", subs[i].name);
		int rc = fleet_source__open(&fs, cmd, argv[2], &sub_argc, sub_argv);
		if (!rc)
			rc = subs[i].run(sub_argc, sub_argv, &fs);
		fleet_source__close(&fs);
		return rc;
	}
	return cli_error("fleet: '%s' is not a fleet command (init, branches, probs, mispredicts, timing, rows, hosts)", argv[1]);
}
