/* SPDX-License-Identifier: MIT */
/* perf maps (/tmp/perf-PID.map), read as perf 6.1 reads them. See perf_map.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/perf_map.h"
#include "util/pid_name.h"
#include "util/error.h"

/* perf skips a line whose name is shorter than this (its "len + 2 >=
   line_len" test in dso__load_perf_map). */
#define MIN_NAME 3

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number (optional 0x) at *P, before END: advances *P. 0, or a reason. */
static const char *hex(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int d;

	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexval(s[2]) >= 0)
		s += 2;
	if (s >= end || hexval(*s) < 0)
		return "not a hex number";
	*v = 0;
	for (; s < end && (d = hexval(*s)) >= 0; s++) {
		if (*v >> 60)
			return "number wider than 64 bits";
		*v = *v << 4 | (uint64_t)d;
	}
	*p = s;
	return NULL;
}

static bool sep(char c)
{
	return c == ' ' || c == '\t';
}

/* Adds [START, START + SIZE) as perf's symbol__new() makes it: the end
   wraps as perf's u64 does (a symbol ending at 2^64 ends at 0 and is never
   found, in perf as here), since the end steers perf's tree search. */
static int add(struct hwp__perf_map *m, uint64_t start, uint64_t size, const char *name, uint8_t flags)
{
	int err = hwp__symtab_add(&m->tab, start, 0, name, HWP_SYM_GLOBAL, flags);

	if (!err)
		m->tab.v[m->tab.n - 1].end = start + size;
	return err;
}

/*
 * What perf 6.1 makes of a line hwprof rejects (its dso__load_perf_map():
 * strtoull() for each number, one character skipped after it, "len + 2 >=
 * line_len" to give up; a last line without a newline loses its last
 * character): whether it adds a symbol, and where. Such a symbol is kept,
 * hidden, so that perf's tree -- and so which of overlapping entries a
 * lookup meets first -- has perf's shape.
 */
static bool perf_reads(char *line, size_t n, bool newline, uint64_t *start, uint64_t *size)
{
	long line_len = newline ? (long)n : (long)n - 1, len;
	char saved = 0, *p;
	bool added = false;

	if (line_len < 0)
		return false;
	if (!newline) {
		saved = line[n - 1];
		line[n - 1] = 0;
	}
	*start = strtoull(line, &p, 16);
	len = (long)(p - line) + 1;
	if (len + 2 < line_len) {
		*size = strtoull(line + len, &p, 16);
		len = (long)(p - line) + 1;
		added = len + 2 < line_len;
	}
	if (!newline)
		line[n - 1] = saved;
	return added;
}

/* LINE[0..LEN) (NUL at LEN): its symbol into M, or the reason it is bad. */
static const char *parse_line(struct hwp__perf_map *m, char *line, size_t len, bool newline, int *err)
{
	const char *p = line, *end = line + len, *why;
	uint64_t start, size;

	if ((why = hex(&p, end, &start))) {
		why = why[0] == 'n' ? "START is not a hex number" : "START is wider than 64 bits";
		goto bad;
	}
	if (p >= end || !sep(*p)) {
		why = "no space after START";
		goto bad;
	}
	p++;
	if ((why = hex(&p, end, &size))) {
		why = why[0] == 'n' ? "SIZE is not a hex number" : "SIZE is wider than 64 bits";
		goto bad;
	}
	if (p >= end || !sep(*p)) {
		why = "no space after SIZE";
		goto bad;
	}
	p++;
	if ((size_t)(end - p) < MIN_NAME)
		return "name shorter than 3 characters (perf skips it too)";
	if (size && start + size - 1 < start) {
		why = "START + SIZE passes the top of the address space";
		goto bad;
	}
	*err = add(m, start, size, p, 0);
	return NULL;
bad:
	if (perf_reads(line, len, newline, &start, &size))
		*err = add(m, start, size, "", HWP_SYMF_HIDDEN);
	return why;
}

int hwp__perf_map_parse(char *text, size_t len, const char *name, struct hwp__perf_map **out)
{
	struct hwp__perf_map *m = calloc(1, sizeof(*m));
	size_t off = 0;
	int err = 0;

	*out = NULL;
	if (!m) {
		free(text);
		return hwp__set_error(ENOMEM, "%s: out of memory reading the perf map", name);
	}
	m->text = text;
	hwp__symtab_start_tree(&m->tab);
	while (off < len && !err) {
		char *line = text + off, *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) : len - off;

		line[n] = 0; /* the newline, or the byte after the text (the caller's spare) */
		off += n + 1;
		m->lines++;
		if (!n)
			continue;
		const char *why = parse_line(m, line, n, nl != NULL, &err);
		if (why) {
			if (!m->bad++) {
				m->first_bad_line = m->lines;
				snprintf(m->first_bad_why, sizeof(m->first_bad_why), "%s", why);
			}
		} else if (!err) {
			m->symbols++;
		}
	}
	if (err) {
		size_t line = m->lines;

		hwp__perf_map_delete(m);
		return hwp__set_error(ENOMEM, "%s: out of memory at line %zu of the perf map", name, line);
	}
	*out = m;
	return 0;
}

int hwp__perf_map_read(const char *path, struct hwp__perf_map **out)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*out = NULL;
	if (fd < 0)
		return hwp__set_error(errno, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	for (;;) {
		if (!buf || len + 1 >= cap) {
			size_t ncap = !buf && cap ? cap + 1 : cap ? cap * 2 : 65536;
			char *nb = ncap > cap ? realloc(buf, ncap) : NULL;

			if (!nb) {
				free(buf);
				close(fd);
				return hwp__set_error(ENOMEM, "%s: out of memory reading %zu bytes", path, len);
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t n = read(fd, buf + len, cap - len - 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			free(buf);
			close(fd);
			return hwp__set_error(e, "%s: read error at offset %zu: %s", path, len, strerror(e));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	/* the loop kept a spare byte: room for the NUL after a last line
	   without a newline */
	return hwp__perf_map_parse(buf, len, path, out);
}

void hwp__perf_map_delete(struct hwp__perf_map *m)
{
	if (!m)
		return;
	hwp__symtab_free(&m->tab);
	free(m->text);
	free(m);
}

const struct hwp_sym *hwp__perf_map_find(const struct hwp__perf_map *m, uint64_t addr)
{
	const struct hwp_sym *s = m ? hwp__symtab_find(&m->tab, addr) : NULL;

	return s && !(s->flags & HWP_SYMF_HIDDEN) ? s : NULL;
}

bool hwp__perf_map_path(const char *path, int *pid)
{
	int32_t v;

	if (!hwp__pid_name(path, "/tmp/perf-", ".map", &v))
		return false;
	if (pid)
		*pid = v;
	return true;
}

bool hwp__perf_map_short_name(const char *path, char *buf, size_t size)
{
	int tid;

	/* perf's own test, sscanf's leniency included ("/tmp/perf-12x" counts) */
	if (sscanf(path, "/tmp/perf-%d.map", &tid) != 1)
		return false;
	snprintf(buf, size, "[JIT] tid %d", tid);
	return true;
}
