/* SPDX-License-Identifier: MIT */
/* jitdump files, bounds-checked. See jitdump.h. */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/jitdump.h"
#include "util/pid_name.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/vec.h"

#define PREFIX 16u     /* id, total_size, timestamp */
#define LOAD_FIXED 56u /* prefix + pid, tid, vma, code_addr, code_size, code_index */
#define MOVE_FIXED 64u /* prefix + pid, tid, vma, old, new, code_size, code_index */
#define DEBUG_FIXED 32u /* prefix + code_addr, nr_entry */
#define DEBUG_ENTRY 16u /* addr, lineno, discrim; then the name */
#define UNWIND_FIXED 40u /* prefix + unwind_data_size, eh_frame_hdr_size, mapped_size */

struct parse {
	struct hwp__jitdump *d;
	size_t cap_codes, cap_lines;
	/* what the next load takes: the last DEBUG_INFO's entries (a range of
	   d->lines) and the last UNWINDING_INFO's mapped size */
	size_t pend_first, pend_n;
	bool pend_lines;
	uint64_t pend_unwind;
};

static uint32_t u32(const struct hwp__jitdump *d, const uint8_t *p)
{
	uint32_t v = ld32(p);
	return d->swapped ? bswap_32(v) : v;
}

static uint64_t u64(const struct hwp__jitdump *d, const uint8_t *p)
{
	uint64_t v = ld64(p);
	return d->swapped ? bswap_64(v) : v;
}

static const char *record_name(uint32_t id)
{
	static const char *const names[] = { "JIT_CODE_LOAD", "JIT_CODE_MOVE", "JIT_CODE_DEBUG_INFO",
					     "JIT_CODE_CLOSE", "JIT_CODE_UNWINDING_INFO" };

	return id < sizeof(names) / sizeof(names[0]) ? names[id] : "unknown";
}

/* Remembers the first problem (a record at OFF). */
static void problem(struct hwp__jitdump *d, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void problem(struct hwp__jitdump *d, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (d->problems++)
		return;
	d->problem_offset = off;
	va_start(ap, fmt);
	vsnprintf(d->problem, sizeof(d->problem), fmt, ap);
	va_end(ap);
}

/* A NUL within [P, END): its length, or -1. */
static long str_in(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *z = p < end ? memchr(p, 0, (size_t)(end - p)) : NULL;

	return z ? (long)(z - p) : -1;
}

static int line_cmp(const void *a, const void *b)
{
	const struct hwp__jit_line *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq; /* stable: file order */
}

/* By address, entries at one address in file order. JITs write them in
   address order: the sort is for the others. */
static void sort_lines(struct hwp__jit_line *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i - 1].addr > v[i].addr) {
			hwp__sort(v, n, sizeof(*v), line_cmp);
			return;
		}
}

static int debug_info(struct parse *ps, const uint8_t *r, uint32_t size, uint64_t off)
{
	struct hwp__jitdump *d = ps->d;
	const uint8_t *end = r + size, *p = r + DEBUG_FIXED;

	if (size < DEBUG_FIXED) {
		problem(d, off, "JIT_CODE_DEBUG_INFO of %" PRIu32 " bytes, below its %u fixed ones", size,
			DEBUG_FIXED);
		return 0;
	}
	uint64_t nr = u64(d, r + 24);
	/* each entry takes at least DEBUG_ENTRY + 1 bytes: a count above what
	   fits is corrupt, and bounds the allocation below */
	if (nr > (uint64_t)(end - p) / (DEBUG_ENTRY + 1)) {
		problem(d, off, "JIT_CODE_DEBUG_INFO claims %" PRIu64 " entries, more than its %" PRIu32
				" bytes hold", nr, size);
		return 0;
	}
	size_t first = d->n_lines_total;
	if (HWP_VEC_RESERVE(d->lines, ps->cap_lines, first + (size_t)nr) < 0)
		return -ENOMEM;
	for (uint64_t i = 0; i < nr; i++) {
		long n = (size_t)(end - p) >= DEBUG_ENTRY ? str_in(p + DEBUG_ENTRY, end) : -1;

		if (n < 0) {
			problem(d, off, "JIT_CODE_DEBUG_INFO entry %" PRIu64 " of %" PRIu64
					" runs past the record's end", i, nr);
			d->n_lines_total = first; /* the whole record is dropped */
			return 0;
		}
		struct hwp__jit_line *l = &d->lines[d->n_lines_total++];

		l->addr = u64(d, p);
		l->line = u32(d, p + 8);
		l->discrim = u32(d, p + 12);
		l->file = (const char *)p + DEBUG_ENTRY;
		l->seq = (uint32_t)i;
		p += DEBUG_ENTRY + (size_t)n + 1;
	}
	/* perf keeps only the last DEBUG_INFO before a load */
	ps->pend_first = first;
	ps->pend_n = (size_t)nr;
	ps->pend_lines = true;
	return 0;
}

static int unwinding_info(struct parse *ps, const uint8_t *r, uint32_t size, uint64_t off)
{
	struct hwp__jitdump *d = ps->d;

	if (size < UNWIND_FIXED) {
		problem(d, off, "JIT_CODE_UNWINDING_INFO of %" PRIu32 " bytes, below its %u fixed ones", size,
			UNWIND_FIXED);
		return 0;
	}
	uint64_t data = u64(d, r + 16), hdr = u64(d, r + 24), mapped = u64(d, r + 32);

	if (data > size - UNWIND_FIXED || hdr > data) {
		problem(d, off, "JIT_CODE_UNWINDING_INFO with %" PRIu64 " bytes of data (%" PRIu64
				" of header) in a %" PRIu32 "-byte record", data, hdr, size);
		return 0;
	}
	d->n_unwind++;
	ps->pend_unwind = mapped;
	return 0;
}

static struct hwp__jit_code *new_code(struct parse *ps)
{
	struct hwp__jitdump *d = ps->d;
	struct hwp__jit_code *c = HWP_VEC_PUSH(d->codes, d->n_codes, ps->cap_codes);

	return c;
}

static int code_load(struct parse *ps, const uint8_t *r, uint32_t size, uint64_t off, uint64_t ts)
{
	struct hwp__jitdump *d = ps->d;

	if (size < LOAD_FIXED + 1) {
		problem(d, off, "JIT_CODE_LOAD of %" PRIu32 " bytes, below its %u fixed ones and a name", size,
			LOAD_FIXED);
		return 0;
	}
	uint64_t csize = u64(d, r + 40);
	if (csize > size - LOAD_FIXED - 1) {
		problem(d, off, "JIT_CODE_LOAD with %" PRIu64 " bytes of code in a %" PRIu32 "-byte record",
			csize, size);
		return 0;
	}
	const uint8_t *code = r + size - csize;
	if (str_in(r + LOAD_FIXED, code) < 0) {
		problem(d, off, "JIT_CODE_LOAD whose name has no NUL before its code");
		return 0;
	}
	struct hwp__jit_code *c = new_code(ps);
	if (!c)
		return -ENOMEM;
	c->time = ts;
	c->file_offset = off;
	c->pid = u32(d, r + 16);
	c->tid = u32(d, r + 20);
	c->vma = u64(d, r + 24);
	c->code_addr = u64(d, r + 32);
	c->code_size = csize;
	c->code_index = u64(d, r + 48);
	c->name = (const char *)r + LOAD_FIXED;
	c->code = code;
	c->unwind_mapped = ps->pend_unwind;
	if (ps->pend_lines) {
		c->first_line = ps->pend_first; /* d->lines may still move */
		c->n_lines = ps->pend_n;
	}
	ps->pend_lines = false;
	ps->pend_unwind = 0;
	d->n_loads++;
	return 0;
}

static int code_move(struct parse *ps, const uint8_t *r, uint32_t size, uint64_t off, uint64_t ts)
{
	struct hwp__jitdump *d = ps->d;

	if (size < MOVE_FIXED) {
		problem(d, off, "JIT_CODE_MOVE of %" PRIu32 " bytes, below its %u", size, MOVE_FIXED);
		return 0;
	}
	struct hwp__jit_code *c = new_code(ps);
	if (!c)
		return -ENOMEM;
	c->move = true;
	c->time = ts;
	c->file_offset = off;
	c->pid = u32(d, r + 16);
	c->tid = u32(d, r + 20);
	c->vma = u64(d, r + 24);
	c->old_addr = u64(d, r + 32);
	c->code_addr = u64(d, r + 40);
	c->code_size = u64(d, r + 48);
	c->code_index = u64(d, r + 56);
	c->unwind_mapped = ps->pend_unwind; /* perf uses what is pending, and keeps it */
	d->n_moves++;
	return 0;
}

static int header(struct hwp__jitdump *d)
{
	if (d->size < HWP_JITDUMP_HEADER_SIZE)
		return hwp__set_error(EINVAL, "%s: offset 0x0: %zu bytes, shorter than a jitdump header (%u)",
				      d->name, d->size, HWP_JITDUMP_HEADER_SIZE);
	uint32_t magic = ld32(d->data);

	if (magic == bswap_32(HWP_JITDUMP_MAGIC))
		d->swapped = true;
	else if (magic != HWP_JITDUMP_MAGIC)
		return hwp__set_error(EINVAL, "%s: offset 0x0: not a jitdump (magic 0x%08" PRIx32 ", not \"JiTD\")",
				      d->name, magic);
	d->version = u32(d, d->data + 4);
	d->header_size = u32(d, d->data + 8);
	d->elf_mach = u32(d, d->data + 12);
	d->pid = u32(d, d->data + 20);
	d->timestamp = u64(d, d->data + 24);
	d->flags = u64(d, d->data + 32);
	if (d->version > 1)
		return hwp__set_error(ENOTSUP, "%s: offset 0x4: jitdump version %" PRIu32 " (perf 6.1 reads version 1)",
				      d->name, d->version);
	if (d->flags & ~(uint64_t)HWP_JITDUMP_FLAG_ARCH_TIMESTAMP)
		return hwp__set_error(ENOTSUP, "%s: offset 0x20: unknown jitdump flags 0x%" PRIx64, d->name,
				      d->flags & ~(uint64_t)HWP_JITDUMP_FLAG_ARCH_TIMESTAMP);
	if (d->header_size > d->size)
		return hwp__set_error(EINVAL, "%s: offset 0x8: header of %" PRIu32 " bytes in a %zu-byte file",
				      d->name, d->header_size, d->size);
	return 0;
}

int hwp__jitdump_parse(const uint8_t *data, size_t size, const char *name, struct hwp__jitdump **out)
{
	struct hwp__jitdump *d = calloc(1, sizeof(*d));
	struct parse ps = { .d = d };
	int err;

	*out = NULL;
	if (!d)
		return hwp__set_error(ENOMEM, "%s: out of memory reading the jitdump", name);
	d->name = name;
	d->data = data;
	d->size = size;
	if ((err = header(d)) < 0) {
		hwp__jitdump_delete(d);
		return err;
	}
	/* a header shorter than perf's struct is read as perf reads it: the
	   records follow the 40 bytes */
	size_t off = d->header_size > HWP_JITDUMP_HEADER_SIZE ? d->header_size : HWP_JITDUMP_HEADER_SIZE;

	while (off < size) {
		if (size - off < PREFIX) {
			problem(d, off, "record header cut short: the file ends %zu bytes into its %u", size - off,
				PREFIX);
			break;
		}
		const uint8_t *r = data + off;
		uint32_t id = u32(d, r), rsize = u32(d, r + 4);
		uint64_t ts = u64(d, r + 8);

		if (rsize < PREFIX) {
			problem(d, off, "record of type %" PRIu32 " (%s) claims %" PRIu32 " bytes, below its %u-byte header",
				id, record_name(id), rsize, PREFIX);
			break;
		}
		if (rsize > size - off) {
			problem(d, off, "record of type %" PRIu32 " (%s) and %" PRIu32 " bytes cut short: the file ends %zu bytes into it",
				id, record_name(id), rsize, size - off);
			break;
		}
		switch (id) {
		case HWP_JIT_CODE_LOAD:
			err = code_load(&ps, r, rsize, off, ts);
			break;
		case HWP_JIT_CODE_MOVE:
			err = code_move(&ps, r, rsize, off, ts);
			break;
		case HWP_JIT_CODE_DEBUG_INFO:
			d->n_debug++;
			err = debug_info(&ps, r, rsize, off);
			break;
		case HWP_JIT_CODE_UNWINDING_INFO:
			err = unwinding_info(&ps, r, rsize, off);
			break;
		case HWP_JIT_CODE_CLOSE:
			d->n_close++;
			break;
		default:
			d->n_unknown++; /* perf skips records it does not know */
			break;
		}
		if (err < 0) {
			hwp__jitdump_delete(d);
			return hwp__set_error(ENOMEM, "%s: out of memory at offset 0x%zx of the jitdump", name, off);
		}
		off += rsize;
	}
	/* the lines are in place: turn the loads' indices into pointers, sorted */
	for (size_t i = 0; i < d->n_codes; i++) {
		struct hwp__jit_code *c = &d->codes[i];

		if (!c->n_lines)
			continue;
		struct hwp__jit_line *v = d->lines + c->first_line;

		sort_lines(v, c->n_lines);
		c->lines = v;
	}
	*out = d;
	return 0;
}

int hwp__jitdump_open(const char *path, struct hwp__jitdump **out)
{
	struct stat st;
	void *map = NULL;
	size_t size = 0;
	char *name = strdup(path);
	int fd, err;

	*out = NULL;
	if (!name)
		return hwp__set_error(ENOMEM, "%s: out of memory", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		free(name);
		return hwp__set_error(err, "%s: %s", path, strerror(err));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err = errno ? errno : EINVAL;
		close(fd);
		free(name);
		return hwp__set_error(err, "%s: not a regular file", path);
	}
	size = (size_t)st.st_size;
	if (size && (map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		err = errno;
		close(fd);
		free(name);
		return hwp__set_error(err, "%s: cannot map %zu bytes: %s", path, size, strerror(err));
	}
	close(fd);
	err = hwp__jitdump_parse(map ? map : (const void *)"", size, name, out);
	if (err < 0) {
		if (map)
			munmap(map, size);
		free(name);
		return err;
	}
	(*out)->map = map;
	(*out)->map_size = size;
	(*out)->owned_name = name;
	return 0;
}

void hwp__jitdump_delete(struct hwp__jitdump *d)
{
	if (!d)
		return;
	free(d->codes);
	free(d->lines);
	if (d->map)
		munmap(d->map, d->map_size);
	free(d->owned_name);
	free(d);
}

const struct hwp__jit_line *hwp__jitdump_line(const struct hwp__jit_code *c, uint64_t addr)
{
	size_t lo = 0, hi = c->n_lines;

	while (lo < hi) { /* first entry above ADDR */
		size_t mid = lo + (hi - lo) / 2;

		if (c->lines[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &c->lines[lo - 1] : NULL;
}

bool hwp__jitdump_marker(const char *filename, int32_t mmap_pid, int32_t *pid)
{
	const char *p = strrchr(filename, '/');
	int32_t v;

	if (!p || !hwp__pid_name(p, "/jit-", ".dump", &v) || (mmap_pid && v != mmap_pid))
		return false;
	if (pid)
		*pid = v;
	return true;
}
