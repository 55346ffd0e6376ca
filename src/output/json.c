/* SPDX-License-Identifier: MIT */
/* The one JSON writer and string escaper (see include/hwprof/json.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "output/json.h"
#include "util/error.h"
#include "util/vec.h"

/* ------------------------------------------------------------- escaping */

/* Length of the valid UTF-8 sequence at P (N bytes left, P[0] >= 0x80),
   or 0 when P[0] does not start one (RFC 3629 table, no surrogates). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (p[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (p[0] == 0xed)
		hi = 0x9f; /* surrogates */
	else if (p[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (p[0] == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

void hwp__json_quote_len(struct hwp_outbuf *o, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s, *end = p + len, *run = p;

	hwp__outbuf_putc(o, '"');
	while (p < end) {
		unsigned char c = *p;
		size_t n;

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			p++;
			continue;
		}
		if (c >= 0x80 && (n = utf8_len(p, (size_t)(end - p)))) {
			p += n;
			continue;
		}
		hwp__outbuf_write(o, run, (size_t)(p - run));
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			hwp__outbuf_write(o, e, 2);
		} else if (c < 0x20) {
			char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			hwp__outbuf_write(o, e, 6);
		} else {
			hwp__outbuf_write(o, "\xef\xbf\xbd", 3); /* U+FFFD */
		}
		run = ++p;
	}
	hwp__outbuf_write(o, run, (size_t)(p - run));
	hwp__outbuf_putc(o, '"');
}

void hwp__json_quote(struct hwp_outbuf *o, const char *s)
{
	if (s)
		hwp__json_quote_len(o, s, strlen(s));
	else
		hwp__outbuf_puts(o, "null");
}

/* --------------------------------------------------------------- writer */

enum { IN_ARRAY = 1, IN_OBJECT = 2, HAS_ITEMS = 4, HAS_KEY = 8 };

struct hwp_json_writer {
	struct hwp_outbuf *o;
	unsigned char *levels; /* IN_* | HAS_* per open container */
	size_t depth, cap;
	const char *misuse;    /* first misuse, sticky: nothing is written after it */
};

struct hwp_json_writer *hwp__json_writer_new(struct hwp_outbuf *o)
{
	struct hwp_json_writer *j;

	if (!o) {
		hwp__set_error(EINVAL, "JSON writer: no output");
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		hwp__set_error(ENOMEM, "out of memory making a JSON writer");
		return NULL;
	}
	j->o = o;
	return j;
}

void hwp__json_writer_delete(struct hwp_json_writer *j)
{
	if (!j)
		return;
	free(j->levels);
	free(j);
}

int hwp__json_writer_finish(const struct hwp_json_writer *j)
{
	if (!j)
		return hwp__set_error(EINVAL, "JSON writer: none");
	if (j->misuse)
		return hwp__set_error(EINVAL, "JSON writer: %s", j->misuse);
	if (j->depth)
		return hwp__set_error(EINVAL, "JSON writer: %zu container%s left open", j->depth,
				      j->depth == 1 ? "" : "s");
	return 0;
}

static bool fail(struct hwp_json_writer *j, const char *what)
{
	if (!j->misuse)
		j->misuse = what;
	return false;
}

/* Before a value: the comma, and the checks. False: write nothing. */
static bool value_begins(struct hwp_json_writer *j)
{
	unsigned char *l;

	if (j->misuse)
		return false;
	if (!j->depth)
		return true;
	l = &j->levels[j->depth - 1];
	if (*l & IN_OBJECT) {
		if (!(*l & HAS_KEY))
			return fail(j, "a value in an object without a key");
		*l &= (unsigned char)~HAS_KEY;
	} else if (*l & HAS_ITEMS) {
		hwp__outbuf_putc(j->o, ',');
	}
	*l |= HAS_ITEMS;
	return true;
}

/* After a value: a complete top-level value ends its line. */
static void value_ends(struct hwp_json_writer *j)
{
	if (!j->depth)
		hwp__outbuf_putc(j->o, '\n');
}

static void open_container(struct hwp_json_writer *j, unsigned char kind, char c)
{
	if (!value_begins(j))
		return;
	if (HWP_VEC_RESERVE(j->levels, j->cap, j->depth + 1)) {
		fail(j, "out of memory");
		return;
	}
	j->levels[j->depth++] = kind;
	hwp__outbuf_putc(j->o, c);
}

static void close_container(struct hwp_json_writer *j, unsigned char kind, char c)
{
	if (j->misuse)
		return;
	if (!j->depth || !(j->levels[j->depth - 1] & kind)) {
		fail(j, kind == IN_OBJECT ? "end of an object that is not open"
					  : "end of an array that is not open");
		return;
	}
	if (j->levels[j->depth - 1] & HAS_KEY) {
		fail(j, "a key without a value");
		return;
	}
	j->depth--;
	hwp__outbuf_putc(j->o, c);
	value_ends(j);
}

void hwp__json_writer_begin_object(struct hwp_json_writer *j)
{
	open_container(j, IN_OBJECT, '{');
}

void hwp__json_writer_end_object(struct hwp_json_writer *j)
{
	close_container(j, IN_OBJECT, '}');
}

void hwp__json_writer_begin_array(struct hwp_json_writer *j)
{
	open_container(j, IN_ARRAY, '[');
}

void hwp__json_writer_end_array(struct hwp_json_writer *j)
{
	close_container(j, IN_ARRAY, ']');
}

void hwp__json_writer_key(struct hwp_json_writer *j, const char *k)
{
	unsigned char *l;

	if (j->misuse)
		return;
	if (!j->depth || !(j->levels[j->depth - 1] & IN_OBJECT)) {
		fail(j, "a key outside an object");
		return;
	}
	l = &j->levels[j->depth - 1];
	if (*l & HAS_KEY) {
		fail(j, "two keys in a row");
		return;
	}
	if (*l & HAS_ITEMS)
		hwp__outbuf_putc(j->o, ',');
	*l |= HAS_KEY | HAS_ITEMS;
	hwp__json_quote(j->o, k ? k : "");
	hwp__outbuf_putc(j->o, ':');
}

/* A scalar already formatted as JSON text. */
static void scalar(struct hwp_json_writer *j, const char *text, size_t len)
{
	if (!value_begins(j))
		return;
	hwp__outbuf_write(j->o, text, len);
	value_ends(j);
}

void hwp__json_writer_string(struct hwp_json_writer *j, const char *s)
{
	if (!value_begins(j))
		return;
	hwp__json_quote(j->o, s);
	value_ends(j);
}

void hwp__json_writer_u64(struct hwp_json_writer *j, uint64_t v)
{
	char b[24];

	scalar(j, b, hwp__fmt_u64(b, v));
}

void hwp__json_writer_i64(struct hwp_json_writer *j, int64_t v)
{
	char b[24];
	size_t n = 0;

	if (v < 0)
		b[n++] = '-';
	/* -(v + 1) + 1: the magnitude of INT64_MIN without overflow */
	n += hwp__fmt_u64(b + n, v < 0 ? (uint64_t)-(v + 1) + 1 : (uint64_t)v);
	scalar(j, b, n);
}

void hwp__json_writer_double(struct hwp_json_writer *j, double v)
{
	char b[40];
	int n;

	if (!isfinite(v)) {
		scalar(j, "null", 4);
		return;
	}
	/* 15 significant digits read back exactly for most values; 17 always do. */
	n = snprintf(b, sizeof(b), "%.15g", v);
	if (strtod(b, NULL) != v)
		n = snprintf(b, sizeof(b), "%.17g", v);
	scalar(j, b, (size_t)n);
}

void hwp__json_writer_bool(struct hwp_json_writer *j, bool v)
{
	scalar(j, v ? "true" : "false", v ? 4 : 5);
}

void hwp__json_writer_null(struct hwp_json_writer *j)
{
	scalar(j, "null", 4);
}

void hwp__json_writer_hex(struct hwp_json_writer *j, uint64_t v)
{
	char b[24] = { '"', '0', 'x' };
	size_t n = 3 + hwp__fmt_hex(b + 3, v);

	b[n++] = '"';
	scalar(j, b, n);
}

void hwp__json_writer_kv_string(struct hwp_json_writer *j, const char *k, const char *s)
{
	hwp__json_writer_key(j, k);
	hwp__json_writer_string(j, s);
}

void hwp__json_writer_kv_u64(struct hwp_json_writer *j, const char *k, uint64_t v)
{
	hwp__json_writer_key(j, k);
	hwp__json_writer_u64(j, v);
}

void hwp__json_writer_kv_i64(struct hwp_json_writer *j, const char *k, int64_t v)
{
	hwp__json_writer_key(j, k);
	hwp__json_writer_i64(j, v);
}

void hwp__json_writer_kv_bool(struct hwp_json_writer *j, const char *k, bool v)
{
	hwp__json_writer_key(j, k);
	hwp__json_writer_bool(j, v);
}

void hwp__json_writer_kv_hex(struct hwp_json_writer *j, const char *k, uint64_t v)
{
	hwp__json_writer_key(j, k);
	hwp__json_writer_hex(j, v);
}
