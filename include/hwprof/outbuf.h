/* SPDX-License-Identifier: MIT */
/*
 * Buffered output with hand-rolled hex/decimal formatting: perf-script-style
 * dumps print billions of numbers, and stdio's printf dominates otherwise.
 */
#ifndef HWPROF_OUTBUF_H
#define HWPROF_OUTBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

struct hwp_outbuf {
	FILE *fp;
	char *buf;
	size_t len, cap;
	int err; /* first write error (errno), sticky */
};

/* FP NULL: the output stays in memory (the buffer grows), for
   hwp_outbuf__take(). */
HWP_API int hwp_outbuf__init(struct hwp_outbuf *o, FILE *fp);
/* An in-memory outbuf's text (NUL-terminated, *LEN bytes), which the caller
   frees; the outbuf is finished. NULL on ENOMEM or a write error. */
HWP_API char *hwp_outbuf__take(struct hwp_outbuf *o, size_t *len);
/* Flushes and frees; returns 0 or -errno of the first write error. */
HWP_API int hwp_outbuf__finish(struct hwp_outbuf *o);
HWP_API void hwp_outbuf__flush(struct hwp_outbuf *o);

static inline char *hwp_outbuf__reserve(struct hwp_outbuf *o, size_t n)
{
	if (o->cap - o->len < n)
		hwp_outbuf__flush(o);
	return o->buf + o->len;
}

HWP_API void hwp_outbuf__puts(struct hwp_outbuf *o, const char *s);
HWP_API void hwp_outbuf__write(struct hwp_outbuf *o, const void *p, size_t n);
HWP_API void hwp_outbuf__putc(struct hwp_outbuf *o, char c);
/* Lower-case hex without leading zeros, right-aligned to WIDTH with spaces. */
HWP_API void hwp_outbuf__hex(struct hwp_outbuf *o, uint64_t v, int width);
HWP_API void hwp_outbuf__u64(struct hwp_outbuf *o, uint64_t v);
HWP_API void hwp_outbuf__printf(struct hwp_outbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes the hex digits of V into P (no terminator); returns the count. */
HWP_API size_t hwp_fmt_hex(char *p, uint64_t v);
HWP_API size_t hwp_fmt_u64(char *p, uint64_t v);

HWP_END_DECLS

#endif
