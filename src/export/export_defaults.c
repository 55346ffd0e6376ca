/* SPDX-License-Identifier: MIT */
/*
 * What a recording's export rows carry when the caller does not say: the
 * collector options the rows need, the host that recorded them and the
 * time window they stand for.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hwprof/export.h"
#include "hwprof/session.h"
#include "util/hash.h"

/* A hash of PATH's data section (perf.data: the file header's data
   offset and size), of the whole file otherwise; 0 when unreadable. The
   file's name and times are no part of it. */
static uint64_t content_id(const char *path)
{
	FILE *fp = fopen(path, "rb");
	unsigned char hdr[56], buf[1 << 16];
	uint64_t h = 0x6877702d726563ULL, off = 0, left = UINT64_MAX;
	size_t n;

	if (!fp)
		return 0;
	if (fread(hdr, 1, sizeof(hdr), fp) == sizeof(hdr) && !memcmp(hdr, "PERFILE2", 8)) {
		memcpy(&off, hdr + 40, 8);
		memcpy(&left, hdr + 48, 8);
	}
	if (fseeko(fp, (off_t)off, SEEK_SET)) {
		fclose(fp);
		return 0;
	}
	while (left && (n = fread(buf, 1, left < sizeof(buf) ? (size_t)left : sizeof(buf), fp)) > 0) {
		size_t k = 0;

		for (; k + 8 <= n; k += 8) {
			uint64_t w;

			memcpy(&w, buf + k, 8);
			h = hwp__hash_combine(h, w);
		}
		for (; k < n; k++)
			h = hwp__hash_combine(h, buf[k]);
		left -= n;
	}
	fclose(fp);
	return h ? h : 1;
}

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

		/* the rule of host names (hwprof-push(1)): 1 to 255 bytes, no
		   control character, no backslash */
		bool ok = h && h->hostname && *h->hostname && strlen(h->hostname) <= 255;

		for (const char *c = ok ? h->hostname : ""; *c; c++)
			ok &= (unsigned char)*c >= 0x20 && *c != 0x7f && *c != '\\';
		if (ok) {
			eo->host = h->hostname;
		} else if (len) {
			if (gethostname(buf, len))
				snprintf(buf, len, "unknown");
			buf[len - 1] = 0;
			eo->host = buf;
		}
	}
	if (!eo->recording_id && input && strcmp(input, "-"))
		eo->recording_id = content_id(input);
	if (eo->window_end < 0) {
		struct stat st;

		eo->window_start = eo->window_end = input && strcmp(input, "-") && !stat(input, &st)
							    ? (int64_t)st.st_mtime : (int64_t)time(NULL);
	}
}
