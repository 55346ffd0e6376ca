/* SPDX-License-Identifier: MIT */
/* Compressed kernel modules read into memory (kmod_image.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#ifdef HAVE_LZMA
#include <lzma.h>
#endif

#include "symbolize/kmod_image.h"

/* No module is this large: a corrupt or hostile file stops here. */
#define MAX_IMAGE ((size_t)1 << 30)
#define MAX_FILE ((size_t)1 << 30)

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

bool hwp__kmod_compressed(const char *path)
{
	return ends_with(path, ".ko.xz") || ends_with(path, ".ko.zst");
}

/* The whole file into *DATA. */
static int read_file(const char *path, uint8_t **data, size_t *n, char *reason, size_t rn)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0;
	uint8_t *buf = NULL;

	*n = 0;
	if (!f) {
		snprintf(reason, rn, "%s: %s", path, strerror(errno));
		return -errno;
	}
	for (;;) {
		if (*n == cap) {
			uint8_t *b = cap < MAX_FILE ? realloc(buf, cap ? cap * 2 : 1 << 16) : NULL;

			if (!b) {
				free(buf);
				fclose(f);
				snprintf(reason, rn, "%s: %s", path, cap < MAX_FILE ? "out of memory" : "larger than 1 GiB");
				return cap < MAX_FILE ? -ENOMEM : -EFBIG;
			}
			buf = b;
			cap = cap ? cap * 2 : 1 << 16;
		}
		size_t got = fread(buf + *n, 1, cap - *n, f);

		*n += got;
		if (got == 0)
			break;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		snprintf(reason, rn, "%s: read error", path);
		return -EIO;
	}
	*data = buf;
	return 0;
}

/* Room for at least one more byte in *OUT (of *CAP), up to MAX_IMAGE. */
static int grow(uint8_t **out, size_t *cap)
{
	size_t c = *cap ? *cap * 2 : (size_t)1 << 20;
	uint8_t *b;

	if (*cap >= MAX_IMAGE)
		return -EFBIG;
	if (c > MAX_IMAGE)
		c = MAX_IMAGE;
	if (!(b = realloc(*out, c)))
		return -ENOMEM;
	*out = b;
	*cap = c;
	return 0;
}

static int unzstd(const uint8_t *in, size_t n, uint8_t **out, size_t *size, const char *path, char *reason,
		  size_t rn)
{
	ZSTD_DStream *z = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, n, 0 };
	size_t cap = 0, ret = 1;
	int err = 0;

	*out = NULL;
	*size = 0;
	if (!z) {
		snprintf(reason, rn, "%s: out of memory", path);
		return -ENOMEM;
	}
	ZSTD_initDStream(z);
	while (ret && !err) {
		if (*size == cap && (err = grow(out, &cap)) < 0)
			break;
		ZSTD_outBuffer ob = { *out, cap, *size };

		ret = ZSTD_decompressStream(z, &ob, &ib);
		*size = ob.pos;
		if (ZSTD_isError(ret)) {
			snprintf(reason, rn, "%s: zstd: %s at input byte %zu", path, ZSTD_getErrorName(ret), ib.pos);
			err = -EINVAL;
		} else if (ret && ib.pos == ib.size && ob.pos < ob.size) {
			snprintf(reason, rn, "%s: zstd: truncated at byte %zu", path, n);
			err = -EINVAL;
		}
	}
	ZSTD_freeDStream(z);
	if (err == -EFBIG || err == -ENOMEM)
		snprintf(reason, rn, "%s: %s", path, err == -EFBIG ? "larger than 1 GiB decompressed" : "out of memory");
	return err;
}

#ifdef HAVE_LZMA
static int unxz(const uint8_t *in, size_t n, uint8_t **out, size_t *size, const char *path, char *reason,
		size_t rn)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = 0;
	lzma_ret ret;
	int err = 0;

	*out = NULL;
	*size = 0;
	/* (a module's xz uses a small dictionary: a header asking for more
	   than this is corrupt or hostile) */
	if (lzma_stream_decoder(&s, (uint64_t)256 << 20, 0) != LZMA_OK) {
		snprintf(reason, rn, "%s: out of memory", path);
		return -ENOMEM;
	}
	s.next_in = in;
	s.avail_in = n;
	do {
		if (*size == cap && (err = grow(out, &cap)) < 0)
			break;
		s.next_out = *out + *size;
		s.avail_out = cap - *size;
		ret = lzma_code(&s, LZMA_FINISH);
		*size = cap - s.avail_out;
		if (ret != LZMA_OK && ret != LZMA_STREAM_END) {
			snprintf(reason, rn, "%s: xz: %s at input byte %zu", path,
				 ret == LZMA_FORMAT_ERROR    ? "not an xz file"
				 : ret == LZMA_BUF_ERROR     ? "truncated"
				 : ret == LZMA_MEMLIMIT_ERROR ? "a dictionary over 256 MiB"
							      : "corrupt",
				 (size_t)s.total_in);
			err = -EINVAL;
		}
	} while (!err && ret != LZMA_STREAM_END);
	lzma_end(&s);
	if (err == -EFBIG || err == -ENOMEM)
		snprintf(reason, rn, "%s: %s", path, err == -EFBIG ? "larger than 1 GiB decompressed" : "out of memory");
	return err;
}
#endif

int hwp__kmod_image_decompress(const char *name, const uint8_t *in, size_t n, void **image, size_t *size,
			       char *reason, size_t reason_size)
{
	uint8_t *out = NULL;
	int err = -ENOTSUP;

	*image = NULL;
	*size = 0;
	if (ends_with(name, ".zst"))
		err = unzstd(in, n, &out, size, name, reason, reason_size);
	else if (ends_with(name, ".xz"))
#ifdef HAVE_LZMA
		err = unxz(in, n, &out, size, name, reason, reason_size);
#else
		snprintf(reason, reason_size, "%s: built without liblzma (liblzma-dev)", name);
#endif
	else
		snprintf(reason, reason_size, "%s: not a compressed module (.ko.xz, .ko.zst)", name);
	if (err < 0) {
		free(out);
		*size = 0;
		return err;
	}
	*image = out;
	return 0;
}

int hwp__kmod_image_read(const char *path, void **image, size_t *size, char *reason, size_t reason_size)
{
	uint8_t *in = NULL;
	size_t n;
	int err;

	*image = NULL;
	*size = 0;
#ifndef HAVE_LZMA
	if (ends_with(path, ".xz")) {
		snprintf(reason, reason_size, "%s: built without liblzma (liblzma-dev)", path);
		return -ENOTSUP;
	}
#endif
	if ((err = read_file(path, &in, &n, reason, reason_size)) < 0)
		return err;
	err = hwp__kmod_image_decompress(path, in, n, image, size, reason, reason_size);
	free(in);
	return err;
}
