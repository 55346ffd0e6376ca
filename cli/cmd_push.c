/* SPDX-License-Identifier: MIT */
/* hwprof push: recordings' rows into ClickHouse, through a local spool. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_export.h"
#include "hwprof/fleet.h"

static const char usage[] =
	"usage: hwprof push URL [FILE...] [--host NAME] [--window S,E] [--no-flow]\n"
	"                   [--spool DIR | --no-spool] [--batch-rows N] [--retries N]\n"
	"                   [--timeout S] [--table NAME] [--symfs DIR]\n"
	"\n"
	"Sends the rows of each recording FILE ('hwprof export' rows) to the ClickHouse\n"
	"server at URL (its HTTP interface, http://HOST:8123/; the tables made by\n"
	"'hwprof fleet init'). The rows go to a local spool first, in batches; each\n"
	"batch leaves the spool once the server took it. A failed batch is retried\n"
	"with backoff; one that still fails stays in the spool (exit 1), and the next\n"
	"push to URL, with or without files, sends it first. Rows sent twice (a retry\n"
	"of a batch the server took, the same recording pushed again) count once.\n"
	"Without FILE: only sends what the spool holds.\n"
	"\n"
	EXPORT_HELP
	"      --spool DIR      the spool (default: $XDG_CACHE_HOME/hwprof/spool, or\n"
	"                       ~/.cache/hwprof/spool); one subdirectory per URL\n"
	"      --no-spool       send directly: a batch that fails is an error\n"
	"      --batch-rows N   rows per insert (default 10000)\n"
	"      --retries N      attempts after the first failed one (default 4; the\n"
	"                       pause doubles from 100 ms)\n"
	"      --timeout S      seconds per request (default 30)\n"
	"      --table NAME     the rows table (default hwprof_rows)\n"
	CLI_COMMON_HELP
	"  -h, --help           this text\n";

static int parse_count(const char *opt, const char *arg, unsigned long long max, unsigned long long *v)
{
	char *end;

	errno = 0;
	*v = strtoull(arg, &end, 10);
	if (*arg == '-' || end == arg || *end || errno || *v > max)
		return cli_error("push: %s '%s' is not a count up to %llu", opt, arg, max);
	return 0;
}

/* The default spool, $XDG_CACHE_HOME/hwprof/spool or ~/.cache/hwprof/spool,
   its parents made (the library makes only the last level). */
static char *default_spool(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *p = NULL;

	if (xdg && *xdg ? asprintf(&p, "%s/hwprof/spool", xdg) < 0
			: !home || !*home || asprintf(&p, "%s/.cache/hwprof/spool", home) < 0)
		return NULL;
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		if (mkdir(p, 0777) && errno != EEXIST) {
			free(p);
			return NULL;
		}
		*s = '/';
	}
	return p;
}

int cmd_push(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		EXPORT_LONGOPTS,
		{ "symfs", required_argument, NULL, 'S' },
		{ "spool", required_argument, NULL, 's' },
		{ "no-spool", no_argument, NULL, 'n' },
		{ "batch-rows", required_argument, NULL, 'b' },
		{ "retries", required_argument, NULL, 'r' },
		{ "timeout", required_argument, NULL, 't' },
		{ "table", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct export_opts o;
	struct hwp_fleet_opts fo = { .sz = sizeof(fo) };
	bool no_spool = false;
	char *spool = NULL;
	unsigned long long v;
	int c, r;

	export_opts__init(&o);
	if (cli_wants_help(argc, argv, usage))
		return 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "vq", longopts, NULL)) != -1) {
		if (cli_common_opt(c))
			continue;
		if ((r = export_opts__take(&o, "push", c, optarg)) < 0)
			return 1;
		if (r)
			continue;
		switch (c) {
		case 's':
			fo.spool_dir = optarg;
			break;
		case 'n':
			no_spool = true;
			break;
		case 'b':
			if (parse_count("--batch-rows", optarg, 100000000, &v) || (!v && cli_error("push: --batch-rows must be at least 1")))
				return 1;
			fo.batch_rows = v;
			break;
		case 'r':
			if (parse_count("--retries", optarg, 30, &v))
				return 1;
			fo.retries = v ? (unsigned)v : UINT_MAX;
			break;
		case 't':
			if (parse_count("--timeout", optarg, 86400, &v) || (!v && cli_error("push: --timeout must be at least 1")))
				return 1;
			fo.timeout_s = (unsigned)v;
			break;
		case 'T':
			fo.table = optarg;
			break;
		default:
			fputs(usage, stderr);
			return 1;
		}
	}
	if (optind >= argc)
		return cli_error("push: which server? give its URL (http://HOST:8123/)");
	const char *url = argv[optind++];
	if (!no_spool && !fo.spool_dir) {
		if (!(spool = default_spool()))
			return cli_error("push: no spool directory: set HOME or XDG_CACHE_HOME, or give --spool DIR");
		fo.spool_dir = spool;
	}
	if (no_spool)
		fo.spool_dir = NULL;

	struct hwp_fleet *f = hwp_fleet__open(url, &fo);
	int rc = 0;

	if (!f) {
		free(spool);
		return cli_error("push: %s", hwp_errmsg());
	}
	for (int i = optind; i < argc && !rc; i++) {
		struct export_input ei;
		size_t nb;

		rc = export_input__load(&ei, &o, argv[i]);
		if (!rc && hwp_fleet__spool(f, ei.rows, &nb) < 0)
			rc = cli_error("push: %s", hwp_errmsg());
		export_input__close(&ei);
	}
	if (!rc) {
		struct hwp_fleet_push_stats st;

		if (hwp_fleet__drain(f, &st) < 0)
			rc = cli_error("push: %s; %zu batch%s kept in the spool %s, sent by the next push to this URL",
				       hwp_errmsg(), st.left, st.left == 1 ? "" : "es", fo.spool_dir);
		else if (!cli_quiet())
			fprintf(stderr, "hwprof: push: %zu batch%s, %llu rows sent to %s%s\n", st.sent,
				st.sent == 1 ? "" : "es", (unsigned long long)st.rows, url,
				st.retries ? " (after retries)" : "");
	}
	hwp_fleet__close(f);
	free(spool);
	return rc;
}
