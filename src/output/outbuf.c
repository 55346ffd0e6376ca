/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/outbuf.h"
#include "util/error.h"

#define OUTBUF_SIZE (1u << 20)

int hwp__outbuf_init(struct hwp_outbuf *o, FILE *fp)
{
	memset(o, 0, sizeof(*o));
	o->fp = fp;
	o->buf = malloc(OUTBUF_SIZE);
	if (!o->buf)
		return hwp__set_error(ENOMEM, "out of memory for a %u-byte output buffer", OUTBUF_SIZE);
	o->cap = OUTBUF_SIZE;
	return 0;
}

/* In memory: room for as much again, instead of writing. */
static void grow(struct hwp_outbuf *o)
{
	char *b = o->err ? NULL : realloc(o->buf, o->cap * 2);

	if (!b) {
		o->err = o->err ? o->err : ENOMEM;
		o->len = 0; /* keep writing into the old buffer: the result is an error anyway */
		return;
	}
	o->buf = b;
	o->cap *= 2;
}

void hwp__outbuf_flush(struct hwp_outbuf *o)
{
	if (!o->fp) {
		grow(o); /* called when the room left is short (reserve, write) */
		return;
	}
	if (o->len && !o->err) {
		fflush(o->fp);
		int fd = fileno(o->fp);
		size_t done = 0;
		while (done < o->len) {
			ssize_t n = write(fd, o->buf + done, o->len - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				o->err = n < 0 ? errno : EIO;
				break;
			}
			done += (size_t)n;
		}
	}
	o->len = 0;
}

char *hwp__outbuf_take(struct hwp_outbuf *o, size_t *len)
{
	char *b;

	if (o->fp || o->err || (o->len == o->cap && (grow(o), o->err))) { /* room for the NUL */
		hwp__outbuf_finish(o);
		return NULL;
	}
	b = o->buf;
	b[o->len] = 0;
	*len = o->len;
	o->buf = NULL;
	o->len = o->cap = 0;
	return b;
}

int hwp__outbuf_finish(struct hwp_outbuf *o)
{
	if (o->fp) /* in memory: nothing to write */
		hwp__outbuf_flush(o);
	free(o->buf);
	o->buf = NULL;
	if (o->err)
		return hwp__set_error(o->err, "writing the output: %s", strerror(o->err));
	return 0;
}

void hwp__outbuf_write(struct hwp_outbuf *o, const void *p, size_t n)
{
	while (n) {
		if (o->len == o->cap)
			hwp__outbuf_flush(o);
		size_t k = o->cap - o->len < n ? o->cap - o->len : n;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p = (const char *)p + k;
		n -= k;
	}
}

void hwp__outbuf_puts(struct hwp_outbuf *o, const char *s)
{
	hwp__outbuf_write(o, s, strlen(s));
}

void hwp__outbuf_putc(struct hwp_outbuf *o, char c)
{
	if (o->len == o->cap)
		hwp__outbuf_flush(o);
	o->buf[o->len++] = c;
}

/* "000102...ff" and "00".."99": two digits per table load. */
static const char hex_pairs[513] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	"202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
	"404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
	"606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
	"808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
	"a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
	"c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
	"e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
static const char dec_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

size_t hwp__fmt_hex(char *p, uint64_t v)
{
	size_t n = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1;
	char *q = p + n;

	while (v >= 0x100) {
		q -= 2;
		memcpy(q, hex_pairs + (v & 0xff) * 2, 2);
		v >>= 8;
	}
	if (v >= 0x10) {
		q -= 2;
		memcpy(q, hex_pairs + v * 2, 2);
	} else {
		q[-1] = hex_pairs[v * 2 + 1];
	}
	return n;
}

size_t hwp__fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	char *q = tmp + sizeof(tmp);

	while (v >= 100) {
		q -= 2;
		memcpy(q, dec_pairs + (v % 100) * 2, 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, dec_pairs + v * 2, 2);
	} else {
		*--q = (char)('0' + v);
	}
	size_t n = (size_t)(tmp + sizeof(tmp) - q);
	memcpy(p, q, n);
	return n;
}

unsigned hwp__u64_digits(uint64_t v)
{
	unsigned n = 1;

	for (; v >= 10000; v /= 10000)
		n += 4;
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* printf rounds the exact binary value to PREC decimals, a tie to even:
   D = M * 2^E (M below 2^53) times 10^PREC, in 128-bit integers. */
size_t hwp__fmt_fixed(char *p, double d, unsigned prec)
{
	static const uint64_t pow10[10] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
					    1000000000 };
	char *q = p;
	uint64_t n, scale;
	int e;

	/* (D * 10^PREC below 2^63: the digits fit a uint64_t) */
	if (prec > 9 || !isfinite(d) || fabs(d) >= 1e15 || fabs(d) * (double)pow10[prec] >= 9e18) {
		char tmp[400];
		int k = snprintf(tmp, sizeof(tmp), "%.*f", (int)prec, d);
		if (k < 0 || (size_t)k >= 32) /* (callers leave 32 bytes) */
			k = 0;
		memcpy(p, tmp, (size_t)k);
		return (size_t)k;
	}
	scale = pow10[prec];
	if (signbit(d))
		*q++ = '-';
	d = fabs(d);
	uint64_t m = (uint64_t)ldexp(frexp(d, &e), 53);
	e -= 53;
	if (e >= 0) {
		n = (m << e) * scale;
	} else if (e <= -100) {
		n = 0; /* below 2^(53 + 30 - 100): rounds to 0 */
	} else {
		unsigned __int128 x = (unsigned __int128)m * scale, half = (unsigned __int128)1 << (-e - 1);
		unsigned __int128 r = x & ((half << 1) - 1);
		n = (uint64_t)(x >> -e);
		if (r > half || (r == half && (n & 1)))
			n++;
	}
	q += hwp__fmt_u64(q, n / scale);
	if (prec) {
		uint64_t f = n % scale;
		*q++ = '.';
		for (unsigned i = prec; i-- > 0; f /= 10)
			q[i] = (char)('0' + f % 10);
		q += prec;
	}
	return (size_t)(q - p);
}

void hwp__outbuf_hex(struct hwp_outbuf *o, uint64_t v, int width)
{
	char tmp[16];
	size_t n = hwp__fmt_hex(tmp, v);
	char *p = hwp__outbuf_reserve(o, 40);

	for (int i = (int)n; i < width; i++)
		*p++ = ' ';
	memcpy(p, tmp, n);
	p += n;
	o->len = (size_t)(p - o->buf);
}

void hwp__outbuf_u64(struct hwp_outbuf *o, uint64_t v)
{
	char *p = hwp__outbuf_reserve(o, 24);

	o->len += hwp__fmt_u64(p, v);
}

void hwp__outbuf_printf(struct hwp_outbuf *o, const char *fmt, ...)
{
	va_list ap;
	char small[512];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		hwp__outbuf_write(o, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big)
		return;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	hwp__outbuf_write(o, big, (size_t)n);
	free(big);
}
