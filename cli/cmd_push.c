/* SPDX-License-Identifier: MIT */
/* hwprof push: recordings' rows into ClickHouse, through a local spool. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_export.h"
#include "cli_fleet.h"
#include "hwprof/fleet.h"

static const struct cmd_desc desc = {
	.name = "push",
	.args = "URL [FILE...]",
	.flags = CMD_ARGS,
};

int cmd_push(int argc, char **argv)
{
	struct export_opts o;
	struct fleet_auth auth = { 0 };
	struct hwp_fleet_opts fo = { .sz = sizeof(fo) };
	bool no_spool = false;
	char spool[4096];
	uint64_t batch_rows = 0;
	unsigned retries = 4, timeout = 0;
	const struct opt opts[] = {
		OPT_EXPORT(&o),
		OPT_STRING(0, "spool", &fo.spool_dir, "DIR",
			   "the spool (default: $XDG_CACHE_HOME/hwprof/spool, or ~/.cache/hwprof/spool); one "
			   "subdirectory per URL"),
		OPT_BOOL(0, "no-spool", &no_spool, "send directly: a batch that fails is an error"),
		OPT_U64(0, "batch-rows", &batch_rows, "N", 1, 100000000, " is not a count from 1 to 100000000",
			"rows per insert (default 10000)"),
		OPT_UINT(0, "retries", &retries, "N", 0, 30, " is not a count up to 30",
			 "attempts after the first failed one (default 4; the pause doubles from 100 ms)"),
		OPT_UINT(0, "timeout", &timeout, "S", 1, 86400, " is not a count from 1 to 86400",
			 "seconds per request (default 30)"),
		OPT_STRING(0, "table", &fo.table, "NAME", "the rows table (default hwprof_rows)"),
		OPT_FLEET_AUTH(&auth),
		OPT_COMMON(),
		OPT_END(),
	};
	struct cmd_args a;
	int r;

	export_opts__init(&o);
	o.timing = true;
	o.recording_id = true;
	if ((r = parse_options(argc, argv, &desc, opts, &a)) >= 0)
		return r;
	fo.batch_rows = batch_rows;
	fo.retries = retries ? retries : UINT_MAX;
	fo.timeout_s = timeout;
	if (a.n < 1)
		return cli_error("push: which server? give its URL (http://HOST:8123/)");
	const char *url = a.v[0];
	if (!no_spool && !fo.spool_dir && !(fo.spool_dir = hwp_fleet__default_spool(spool, sizeof(spool))))
		return cli_error("push: no spool directory: set HOME or XDG_CACHE_HOME, or give --spool DIR");
	if (no_spool)
		fo.spool_dir = NULL;

	if ((r = fleet_auth__apply(&auth, "push", url, &fo))) {
		fleet_auth__free(&auth);
		return r;
	}
	struct hwp_fleet *f = hwp_fleet__open(url, &fo);
	int rc = 0;

	fleet_auth__free(&auth); /* (the connection has its copy) */
	if (!f)
		return cli_error("push: %s", hwp_errmsg());
	url = hwp_fleet__url(f); /* shown without the credentials */
	for (int i = 1; i < a.n && !rc; i++) { /* the FILEs */
		struct export_input ei;
		size_t nb;

		rc = export_input__load(&ei, &o, a.v[i]);
		if (!rc && (rc = export_host_check("push", ei.rows)))
			;
		else if (!rc && hwp_fleet__spool(f, ei.rows, &nb) < 0)
			rc = cli_error("push: %s", hwp_errmsg());
		export_input__close(&ei);
	}
	if (!rc) {
		struct hwp_fleet_push_stats st = { .sz = sizeof(st) };

		if (hwp_fleet__drain(f, &st) < 0) {
			rc = cli_error("push: %s; %zu batch%s kept in the spool %s, sent by the next push to this URL",
				       hwp_errmsg(), st.left, st.left == 1 ? "" : "es", fo.spool_dir);
		} else if (!cli_quiet()) {
			fprintf(stderr, "hwprof: push: %zu batch%s, %llu rows sent to %s%s%s\n", st.sent,
				st.sent == 1 ? "" : "es", (unsigned long long)st.rows, url,
				st.retries ? " (after retries)" : "", no_spool ? " (no spool)" : "");
		}
	}
	hwp_fleet__close(f);
	return rc;
}
