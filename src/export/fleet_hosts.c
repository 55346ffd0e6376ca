/* SPDX-License-Identifier: MIT */
/* hwp_fleet__hosts(): who sent rows to the fleet's table, and when. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/fleet.h"
#include "util/error.h"

#define HOSTS_HEADER "host\tfirst_window\tlast_window\trecordings\tbranch_rows\tbranch_entries\n"

int hwp_fleet__hosts(struct hwp_fleet *f, char **out)
{
	char sql[512], *ans = NULL, *s;
	size_t n;
	int rc;

	snprintf(sql, sizeof(sql),
		 "SELECT host, toUnixTimestamp(min(window_start)), toUnixTimestamp(max(window_end)), "
		 "uniqExact(rec_id), count(), sum(count) FROM %s FINAL WHERE kind = 'branch' "
		 "GROUP BY host ORDER BY host FORMAT TabSeparated", hwp_fleet__table(f));
	if ((rc = hwp_fleet__query(f, sql, &ans)) < 0)
		return rc;
	n = strlen(ans);
	if (!(s = malloc(sizeof(HOSTS_HEADER) + n))) {
		free(ans);
		return hwp__set_error(ENOMEM, "out of memory");
	}
	memcpy(s, HOSTS_HEADER, sizeof(HOSTS_HEADER) - 1);
	memcpy(s + sizeof(HOSTS_HEADER) - 1, ans, n + 1);
	free(ans);
	*out = s;
	return 0;
}
