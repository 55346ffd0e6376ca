/* SPDX-License-Identifier: MIT */
/* hwprof fleet: the ClickHouse tables, and reports over every host's rows. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_flow.h"
#include "cli_fleet.h"
#include "hwprof/fleet.h"
#include "hwprof/report.h"

static const char usage[] =
	"usage: hwprof fleet init URL... [--cluster NAME]\n"
	"       hwprof fleet branches URL [FILTERS] [hwprof branches options]\n"
	"       hwprof fleet probs URL [FILTERS] [hwprof probs options]\n"
	"       hwprof fleet mispredicts URL [FILTERS] [--limit N] [--json | --csv]\n"
	"       hwprof fleet rows URL [FILTERS] [--format tsv|csv|json] [--kind K]\n"
	"       hwprof fleet hosts URL [FILTERS]\n"
	"\n"
	"The rows 'hwprof push' sent to ClickHouse (its HTTP interface at URL),\n"
	"summed over hosts and time windows: the same binary from every host.\n"
	"\n"
	"  init         creates the rows table (a ReplacingMergeTree partitioned by\n"
	"               day: rows sent twice count once) on each server URL; with\n"
	"               --cluster NAME the storage is hwprof_rows_local and\n"
	"               hwprof_rows a Distributed table over the cluster's shards\n"
	"               (give every server of the cluster)\n"
	"  branches     the hot-branch table of 'hwprof branches' (same options, keys\n"
	"               and rendering; not the cycles, mispredict, in_tx, abort and\n"
	"               ipc_lbr keys, which the rows do not keep)\n"
	"  probs        the conditional branches of 'hwprof probs' (same options and\n"
	"               rendering; not --indirect)\n"
	"  mispredicts  'hwprof mispredicts' (same options): with the binaries at hand\n"
	"               the summed ranges are walked as one recording's; else the\n"
	"               conditional branches' rows give their executions\n"
	"  rows         the summed rows, as 'hwprof export' writes them (host '*', the\n"
	"               window they span); --kind branch|range|block|cond\n"
	"  hosts        each host: first and last window, recordings, branch rows and\n"
	"               entries (no filters)\n"
	"\n"
	"Binaries are symbolized as found on this machine (--symfs DIR; by build-id\n"
	"in ~/.debug). FILTERS:\n"
	"\n"
	FLEET_FILTER_HELP
	"      --cluster NAME   (init) the cluster of the Distributed table\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

static int fleet_init(int argc, char **argv)
{
	const char *cluster = NULL;
	int nurls = 0, rc = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cluster") && i + 1 < argc)
			cluster = argv[++i];
		else if (!strncmp(argv[i], "--cluster=", 10))
			cluster = argv[i] + 10;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-v"))
			cli_common_opt(argv[i][1] == 'v' ? 'v' : 'q');
		else if (argv[i][0] == '-')
			return cli_error("fleet init: unknown option '%s'", argv[i]);
		else
			nurls++;
	}
	if (!nurls)
		return cli_error("fleet init: which server? give its URL (http://HOST:8123/)");
	for (int i = 1; i < argc && !rc; i++) {
		if (argv[i][0] == '-' || (i > 1 && !strcmp(argv[i - 1], "--cluster")))
			continue;
		struct hwp_fleet_opts fo = { .sz = sizeof(fo) };
		struct hwp_fleet *f = hwp_fleet__open(argv[i], &fo);

		if (!f || hwp_fleet__init(f, cluster) < 0)
			rc = cli_error("fleet init: %s", hwp_errmsg());
		hwp_fleet__close(f);
	}
	return rc;
}

/* fleet rows / hosts: their own few options after the filters. */
static int fleet_rows(int argc, char **argv, struct fleet_source *fs)
{
	static const char *const fmts[] = { "tsv", "csv", "json" };
	int fmt = 0, kind = -1;

	for (int i = 1; i < argc; i++) {
		const char *v = NULL;

		if (!strcmp(argv[i], "--format") && i + 1 < argc)
			v = argv[++i];
		else if (!strncmp(argv[i], "--format=", 9))
			v = argv[i] + 9;
		if (v) {
			fmt = -1;
			for (int k = 0; k < 3; k++)
				if (!strcmp(v, fmts[k]))
					fmt = k;
			if (fmt < 0)
				return cli_error("fleet rows: --format '%s': the formats are 'tsv', 'csv' and 'json'", v);
			continue;
		}
		if (!strcmp(argv[i], "--kind") && i + 1 < argc) {
			if ((kind = hwp_export_kind__parse(argv[++i])) < 0)
				return cli_error("fleet rows: --kind '%s': the kinds are branch, range, block and cond", argv[i]);
			continue;
		}
		return cli_error("fleet rows: unexpected argument '%s'", argv[i]);
	}
	int rc = fleet_source__load(fs, NULL, kind);
	if (!rc && hwp_export__write(fs->rows, 0, SIZE_MAX, (enum hwp_export_format)fmt, true, stdout) < 0)
		rc = cli_error("%s", hwp_errmsg());
	return rc;
}

static int fleet_hosts(int argc, char **argv, struct fleet_source *fs)
{
	char sql[512], *ans = NULL;

	if (argc > 1)
		return cli_error("fleet hosts: unexpected argument '%s'", argv[1]);
	if (fs->flt.build_id || fs->flt.nhosts || fs->flt.since || fs->flt.until)
		return cli_error("fleet hosts: lists every host; it takes no filter");
	snprintf(sql, sizeof(sql),
		 "SELECT host, toUnixTimestamp(min(window_start)), toUnixTimestamp(max(window_end)), "
		 "uniqExact(rec_id), count(), sum(count) FROM %s FINAL WHERE kind = 'branch' "
		 "GROUP BY host ORDER BY host FORMAT TabSeparated", hwp_fleet__table(fs->fleet));
	if (hwp_fleet__query(fs->fleet, sql, &ans) < 0)
		return cli_error("fleet hosts: %s", hwp_errmsg());
	fputs("host\tfirst_window\tlast_window\trecordings\tbranch_rows\tbranch_entries\n", stdout);
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
		{ "rows", fleet_rows },
		{ "hosts", fleet_hosts },
	};

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2;
	}
	if (!strcmp(argv[1], "init"))
		return fleet_init(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		if (strcmp(argv[1], subs[i].name))
			continue;
		if (argc < 3 || argv[2][0] == '-') {
			if (argc >= 3 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
				fputs(usage, stdout);
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
	return cli_error("fleet: '%s' is not a fleet command (init, branches, probs, mispredicts, rows, hosts)", argv[1]);
}
