/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/outbuf.h"

#define OUTBUF_SIZE (1u << 20)

int hwp_outbuf__init(struct hwp_outbuf *o, FILE *fp)
{
	memset(o, 0, sizeof(*o));
	o->fp = fp;
	o->buf = malloc(OUTBUF_SIZE);
	if (!o->buf)
		return -ENOMEM;
	o->cap = OUTBUF_SIZE;
	return 0;
}

void hwp_outbuf__flush(struct hwp_outbuf *o)
{
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

int hwp_outbuf__finish(struct hwp_outbuf *o)
{
	hwp_outbuf__flush(o);
	free(o->buf);
	o->buf = NULL;
	return o->err ? -o->err : 0;
}

void hwp_outbuf__write(struct hwp_outbuf *o, const void *p, size_t n)
{
	while (n) {
		if (o->len == o->cap)
			hwp_outbuf__flush(o);
		size_t k = o->cap - o->len < n ? o->cap - o->len : n;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p = (const char *)p + k;
		n -= k;
	}
}

void hwp_outbuf__puts(struct hwp_outbuf *o, const char *s)
{
	hwp_outbuf__write(o, s, strlen(s));
}

void hwp_outbuf__putc(struct hwp_outbuf *o, char c)
{
	if (o->len == o->cap)
		hwp_outbuf__flush(o);
	o->buf[o->len++] = c;
}

size_t hwp_fmt_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	int n = v ? (67 - __builtin_clzll(v)) / 4 : 1;

	for (int i = n - 1; i >= 0; i--) {
		p[i] = digits[v & 15];
		v >>= 4;
	}
	return (size_t)n;
}

size_t hwp_fmt_u64(char *p, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

void hwp_outbuf__hex(struct hwp_outbuf *o, uint64_t v, int width)
{
	char tmp[16];
	size_t n = hwp_fmt_hex(tmp, v);
	char *p = hwp_outbuf__reserve(o, 40);

	for (int i = (int)n; i < width; i++)
		*p++ = ' ';
	memcpy(p, tmp, n);
	p += n;
	o->len = (size_t)(p - o->buf);
}

void hwp_outbuf__u64(struct hwp_outbuf *o, uint64_t v)
{
	char *p = hwp_outbuf__reserve(o, 24);

	o->len += hwp_fmt_u64(p, v);
}

void hwp_outbuf__printf(struct hwp_outbuf *o, const char *fmt, ...)
{
	va_list ap;
	char small[512];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		hwp_outbuf__write(o, small, (size_t)n);
		return;
	}
	char *big = malloc((size_t)n + 1);
	if (!big)
		return;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	hwp_outbuf__write(o, big, (size_t)n);
	free(big);
}
