/* SPDX-License-Identifier: MIT */
/* Internal: the ClickHouse connection shared by the fleet's files. */
#ifndef HWPROF_EXPORT_FLEET_INTERNAL_H
#define HWPROF_EXPORT_FLEET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "hwprof/fleet.h"

struct hwp_fleet {
	struct hwp_fleet_opts o;
	char *url, *table, *spool_dir; /* url: without credentials */
	char *user, *password;         /* NULL: none */
	char *cacert, *cert, *key;     /* NULL: libcurl's defaults */
	size_t direct_sent, direct_retries; /* without a spool: batches hwp_fleet__spool() sent */
	uint64_t direct_rows;
	/* the URL as given held credentials: the spool directory an earlier
	   hwprof named by a hash of it (with them) and wrote them into */
	bool has_legacy_spool;
	uint64_t legacy_spool_hash;
};

static inline const char *table_name(const struct hwp_fleet *f)
{
	return f->table;
}

/* One POST: QUERY_PARAM (NULL: none) appended as ?query=..., DATA the body.
   *OUT the answer on success (NULL: dropped). <0 + hwp_errmsg() on
   failure; *RETRYABLE when another attempt may succeed (no server, 5xx). */
int hwp__fleet_request(struct hwp_fleet *f, const char *query_param, const char *data, size_t len,
		       char **out, bool *retryable);
/* The same, retried with backoff while retryable; *RETRIES counts the retries. */
int hwp__fleet_send(struct hwp_fleet *f, const char *query_param, const char *data, size_t len, size_t *retries);

#endif
