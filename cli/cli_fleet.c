/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_fleet.h"

static int parse_time(const char *cmd, const char *opt, const char *arg, int64_t *t)
{
	char *end;

	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (end == arg || *end || errno || v < 0)
		return cli_error("%s: %s '%s' is not a time in Unix seconds", cmd, opt, arg);
	*t = v;
	return 0;
}

/* "--name VALUE" or "--name=VALUE" at ARGV[*I]: VALUE (advancing *I), else NULL. */
static const char *opt_value(const char *name, int argc, char **argv, int *i, bool *missing)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n))
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

int fleet_source__open(struct fleet_source *fs, const char *cmd, const char *url, int *argc, char **argv)
{
	struct hwp_fleet_opts fo = { .sz = sizeof(fo) };
	int w = 1;

	memset(fs, 0, sizeof(*fs));
	fs->flt.kind = -1;
	for (int i = 1; i < *argc; i++) {
		bool missing = false;
		const char *v;
		int before = i;

		if (!strcmp(argv[i], "--")) {
			while (i < *argc)
				argv[w++] = argv[i++];
			break;
		}
		if ((v = opt_value("--build-id", *argc, argv, &i, &missing))) {
			fs->flt.build_id = v;
		} else if ((v = opt_value("--hosts", *argc, argv, &i, &missing))) {
			fs->hosts_arg = v;
		} else if ((v = opt_value("--since", *argc, argv, &i, &missing))) {
			if (parse_time(cmd, "--since", v, &fs->flt.since))
				return 1;
		} else if ((v = opt_value("--until", *argc, argv, &i, &missing))) {
			if (parse_time(cmd, "--until", v, &fs->flt.until))
				return 1;
		} else if ((v = opt_value("--table", *argc, argv, &i, &missing))) {
			fo.table = v;
		} else if (missing) {
			return cli_error("%s: %s needs a value", cmd, argv[before]);
		} else {
			argv[w++] = argv[i];
		}
	}
	*argc = w;
	argv[w] = NULL;
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
