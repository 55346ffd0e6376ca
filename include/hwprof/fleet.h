/* SPDX-License-Identifier: MIT */
/*
 * Export rows of many hosts in ClickHouse, over its HTTP interface
 * (libcurl): the tables, pushing rows through a local spool, and reading
 * them back merged over hosts.
 *
 * Idempotence: ClickHouse 18.16 (Debian bookworm) deduplicates inserts
 * only into Replicated* tables, so a batch sent again after a timeout or a
 * partial failure (a Distributed insert that reached one shard of two)
 * would be counted twice by a SummingMergeTree. The rows table is a
 * ReplacingMergeTree whose sorting key is the row's whole identity (keys,
 * host, window and a hash of the recording's rows): copies of a row
 * collapse into one, and every read uses FINAL, so a row sent any number
 * of times counts once. Pushing the same recording again changes nothing.
 */
#ifndef HWPROF_FLEET_H
#define HWPROF_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/branch_table.h"
#include "hwprof/export.h"
#include "hwprof/symbolize.h"

HWP_BEGIN_DECLS

struct hwp_fleet;

struct hwp_fleet_opts {
	size_t sz;             /* sizeof(struct hwp_fleet_opts) */
	/* Where batches wait until the server took them (a directory, made
	   when missing, with its parents; one subdirectory per server URL).
	   NULL: no spool, a failed batch is an error. */
	const char *spool_dir;
	unsigned retries;      /* attempts after the first (default 4; UINT_MAX: none) */
	unsigned backoff_ms;   /* first pause between attempts, doubled each time (default 100) */
	unsigned timeout_s;    /* per request (default 30) */
	size_t batch_rows;     /* rows per insert (default 10000) */
	const char *table;     /* the rows table (default "hwprof_rows") */
	/* Credentials, as clickhouse-client takes them: NULL takes the URL's
	   (user:password@ or ?user=U&password=P), else none (the server's
	   'default' user). Sent as HTTP basic authentication, never printed:
	   hwp_fleet__url() and every message show the URL without them, and
	   the spool never holds them. Over plain http to a host that is not
	   loopback, opening warns (HWP_LOG_WARN) that they travel in clear. */
	const char *user, *password;
	/* TLS (https://): CA certificates (PEM file) that verify the server,
	   instead of the system's; a client certificate and its key (PEM) for
	   servers that authenticate clients. The server's certificate and name
	   are always verified. */
	const char *cacert, *cert, *key;
};

/* The spool of hwprof push: $XDG_CACHE_HOME/hwprof/spool, else
   ~/.cache/hwprof/spool, in BUF; NULL when neither variable is set (or
   BUF is too small). */
HWP_API const char *hwp_fleet__default_spool(char *buf, size_t len);

/* Checks URL (http:// or https://, a host; query parameters such as
   ?database=... are kept, user and password taken out, see opts). NULL +
   errno (EINVAL: malformed URL, the message with the password replaced by
   ***) and hwp_errmsg(). */
HWP_API struct hwp_fleet *hwp_fleet__open(const char *url, const struct hwp_fleet_opts *opts);
HWP_API void hwp_fleet__close(struct hwp_fleet *f);
/* The URL without credentials (what messages and the spool show). */
HWP_API const char *hwp_fleet__url(const struct hwp_fleet *f);
/* The rows table's name (opts.table, default "hwprof_rows"). */
HWP_API const char *hwp_fleet__table(const struct hwp_fleet *f);

/* Runs SQL; *OUT (when not NULL) gets the response body, NUL-terminated
   (free() it). 0, or <0 with hwp_errmsg() one line naming the URL:
   -ECONNREFUSED / -EHOSTUNREACH / -ETIMEDOUT (no server), -EIO (server
   error: its message). */
HWP_API int hwp_fleet__query(struct hwp_fleet *f, const char *sql, char **out);

/* The hosts that sent branch rows, as TSV with a header line: host,
   first_window, last_window (Unix seconds), recordings, branch_rows,
   branch_entries; one line per host, by name. *OUT to free(). 0 or <0
   (hwp_errmsg()). */
HWP_API int hwp_fleet__hosts(struct hwp_fleet *f, char **out);

/* Creates the rows table (if missing), partitioned by day; with CLUSTER
   the storage is TABLE_local and TABLE a Distributed table over CLUSTER's
   shards (run it on every server of the cluster). */
HWP_API int hwp_fleet__init(struct hwp_fleet *f, const char *cluster);

/* Writes E's rows, then its block latencies (hwp_export__add_timing()),
   into the spool as batches (or, without a spool, sends them).
   *BATCHES gets their number. */
HWP_API int hwp_fleet__spool(struct hwp_fleet *f, const struct hwp_export *e, size_t *batches);

struct hwp_fleet_push_stats {
	size_t sz; /* sizeof(struct hwp_fleet_push_stats): set by the caller */
	size_t sent;    /* batches the server took */
	size_t left;    /* still in the spool */
	size_t retries; /* attempts that failed and were retried */
	uint64_t rows;  /* rows sent */
};
/* Sends the spooled batches, oldest first, each retried with backoff; a
   batch leaves the spool once the server took it. The stats count the
   batches hwp_fleet__spool() sent without a spool since the last drain
   too. Stops at the first batch
   that still fails: <0 (hwp_errmsg()), the rest kept. */
HWP_API int hwp_fleet__drain(struct hwp_fleet *f, struct hwp_fleet_push_stats *st);

/* Which rows a read takes. */
struct hwp_fleet_filter {
	const char *build_id;       /* rows whose source module has it; NULL: any */
	const char *const *hosts;   /* NULL or NHOSTS names */
	size_t nhosts;
	int64_t since, until;       /* windows overlapping [since, until]; until 0: no bound */
	int kind;                   /* enum hwp_export_kind, or -1: all */
};

/* The rows FILTER selects, summed over hosts and windows, as export rows
   (host "*", the window the rows span). NULL + errno (hwp_errmsg()). */
HWP_API struct hwp_export *hwp_fleet__fetch(struct hwp_fleet *f, const struct hwp_fleet_filter *filter);
/* The same per recording: one export per host and recording id (the
   recording's window), *N of them (0 when none). NULL + errno
   (hwp_errmsg()). hwp_export__delete() each, free() the array. */
HWP_API struct hwp_export **hwp_fleet__fetch_recordings(struct hwp_fleet *f, const struct hwp_fleet_filter *filter,
							 size_t *n);

/* The block latencies FILTER selects (its kind aside), summed over hosts
   and windows, as a block timing (hwp_timing__from_latencies()) whose
   modules are registered in SYM by path and build-id: what 'hwprof
   timing' of all those recordings would time. NULL + errno
   (hwp_errmsg()). */
HWP_API struct hwp_timing *hwp_fleet__fetch_timing(struct hwp_fleet *f, const struct hwp_fleet_filter *filter,
						   struct hwp_symbolizer *sym);

/*
 * The rows of E of KIND (HWP_EXPORT_BRANCH or HWP_EXPORT_RANGE) as a
 * branch table split by type, each module registered in SYM (by path and
 * build-id): what a collector of the same recordings would hold. NULL +
 * errno on failure.
 */
HWP_API struct hwp_branch_table *hwp_export__branch_table(const struct hwp_export *e, unsigned kind,
							  struct hwp_symbolizer *sym);

HWP_END_DECLS

#endif
