/* SPDX-License-Identifier: MIT */
/*
 * PERF_RECORD_COMPRESSED / COMPRESSED2 payloads form ONE zstd stream across
 * records (perf keeps one ZSTD_DStream per session), and a decompressed event
 * may straddle two payloads. We decompress into a window and hand out whole
 * records; a partial record is moved to the front and completed by the next
 * payload. Memory stays bounded by the window (records are at most 64 KiB).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "format/reader_internal.h"
#include "util/bytes.h"
#include "util/error.h"

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#define WINDOW (1u << 20) /* >= 16 x the largest record */

struct hwp_decompressor {
#ifdef HAVE_ZSTD
	ZSTD_DStream *zs;
#endif
	const uint8_t *in;
	size_t in_len, in_pos;
	uint8_t *buf;
	size_t start, end; /* unconsumed decompressed bytes [start, end) */
	bool out_full;     /* the last call filled the window: zstd may hold more */
};

struct hwp_decompressor *hwp__decompressor_new(void)
{
	struct hwp_decompressor *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->buf = malloc(WINDOW);
#ifdef HAVE_ZSTD
	d->zs = ZSTD_createDStream();
	if (d->zs)
		ZSTD_initDStream(d->zs);
	if (!d->zs) {
		free(d->buf);
		d->buf = NULL;
	}
#endif
	if (!d->buf) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	return d;
}

void hwp__decompressor_delete(struct hwp_decompressor *d)
{
	if (!d)
		return;
#ifdef HAVE_ZSTD
	ZSTD_freeDStream(d->zs);
#endif
	free(d->buf);
	free(d);
}

int hwp__decompressor_feed(struct hwp_decompressor *d, const uint8_t *p, size_t len)
{
#ifndef HAVE_ZSTD
	(void)d;
	(void)p;
	(void)len;
	return -ENOTSUP;
#else
	d->in = p;
	d->in_len = len;
	d->in_pos = 0;
	return 0;
#endif
}

size_t hwp__decompressor_pending(const struct hwp_decompressor *d)
{
	return d->end - d->start;
}

int hwp__decompressor_next(struct hwp_decompressor *d, const uint8_t **rec, uint32_t *size,
			   const char *name, uint64_t off)
{
	for (;;) {
		size_t avail = d->end - d->start;

		if (avail >= 8) {
			const uint8_t *h = d->buf + d->start;
			uint16_t sz = ld16(h + 6);

			if (sz < 8)
				return hwp__set_error(EINVAL, "%s: compressed record at offset 0x%llx holds an event of size %u (< 8)",
						      name, (unsigned long long)off, sz);
			if (avail >= sz) {
				*rec = h;
				*size = sz;
				d->start += sz;
				return 1;
			}
		}
#ifndef HAVE_ZSTD
		(void)rec;
		(void)size;
		return 0;
#else
		/* zstd's contract: when the output was filled, call again (even with
		   no new input) to flush what it still holds internally. */
		if (d->in_pos >= d->in_len && !d->out_full)
			return 0;
		/* Keep the partial record, make room behind it. */
		if (d->start > 0) {
			memmove(d->buf, d->buf + d->start, avail);
			d->start = 0;
			d->end = avail;
		}
		ZSTD_inBuffer in = { d->in, d->in_len, d->in_pos };
		ZSTD_outBuffer out = { d->buf, WINDOW, d->end };
		size_t ret = ZSTD_decompressStream(d->zs, &out, &in);

		if (ZSTD_isError(ret))
			return hwp__set_error(EINVAL, "%s: compressed record at offset 0x%llx: zstd: %s",
					      name, (unsigned long long)off, ZSTD_getErrorName(ret));
		if (out.pos == d->end && in.pos == d->in_pos && d->in_pos >= d->in_len) {
			d->out_full = false; /* nothing was held back after all */
			return 0;
		}
		if (out.pos == d->end && in.pos == d->in_pos)
			return hwp__set_error(EINVAL, "%s: compressed record at offset 0x%llx: zstd made no progress",
					      name, (unsigned long long)off);
		d->in_pos = in.pos;
		d->end = out.pos;
		d->out_full = out.pos == out.size;
#endif
	}
}
