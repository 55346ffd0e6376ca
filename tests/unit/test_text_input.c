/* SPDX-License-Identifier: MIT */
/* perf script text input: corpus oracles, llvm-profgen perfscript, variants, errors. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testlib.h"

#include "format/text_input.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "hwprof/perf_data.h"
#include "util/bytes.h"

/* ------------------------------------------------------------------------ */
/* helpers */

struct buf {
	char *p;
	size_t n;
};

static int read_stream(FILE *f, struct buf *b)
{
	size_t cap = 1 << 16;

	b->n = 0;
	b->p = malloc(cap);
	if (!b->p)
		return -1;
	for (;;) {
		size_t got;

		if (b->n == cap) {
			char *np = realloc(b->p, cap * 2);

			if (!np)
				return -1;
			b->p = np;
			cap *= 2;
		}
		got = fread(b->p + b->n, 1, cap - b->n, f);
		if (got == 0)
			break;
		b->n += got;
	}
	return ferror(f) ? -1 : 0;
}

static int read_gz(const char *path, struct buf *b)
{
	char cmd[1024];
	FILE *f;
	int rc;

	snprintf(cmd, sizeof(cmd), "gzip -dc '%s'", path);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	rc = read_stream(f, b);
	if (pclose(f) != 0)
		rc = -1;
	return rc;
}

static int read_plain(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	int rc;

	if (!f)
		return -1;
	rc = read_stream(f, b);
	fclose(f);
	return rc;
}

/* A decoded synthetic record (bounds-checked against its size). */
struct rec {
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	const uint8_t *d;
	/* samples */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t cnr;
	const uint8_t *chain;
	uint64_t bnr;
	const uint8_t *br;
};

/* Returns 0 when the record is well formed. */
static int decode(const uint8_t *r, uint32_t size, uint64_t sample_type, struct rec *o)
{
	size_t off = 24;

	memset(o, 0, sizeof(*o));
	if (size < 8 || size > 65535 || size % 8)
		return -1;
	o->type = ld32(r);
	o->misc = ld16(r + 4);
	o->size = ld16(r + 6);
	o->d = r;
	if (o->size != size)
		return -1;
	if (o->type != HWP_RECORD_SAMPLE)
		return 0;
	if (size < 32)
		return -1;
	o->ip = ld64(r + 8);
	o->pid = ld32(r + 16);
	o->tid = ld32(r + 20);
	if (sample_type & HWP_SAMPLE_CALLCHAIN) {
		o->cnr = ld64(r + off);
		off += 8;
		if (o->cnr > (size - off) / 8)
			return -1;
		o->chain = r + off;
		off += 8 * o->cnr;
	}
	if (off + 8 > size)
		return -1;
	o->bnr = ld64(r + off);
	off += 8;
	if (o->bnr > (size - off) / 24)
		return -1;
	o->br = r + off;
	off += 24 * o->bnr;
	return off == size ? 0 : -1;
}

static void entry(const struct rec *o, uint64_t i, uint64_t *from, uint64_t *to, uint64_t *flags)
{
	*from = ld64(o->br + 24 * i);
	*to = ld64(o->br + 24 * i + 8);
	*flags = ld64(o->br + 24 * i + 16);
}

/* Formats a sample the way perf 6.1 `perf script -F ip,brstack` does. */
static size_t format_perf61(const struct rec *o, char *out, size_t cap)
{
	size_t n = 0;
	uint64_t i;

	n += (size_t)snprintf(out + n, cap - n, " %16llx", (unsigned long long)o->ip);
	for (i = 0; i < o->bnr && n < cap; i++) {
		uint64_t f, t, fl;
		char ev;

		entry(o, i, &f, &t, &fl);
		ev = !(fl & 3) ? '-' : (fl & 2) ? 'P' : 'M';
		n += (size_t)snprintf(out + n, cap - n, " 0x%llx/0x%llx/%c/%c/%c/%u/ ",
				      (unsigned long long)f, (unsigned long long)t, ev,
				      (fl & 4) ? 'X' : '-', (fl & 8) ? 'A' : '-',
				      (unsigned)((fl >> 4) & 0xffff));
	}
	return n < cap ? n : cap;
}

struct stats {
	uint64_t records, samples, entries, mispred, predicted, cycles_nz, kernel_ip;
	uint64_t by_type[HWP_RECORD_TYPE_MAX];
	uint64_t line_mismatch, bad_records;
	bool found_first;
};

/* Runs the whole text. Returns next()'s final code (0 or <0). */
static int run_text(const char *text, size_t len, const char *name, struct stats *st,
		    bool check_lines, const uint64_t first[3])
{
	struct hwp_text_input *t = hwp__text_input_new((const uint8_t *)text, len, name);
	const uint8_t *r;
	uint32_t size;
	uint64_t off;
	int rc;
	static char line[1 << 20];

	memset(st, 0, sizeof(*st));
	if (!t)
		return -errno;
	const struct hwp_attr *a = hwp__text_input_attr(t);

	while ((rc = hwp__text_input_next(t, &r, &size, &off)) > 0) {
		struct rec o;

		st->records++;
		if (decode(r, size, a->sample_type, &o) || off >= len) {
			st->bad_records++;
			continue;
		}
		if (o.type < HWP_RECORD_TYPE_MAX)
			st->by_type[o.type]++;
		if (o.type != HWP_RECORD_SAMPLE)
			continue;
		st->samples++;
		st->entries += o.bnr;
		if ((o.misc & HWP_MISC_CPUMODE_MASK) == HWP_MISC_KERNEL)
			st->kernel_ip++;
		for (uint64_t i = 0; i < o.bnr; i++) {
			uint64_t f, to, fl;

			entry(&o, i, &f, &to, &fl);
			st->mispred += fl & 1;
			st->predicted += (fl >> 1) & 1;
			st->cycles_nz += ((fl >> 4) & 0xffff) != 0;
			if (i == 0 && first && f == first[0] && to == first[1] &&
			    (fl & 0xfffff) == (first[2] & 0xfffff))
				st->found_first = true;
		}
		if (check_lines) {
			const char *ls = text + off;
			const char *nl = memchr(ls, '\n', len - off);
			size_t ll = nl ? (size_t)(nl - ls) : len - off;
			size_t n = format_perf61(&o, line, sizeof(line));

			if (n != ll || memcmp(line, ls, n) != 0) {
				if (st->line_mismatch++ < 3)
					fprintf(stderr, "%s: mismatch at offset 0x%llx:\n  text: %.*s\n  ours: %.*s\n",
						name, (unsigned long long)off, (int)(ll > 300 ? 300 : ll), ls,
						(int)(n > 300 ? 300 : n), line);
			}
		}
	}
	hwp__text_input_delete(t);
	return rc;
}

/* ------------------------------------------------------------------------ */
/* corpus oracles */

struct oracle {
	const char *file;
	uint64_t samples, entries, mispred, predicted, cycles_nz, kernel_ip;
	uint64_t first_from, first_to, first_flags;
};

/* Sample and flag counts from ../shared/corpus/summary.jsonl (the binary files). */
static const struct oracle oracles[] = {
	{"autofdo_hierarchical_discriminator_test.x86_64.perf.data.perf61.ip-brstack.txt.gz", 145, 2320, 28, 2292, 0, 17, 0xffffffff8f3fcf88, 0xffffffff8f3fcdb0, 0x2},
	{"autofdo_perf-kernel.data.perf61.ip-brstack.txt.gz", 24, 1445, 0, 1445, 0, 24, 0xffffffe43f940d6c, 0xffffffe440176d28, 0x2},
	{"autofdo_perf-vmlinux.data.perf61.ip-brstack.txt.gz", 56, 1991, 0, 1991, 0, 56, 0xffffffd3ffeabe14, 0xffffffd3ffea1ff0, 0x2},
	{"autofdo_propeller_sample.perfdata.perf61.ip-brstack.txt.gz", 4639, 148448, 482, 147966, 148070, 22, 0xffffffffa440d152, 0xffffffffa44637d0, 0xc2},
	{"autofdo_propeller_sample_1.perfdata1.perf61.ip-brstack.txt.gz", 3740, 119424, 5, 119419, 119420, 3, 0x5629ec7428f4, 0x5629ec742901, 0x132},
	{"autofdo_test.lbr.perf61.ip-brstack.txt.gz", 9232, 147712, 9319, 138393, 0, 11, 0xffffffff80330812, 0xffffffff8032d7c0, 0x2},
	{"perf_data_converter_perf.data.branch-4.14.perf61.ip-brstack.txt.gz", 13, 416, 21, 395, 386, 11, 0xffffffffb4208e16, 0xffffffffb42071e3, 0x42},
	{"perf_data_converter_perf.data.branch_stack_hw_index.perf61.ip-brstack.txt.gz", 5, 116, 0, 116, 0, 0, 0x1085ab3a, 0x1085b598, 0x2},
	{"perf_data_converter_perf.data.branch_stack_spec.perf61.ip-brstack.txt.gz", 8, 128, 9, 119, 0, 8, 0xffffffff9dd022c4, 0xffffffff9dd022b2, 0x2000002},
	{"perf_data_converter_perf.data.callgraph_and_branch-3.8.perf61.ip-brstack.txt.gz", 1856, 29696, 1716, 27980, 0, 631, 0xffffffff96612350, 0xffffffff96613a9a, 0x2},
	{"perf_data_converter_perf.data.raw_callgraph_branch-3.4.perf61.ip-brstack.txt.gz", 513, 8208, 453, 7755, 0, 214, 0xffffffff81019b96, 0xffffffff81019c58, 0x2},
	{"perfparser_vector_static_gcc_perf.lbr.data.perf61.ip-brstack.txt.gz", 29, 69, 0, 0, 0, 12, 0x417a53, 0x41b3b0, 0x0},
	{"simpleperf_lbr_perf_lbr.data.perf61.ip-brstack.txt.gz", 19, 386, 0, 386, 385, 0, 0x5597dfefd94d, 0x5597dfefd940, 0x162},
	{"simpleperf_perf_b.data.perf61.ip-brstack.txt.gz", 150, 2400, 0, 2400, 0, 1, 0x400513, 0x4004ed, 0x2},
};

static void test_corpus_oracles(void)
{
	const char *dir = tl_corpus();
	char path[1024];
	size_t i;

	if (!dir)
		SKIP("corpus not found (set HWPROF_CORPUS)");
	for (i = 0; i < sizeof(oracles) / sizeof(oracles[0]); i++) {
		const struct oracle *o = &oracles[i];
		const uint64_t first[3] = {o->first_from, o->first_to, o->first_flags};
		struct buf b;
		struct stats st;
		uint64_t lines = 0;
		int rc;

		snprintf(path, sizeof(path), "%s/oracles/%s", dir, o->file);
		if (read_gz(path, &b)) {
			fprintf(stderr, "cannot read %s\n", path);
			tl_case_failed = 1;
			free(b.p);
			continue;
		}
		for (size_t k = 0; k < b.n; k++)
			lines += b.p[k] == '\n';
		CHECK(hwp__text_input_looks_like((const uint8_t *)b.p, b.n));
		rc = run_text(b.p, b.n, o->file, &st, true, first);
		if (rc)
			fprintf(stderr, "%s: %s\n", o->file, hwp_errmsg());
		CHECK_EQ_U64(rc, 0);
		CHECK_EQ_U64(st.bad_records, 0);
		CHECK_EQ_U64(st.records, st.samples); /* oracles have no PERF_RECORD lines */
		CHECK_EQ_U64(st.samples, lines);
		CHECK_EQ_U64(st.samples, o->samples);
		CHECK_EQ_U64(st.entries, o->entries);
		CHECK_EQ_U64(st.mispred, o->mispred);
		CHECK_EQ_U64(st.predicted, o->predicted);
		CHECK_EQ_U64(st.cycles_nz, o->cycles_nz);
		CHECK_EQ_U64(st.kernel_ip, o->kernel_ip);
		CHECK_EQ_U64(st.line_mismatch, 0);
		if (o->entries)
			CHECK(st.found_first);
		if (tl_case_failed)
			fprintf(stderr, "  (in %s)\n", o->file);
		free(b.p);
	}
}

/* Attr and first records of the test.lbr oracle, checked field by field. */
static void test_oracle_spot_check(void)
{
	const char *dir = tl_corpus();
	char path[1024];
	struct buf b;
	struct hwp_text_input *t;
	const uint8_t *r;
	uint32_t size;
	uint64_t off, f, to, fl;
	struct rec o;

	if (!dir)
		SKIP("corpus not found (set HWPROF_CORPUS)");
	snprintf(path, sizeof(path), "%s/oracles/autofdo_test.lbr.perf61.ip-brstack.txt.gz", dir);
	if (read_gz(path, &b)) {
		free(b.p);
		SKIP("cannot read %.200s", path);
	}
	t = hwp__text_input_new((const uint8_t *)b.p, b.n, "test.lbr.txt");
	CHECK(t != NULL);
	if (!t) {
		free(b.p);
		return;
	}
	const struct hwp_attr *a = hwp__text_input_attr(t);
	CHECK_EQ_U64(a->sample_type, HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_BRANCH_STACK);
	CHECK_EQ_U64(a->branch_sample_type, HWP_BRANCH_ANY);
	CHECK_EQ_U64(a->size, 128);
	CHECK(!hwp_attr__flag(a, HWP_ATTR_SAMPLE_ID_ALL));

	/* line 1: " ffffffff8032d7e0 0xffffffff80330812/0xffffffff8032d7c0/P/-/-/0/ ..." */
	CHECK_EQ_U64(hwp__text_input_next(t, &r, &size, &off), 1);
	CHECK_EQ_U64(off, 0);
	CHECK_EQ_U64(size, 32 + 16 * 24);
	CHECK(decode(r, size, a->sample_type, &o) == 0);
	CHECK_EQ_U64(o.type, HWP_RECORD_SAMPLE);
	CHECK_EQ_U64(o.misc, HWP_MISC_KERNEL);
	CHECK_EQ_U64(o.ip, 0xffffffff8032d7e0ULL);
	CHECK_EQ_U64(o.bnr, 16);
	entry(&o, 0, &f, &to, &fl);
	CHECK_EQ_U64(f, 0xffffffff80330812ULL);
	CHECK_EQ_U64(to, 0xffffffff8032d7c0ULL);
	CHECK_EQ_U64(fl, 2);
	entry(&o, 15, &f, &to, &fl);
	CHECK_EQ_U64(f, 0xffffffff8032d802ULL);
	CHECK_EQ_U64(to, 0xffffffff8037a570ULL);

	/* line 2: user ip 7ffff7b11b17, text offset = length of line 1 + 1 */
	const char *nl = memchr(b.p, '\n', b.n);
	CHECK_EQ_U64(hwp__text_input_next(t, &r, &size, &off), 1);
	CHECK_EQ_U64(off, (uint64_t)(nl + 1 - b.p));
	CHECK(decode(r, size, a->sample_type, &o) == 0);
	CHECK_EQ_U64(o.misc, HWP_MISC_USER);
	CHECK_EQ_U64(o.ip, 0x7ffff7b11b17ULL);
	entry(&o, 0, &f, &to, &fl);
	CHECK_EQ_U64(f, 0x7ffff7b11bbdULL);
	CHECK_EQ_U64(to, 0x7ffff7b11b10ULL);
	hwp__text_input_delete(t);
	free(b.p);
}

/* ------------------------------------------------------------------------ */
/* llvm-profgen perfscript: older perf, MMAP2 line, callchains */

static void test_llvm_perfscript(void)
{
	const char *dir = tl_corpus();
	char path[1024];
	struct buf b;
	struct hwp_text_input *t;
	const uint8_t *r;
	uint32_t size;
	uint64_t off, f, to, fl;
	struct rec o;
	int n = 0, rc;

	if (!dir)
		SKIP("corpus not found (set HWPROF_CORPUS)");
	snprintf(path, sizeof(path), "%s/llvm-profgen/noinline-cs-pseudoprobe.perfscript", dir);
	if (read_plain(path, &b)) {
		free(b.p);
		SKIP("cannot read %.200s", path);
	}
	CHECK(hwp__text_input_looks_like((const uint8_t *)b.p, b.n));
	t = hwp__text_input_new((const uint8_t *)b.p, b.n, "noinline.perfscript");
	CHECK(t != NULL);
	if (!t) {
		free(b.p);
		return;
	}
	const struct hwp_attr *a = hwp__text_input_attr(t);
	CHECK_EQ_U64(a->sample_type, HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_CALLCHAIN |
					     HWP_SAMPLE_BRANCH_STACK);

	/* PERF_RECORD_MMAP2 1243676/1243676: [0x301000(0x1000) @ 0 00:1d 224517108 1044165]: r-xp /home/noinline-cs-pseudoprobe.perfbin */
	CHECK_EQ_U64(hwp__text_input_next(t, &r, &size, &off), 1);
	CHECK(decode(r, size, a->sample_type, &o) == 0);
	CHECK_EQ_U64(o.type, HWP_RECORD_MMAP2);
	CHECK_EQ_U64(off, 0);
	CHECK_EQ_U64(o.misc, HWP_MISC_USER);
	CHECK_EQ_U64(ld32(r + 8), 1243676);
	CHECK_EQ_U64(ld32(r + 12), 1243676);
	CHECK_EQ_U64(ld64(r + 16), 0x301000);
	CHECK_EQ_U64(ld64(r + 24), 0x1000);
	CHECK_EQ_U64(ld64(r + 32), 0);
	CHECK_EQ_U64(ld32(r + 40), 0);
	CHECK_EQ_U64(ld32(r + 44), 0x1d);
	CHECK_EQ_U64(ld64(r + 48), 224517108);
	CHECK_EQ_U64(ld64(r + 56), 1044165);
	CHECK_EQ_U64(ld32(r + 64), 5); /* PROT_READ|PROT_EXEC */
	CHECK_EQ_U64(ld32(r + 68), 2); /* MAP_PRIVATE */
	CHECK(strcmp((const char *)r + 72, "/home/noinline-cs-pseudoprobe.perfbin") == 0);
	CHECK_EQ_U64(size, 72 + 40);

	while ((rc = hwp__text_input_next(t, &r, &size, &off)) > 0) {
		CHECK(decode(r, size, a->sample_type, &o) == 0);
		CHECK_EQ_U64(o.type, HWP_RECORD_SAMPLE);
		CHECK_EQ_U64(o.pid, 1243676); /* from the MMAP2 line: the text has no pid */
		CHECK_EQ_U64(o.tid, 1243676);
		CHECK_EQ_U64(o.bnr, 16);
		CHECK_EQ_U64(o.cnr, 5); /* PERF_CONTEXT_USER + 4 frames */
		if (o.cnr == 5) {
			CHECK_EQ_U64(ld64(o.chain), HWP_CONTEXT_USER);
			CHECK_EQ_U64(ld64(o.chain + 8), o.ip);
			CHECK_EQ_U64(ld64(o.chain + 16), 0x3017f9);
			CHECK_EQ_U64(ld64(o.chain + 24), 0x7f83e84e7793ULL);
			CHECK_EQ_U64(ld64(o.chain + 32), 0x5541f689495641d7ULL);
		}
		CHECK_EQ_U64(o.misc, HWP_MISC_USER);
		CHECK(b.p[off] == '\n' || b.p[off] == '\t');
		if (n == 0) {
			CHECK_EQ_U64(o.ip, 0x30179e);
			entry(&o, 0, &f, &to, &fl);
			CHECK_EQ_U64(f, 0x3017cf);
			CHECK_EQ_U64(to, 0x30179e);
			CHECK_EQ_U64(fl, 2);
			entry(&o, 15, &f, &to, &fl);
		} else {
			CHECK_EQ_U64(o.ip, 0x3017c4);
			entry(&o, 0, &f, &to, &fl);
			CHECK_EQ_U64(f, 0x30177f);
			CHECK_EQ_U64(to, 0x3017c4);
		}
		n++;
	}
	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(n, 3);
	hwp__text_input_delete(t);
	free(b.p);
}

/* ------------------------------------------------------------------------ */
/* synthetic variants */

struct collected {
	int n;
	struct rec r[32];
	uint8_t copy[32][2048];
	uint64_t off[32];
	uint64_t sample_type;
	uint64_t bst;
	int rc;
};

static void collect(const char *text, struct collected *c)
{
	struct hwp_text_input *t = hwp__text_input_new((const uint8_t *)text, strlen(text), "t.txt");
	const uint8_t *r;
	uint32_t size;
	uint64_t off;

	memset(c, 0, sizeof(*c));
	if (!t) {
		c->rc = -errno;
		return;
	}
	c->sample_type = hwp__text_input_attr(t)->sample_type;
	c->bst = hwp__text_input_attr(t)->branch_sample_type;
	while ((c->rc = hwp__text_input_next(t, &r, &size, &off)) > 0 && c->n < 32) {
		if (size > sizeof(c->copy[0]))
			size = sizeof(c->copy[0]);
		memcpy(c->copy[c->n], r, size);
		if (decode(c->copy[c->n], size, c->sample_type, &c->r[c->n]))
			c->r[c->n].type = 0xdead;
		c->off[c->n] = off;
		c->n++;
	}
	hwp__text_input_delete(t);
}

static void test_prefix_fields_and_sideband(void)
{
	static const char text[] =
		"# ========\n"
		"# captured on    : Thu Jan  1 00:00:00 2025\n"
		"# ========\n"
		"#\n"
		"            perf     0/0     [000]     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1000000) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
		"            prog  4242/4242  [001]     1.000000: PERF_RECORD_COMM exec: prog:4242/4242\n"
		"            prog  4242/4242  [001]     1.000001: PERF_RECORD_MMAP2 4242/4242: [0x400000(0x2000) @ 0 08:01 1234 5]: r-xp /usr/bin/my prog\n"
		"            prog  4242/4242  [001]     1.000002: PERF_RECORD_MMAP2 4242/4242: [0x7f0000000000(0x1000) @ 0x1000 <0123456789abcdef0123456789abcdef01234567>]: r--s /lib/libx.so\n"
		"            prog  4242/4243  [001]     1.000003: PERF_RECORD_FORK(4242:4243):(4242:4242)\n"
		"            prog  4242/4242  [001]     1.100000:           401000 0x400100/0x400200/P/-/-/5/COND/-  0x400300/0x400400/M/X/A/65535/IND_CALL/SPEC_WRONG_PATH  0x1/0x2/-/-/-/0//NON_SPEC_CORRECT_PATH \n"
		"   worker thread  4242/4243  [001]     1.100001: ffffffff81000100 0x400100/0x400200/PN/-/-/7/FAULT_ALGN/ \n"
		"   worker thread  4242/4243  [001]     1.100002:           401002\n"
		"            prog  4242/4242  [001]     1.200000: PERF_RECORD_LOST lost 0/0 [000]\n"
		"            prog  4242/4242  [001]     1.200001: PERF_RECORD_EXIT(4242:4242):(1:1)\n";
	struct collected c;
	uint64_t f, to, fl;

	collect(text, &c);
	CHECK_EQ_U64(c.rc, 0);
	CHECK_EQ_U64(c.sample_type, HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_BRANCH_STACK);
	CHECK_EQ_U64(c.bst, HWP_BRANCH_ANY | HWP_BRANCH_TYPE_SAVE);
	CHECK_EQ_U64(c.n, 10);
	if (c.n != 10)
		return;
	/* MMAP, kernel */
	CHECK_EQ_U64(c.r[0].type, HWP_RECORD_MMAP);
	CHECK_EQ_U64(c.r[0].misc, HWP_MISC_KERNEL);
	CHECK_EQ_U64(ld32(c.copy[0] + 8), 0xffffffffu);
	CHECK_EQ_U64(ld64(c.copy[0] + 16), 0xffffffff81000000ULL);
	CHECK_EQ_U64(ld64(c.copy[0] + 24), 0x1000000);
	CHECK_EQ_U64(ld64(c.copy[0] + 32), 0xffffffff81000000ULL);
	CHECK(strcmp((char *)c.copy[0] + 40, "[kernel.kallsyms]_text") == 0);
	CHECK(c.off[0] == (uint64_t)(strstr(text, "            perf") - text));
	/* COMM exec */
	CHECK_EQ_U64(c.r[1].type, HWP_RECORD_COMM);
	CHECK_EQ_U64(c.r[1].misc, HWP_MISC_COMM_EXEC);
	CHECK_EQ_U64(ld32(c.copy[1] + 8), 4242);
	CHECK(strcmp((char *)c.copy[1] + 16, "prog") == 0);
	/* MMAP2 with inode, file name with a space */
	CHECK_EQ_U64(c.r[2].type, HWP_RECORD_MMAP2);
	CHECK_EQ_U64(c.r[2].misc, HWP_MISC_USER);
	CHECK_EQ_U64(ld32(c.copy[2] + 40), 8);
	CHECK_EQ_U64(ld32(c.copy[2] + 44), 1);
	CHECK_EQ_U64(ld64(c.copy[2] + 48), 1234);
	CHECK_EQ_U64(ld64(c.copy[2] + 56), 5);
	CHECK(strcmp((char *)c.copy[2] + 72, "/usr/bin/my prog") == 0);
	/* MMAP2 with a build-id */
	CHECK_EQ_U64(c.r[3].type, HWP_RECORD_MMAP2);
	CHECK_EQ_U64(c.r[3].misc, HWP_MISC_USER | HWP_MISC_MMAP_BUILD_ID);
	CHECK_EQ_U64(c.copy[3][40], 20);
	CHECK_EQ_U64(c.copy[3][44], 0x01);
	CHECK_EQ_U64(c.copy[3][63], 0x67);
	CHECK_EQ_U64(ld64(c.copy[3] + 32), 0x1000);
	CHECK_EQ_U64(ld32(c.copy[3] + 64), 1); /* r-- */
	CHECK_EQ_U64(ld32(c.copy[3] + 68), 1); /* shared */
	/* FORK: pid, ppid, tid, ptid */
	CHECK_EQ_U64(c.r[4].type, HWP_RECORD_FORK);
	CHECK_EQ_U64(ld32(c.copy[4] + 8), 4242);
	CHECK_EQ_U64(ld32(c.copy[4] + 12), 4242);
	CHECK_EQ_U64(ld32(c.copy[4] + 16), 4243);
	CHECK_EQ_U64(ld32(c.copy[4] + 20), 4242);
	/* sample: comm "prog" known from the COMM line -> no synthesized COMM */
	CHECK_EQ_U64(c.r[5].type, HWP_RECORD_SAMPLE);
	CHECK_EQ_U64(c.r[5].ip, 0x401000);
	CHECK_EQ_U64(c.r[5].pid, 4242);
	CHECK_EQ_U64(c.r[5].tid, 4242);
	CHECK_EQ_U64(c.r[5].bnr, 3);
	entry(&c.r[5], 0, &f, &to, &fl);
	CHECK_EQ_U64(fl, 2 | 5 << 4 | 1ULL << 20);
	entry(&c.r[5], 1, &f, &to, &fl);
	CHECK_EQ_U64(f, 0x400300);
	CHECK_EQ_U64(to, 0x400400);
	CHECK_EQ_U64(fl, 1 | 4 | 8 | 0xffffULL << 4 | 5ULL << 20 | 1ULL << 24);
	entry(&c.r[5], 2, &f, &to, &fl);
	CHECK_EQ_U64(fl, 2ULL << 24);
	/* new thread name -> COMM, then the kernel sample */
	CHECK_EQ_U64(c.r[6].type, HWP_RECORD_COMM);
	CHECK_EQ_U64(c.r[6].misc, 0);
	CHECK_EQ_U64(ld32(c.copy[6] + 8), 4242);
	CHECK_EQ_U64(ld32(c.copy[6] + 12), 4243);
	CHECK(strcmp((char *)c.copy[6] + 16, "worker thread") == 0);
	CHECK_EQ_U64(c.r[7].type, HWP_RECORD_SAMPLE);
	CHECK_EQ_U64(c.off[6], c.off[7]);
	CHECK_EQ_U64(c.r[7].misc, HWP_MISC_KERNEL);
	CHECK_EQ_U64(c.r[7].ip, 0xffffffff81000100ULL);
	CHECK_EQ_U64(c.r[7].tid, 4243);
	entry(&c.r[7], 0, &f, &to, &fl);
	CHECK_EQ_U64(fl, 2 | 7 << 4 | 15ULL << 20 | 0ULL << 26);
	/* same thread, same name: no COMM; depth 0 */
	CHECK_EQ_U64(c.r[8].type, HWP_RECORD_SAMPLE);
	CHECK_EQ_U64(c.r[8].bnr, 0);
	CHECK_EQ_U64(c.r[8].ip, 0x401002);
	/* LOST skipped, EXIT */
	CHECK_EQ_U64(c.r[9].type, HWP_RECORD_EXIT);
	CHECK_EQ_U64(ld32(c.copy[9] + 12), 1);
}

static void test_callchain_with_prefix_crlf(void)
{
	static const char text[] =
		"prog 4242/4242 1.000000: \r\n"
		"\tffffffff81000100 do_syscall_64+0x10 ([kernel.kallsyms])\r\n"
		"\tffffffff81000200\r\n"
		"\t          401000 main+0x0 (/usr/bin/prog)\r\n"
		"\t          401100\r\n"
		" 0x400100/0x400200/P/-/-/5/  0x400300/0x400400/M/-/-/6/ \r\n"
		"prog 4242/4242 1.000001: \r\n"
		"\t          401234\r\n"
		"\r\n"
		"prog 4242/4242 1.000002: \r\n"
		" 0x1/0x2/P/-/-/0/ \r\n";
	struct collected c;
	uint64_t f, to, fl;

	collect(text, &c);
	CHECK_EQ_U64(c.rc, 0);
	CHECK_EQ_U64(c.sample_type, HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_CALLCHAIN |
					    HWP_SAMPLE_BRANCH_STACK);
	CHECK_EQ_U64(c.bst, HWP_BRANCH_ANY);
	CHECK_EQ_U64(c.n, 4);
	if (c.n != 4)
		return;
	CHECK_EQ_U64(c.r[0].type, HWP_RECORD_COMM);
	CHECK_EQ_U64(c.off[0], 0);
	CHECK_EQ_U64(c.r[1].type, HWP_RECORD_SAMPLE);
	CHECK_EQ_U64(c.off[1], 0);
	CHECK_EQ_U64(c.r[1].misc, HWP_MISC_KERNEL);
	CHECK_EQ_U64(c.r[1].ip, 0xffffffff81000100ULL);
	CHECK_EQ_U64(c.r[1].cnr, 6);
	if (c.r[1].cnr == 6) {
		CHECK_EQ_U64(ld64(c.r[1].chain + 0), HWP_CONTEXT_KERNEL);
		CHECK_EQ_U64(ld64(c.r[1].chain + 8), 0xffffffff81000100ULL);
		CHECK_EQ_U64(ld64(c.r[1].chain + 16), 0xffffffff81000200ULL);
		CHECK_EQ_U64(ld64(c.r[1].chain + 24), HWP_CONTEXT_USER);
		CHECK_EQ_U64(ld64(c.r[1].chain + 32), 0x401000);
		CHECK_EQ_U64(ld64(c.r[1].chain + 40), 0x401100);
	}
	CHECK_EQ_U64(c.r[1].bnr, 2);
	entry(&c.r[1], 1, &f, &to, &fl);
	CHECK_EQ_U64(f, 0x400300);
	CHECK_EQ_U64(fl, 1 | 6 << 4);
	CHECK_EQ_U64(c.r[2].type, HWP_RECORD_SAMPLE);
	CHECK_EQ_U64(c.r[2].ip, 0x401234);
	CHECK_EQ_U64(c.r[2].cnr, 2);
	CHECK_EQ_U64(c.r[2].bnr, 0);
	CHECK(c.off[2] == (uint64_t)(strstr(text, "prog 4242/4242 1.000001") - text));
	CHECK_EQ_U64(c.r[3].type, HWP_RECORD_SAMPLE);
	CHECK_EQ_U64(c.r[3].cnr, 0);
	CHECK_EQ_U64(c.r[3].bnr, 1);
	CHECK_EQ_U64(c.r[3].pid, 4242);
}

static void test_pid_only_multiprocess(void)
{
	static const char text[] =
		"; Include the COMM/EXIT events\n"
		"\n"
		"2134119 PERF_RECORD_COMM exec: fork-cs-probe.p:2134119/2134119\n"
		"2134119 PERF_RECORD_MMAP2 2134119/2134119: [0x5868f6755000(0x1000) @ 0x1000 103:02 16517027 395205533]: r-xp /home/fork-cs-probe.perfbin\n"
		"\n"
		"2134119 PERF_RECORD_FORK(2134120:2134120):(2134119:2134119)\n"
		"\n"
		"2134119 \n"
		"\t    5868f6755174\n"
		"\t    5868f67551e1\n"
		" 0x5868f6755178/0x5868f675515c/P/-/-/0//NON_SPEC_CORRECT_PATH  0x5868f6755178/0x5868f675515c/P/-/-/1/UNCOND/- \n"
		"2134120 \n"
		"\t    5868f6755196\n"
		" 0x5868f67551a8/0x5868f675518c/P/-/-/0//NON_SPEC_CORRECT_PATH \n"
		"\n"
		"2134120 PERF_RECORD_EXIT(2134120:2134120):(2134119:2134119)\n";
	struct collected c;
	uint64_t f, to, fl;

	collect(text, &c);
	CHECK_EQ_U64(c.rc, 0);
	CHECK(c.sample_type & HWP_SAMPLE_CALLCHAIN);
	CHECK_EQ_U64(c.bst, HWP_BRANCH_ANY | HWP_BRANCH_TYPE_SAVE); /* UNCOND on the first line */
	CHECK_EQ_U64(c.n, 6);
	if (c.n != 6)
		return;
	CHECK_EQ_U64(c.r[0].type, HWP_RECORD_COMM);
	CHECK(strcmp((char *)c.copy[0] + 16, "fork-cs-probe.p") == 0);
	CHECK_EQ_U64(c.r[1].type, HWP_RECORD_MMAP2);
	CHECK_EQ_U64(ld32(c.copy[1] + 40), 0x103);
	CHECK_EQ_U64(ld32(c.copy[1] + 44), 2);
	CHECK_EQ_U64(c.r[2].type, HWP_RECORD_FORK);
	CHECK_EQ_U64(c.r[3].type, HWP_RECORD_SAMPLE);
	CHECK_EQ_U64(c.r[3].pid, 2134119);
	CHECK_EQ_U64(c.r[3].cnr, 3);
	CHECK_EQ_U64(c.r[3].bnr, 2);
	entry(&c.r[3], 0, &f, &to, &fl);
	CHECK_EQ_U64(fl, 2 | 2ULL << 24);
	entry(&c.r[3], 1, &f, &to, &fl);
	CHECK_EQ_U64(fl, 2 | 1 << 4 | 2ULL << 20);
	CHECK_EQ_U64(c.r[4].type, HWP_RECORD_SAMPLE);
	CHECK_EQ_U64(c.r[4].pid, 2134120);
	CHECK_EQ_U64(c.r[4].tid, 2134120);
	CHECK_EQ_U64(c.r[4].ip, 0x5868f6755196ULL);
	CHECK_EQ_U64(c.r[5].type, HWP_RECORD_EXIT);
}

static void test_old_entry_forms(void)
{
	/* perf < 4.x: no trailing '/', uppercase hex tolerated, 0x-prefixed ip */
	static const char text[] =
		" 0x4005D0 0x4005c0/0x4005D0/M/-/-/0  0x1/0x2  0x3/0x4/P\n"
		"     4005d0\n";
	struct collected c;
	uint64_t f, to, fl;

	collect(text, &c);
	CHECK_EQ_U64(c.rc, 0);
	CHECK_EQ_U64(c.n, 2);
	if (c.n != 2)
		return;
	CHECK_EQ_U64(c.r[0].ip, 0x4005d0);
	CHECK_EQ_U64(c.r[0].bnr, 3);
	entry(&c.r[0], 0, &f, &to, &fl);
	CHECK_EQ_U64(to, 0x4005d0);
	CHECK_EQ_U64(fl, 1);
	entry(&c.r[0], 1, &f, &to, &fl);
	CHECK_EQ_U64(fl, 0);
	entry(&c.r[0], 2, &f, &to, &fl);
	CHECK_EQ_U64(fl, 2);
	CHECK_EQ_U64(c.r[1].bnr, 0);
}

static void test_looks_like(void)
{
	static const uint8_t perfile[] = "PERFILE2\x68\0\0\0\0\0\0\0";
	static const uint8_t bin[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0};
	const char *yes[] = {
		" ffffffff8f3fcdb5 0xffffffff8f3fcf88/0xffffffff8f3fcdb0/P/-/-/0/ \n",
		"PERF_RECORD_MMAP2 1/1: [0x1(0x1) @ 0 00:00 0 0]: r-xp /x\n",
		"\n\t          30179e\n",
		"# header\n     7f06d6a21e00\n",
		"perf 1/1 1.0: \n\t   401000\n 0x1/0x2/P/-/-/0/\n",
	};
	const char *no[] = {
		"",
		"hello world\nthis is text\n",
		"     20003              cycles:pp:  ffffffff8103f94e\n",
		"{\"json\": 1}\n",
	};

	CHECK(!hwp__text_input_looks_like(perfile, sizeof(perfile) - 1));
	CHECK(!hwp__text_input_looks_like((const uint8_t *)"PERFFILE\n 401000 0x1/0x2/P/-/-/0/\n", 34));
	CHECK(!hwp__text_input_looks_like((const uint8_t *)"2ELIFREP\n 401000 0x1/0x2/P/-/-/0/\n", 34));
	CHECK(!hwp__text_input_looks_like(bin, sizeof(bin)));
	CHECK(!hwp__text_input_looks_like(NULL, 0));
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CHECK(hwp__text_input_looks_like((const uint8_t *)yes[i], strlen(yes[i])));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CHECK(!hwp__text_input_looks_like((const uint8_t *)no[i], strlen(no[i])));
}

/* ------------------------------------------------------------------------ */
/* malformed input */

struct bad {
	const char *text;
	size_t len; /* 0: strlen */
	int err;
	const char *want; /* substrings, '|' separated */
};

static void expect_error(const char *text, size_t len, int err, const char *want)
{
	struct hwp_text_input *t = hwp__text_input_new((const uint8_t *)text, len, "bad.txt");
	const uint8_t *r;
	uint32_t size;
	uint64_t off;
	int rc;
	char w[256];

	CHECK(t != NULL);
	if (!t)
		return;
	while ((rc = hwp__text_input_next(t, &r, &size, &off)) > 0)
		;
	if (rc != -err)
		fprintf(stderr, "text %.60s: rc %d, want %d (%s)\n", text, rc, -err, hwp_errmsg());
	CHECK(rc == -err);
	CHECK(hwp__text_input_next(t, &r, &size, &off) == rc); /* sticky */
	CHECK(strncmp(hwp_errmsg(), "bad.txt: ", 9) == 0);
	CHECK(strstr(hwp_errmsg(), "(offset 0x") != NULL);
	snprintf(w, sizeof(w), "%s", want);
	for (char *s = strtok(w, "|"); s; s = strtok(NULL, "|")) {
		if (!strstr(hwp_errmsg(), s)) {
			fprintf(stderr, "message '%s' lacks '%s'\n", hwp_errmsg(), s);
			tl_case_failed = 1;
		}
	}
	hwp__text_input_delete(t);
}

static void test_malformed(void)
{
	static const struct bad cases[] = {
		{" 401000 0x400100/0x40020G/P/-/-/0/ \n", 0, EINVAL, "line 1 |offset 0x18)|bad branch entry|unexpected character"},
		{"\n 401000 0x400100/0x400200/Q/-/-/0/ \n", 0, EINVAL, "line 2 |prediction field"},
		{" 401000 0x400100/0x400200/P/-/-/70000/ \n", 0, EINVAL, "line 1 |cycles field"},
		{" 401000 0x400100/0x400200/P/Y/-/0/\n", 0, EINVAL, "in_tx field"},
		{" 401000 0x400100/0x400200/P/-/B/0/\n", 0, EINVAL, "abort field"},
		{" 401000 0x400100/0x400200//-/-/0/\n", 0, EINVAL, "prediction field"},
		{" 401000 0x400100/ 0x400200/P/-/-/0/\n", 0, EINVAL, "expected 0xTO"},
		{" 401000 0x400100/0x/P/-/-/0/\n", 0, EINVAL, "hex digits in TO"},
		{" 401000 0x400100/0x400200/P/-/-/0/ garbage\n", 0, EINVAL, "line 1 |unexpected 'garbage' after the branch entries"},
		{" 1\n 2\n zz01000 0x400100/0x400200/P/-/-/0/\n", 0, EINVAL, "line 3 |expected a hexadecimal sample IP, got 'zz01000'"},
		{" 401000 0x1ffffffffffffffff/0x1/P/-/-/0/\n", 0, EINVAL, "more than 64 bits"},
		{" 1fffffffffffffffff 0x1/0x1/P/-/-/0/\n", 0, EINVAL, "sample IP"},
		{"0x1/0x2/P/-/-/0/\n", 0, EINVAL, "expected the sample IP"},
		{"\n\t 401000\n\t 401001\n", 0, EINVAL, "line 2 |not followed by a branch stack line"},
		{"\n\t401000\nperf 1/1 1.0:\n", 0, EINVAL, "line 3 |after the callchain of line 2, got 'perf'"},
		{"\n\t40zz00\n", 0, EINVAL, "line 2 |bad callchain address '40zz00'"},
		{"\n\t401000\nPERF_RECORD_MMAP2 1/1: [0x1(0x1) @ 0 0:0 0 0]: r-xp /x\n", 0, EINVAL, "inside a sample"},
		{"PERF_RECORD_MMAP2 1/1: [0x1000(0x1000) @ 0 zz:01 1 1]: r-xp /x\n", 0, EINVAL, "malformed PERF_RECORD_MMAP2 line|MAJ:MIN"},
		{"PERF_RECORD_MMAP2 1/1: [0x1000(0x1000) @ 0 00:01 1 1]: r-xp \n", 0, EINVAL, "file name"},
		{"PERF_RECORD_MMAP 1/1 [0x1000(0x1000) @ 0]: x /x\n", 0, EINVAL, "malformed PERF_RECORD_MMAP line|PID/TID:"},
		{"PERF_RECORD_MMAP2 1/1: [0x1000(0x1000) @ 0 <abc>]: r-xp /x\n", 0, EINVAL, "BUILD-ID"},
		{"PERF_RECORD_COMM: nopid\n", 0, EINVAL, "malformed PERF_RECORD_COMM"},
		{"PERF_RECORD_FORK(1:2)\n", 0, EINVAL, "malformed PERF_RECORD_FORK"},
		{" 40\0001 0x1/0x2/P/-/-/0/\n", 23, EINVAL, "sample IP"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad *b = &cases[i];

		expect_error(b->text, b->len ? b->len : strlen(b->text), b->err, b->want);
	}
}

static void test_too_big(void)
{
	size_t cap = 200000, n = 0;
	char *s = malloc(cap);
	struct collected c;

	if (!s) {
		tl_case_failed = 1;
		return;
	}
	/* 2729 entries fit (32 + 8 + 2729 * 24 = 65528 > 65535? no: 32 + 2729*24 = 65528) */
	n += (size_t)snprintf(s + n, cap - n, " 401000");
	for (int i = 0; i < 2729; i++)
		n += (size_t)snprintf(s + n, cap - n, " 0x%x/0x%x/P/-/-/0/ ", i, i + 1);
	n += (size_t)snprintf(s + n, cap - n, "\n");
	s[n] = 0;
	collect(s, &c);
	CHECK_EQ_U64(c.rc, 0);
	CHECK_EQ_U64(c.n, 1);
	CHECK_EQ_U64(ld16(c.copy[0] + 6), 32 + 2729 * 24);

	/* one more does not */
	n--;
	n += (size_t)snprintf(s + n, cap - n, " 0x1/0x2/P/-/-/0/\n");
	expect_error(s, n, E2BIG, "line 1 |more than 2729 branch entries|65535");

	/* callchain too long */
	n = 0;
	n += (size_t)snprintf(s + n, cap - n, "\n");
	for (int i = 0; i < 8200; i++)
		n += (size_t)snprintf(s + n, cap - n, "\t%16x\n", 0x400000 + i);
	n += (size_t)snprintf(s + n, cap - n, " 0x1/0x2/P/-/-/0/\n");
	expect_error(s, n, E2BIG, "callchain of the sample at line 2 is too long");
	free(s);
}

/* A callchain line after the first MiB of one-line samples. */
static void test_late_callchain(void)
{
	static const char line[] = " 401000 0x400100/0x400200/P/-/-/0/ \n";
	size_t per = sizeof(line) - 1, nlines = (1u << 20) / per + 10;
	size_t n = nlines * per;
	char *s = malloc(n + 64);

	if (!s) {
		tl_case_failed = 1;
		return;
	}
	for (size_t i = 0; i < nlines; i++)
		memcpy(s + i * per, line, per);
	memcpy(s + n, "\t401000\n", 8);
	char want[64];
	snprintf(want, sizeof(want), "line %zu |callchain line", nlines + 1);
	expect_error(s, n + 8, EINVAL, want);
	free(s);
}

/* ------------------------------------------------------------------------ */
/* robustness: mutated inputs never crash and only yield well-formed records */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void test_mutations(void)
{
	static const char seed[] =
		"perf 0/0 0.0: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1000000) @ 0xffffffff81000000]: x [kernel.kallsyms]_text\n"
		"prog 42/42 1.0: PERF_RECORD_MMAP2 42/42: [0x400000(0x2000) @ 0 08:01 1234 5]: r-xp /usr/bin/prog\n"
		"prog 42/42 1.0: PERF_RECORD_COMM exec: prog:42/42\n"
		"prog 42/43 1.0: PERF_RECORD_FORK(42:43):(42:42)\n"
		"prog 42/42 1.1: \n"
		"\tffffffff81000100\n"
		"\t          401000 main (/usr/bin/prog)\n"
		" 0x400100/0x400200/P/-/-/5/COND/-  0x400300/0x400400/M/X/A/65535/IND_CALL/SPEC_WRONG_PATH \n"
		"\n"
		"\t          401000\n"
		" 0x1/0x2/P/-/-/0/ \n"
		"thread 42/44 1.2: \n"
		"\t401000\n"
		"\n";
	const size_t slen = sizeof(seed) - 1;
	char *m = malloc(slen * 2 + 16);
	unsigned long iters = 0, ok = 0;

	if (!m) {
		tl_case_failed = 1;
		return;
	}
	for (int it = 0; it < 30000; it++) {
		size_t len = slen;
		int edits = 1 + (int)(rng() % 4);
		struct hwp_text_input *t;
		const uint8_t *r;
		uint32_t size;
		uint64_t off;
		int rc;
		static const char alphabet[] = "0x/ \t\nPMXA-:[]()@<>#;fF9\r\0";

		memcpy(m, seed, slen);
		for (int e = 0; e < edits; e++) {
			size_t pos = len ? rng() % len : 0;
			switch (rng() % 4) {
			case 0: /* replace */
				if (len)
					m[pos] = alphabet[rng() % (sizeof(alphabet) - 1)];
				break;
			case 1: /* insert */
				if (len < slen * 2) {
					memmove(m + pos + 1, m + pos, len - pos);
					m[pos] = alphabet[rng() % (sizeof(alphabet) - 1)];
					len++;
				}
				break;
			case 2: /* delete */
				if (len) {
					memmove(m + pos, m + pos + 1, len - pos - 1);
					len--;
				}
				break;
			default: /* truncate */
				len = pos;
				break;
			}
		}
		t = hwp__text_input_new((const uint8_t *)m, len, "mut.txt");
		if (!t) {
			tl_case_failed = 1;
			break;
		}
		(void)hwp__text_input_looks_like((const uint8_t *)m, len);
		uint64_t st = hwp__text_input_attr(t)->sample_type;
		while ((rc = hwp__text_input_next(t, &r, &size, &off)) > 0) {
			struct rec o;

			if (decode(r, size, st, &o) || off > len) {
				fprintf(stderr, "iteration %d: bad record (type %u size %u)\n", it,
					ld32(r), size);
				tl_case_failed = 1;
				break;
			}
		}
		if (rc == 0)
			ok++;
		else if (!strstr(hwp_errmsg(), "mut.txt: ") || !strstr(hwp_errmsg(), " at line ")) {
			fprintf(stderr, "iteration %d: message '%s'\n", it, hwp_errmsg());
			tl_case_failed = 1;
		}
		iters++;
		hwp__text_input_delete(t);
		if (tl_case_failed)
			break;
	}
	fprintf(stderr, "mutations: %lu runs, %lu parsed to the end\n", iters, ok);
	free(m);
}

/* ------------------------------------------------------------------------ */
/* throughput (informational) */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void test_throughput(void)
{
	const char *dir = tl_corpus();
	char path[1024];
	struct buf b;
	size_t reps, n;
	char *big;
	struct stats st;
	double t0, dt;

	if (!dir)
		SKIP("corpus not found (set HWPROF_CORPUS)");
	snprintf(path, sizeof(path), "%s/oracles/autofdo_propeller_sample_1.perfdata1.perf61.ip-brstack.txt.gz", dir);
	if (read_gz(path, &b)) {
		free(b.p);
		SKIP("cannot read %.200s", path);
	}
	reps = (128u << 20) / b.n + 1;
	n = reps * b.n;
	big = malloc(n);
	if (!big) {
		free(b.p);
		SKIP("no memory for %zu bytes", n);
	}
	for (size_t i = 0; i < reps; i++)
		memcpy(big + i * b.n, b.p, b.n);
	t0 = now();
	int rc = run_text(big, n, "big.txt", &st, false, NULL);
	dt = now() - t0;
	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(st.samples, 3740 * reps);
	fprintf(stderr, "throughput: %.0f MB in %.3f s = %.0f MB/s (%.1f M entries/s)\n",
		(double)n / 1e6, dt, (double)n / 1e6 / dt, (double)st.entries / 1e6 / dt);
	free(big);
	free(b.p);
}

int main(void)
{
	RUN(test_corpus_oracles);
	RUN(test_oracle_spot_check);
	RUN(test_llvm_perfscript);
	RUN(test_prefix_fields_and_sideband);
	RUN(test_callchain_with_prefix_crlf);
	RUN(test_pid_only_multiprocess);
	RUN(test_old_entry_forms);
	RUN(test_looks_like);
	RUN(test_malformed);
	RUN(test_too_big);
	RUN(test_late_callchain);
	RUN(test_mutations);
	RUN(test_throughput);
	TL_EXIT();
}
