/*
 * Unit tests for JIT-compiled code's names: the perf map reader
 * (src/symbolize/perf_map.c), the jitdump parser (src/symbolize/jitdump.c),
 * the symbolizer's JIT modules (src/symbolize/jit_sources.c, jit_module.c)
 * and the in-memory code file decoding reads (src/decode/insn_starts.c).
 *
 * Expected answers come from the formats' definitions (perf's
 * jitdump-specification.txt; perf 6.1's perf map reader, whose choices were
 * checked against perf 6.1 itself: 0x prefixes and tabs accepted, names of
 * fewer than 3 characters skipped, a zero size covering its start only, the
 * first of two overlapping or repeated entries found first) and from dumps
 * the test writes byte by byte.
 */
#include <byteswap.h>
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decode/insn_starts.h"
#include "hwprof/hwprof.h"
#include "hwprof/symbolize.h"
#include "symbolize/jit_sources.h"
#include "symbolize/jitdump.h"
#include "symbolize/perf_map.h"
#include "symbolize/symbolizer_internal.h"
#include "testlib.h"

/* ------------------------------------------------------------ perf maps */

static struct hwp__perf_map *parse_text(const char *text)
{
	size_t n = strlen(text);
	char *buf = malloc(n + 1);
	struct hwp__perf_map *m = NULL;

	memcpy(buf, text, n + 1);
	CHECK(hwp__perf_map_parse(buf, n, "test.map", &m) == 0);
	return m;
}

static const char *name_at(const struct hwp__perf_map *m, uint64_t addr)
{
	const struct hwp_sym *s = hwp__perf_map_find(m, addr);
	return s ? s->name : NULL;
}

static bool is(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static void test_perf_map_good_lines(void)
{
	struct hwp__perf_map *m = parse_text("7f0000001000 40 JS:*fib /tmp/x.js:1:13\n"
					     "0x7f0000002000 0x10 py::main:/tmp/y.py\n"
					     "7F0000003000\t20\tLjava/lang/Object;.<init>()V\n"
					     "\n"
					     "7f0000004000 8 last line without newline");
	CHECK(m->lines == 5);
	CHECK(m->symbols == 4);
	CHECK(m->bad == 0);
	CHECK(is(name_at(m, 0x7f0000001000), "JS:*fib /tmp/x.js:1:13"));
	CHECK(is(name_at(m, 0x7f000000103f), "JS:*fib /tmp/x.js:1:13"));
	CHECK(name_at(m, 0x7f0000001040) == NULL); /* [start, start + size) */
	CHECK(is(name_at(m, 0x7f000000200f), "py::main:/tmp/y.py"));
	CHECK(is(name_at(m, 0x7f0000003010), "Ljava/lang/Object;.<init>()V"));
	CHECK(is(name_at(m, 0x7f0000004007), "last line without newline"));
	CHECK(name_at(m, 0x7f0000000fff) == NULL);
	const struct hwp_sym *s = hwp__perf_map_find(m, 0x7f0000001020);
	CHECK(s && s->start == 0x7f0000001000 && s->end == 0x7f0000001040);
	hwp__perf_map_delete(m);
}

static void test_perf_map_bad_lines(void)
{
	struct hwp__perf_map *m = parse_text("1000 10 good\n"
					     "zz00 10 not hex\n"          /* line 2: the first bad one */
					     "2000 10\n"                  /* no name */
					     "3000 10 ab\n"               /* 2 characters: perf skips it */
					     "4000,10 comma\n"            /* no space after START */
					     "5000 1g0 size\n"            /* SIZE then not a separator */
					     "11112222333344445 10 wide\n" /* 65 bits */
					     "6000 10 good too\n");
	CHECK(m->lines == 8);
	CHECK(m->symbols == 2);
	CHECK(m->bad == 6);
	CHECK(m->first_bad_line == 2);
	CHECK(strstr(m->first_bad_why, "START") != NULL);
	CHECK(is(name_at(m, 0x1005), "good"));
	CHECK(is(name_at(m, 0x6005), "good too"));
	CHECK(name_at(m, 0x3005) == NULL);
	CHECK(name_at(m, 0x2005) == NULL);
	hwp__perf_map_delete(m);

	m = parse_text("1000 10 abc\n3000 10 ab\n");
	CHECK(m->bad == 1 && m->first_bad_line == 2 && strstr(m->first_bad_why, "3 characters"));
	hwp__perf_map_delete(m);
}

static void test_perf_map_overlaps(void)
{
	/* perf's tree, in file order: the entry met first on the search path
	   wins. Two entries: the first is the root. */
	struct hwp__perf_map *m = parse_text("6100 100 outer\n6180 80 inner\n");
	CHECK(is(name_at(m, 0x6180), "outer"));
	CHECK(is(name_at(m, 0x61ff), "outer"));
	CHECK(name_at(m, 0x6200) == NULL);
	hwp__perf_map_delete(m);
	/* the inner one first: the root is inner, then outer hangs left */
	m = parse_text("6180 80 inner\n6100 100 outer\n");
	CHECK(is(name_at(m, 0x6180), "inner"));
	CHECK(is(name_at(m, 0x6100), "outer"));
	hwp__perf_map_delete(m);
	/* repeated: the first */
	m = parse_text("6180 180 first\n6180 180 second\n");
	CHECK(is(name_at(m, 0x6200), "first"));
	hwp__perf_map_delete(m);
	/* a zero size covers its start only */
	m = parse_text("6180 0 zero\n");
	CHECK(is(name_at(m, 0x6180), "zero"));
	CHECK(name_at(m, 0x6181) == NULL);
	hwp__perf_map_delete(m);
	/* many entries re-jitted at one address (a JIT reusing its code heap):
	   every lookup answers one of them, and the tree stays balanced enough
	   to hold thousands */
	char *big = malloc(5000 * 40);
	size_t n = 0;
	for (int i = 0; i < 5000; i++)
		n += (size_t)sprintf(big + n, "%x %x fn%d\n", 0x10000 + (i % 50) * 0x100, 0x100, i);
	m = parse_text(big);
	CHECK(m->symbols == 5000);
	for (int i = 0; i < 50; i++) {
		/* which of the 100 entries at an address perf's tree meets first
		   depends on its shape (tests/e2e/jit_names.sh asks perf): one
		   of them */
		const char *nm = name_at(m, 0x10000 + (uint64_t)i * 0x100 + 0x10);
		CHECK(nm && !strncmp(nm, "fn", 2) && atoi(nm + 2) % 50 == i);
	}
	free(big);
	hwp__perf_map_delete(m);
}

static void test_perf_map_huge_sizes(void)
{
	struct hwp__perf_map *m = parse_text("ffffffffffff0000 10000 top\n"          /* ends at 2^64: 0 */
					     "ffffffffffff0000 10001 wraps\n"        /* past it: bad */
					     "1000 fffffffffffef000 almost all\n"    /* up to the top's start */
					     "2000 ffffffffffffffff wraps too\n");
	CHECK(m->bad == 2 && m->first_bad_line == 2 && strstr(m->first_bad_why, "top of the address space"));
	CHECK(m->symbols == 2);
	/* perf's symbol__new() wraps the end: [start, 0) holds nothing */
	CHECK(name_at(m, 0xfffffffffffffffe) == NULL);
	CHECK(name_at(m, 0xffffffffffff0000) == NULL);
	/* the tree: "top" at the root, "almost all" its left child (the two
	   bad lines perf reads too, hidden, hang below): found from the root */
	CHECK(is(name_at(m, 0x1000), "almost all"));
	CHECK(is(name_at(m, 0x7fff12345678), "almost all"));
	CHECK(name_at(m, 0xfff) == NULL);
	const struct hwp_sym *s = hwp__perf_map_find(m, 0xfffffffffffeffff);
	CHECK(s && s->end == 0xffffffffffff0000);
	hwp__perf_map_delete(m);
}

/* Lines hwprof rejects and perf reads as symbols are in the tree, hidden:
   perf's shape, so overlapping entries after them resolve as in perf. */
static void test_perf_map_perf_junk(void)
{
	/* perf reads "garbage line" as [0, 0xa) "rbage line" (strtoull stops at
	   'g', one character skipped, then "a" is hex): never an answer here */
	struct hwp__perf_map *m = parse_text("garbage line\n1000 10 real\n");
	CHECK(m->bad == 1 && m->symbols == 1 && m->tab.n == 2);
	CHECK(name_at(m, 0x5) == NULL);
	CHECK(m->tab.n == 2 && m->tab.v[0].start == 0 && m->tab.v[0].end == 0xa &&
	      (m->tab.v[0].flags & HWP_SYMF_HIDDEN));
	CHECK(is(name_at(m, 0x1005), "real"));
	hwp__perf_map_delete(m);
	/* a hidden junk symbol at the root covering the address answers
	   nothing, as perf answers its junk name */
	m = parse_text("1000 zz0 x\n1000 10 real\n");
	CHECK(m->bad == 1 && m->tab.n == 2);
	/* perf: 0x1000, then "zz0 x" is no number (size 0), one character
	   skipped: a zero-sized "z0 x" at 0x1000, the root */
	CHECK(name_at(m, 0x1000) == NULL);
	CHECK(is(name_at(m, 0x1001), "real"));
	hwp__perf_map_delete(m);
}

static void test_perf_map_names(void)
{
	char buf[64];
	int pid = 0;

	CHECK(hwp__perf_map_path("/tmp/perf-1234.map", &pid) && pid == 1234);
	CHECK(!hwp__perf_map_path("/tmp/perf-1234.map.bak", NULL));
	CHECK(!hwp__perf_map_path("/tmp/perf-x.map", NULL));
	CHECK(!hwp__perf_map_path("/var/tmp/perf-1.map", NULL));
	CHECK(!hwp__perf_map_path("/tmp/perf-99999999999.map", NULL));
	CHECK(hwp__perf_map_short_name("/tmp/perf-20381.map", buf, sizeof(buf)) && !strcmp(buf, "[JIT] tid 20381"));
	CHECK(!hwp__perf_map_short_name("/usr/bin/node", buf, sizeof(buf)));
}

/* ------------------------------------------------------------ jitdumps */

struct dump {
	uint8_t *b;
	size_t n, cap;
	bool swap;
};

static void put(struct dump *d, const void *p, size_t n)
{
	if (d->n + n > d->cap) {
		d->cap = (d->n + n) * 2 + 256;
		d->b = realloc(d->b, d->cap);
	}
	memcpy(d->b + d->n, p, n);
	d->n += n;
}

static void put32(struct dump *d, uint32_t v)
{
	v = d->swap ? bswap_32(v) : v;
	put(d, &v, 4);
}

static void put64(struct dump *d, uint64_t v)
{
	v = d->swap ? bswap_64(v) : v;
	put(d, &v, 8);
}

static void header(struct dump *d, uint32_t version, uint64_t flags, uint32_t size)
{
	put32(d, 0x4A695444);
	put32(d, version);
	put32(d, size);
	put32(d, EM_X86_64);
	put32(d, 0);
	put32(d, 4321);
	put64(d, 1000);
	put64(d, flags);
	while (d->n < size)
		put(d, "", 1);
}

static void prefix(struct dump *d, uint32_t id, uint32_t size, uint64_t ts)
{
	put32(d, id);
	put32(d, size);
	put64(d, ts);
}

static const uint8_t loop_code[] = {
	0x31, 0xc0,       /* 0: xor eax, eax */
	0xff, 0xc0,       /* 2: inc eax */
	0x83, 0xf8, 0x64, /* 4: cmp eax, 100 */
	0x75, 0xf9,       /* 7: jne 2 */
	0xc3,             /* 9: ret */
};

static size_t load(struct dump *d, uint64_t ts, uint64_t addr, uint64_t index, const char *name,
		   const uint8_t *code, uint64_t csize)
{
	size_t at = d->n;
	uint32_t size = (uint32_t)(56 + strlen(name) + 1 + csize);

	prefix(d, 0, size, ts);
	put32(d, 4321);
	put32(d, 4322);
	put64(d, addr);
	put64(d, addr);
	put64(d, csize);
	put64(d, index);
	put(d, name, strlen(name) + 1);
	put(d, code, csize);
	return at;
}

static void move(struct dump *d, uint64_t ts, uint64_t old, uint64_t new, uint64_t size, uint64_t index)
{
	prefix(d, 1, 64, ts);
	put32(d, 4321);
	put32(d, 4322);
	put64(d, new);
	put64(d, old);
	put64(d, new);
	put64(d, size);
	put64(d, index);
}

struct entry {
	uint64_t addr;
	uint32_t line;
	const char *file;
};

static void debug_info(struct dump *d, uint64_t ts, uint64_t addr, const struct entry *e, size_t n)
{
	uint32_t size = 32;

	for (size_t i = 0; i < n; i++)
		size += 16 + (uint32_t)strlen(e[i].file) + 1;
	prefix(d, 2, size, ts);
	put64(d, addr);
	put64(d, n);
	for (size_t i = 0; i < n; i++) {
		put64(d, e[i].addr);
		put32(d, e[i].line);
		put32(d, 0);
		put(d, e[i].file, strlen(e[i].file) + 1);
	}
}

static void unwinding(struct dump *d, uint64_t ts, uint64_t mapped)
{
	prefix(d, 4, 40 + 16, ts);
	put64(d, 16);
	put64(d, 8);
	put64(d, mapped);
	put(d, "0123456789abcdef", 16);
}

/* The dump every case starts from: debug info, a load, an unknown record,
   unwinding info, a second load at the same address, a move of the first,
   a close. */
static void sample_dump(struct dump *d)
{
	static const struct entry e[] = {
		{ 0x1000 + 7, 12, "/src/b.js" }, /* out of order on purpose */
		{ 0x1000, 10, "/src/a.js" },
		{ 0x1000 + 2, 11, "/src/a.js" },
	};

	header(d, 1, 0, 40);
	debug_info(d, 100, 0x1000, e, 3);
	load(d, 101, 0x1000, 7, "JS:*loop /src/a.js:10", loop_code, sizeof(loop_code));
	prefix(d, 99, 24, 102);
	put64(d, 0);
	unwinding(d, 103, 0x30);
	load(d, 104, 0x1000, 8, "JS:*again", loop_code, 4);
	move(d, 105, 0x1000, 0x9000, sizeof(loop_code), 7);
	prefix(d, 3, 16, 106);
}

static void check_sample_dump(const struct hwp__jitdump *j)
{
	CHECK(j->version == 1 && j->elf_mach == EM_X86_64 && j->pid == 4321 && j->timestamp == 1000);
	CHECK(j->n_codes == 3 && j->n_loads == 2 && j->n_moves == 1);
	CHECK(j->n_debug == 1 && j->n_unwind == 1 && j->n_close == 1 && j->n_unknown == 1);
	CHECK(j->problems == 0);
	const struct hwp__jit_code *a = &j->codes[0], *b = &j->codes[1], *mv = &j->codes[2];
	CHECK(!a->move && a->time == 101 && a->pid == 4321 && a->tid == 4322);
	CHECK(a->code_addr == 0x1000 && a->code_size == sizeof(loop_code) && a->code_index == 7);
	CHECK(is(a->name, "JS:*loop /src/a.js:10"));
	CHECK(a->code && !memcmp(a->code, loop_code, sizeof(loop_code)));
	CHECK(a->n_lines == 3 && a->unwind_mapped == 0);
	/* sorted by address */
	CHECK(a->lines[0].addr == 0x1000 && a->lines[0].line == 10 && is(a->lines[0].file, "/src/a.js"));
	CHECK(a->lines[2].addr == 0x1007 && a->lines[2].line == 12 && is(a->lines[2].file, "/src/b.js"));
	CHECK(hwp__jitdump_line(a, 0x0fff) == NULL);
	CHECK(hwp__jitdump_line(a, 0x1001)->line == 10);
	CHECK(hwp__jitdump_line(a, 0x1004)->line == 11);
	CHECK(hwp__jitdump_line(a, 0x1009)->line == 12);
	/* the second load takes no lines (they were the first's) and the
	   unwinding info's mapped size */
	CHECK(!b->move && b->n_lines == 0 && b->unwind_mapped == 0x30 && b->code_size == 4 && b->code_index == 8);
	CHECK(mv->move && mv->time == 105 && mv->old_addr == 0x1000 && mv->code_addr == 0x9000 &&
	      mv->code_index == 7 && mv->code_size == sizeof(loop_code));
}

static void test_jitdump_records(void)
{
	struct dump d = { 0 };
	struct hwp__jitdump *j = NULL;

	sample_dump(&d);
	CHECK(hwp__jitdump_parse(d.b, d.n, "t.dump", &j) == 0);
	if (j)
		check_sample_dump(j);
	hwp__jitdump_delete(j);
	free(d.b);
}

static void test_jitdump_byte_swapped(void)
{
	struct dump d = { .swap = true };
	struct hwp__jitdump *j = NULL;

	sample_dump(&d);
	CHECK(hwp__jitdump_parse(d.b, d.n, "swapped.dump", &j) == 0);
	CHECK(j && j->swapped);
	if (j)
		check_sample_dump(j);
	hwp__jitdump_delete(j);
	free(d.b);
}

static void test_jitdump_header_errors(void)
{
	struct dump d = { 0 };
	struct hwp__jitdump *j = NULL;

	header(&d, 1, 0, 40);
	d.b[0] ^= 0xff;
	CHECK(hwp__jitdump_parse(d.b, d.n, "bad.dump", &j) == -EINVAL && !j);
	CHECK(strstr(hwp_errmsg(), "bad.dump: offset 0x0: not a jitdump") != NULL);
	d.n = 0;
	header(&d, 2, 0, 40);
	CHECK(hwp__jitdump_parse(d.b, d.n, "v2.dump", &j) == -ENOTSUP);
	CHECK(strstr(hwp_errmsg(), "version 2") != NULL);
	d.n = 0;
	header(&d, 1, 2, 40);
	CHECK(hwp__jitdump_parse(d.b, d.n, "flags.dump", &j) == -ENOTSUP);
	CHECK(strstr(hwp_errmsg(), "flags 0x2") != NULL);
	d.n = 0;
	header(&d, 1, 0, 40);
	CHECK(hwp__jitdump_parse(d.b, 39, "short.dump", &j) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "short.dump: offset 0x0:") != NULL);
	/* a header bigger than perf's: the records follow it */
	d.n = 0;
	header(&d, 1, HWP_JITDUMP_FLAG_ARCH_TIMESTAMP, 64);
	load(&d, 5, 0x2000, 1, "f", loop_code, 2);
	CHECK(hwp__jitdump_parse(d.b, d.n, "big.dump", &j) == 0);
	CHECK(j && j->n_loads == 1 && j->codes[0].code_addr == 0x2000 && j->flags == 1 && !j->problems);
	hwp__jitdump_delete(j);
	/* a header claiming more bytes than the file */
	d.n = 0;
	header(&d, 1, 0, 40);
	d.b[8] = 200;
	CHECK(hwp__jitdump_parse(d.b, d.n, "hdr.dump", &j) == -EINVAL);
	free(d.b);
}

/* Every prefix of the sample dump: no crash (ASan), the records wholly
   inside kept, one problem at the cut record's offset. */
static void test_jitdump_truncated(void)
{
	struct dump d = { 0 };
	size_t ends[16], nends = 0, off = 40;

	sample_dump(&d);
	while (off < d.n) {
		uint32_t size;
		memcpy(&size, d.b + off + 4, 4);
		off += size;
		ends[nends++] = off;
	}
	CHECK(off == d.n && nends == 7);
	for (size_t cut = 40; cut <= d.n; cut++) {
		/* a copy of exactly CUT bytes: ASan sees any read past it */
		uint8_t *p = malloc(cut);
		struct hwp__jitdump *j = NULL;

		memcpy(p, d.b, cut);
		CHECK(hwp__jitdump_parse(p, cut, "cut.dump", &j) == 0);
		size_t whole = 0, start = 40;
		while (whole < nends && ends[whole] <= cut)
			start = ends[whole++];
		if (j) {
			bool at_end = cut == start;
			CHECK(j->problems == (at_end ? 0u : 1u));
			if (!at_end)
				CHECK(j->problem_offset == start);
			/* loads wholly inside: records 1 and 4 (0-based) are loads */
			size_t loads = (whole > 1) + (whole > 4);
			CHECK(j->n_loads == loads);
		}
		hwp__jitdump_delete(j);
		free(p);
	}
	free(d.b);
}

static void test_jitdump_corrupt_records(void)
{
	struct dump d = { 0 };
	struct hwp__jitdump *j = NULL;

	header(&d, 1, 0, 40);
	/* code larger than its record */
	size_t at = load(&d, 1, 0x1000, 1, "big", loop_code, 4);
	uint64_t huge = 1000;
	memcpy(d.b + at + 40, &huge, 8);
	/* a name without its NUL before the code */
	size_t at2 = load(&d, 2, 0x2000, 2, "noz", loop_code, 4);
	d.b[at2 + 56 + 3] = 'x';
	/* more debug entries than fit */
	static const struct entry e[] = { { 0x3000, 1, "f" } };
	size_t at3 = d.n;
	debug_info(&d, 3, 0x3000, e, 1);
	uint64_t many = 1u << 30;
	memcpy(d.b + at3 + 24, &many, 8);
	/* a record below its header's size: reading stops there */
	load(&d, 4, 0x4000, 4, "good", loop_code, 4);
	size_t at4 = d.n;
	prefix(&d, 0, 8, 5);
	load(&d, 6, 0x5000, 5, "after", loop_code, 4);
	CHECK(hwp__jitdump_parse(d.b, d.n, "corrupt.dump", &j) == 0);
	CHECK(j && j->n_loads == 1 && is(j->codes[0].name, "good") && j->codes[0].n_lines == 0);
	CHECK(j && j->problems == 4 && j->problem_offset == at && strstr(j->problem, "bytes of code"));
	(void)at4;
	hwp__jitdump_delete(j);
	free(d.b);
}

static void test_jitdump_marker(void)
{
	int32_t pid = 0;

	CHECK(hwp__jitdump_marker("/home/u/jit-123.dump", 123, &pid) && pid == 123);
	CHECK(hwp__jitdump_marker("/home/u/jit-123.dump", 0, NULL)); /* system-wide: any */
	CHECK(!hwp__jitdump_marker("/home/u/jit-123.dump", 124, NULL));
	CHECK(!hwp__jitdump_marker("jit-123.dump", 123, NULL)); /* perf wants a '/' */
	CHECK(!hwp__jitdump_marker("/x/jit-123.dump.1", 123, NULL));
	CHECK(!hwp__jitdump_marker("/x/jit-.dump", 0, NULL));
	CHECK(!hwp__jitdump_marker("/x/jitted-123-4.so", 123, NULL));
}

/* ------------------------------------------------------------ symbolizer */

static char tmp[256];

static void write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		CHECK(fwrite(p, 1, n, f) == n);
		fclose(f);
	}
}

static void test_symbolizer_perf_map(void)
{
	char dir[512], path[600];
	struct hwp_symbol_info si;

	snprintf(dir, sizeof(dir), "%s/symfs/tmp", tmp);
	snprintf(path, sizeof(path), "mkdir -p %s", dir);
	CHECK(system(path) == 0);
	snprintf(path, sizeof(path), "%s/perf-2000000001.map", dir);
	const char *text = "1000 100 _Z3foov\nnot a line\n2000 10 second\n";
	write_file(path, text, strlen(text));
	snprintf(dir, sizeof(dir), "%s/symfs", tmp);
	struct hwp_symbolizer_opts o = { .sz = sizeof(o), .symfs = dir, .debug_dirs = "" };
	struct hwp_symbolizer *s = hwp_symbolizer__new(&o);
	int id = hwp_symbolizer__module(s, "/tmp/perf-2000000001.map", NULL, 0);
	int none = hwp_symbolizer__module(s, "/tmp/perf-2000000002.map", NULL, 0);

	CHECK(id >= 0 && none >= 0);
	CHECK(is(hwp_symbolizer__module_short_name(s, id), "[JIT] tid 2000000001"));
	CHECK(hwp_symbolizer__lookup(s, id, 0x1010, &si) == 0);
	/* as written: perf 6.1 demangles no perf map name */
	CHECK(is(si.symbol, "_Z3foov") && si.sym_offset == 0x10 && si.sym_start == 0x1000 && si.sym_size == 0x100);
	CHECK(si.vaddr == 0x1010 && !si.file);
	CHECK(hwp_symbolizer__lookup(s, id, 0x2005, &si) == 0 && is(si.symbol, "second"));
	CHECK(hwp_symbolizer__lookup(s, id, 0x3000, &si) == 0 && !si.symbol);
	/* a missing map: no symbols, and not reported as a missing binary */
	CHECK(hwp_symbolizer__lookup(s, none, 0x1000, &si) == -ENOENT);
	CHECK(hwp_symbolizer__missing(s, NULL, 0, NULL) == 0);
	CHECK(hwp_symbolizer__module_file(s, id) == NULL);
	hwp_symbolizer__delete(s);
}

static void test_symbolizer_jitdump(void)
{
	char path[600], marker[600];
	struct dump d = { 0 };
	struct hwp_symbol_info si;

	snprintf(path, sizeof(path), "%s/jit-4321.dump", tmp);
	sample_dump(&d);
	write_file(path, d.b, d.n);
	free(d.b);
	/* the marker as the recording names it: the dump's own path */
	snprintf(marker, sizeof(marker), "%s", path);
	struct hwp__jit_sources *js = hwp__jit_sources_new(NULL);
	const struct hwp__jitdump *jd = hwp__jit_sources_dump(js, marker);
	CHECK(jd && jd->n_loads == 2);
	struct hwp_symbolizer_opts o = { .sz = sizeof(o), .debug_dirs = "" };
	struct hwp_symbolizer *s = hwp_symbolizer__new(&o);
	hwp__symbolizer_set_jit_sources(s, js);
	hwp__jit_sources_put(js); /* the symbolizer holds its own reference */

	char name[700];
	snprintf(name, sizeof(name), "%s/jitted-4321-7.so", tmp);
	int id = hwp_symbolizer__module(s, name, NULL, 0);
	snprintf(name, sizeof(name), "%s/jitted-4321-8.so", tmp);
	int id8 = hwp_symbolizer__module(s, name, NULL, 0);
	CHECK(id >= 0 && id8 >= 0);
	CHECK(is(hwp_symbolizer__module_short_name(s, id), "jitted-4321-7.so"));
	/* module offsets as in perf inject's image: the code from 0x80 */
	CHECK(hwp_symbolizer__lookup(s, id, 0x80 + 7, &si) == 0);
	CHECK(is(si.symbol, "JS:*loop /src/a.js:10") && si.sym_offset == 7 && si.sym_start == 0x80 &&
	      si.sym_size == sizeof(loop_code));
	CHECK(is(si.file, "/src/b.js") && si.line == 12);
	CHECK(hwp_symbolizer__lookup(s, id, 0x80 + 3, &si) == 0 && si.line == 11);
	CHECK(hwp_symbolizer__lookup(s, id, 0x7f, &si) == 0 && !si.symbol);
	CHECK(hwp_symbolizer__lookup(s, id, 0x80 + sizeof(loop_code), &si) == 0 && !si.symbol);
	CHECK(hwp_symbolizer__lookup(s, id8, 0x81, &si) == 0 && is(si.symbol, "JS:*again") && !si.file);
	CHECK(hwp_symbolizer__missing(s, NULL, 0, NULL) == 0);
	uint64_t va = 0;
	CHECK(hwp_symbolizer__module_vaddr(s, id, 0x85, &va) == 0 && va == 0x85);

	/* the code bytes decode: instruction starts of the loop */
	struct hwp__code_file *f = hwp__symbolizer_open_code(s, id);
	CHECK(f != NULL);
	if (f) {
		uint8_t bits[2] = { 0 };
		uint64_t vaddr = 0;
		size_t left = 0;
		const uint8_t *p = hwp__code_file_at_offset(f, 0x80 + 2, &vaddr, &left);

		CHECK(p && *p == 0xff && vaddr == 0x82 && left == sizeof(loop_code) - 2);
		CHECK(hwp__code_file_machine(f) == EM_X86_64);
		int rc = hwp__code_file_insn_starts(f, 0x80, sizeof(loop_code), bits);
		if (rc == -ENOTSUP) {
			printf("# built without Capstone: instruction starts not checked\n");
		} else {
			CHECK(rc == 0);
			/* starts at 0, 2, 4, 7, 9 */
			CHECK(bits[0] == (1u << 0 | 1u << 2 | 1u << 4 | 1u << 7) && bits[1] == (1u << 1));
		}
		CHECK(hwp__code_file_at_offset(f, 0x80 + sizeof(loop_code), &vaddr, &left) == NULL);
		hwp__code_file_close(f);
	}
	CHECK(hwp__symbolizer_code_file(s, id) != NULL);
	/* a jitted name no dump read here knows is an ELF file (perf inject's output) */
	int other = hwp_symbolizer__module(s, "/nonexistent/jitted-4321-7.so", NULL, 0);
	CHECK(hwp_symbolizer__lookup(s, other, 0x80, &si) == -ENOENT);
	hwp_symbolizer__delete(s);
}

static void test_code_file_mem(void)
{
	struct hwp__code_file *f = hwp__code_file_open_mem(loop_code, sizeof(loop_code), 0x80, EM_AARCH64);
	uint64_t off = 0;

	CHECK(f && hwp__code_file_machine(f) == EM_AARCH64);
	CHECK(f && hwp__code_file_vaddr_to_offset(f, 0x84, &off) == 0 && off == 0x84);
	CHECK(f && hwp__code_file_vaddr_to_offset(f, 0x80 + sizeof(loop_code), &off) == -ERANGE);
	CHECK(f && !hwp__code_file_is_program(f));
	hwp__code_file_close(f);
	/* the text offset must leave room for the headers */
	CHECK(hwp__code_file_open_mem(loop_code, 4, 0x40, EM_X86_64) == NULL && errno == EINVAL);
	f = hwp__code_file_open_mem(NULL, 0, 0x80, EM_X86_64);
	CHECK(f != NULL);
	hwp__code_file_close(f);
}

int main(void)
{
	snprintf(tmp, sizeof(tmp), "%s/hwprof-test-jit.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp))
		tmp[0] = 0;
	RUN(test_perf_map_good_lines);
	RUN(test_perf_map_bad_lines);
	RUN(test_perf_map_overlaps);
	RUN(test_perf_map_huge_sizes);
	RUN(test_perf_map_perf_junk);
	RUN(test_perf_map_names);
	RUN(test_jitdump_records);
	RUN(test_jitdump_byte_swapped);
	RUN(test_jitdump_header_errors);
	RUN(test_jitdump_truncated);
	RUN(test_jitdump_corrupt_records);
	RUN(test_jitdump_marker);
	RUN(test_symbolizer_perf_map);
	RUN(test_symbolizer_jitdump);
	RUN(test_code_file_mem);
	if (tmp[0] && !getenv("HWPROF_KEEP_TMP")) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmp);
	}
	TL_EXIT();
}
