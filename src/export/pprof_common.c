/* SPDX-License-Identifier: MIT */
/* The pprof writers' string table and gzip (pprof_internal.h). */
#ifdef HAVE_PPROF
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/pprof_internal.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/vec.h"

int64_t hwp__pprof_intern(struct hwp__pprof_strtab *t, const char *s, bool *oom)
{
	uint64_t h;
	struct hwp_hashmap_probe p;
	uint32_t i;
	char **slot;

	if (!s)
		s = "";
	h = hwp__hash_str(s);
	p = hwp__hashmap_probe(&t->map, h);
	while (hwp__hashmap_next(&p, &i))
		if (!strcmp(t->s[i], s))
			return i;
	if (!(slot = HWP_VEC_PUSH(t->s, t->nr, t->cap)) || !(*slot = strdup(s)) ||
	    hwp__hashmap_add(&t->map, h, (uint32_t)(t->nr - 1)) < 0) {
		*oom = true;
		return 0;
	}
	return (int64_t)(t->nr - 1);
}


void hwp__pprof_strtab_free(struct hwp__pprof_strtab *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->s[i]);
	free(t->s);
	hwp__hashmap_free(&t->map);
}

int hwp__pprof_write_gzip(const uint8_t *p, size_t len, FILE *fp)
{
	z_stream z;
	uint8_t out[65536];
	int zr;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16 /* gzip wrapper */, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return hwp__set_error(ENOMEM, "out of memory compressing the pprof profile");
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR)
			break;
		if (fwrite(out, 1, sizeof(out) - z.avail_out, fp) != sizeof(out) - z.avail_out) {
			deflateEnd(&z);
			return hwp__set_error(EIO, "error writing the pprof profile: %s", strerror(errno));
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return zr == Z_STREAM_END ? 0 : hwp__set_error(EIO, "compressing the pprof profile failed");
}
#endif
