/* SPDX-License-Identifier: MIT */
/* The fleet's rows as the input of a report (hwprof fleet COMMAND URL ...). */
#ifndef HWPROF_CLI_FLEET_H
#define HWPROF_CLI_FLEET_H

#include "parse_options.h"
#include "hwprof/export.h"
#include "hwprof/fleet.h"
#include "hwprof/symbolize.h"

/* How the commands log in to ClickHouse (--user, --password-file, TLS). */
struct fleet_auth {
	const char *user, *password_file, *cacert, *cert, *key;
	char *password; /* read from the file or the environment */
};
#define OPT_FLEET_AUTH(fa)                                                                               \
	OPT_STRING(0, "user", &(fa)->user, "NAME",                                                       \
		   "the ClickHouse user (default: the URL's, else $CLICKHOUSE_USER, else 'default')"),  \
	OPT_STRING(0, "password-file", &(fa)->password_file, "FILE",                                       \
		   "the user's password: FILE's first line (default: the URL's, else $CLICKHOUSE_PASSWORD)"),    \
	OPT_STRING(0, "cacert", &(fa)->cacert, "FILE",                                                     \
		   "https: CA certificates (PEM) that verify the server (default: $SSL_CERT_FILE, the system's)"), \
	OPT_STRING(0, "cert", &(fa)->cert, "FILE", "https: a client certificate (PEM), for servers that ask for one"), \
	OPT_STRING(0, "key", &(fa)->key, "FILE", "https: the client certificate's private key (PEM)")
/* The credentials and TLS files of FA into FO (the password file read, the
   environment's defaults taken). Exit code (0: go on); fleet_auth__free(). */
int fleet_auth__apply(struct fleet_auth *fa, const char *cmd, const char *url, struct hwp_fleet_opts *fo);
void fleet_auth__free(struct fleet_auth *fa);

struct fleet_source {
	struct fleet_auth auth;
	struct hwp_fleet *fleet;
	struct hwp_fleet_filter flt;
	const char *hosts_arg;       /* --hosts A,B as given */
	char *hosts_buf;
	const char *hosts[256];
	struct hwp_symbolizer *sym;  /* made by the load */
	struct hwp_export *rows;     /* made by the load */
	const char *table;           /* --table NAME */
};

/* The filters of the fleet's rows (and --table), which every fleet command takes. */
#define OPT_FLEET_FILTER(fs)                                                                          \
	OPT_STRING(0, "build-id", &(fs)->flt.build_id, "ID", "only rows of the binary with this build-id (hex)"), \
	OPT_STRING(0, "hosts", &(fs)->hosts_arg, "A,B",                                                        \
		   "only rows of these hosts, split at commas ('\\,' for a comma in a name)"),                  \
	OPT_CALLBACK(0, "since", &(fs)->flt.since, "T", fleet_source__time,                                   \
		     "only windows overlapping [T, ...], Unix seconds"),                                      \
	OPT_CALLBACK(0, "until", &(fs)->flt.until, "T", fleet_source__time,                                   \
		     "only windows overlapping [..., T], Unix seconds"),                                      \
	OPT_STRING(0, "table", &(fs)->table, "NAME", "the rows table (default hwprof_rows)"),                \
	OPT_FLEET_AUTH(&(fs)->auth)
/* --since T, --until T: Unix seconds into the int64_t of OPT. */
int fleet_source__time(const char *cmd, const struct opt *opt, const char *arg);

/* Takes the fleet options (OPT_FLEET_FILTER) out of ARGV (*ARGC updated,
   the others kept in order for the command's parser); opens URL. Returns
   the exit code (0: go on); fleet_source__close() always. */
int fleet_source__open(struct fleet_source *fs, const char *cmd, const char *url, int *argc, char **argv);
/* The same in steps, for a command whose table holds OPT_FLEET_FILTER
   (pgo --from): no filter, parse, then open URL with the filters parsed. */
void fleet_source__init(struct fleet_source *fs);
int fleet_source__connect(struct fleet_source *fs, const char *cmd, const char *url);
/* Reads the rows of KIND (-1: all); symbolizer over SYMFS. Exit code. */
int fleet_source__load(struct fleet_source *fs, const char *symfs, int kind);
void fleet_source__close(struct fleet_source *fs);

/* The reports, with the local command's options and rendering. */
int fleet_branches(int argc, char **argv, struct fleet_source *fs);
int fleet_mispredicts(int argc, char **argv, struct fleet_source *fs);
int fleet_timing(int argc, char **argv, struct fleet_source *fs);

#endif
