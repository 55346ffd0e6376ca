/* SPDX-License-Identifier: MIT */
/*
 * What a recording's export rows carry when the caller does not say: the
 * collector options the rows need, the host that recorded them and the
 * time window they stand for.
 */
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwprof/export.h"
#include "hwprof/session.h"

void hwp_export__collect_opts(struct hwp_branch_collect_opts *co)
{
	/* type and cycles split the table: rows by type, cycles into the histogram */
	*co = (struct hwp_branch_collect_opts){ .sz = sizeof(*co), .ranges = true, .no_addresses = true,
						.drop_meaningless_prediction = true,
						.split = HWP_SPLIT_TYPE | HWP_SPLIT_CYCLES };
}

void hwp_export_opts__defaults(struct hwp_export_opts *eo, struct hwp_session *s, const char *input, char *buf,
			       size_t len)
{
	if (!eo->host) {
		const struct hwp_header_info *h = hwp_session__header(s);

		/* a host name goes into TSV unescaped: none with a tab, newline or backslash */
		if (h && h->hostname && *h->hostname && !strpbrk(h->hostname, "\t\n\\")) {
			eo->host = h->hostname;
		} else if (len) {
			if (gethostname(buf, len))
				snprintf(buf, len, "unknown");
			buf[len - 1] = 0;
			eo->host = buf;
		}
	}
	if (eo->window_end < 0) {
		struct stat st;

		eo->window_start = eo->window_end = input && strcmp(input, "-") && !stat(input, &st)
							    ? (int64_t)st.st_mtime : (int64_t)time(NULL);
	}
}
