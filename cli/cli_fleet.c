/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
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

/* Whether URL carries a user or password (user:pw@ or ?user=/?password=):
   those come before the environment's, as the command line does. */
static bool url_credentials(const char *url, const char *param)
{
	const char *auth = strstr(url, "://"), *q = strchr(url, '?');
	size_t alen = auth ? strcspn(auth + 3, "/?#") : 0;

	if (auth && memchr(auth + 3, '@', alen))
		return true;
	for (const char *p = q; p && (p = strstr(p, param)); p++)
		if (p[-1] == '?' || p[-1] == '&')
			return true;
	return false;
}

int fleet_auth__apply(struct fleet_auth *fa, const char *cmd, const char *url, struct hwp_fleet_opts *fo)
{
	const char *env;

	fo->user = fa->user;
	if (!fo->user && !url_credentials(url, "user=") && (env = getenv("CLICKHOUSE_USER")) && *env)
		fo->user = env;
	if (fa->password_file) {
		FILE *fp = fopen(fa->password_file, "r");
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;

		if (!fp)
			return cli_error("%s: --password-file %s: %s", cmd, fa->password_file, strerror(errno));
		n = getline(&line, &cap, fp);
		fclose(fp);
		if (n < 0) {
			free(line);
			return cli_error("%s: --password-file %s: empty file", cmd, fa->password_file);
		}
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = 0;
		fa->password = line;
	} else if (!url_credentials(url, "password=") && (env = getenv("CLICKHOUSE_PASSWORD")) &&
		   !(fa->password = strdup(env))) {
		return cli_error("out of memory");
	}
	fo->password = fa->password;
	fo->cacert = fa->cacert ? fa->cacert : (env = getenv("SSL_CERT_FILE")) && *env ? env : NULL;
	fo->cert = fa->cert;
	fo->key = fa->key;
	if (fa->key && !fa->cert)
		return cli_error("%s: --key without --cert: give the client certificate too", cmd);
	return 0;
}

void fleet_auth__free(struct fleet_auth *fa)
{
	if (fa->password) {
		memset(fa->password, 0, strlen(fa->password));
		free(fa->password);
	}
	fa->password = NULL;
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
	int rc;

	if (fs->hosts_arg) {
		if (!(fs->hosts_buf = strdup(fs->hosts_arg)))
			return cli_error("out of memory");
		/* names split at commas; '\,' is a comma of a name (no name has a
		   backslash: the rule of hwprof push) */
		char *w = fs->hosts_buf, *name = w;

		for (const char *r = fs->hosts_arg;; r++) {
			if (*r == '\\' && r[1]) {
				*w++ = *++r;
				continue;
			}
			if (*r && *r != ',') {
				*w++ = *r;
				continue;
			}
			*w++ = 0;
			if (*name) {
				if (fs->flt.nhosts == sizeof(fs->hosts) / sizeof(fs->hosts[0]))
					return cli_error("%s: --hosts: at most %zu hosts", cmd,
							 sizeof(fs->hosts) / sizeof(fs->hosts[0]));
				fs->hosts[fs->flt.nhosts++] = name;
			}
			name = w;
			if (!*r)
				break;
		}
		fs->flt.hosts = fs->hosts;
	}
	if ((rc = fleet_auth__apply(&fs->auth, cmd, url, &fo)))
		return rc;
	fs->fleet = hwp_fleet__open(url, &fo);
	fleet_auth__free(&fs->auth); /* (the connection has its copy) */
	if (!fs->fleet)
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
	fleet_auth__free(&fs->auth);
	free(fs->hosts_buf);
	memset(fs, 0, sizeof(*fs));
}
