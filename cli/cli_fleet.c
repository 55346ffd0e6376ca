/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_fleet.h"

int fleet_source__time(const char *cmd, const struct opt *opt, const char *arg)
{
	char *end;

	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (end == arg || *end || errno || v < 0)
		return cli_error("%s: --%s '%s' is not a time in Unix seconds", cmd, opt->long_name, arg);
	*(int64_t *)opt->value = v;
	return 0;
}

void fleet_source__init(struct fleet_source *fs)
{
	memset(fs, 0, sizeof(*fs));
	fs->flt.kind = -1;
}

int fleet_source__open(struct fleet_source *fs, const char *cmd, const char *url, int *argc, char **argv)
{
	const struct opt opts[] = { OPT_FLEET_FILTER(fs), OPT_END() };
	/* the others (the command's options, in order) are left for the command's parser */
	const struct cmd_desc desc = { .name = cmd, .flags = CMD_PASS | CMD_ARGS };
	struct cmd_args a;
	int w = 1;

	fleet_source__init(fs);
	if (parse_options(*argc, argv, &desc, opts, &a) >= 0)
		return 1;
	for (int i = 0; i < a.n; i++)
		argv[w++] = a.v[i];
	*argc = w;
	argv[w] = NULL;
	return fleet_source__connect(fs, cmd, url);
}

int fleet_source__connect(struct fleet_source *fs, const char *cmd, const char *url)
{
	struct hwp_fleet_opts fo = { .sz = sizeof(fo), .table = fs->table };

	if (fs->hosts_arg) {
		if (!(fs->hosts_buf = strdup(fs->hosts_arg)))
			return cli_error("out of memory");
		for (char *save = NULL, *h = strtok_r(fs->hosts_buf, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
			if (fs->flt.nhosts == sizeof(fs->hosts) / sizeof(fs->hosts[0]))
				return cli_error("%s: --hosts: at most %zu hosts", cmd, sizeof(fs->hosts) / sizeof(fs->hosts[0]));
			fs->hosts[fs->flt.nhosts++] = h;
		}
		fs->flt.hosts = fs->hosts;
	}
	if (!(fs->fleet = hwp_fleet__open(url, &fo)))
		return cli_error("%s: %s", cmd, hwp_errmsg());
	return 0;
}

int fleet_source__load(struct fleet_source *fs, const char *symfs, int kind)
{
	struct hwp_symbolizer_opts so = { .sz = sizeof(so), .symfs = symfs };

	fs->flt.kind = kind;
	if (!(fs->rows = hwp_fleet__fetch(fs->fleet, &fs->flt)))
		return cli_error("fleet: %s", hwp_errmsg());
	size_t n;
	hwp_export__rows(fs->rows, &n);
	if (!n)
		return cli_error("fleet: no %s rows%s%s%s in %s", kind >= 0 ? hwp_export_kind__name((unsigned)kind) : "",
				 fs->flt.build_id ? " of build-id " : "", fs->flt.build_id ? fs->flt.build_id : "",
				 fs->flt.nhosts || fs->flt.since || fs->flt.until ? " for these hosts and times" : "",
				 "the server's table");
	if (!(fs->sym = hwp_symbolizer__new(&so)))
		return cli_error("%s", hwp_errmsg());
	return 0;
}

void fleet_source__close(struct fleet_source *fs)
{
	hwp_export__delete(fs->rows);
	hwp_symbolizer__delete(fs->sym);
	hwp_fleet__close(fs->fleet);
	free(fs->hosts_buf);
	memset(fs, 0, sizeof(*fs));
}
