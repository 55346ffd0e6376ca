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
   hwp__outbuf_take(). */
int hwp__outbuf_init(struct hwp_outbuf *o, FILE *fp);
/* An in-memory outbuf's text (NUL-terminated, *LEN bytes), which the caller
   frees; the outbuf is finished. NULL on ENOMEM or a write error. */
char *hwp__outbuf_take(struct hwp_outbuf *o, size_t *len);
/* Flushes and frees; returns 0 or -errno of the first write error. */
int hwp__outbuf_finish(struct hwp_outbuf *o);
void hwp__outbuf_flush(struct hwp_outbuf *o);

static inline char *hwp__outbuf_reserve(struct hwp_outbuf *o, size_t n)
{
	if (o->cap - o->len < n)
		hwp__outbuf_flush(o);
	return o->buf + o->len;
}

void hwp__outbuf_puts(struct hwp_outbuf *o, const char *s);
void hwp__outbuf_write(struct hwp_outbuf *o, const void *p, size_t n);
void hwp__outbuf_putc(struct hwp_outbuf *o, char c);
/* Lower-case hex without leading zeros, right-aligned to WIDTH with spaces. */
void hwp__outbuf_hex(struct hwp_outbuf *o, uint64_t v, int width);
void hwp__outbuf_u64(struct hwp_outbuf *o, uint64_t v);
void hwp__outbuf_printf(struct hwp_outbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Writes the hex digits of V into P (no terminator); returns the count. */
size_t hwp__fmt_hex(char *p, uint64_t v);
size_t hwp__fmt_u64(char *p, uint64_t v);
/* The decimal digits V has (1 for 0). */
unsigned hwp__u64_digits(uint64_t v);
/* D as printf's "%.<PREC>f" writes it (PREC at most 9), into P (room for
   32 bytes; no terminator); returns the count. Exact, without printf, for
   the numbers tables show (below 1e15, and 9e18 / 10^PREC); others go
   through snprintf. */
size_t hwp__fmt_fixed(char *p, double d, unsigned prec);

HWP_END_DECLS

#endif
