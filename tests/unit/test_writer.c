/* Unit tests for the perf.data writer and the branch flags codec. The files
   written here are parsed back by hand (not with hwprof's reader), so the
   byte layout itself is what is checked. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"
#include "testlib.h"
#include "util/bytes.h"
#include "util/error.h"

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	p = malloc(n > 0 ? (size_t)n : 1);
	if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return p;
}

/* ------------------------------------------------------------ flags codec */

static void test_flags_field_positions(void)
{
	struct hwp_branch_entry e;

	memset(&e, 0, sizeof(e));
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 0);
	e.mispred = 1;
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 1);
	memset(&e, 0, sizeof(e));
	e.predicted = 1;
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 2);
	memset(&e, 0, sizeof(e));
	e.in_tx = 1;
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 4);
	memset(&e, 0, sizeof(e));
	e.abort = 1;
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 8);
	memset(&e, 0, sizeof(e));
	e.cycles = 0xffff;
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 0xffff0);
	memset(&e, 0, sizeof(e));
	e.type = 0xf;
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 0xf00000);
	memset(&e, 0, sizeof(e));
	e.spec = 3;
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 0x3000000);
	memset(&e, 0, sizeof(e));
	e.new_type = 0xf;
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 0x3c000000);
	memset(&e, 0, sizeof(e));
	e.priv = 7;
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 0x1c0000000ULL);

	/* out-of-range values are truncated, never spill into a neighbour */
	memset(&e, 0, sizeof(e));
	e.mispred = 2;
	e.type = 0x1f;
	e.spec = 0xff;
	e.new_type = 0x10;
	e.priv = 0xf;
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e),
		     (0xfULL << 20) | (3ULL << 24) | (7ULL << 30));

	/* decode of all ones: every field at its max, reserved bits ignored */
	hwp_branch_entry__decode(0x1111, 0x2222, ~0ULL, &e);
	CHECK_EQ_U64(e.from, 0x1111);
	CHECK_EQ_U64(e.to, 0x2222);
	CHECK_EQ_U64(e.mispred, 1);
	CHECK_EQ_U64(e.predicted, 1);
	CHECK_EQ_U64(e.in_tx, 1);
	CHECK_EQ_U64(e.abort, 1);
	CHECK_EQ_U64(e.cycles, 0xffff);
	CHECK_EQ_U64(e.type, 15);
	CHECK_EQ_U64(e.spec, 3);
	CHECK_EQ_U64(e.new_type, 15);
	CHECK_EQ_U64(e.priv, 7);
	CHECK_EQ_U64(hwp_branch_entry__encode_flags(&e), 0x1ffffffffULL);
}

/* Every value of every field, alone and with all other bits set. */
static void test_flags_roundtrip_exhaustive(void)
{
	static const struct {
		int shift, bits;
	} fields[] = { { 0, 1 }, { 1, 1 }, { 2, 1 }, { 3, 1 }, { 4, 16 },
		       { 20, 4 }, { 24, 2 }, { 26, 4 }, { 30, 3 } };
	const uint64_t all = 0x1ffffffffULL;
	int bad = 0;

	for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
		uint64_t mask = ((1ULL << fields[f].bits) - 1) << fields[f].shift;

		for (uint64_t v = 0; v < (1ULL << fields[f].bits); v++) {
			uint64_t alone = v << fields[f].shift;
			uint64_t others = (all & ~mask) | alone;
			struct hwp_branch_entry e;

			hwp_branch_entry__decode(1, 2, alone, &e);
			bad += hwp_branch_entry__encode_flags(&e) != alone;
			hwp_branch_entry__decode(1, 2, others, &e);
			bad += hwp_branch_entry__encode_flags(&e) != others;
			/* upper reserved bits never come back */
			hwp_branch_entry__decode(1, 2, others | 0xfffffffe00000000ULL, &e);
			bad += hwp_branch_entry__encode_flags(&e) != others;
		}
	}
	CHECK_EQ_U64(bad, 0);

	/* random words */
	uint64_t x = 0x123456789abcdefULL;

	bad = 0;
	for (int i = 0; i < 1000000; i++) {
		struct hwp_branch_entry e;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		hwp_branch_entry__decode(x, ~x, x, &e);
		bad += hwp_branch_entry__encode_flags(&e) != (x & all);
		bad += e.from != x || e.to != ~x;
	}
	CHECK_EQ_U64(bad, 0);
}

/* ------------------------------------------------------------ file layout */

struct file_view {
	uint8_t *p;
	size_t len;
	uint64_t attrs_off, attrs_size, data_off, data_size, attr_size;
	uint64_t feat[4];
};

static int view_open(struct file_view *v, const char *path)
{
	memset(v, 0, sizeof(*v));
	v->p = slurp(path, &v->len);
	if (!v->p || v->len < 104)
		return -1;
	v->attr_size = ld64(v->p + 16);
	v->attrs_off = ld64(v->p + 24);
	v->attrs_size = ld64(v->p + 32);
	v->data_off = ld64(v->p + 40);
	v->data_size = ld64(v->p + 48);
	for (int i = 0; i < 4; i++)
		v->feat[i] = ld64(v->p + 72 + 8 * i);
	return 0;
}

/* Feature section FEAT: its perf_file_section, or NULL. */
static const uint8_t *view_feature(const struct file_view *v, unsigned feat, uint64_t *size)
{
	uint64_t table = v->data_off + v->data_size;
	unsigned n = 0;

	if (!((v->feat[feat / 64] >> (feat % 64)) & 1))
		return NULL;
	for (unsigned f = 0; f < feat; f++)
		n += (v->feat[f / 64] >> (f % 64)) & 1;
	if (table + 16 * (n + 1) > v->len)
		return NULL;
	uint64_t off = ld64(v->p + table + 16 * n), sz = ld64(v->p + table + 16 * n + 8);

	if (off > v->len || sz > v->len - off)
		return NULL;
	*size = sz;
	return v->p + off;
}

static struct hwp_attr basic_attr(uint64_t sample_type)
{
	struct hwp_attr a;

	memset(&a, 0, sizeof(a));
	a.type = 4;
	a.config = 0x534088;
	a.sample_period = 500000;
	a.sample_type = sample_type;
	a.flags = 1ULL << HWP_ATTR_SAMPLE_ID_ALL | 1ULL << HWP_ATTR_MMAP2 | 1ULL << HWP_ATTR_COMM;
	a.branch_sample_type = HWP_BRANCH_ANY;
	return a;
}

static void test_header_and_features(void)
{
	const char *path = tmp_path("hdr.data");
	struct hwp_attr a = basic_attr(HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME |
				       HWP_SAMPLE_ID | HWP_SAMPLE_BRANCH_STACK);
	struct hwp_attr b = a;
	uint64_t ids_a[2] = { 11, 12 }, ids_b[1] = { 21 };
	uint8_t bid[20];
	struct file_view v;
	const uint8_t *f;
	uint64_t sz;
	struct hwp_writer *w = hwp_writer__open(path);

	CHECK(w != NULL);
	if (!w)
		return;
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0xa0 + i);
	a.config3 = 0x77; /* dropped: written at 128 bytes */
	b.type = 0;
	b.config = 1;
	CHECK_EQ_U64(hwp_writer__add_attr(w, &a, ids_a, 2, "r534088:u"), 0);
	CHECK_EQ_U64(hwp_writer__add_attr(w, &b, ids_b, 1, NULL), 1);
	CHECK_EQ_U64(hwp_writer__set_string(w, HWP_FEAT_ARCH, "x86_64"), 0);
	CHECK_EQ_U64(hwp_writer__set_string(w, HWP_FEAT_HOSTNAME,
					    "a-hostname-that-is-longer-than-sixty-four-bytes-"
					    "so-it-needs-two-blocks"), 0);
	CHECK(hwp_writer__set_string(w, HWP_FEAT_NRCPUS, "no") == -EINVAL);
	CHECK_EQ_U64(hwp_writer__set_nrcpus(w, 6, 8), 0);
	CHECK_EQ_U64(hwp_writer__add_build_id(w, -1, HWP_MISC_USER, bid, 20, "/bin/x"), 0);
	CHECK_EQ_U64(hwp_writer__add_build_id(w, 42, HWP_MISC_KERNEL, bid, 8,
					      "[kernel.kallsyms]"), 0);
	CHECK_EQ_U64(hwp_writer__close(w), 0);

	CHECK(view_open(&v, path) == 0);
	if (!v.p)
		return;
	CHECK(memcmp(v.p, "PERFILE2", 8) == 0);
	CHECK_EQ_U64(ld64(v.p + 8), 104);
	CHECK_EQ_U64(v.attr_size, 128 + 16);
	CHECK_EQ_U64(v.attrs_size, 2 * 144);
	/* event_types unused */
	CHECK_EQ_U64(ld64(v.p + 56), 0);
	CHECK_EQ_U64(ld64(v.p + 64), 0);
	CHECK_EQ_U64(v.data_size, 0);
	CHECK(v.data_off == v.attrs_off + v.attrs_size);
	/* exactly the features that were set */
	CHECK_EQ_U64(v.feat[0], 1ULL << HWP_FEAT_BUILD_ID | 1ULL << HWP_FEAT_HOSTNAME |
				       1ULL << HWP_FEAT_ARCH | 1ULL << HWP_FEAT_NRCPUS |
				       1ULL << HWP_FEAT_EVENT_DESC);
	CHECK_EQ_U64(v.feat[1] | v.feat[2] | v.feat[3], 0);

	/* attrs: 128 bytes each + ids section; config3 gone */
	{
		const uint8_t *p = v.p + v.attrs_off;

		CHECK_EQ_U64(ld32(p), 4);
		CHECK_EQ_U64(ld32(p + 4), 128);
		CHECK_EQ_U64(ld64(p + 8), 0x534088);
		CHECK_EQ_U64(ld64(p + 16), 500000);
		CHECK_EQ_U64(ld64(p + 24), a.sample_type);
		CHECK_EQ_U64(ld64(p + 40), a.flags);
		CHECK_EQ_U64(ld64(p + 72), HWP_BRANCH_ANY);
		CHECK_EQ_U64(ld64(p + 136), 16); /* 2 ids */
		uint64_t ido = ld64(p + 128);

		CHECK(ido + 16 <= v.len);
		if (ido + 16 <= v.len) {
			CHECK_EQ_U64(ld64(v.p + ido), 11);
			CHECK_EQ_U64(ld64(v.p + ido + 8), 12);
		}
		p += 144;
		CHECK_EQ_U64(ld32(p), 0);
		CHECK_EQ_U64(ld64(p + 8), 1);
		CHECK_EQ_U64(ld64(p + 136), 8);
		ido = ld64(p + 128);
		if (ido + 8 <= v.len)
			CHECK_EQ_U64(ld64(v.p + ido), 21);
	}

	f = view_feature(&v, HWP_FEAT_ARCH, &sz);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_U64(sz, 4 + 64);
		CHECK_EQ_U64(ld32(f), 64);
		CHECK(strcmp((const char *)f + 4, "x86_64") == 0);
		CHECK_EQ_U64(f[4 + 63], 0);
	}
	f = view_feature(&v, HWP_FEAT_HOSTNAME, &sz);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_U64(ld32(f), 128);
		CHECK_EQ_U64(sz, 4 + 128);
	}
	f = view_feature(&v, HWP_FEAT_NRCPUS, &sz);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_U64(sz, 8);
		CHECK_EQ_U64(ld32(f), 8);     /* available first, as perf writes it */
		CHECK_EQ_U64(ld32(f + 4), 6); /* then online */
	}
	f = view_feature(&v, HWP_FEAT_BUILD_ID, &sz);
	CHECK(f != NULL);
	if (f) {
		/* build_id_event: header, pid, u8[24] (20 id + size + pad), name/64 */
		CHECK_EQ_U64(ld32(f), HWP_RECORD_HEADER_BUILD_ID);
		CHECK_EQ_U64(ld16(f + 4), HWP_MISC_USER | HWP_MISC_BUILD_ID_SIZE);
		CHECK_EQ_U64(ld16(f + 6), 36 + 64);
		CHECK_EQ_U64((uint32_t)ld32(f + 8), (uint32_t)-1);
		CHECK(memcmp(f + 12, bid, 20) == 0);
		CHECK_EQ_U64(f[32], 20);
		CHECK(strcmp((const char *)f + 36, "/bin/x") == 0);
		const uint8_t *g = f + 100;

		CHECK_EQ_U64(sz, 200);
		CHECK_EQ_U64(ld16(g + 4), HWP_MISC_KERNEL | HWP_MISC_BUILD_ID_SIZE);
		CHECK_EQ_U64(ld32(g + 8), 42);
		CHECK(memcmp(g + 12, bid, 8) == 0);
		CHECK_EQ_U64(g[20], 0); /* beyond the 8 meaningful bytes */
		CHECK_EQ_U64(g[32], 8);
		CHECK(strcmp((const char *)g + 36, "[kernel.kallsyms]") == 0);
	}
	f = view_feature(&v, HWP_FEAT_EVENT_DESC, &sz);
	CHECK(f != NULL);
	if (f) {
		CHECK_EQ_U64(ld32(f), 2);
		CHECK_EQ_U64(ld32(f + 4), 128);
		const uint8_t *e = f + 8;

		CHECK_EQ_U64(ld64(e + 8), 0x534088);
		CHECK_EQ_U64(ld32(e + 128), 2);  /* nr_ids */
		CHECK_EQ_U64(ld32(e + 132), 64); /* name string */
		CHECK(strcmp((const char *)e + 136, "r534088:u") == 0);
		CHECK_EQ_U64(ld64(e + 200), 11);
		CHECK_EQ_U64(ld64(e + 208), 12);
		e += 216;
		CHECK_EQ_U64(ld32(e + 128), 1);
		/* unnamed hardware event 1 gets perf's name */
		CHECK(strcmp((const char *)e + 136, "instructions") == 0);
		CHECK_EQ_U64(ld64(e + 200), 21);
		CHECK_EQ_U64(sz, 8 + 216 + 208);
	}
	free(v.p);
}

/* One sample with (almost) every field, checked byte by byte in kernel order. */
static void test_sample_layout(void)
{
	const char *path = tmp_path("sample.data");
	uint64_t st = HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME |
		      HWP_SAMPLE_ADDR | HWP_SAMPLE_ID | HWP_SAMPLE_STREAM_ID | HWP_SAMPLE_CPU |
		      HWP_SAMPLE_PERIOD | HWP_SAMPLE_READ | HWP_SAMPLE_CALLCHAIN |
		      HWP_SAMPLE_RAW | HWP_SAMPLE_BRANCH_STACK | HWP_SAMPLE_REGS_USER |
		      HWP_SAMPLE_STACK_USER | HWP_SAMPLE_WEIGHT_STRUCT | HWP_SAMPLE_DATA_SRC |
		      HWP_SAMPLE_TRANSACTION | HWP_SAMPLE_REGS_INTR | HWP_SAMPLE_PHYS_ADDR |
		      HWP_SAMPLE_CGROUP | HWP_SAMPLE_DATA_PAGE_SIZE | HWP_SAMPLE_CODE_PAGE_SIZE |
		      HWP_SAMPLE_AUX;
	struct hwp_attr a = basic_attr(st);
	uint64_t id = 77;
	struct hwp_branch_entry br[3];
	uint64_t cc[2] = { HWP_CONTEXT_USER, 0x401000 };
	uint64_t counters[3] = { 5, 6, 7 };
	uint64_t rd[2] = { 1234, 77 };
	uint8_t raw[5] = { 1, 2, 3, 4, 5 };
	uint64_t regs[3] = { 0xaa, 0xbb, 0xcc };
	uint8_t stack[12];
	uint8_t aux[3] = { 9, 8, 7 };
	struct hwp_sample s;
	struct hwp_sample_in in;
	struct file_view v;
	struct hwp_writer *w = hwp_writer__open(path);

	CHECK(w != NULL);
	if (!w)
		return;
	a.read_format = HWP_FORMAT_ID;
	a.branch_sample_type |= HWP_BRANCH_HW_INDEX | HWP_BRANCH_COUNTERS;
	a.sample_regs_user = 0x7; /* 3 regs */
	a.sample_regs_intr = 0x3; /* 2 regs */
	CHECK_EQ_U64(hwp_writer__add_attr(w, &a, &id, 1, "all"), 0);

	memset(br, 0, sizeof(br));
	for (int i = 0; i < 3; i++) {
		br[i].from = 0x1000 + i;
		br[i].to = 0x2000 + i;
		br[i].cycles = (uint16_t)(10 * i + 1);
		br[i].mispred = i == 1;
		br[i].predicted = i != 1;
		br[i].type = (uint8_t)i;
		br[i].spec = (uint8_t)i;
		br[i].priv = (uint8_t)(i + 1);
	}
	memset(stack, 0x5a, sizeof(stack));
	memset(&s, 0, sizeof(s));
	s.cpumode = HWP_MISC_USER;
	s.id = 77;
	s.ip = 0x401234;
	s.pid = 10;
	s.tid = 11;
	s.time = 123456789;
	s.addr = 0xdead0000;
	s.stream_id = 99;
	s.cpu = 3;
	s.period = 500000;
	s.read.data = (const uint8_t *)rd;
	s.read.size = sizeof(rd);
	s.callchain_nr = 2;
	s.raw.data = raw;
	s.raw.size = sizeof(raw);
	s.branch_nr = 3;
	s.branch_hw_idx = 2;
	s.regs_user_abi = 2;
	s.regs_user.data = (const uint8_t *)regs;
	s.regs_user.size = sizeof(regs);
	s.stack_user.data = stack;
	s.stack_user.size = sizeof(stack);
	s.stack_user_dyn_size = 10;
	s.weight_var1 = 300;
	s.weight_var2 = 40;
	s.weight_var3 = 5;
	s.data_src = 0x123456;
	s.transaction = 0x42;
	s.regs_intr_abi = 2;
	s.regs_intr.data = (const uint8_t *)regs;
	s.regs_intr.size = sizeof(regs);
	s.phys_addr = 0x7000;
	s.cgroup = 8;
	s.data_page_size = 4096;
	s.code_page_size = 2 << 20;
	s.aux.data = aux;
	s.aux.size = sizeof(aux);
	memset(&in, 0, sizeof(in));
	in.s = &s;
	in.branches = br;
	in.callchain = cc;
	in.branch_counters = counters;
	CHECK_EQ_U64(hwp_writer__add_sample(w, 0, &in), 0);
	CHECK_EQ_U64(hwp_writer__close(w), 0);

	CHECK(view_open(&v, path) == 0);
	if (!v.p)
		return;
	const uint8_t *p = v.p + v.data_off;
	uint64_t size = ld16(p + 6);
	uint64_t o = 8;

	CHECK_EQ_U64(v.data_size, size);
	CHECK_EQ_U64(ld32(p), HWP_RECORD_SAMPLE);
	CHECK_EQ_U64(ld16(p + 4), HWP_MISC_USER);
#define AT(v_) \
	do { CHECK_EQ_U64(ld64(p + o), (v_)); o += 8; } while (0)
	AT(77);                          /* IDENTIFIER */
	AT(0x401234);                    /* IP */
	CHECK_EQ_U64(ld32(p + o), 10);   /* TID */
	CHECK_EQ_U64(ld32(p + o + 4), 11);
	o += 8;
	AT(123456789);                   /* TIME */
	AT(0xdead0000);                  /* ADDR */
	AT(77);                          /* ID */
	AT(99);                          /* STREAM_ID */
	CHECK_EQ_U64(ld32(p + o), 3);    /* CPU, res */
	CHECK_EQ_U64(ld32(p + o + 4), 0);
	o += 8;
	AT(500000);                      /* PERIOD */
	AT(1234);                        /* READ: value, id */
	AT(77);
	AT(2);                           /* CALLCHAIN */
	AT(HWP_CONTEXT_USER);
	AT(0x401000);
	CHECK_EQ_U64(ld32(p + o), 12);   /* RAW: size padded so 4 + size is 8-aligned */
	CHECK(memcmp(p + o + 4, raw, 5) == 0);
	CHECK_EQ_U64(p[o + 4 + 5], 0);
	o += 16;
	AT(3);                           /* BRANCH_STACK nr */
	AT(2);                           /* hw_idx */
	for (int i = 0; i < 3; i++) {
		AT(0x1000u + (unsigned)i);
		AT(0x2000u + (unsigned)i);
		AT(hwp_branch_entry__encode_flags(&br[i]));
	}
	AT(5);                           /* counters */
	AT(6);
	AT(7);
	AT(2);                           /* REGS_USER abi + 3 regs */
	AT(0xaa);
	AT(0xbb);
	AT(0xcc);
	AT(16);                          /* STACK_USER size (padded), data, dyn_size */
	CHECK(p[o] == 0x5a && p[o + 11] == 0x5a && p[o + 12] == 0);
	o += 16;
	AT(10);
	AT(300 | 40ULL << 32 | 5ULL << 48); /* WEIGHT_STRUCT from its parts */
	AT(0x123456);                    /* DATA_SRC */
	AT(0x42);                        /* TRANSACTION */
	AT(2);                           /* REGS_INTR abi + 2 regs */
	AT(0xaa);
	AT(0xbb);
	AT(0x7000);                      /* PHYS_ADDR */
	AT(8);                           /* CGROUP */
	AT(4096);                        /* DATA_PAGE_SIZE */
	AT(2 << 20);                     /* CODE_PAGE_SIZE */
	AT(8);                           /* AUX size (padded) + data */
	CHECK(memcmp(p + o, aux, 3) == 0);
	o += 8;
#undef AT
	CHECK_EQ_U64(o, size);
	free(v.p);
}

/* sample_id_all trailers and the MMAP2 / COMM / FORK / EXIT / FINISHED_ROUND bodies. */
static void test_other_records(void)
{
	const char *path = tmp_path("records.data");
	struct hwp_attr a = basic_attr(HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME |
				       HWP_SAMPLE_ID | HWP_SAMPLE_STREAM_ID | HWP_SAMPLE_CPU |
				       HWP_SAMPLE_IDENTIFIER);
	struct hwp_attr b = basic_attr(HWP_SAMPLE_IP | HWP_SAMPLE_TID);
	uint64_t id = 5;
	uint8_t bid[20];
	struct hwp_sample tr;
	struct file_view v;
	struct hwp_writer *w = hwp_writer__open(path);

	CHECK(w != NULL);
	if (!w)
		return;
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)i;
	memset(&tr, 0, sizeof(tr));
	tr.pid = 1;
	tr.tid = 2;
	tr.time = 3;
	tr.id = 5;
	tr.stream_id = 6;
	tr.cpu = 7;
	CHECK_EQ_U64(hwp_writer__add_attr(w, &a, &id, 1, "a"), 0);
	CHECK_EQ_U64(hwp_writer__add_mmap2(w, 0, 100, 101, 0x400000, 0x2000, 0x1000, bid, 20, 5,
					   2, "/bin/true", HWP_MISC_USER, &tr), 0);
	CHECK_EQ_U64(hwp_writer__add_mmap2(w, 0, 100, 101, 0x400000, 0x2000, 0, NULL, 0, 1, 1,
					   "/x", HWP_MISC_KERNEL, NULL), 0);
	CHECK_EQ_U64(hwp_writer__add_comm(w, 0, 100, 101, "comm-name", true, &tr), 0);
	CHECK_EQ_U64(hwp_writer__add_fork_exit(w, 0, HWP_RECORD_FORK, 200, 100, 201, 101, 55,
					       &tr), 0);
	CHECK_EQ_U64(hwp_writer__add_fork_exit(w, 0, HWP_RECORD_EXIT, 200, 100, 201, 101, 56,
					       &tr), 0);
	CHECK(hwp_writer__add_fork_exit(w, 0, HWP_RECORD_COMM, 1, 1, 1, 1, 1, NULL) == -EINVAL);
	CHECK_EQ_U64(hwp_writer__add_finished_round(w), 0);
	/* attrs are frozen once records started */
	CHECK(hwp_writer__add_attr(w, &b, NULL, 0, "late") == -EBUSY);
	CHECK_EQ_U64(hwp_writer__close(w), 0);

	CHECK(view_open(&v, path) == 0);
	if (!v.p)
		return;
	const uint8_t *p = v.p + v.data_off, *end = p + v.data_size;
	/* trailer: tid, time, id, stream_id, cpu, identifier = 48 bytes */
#define TRAILER_OK(q, sz)                                                         \
	do {                                                                      \
		const uint8_t *t_ = (q) + (sz)-48;                                \
		CHECK_EQ_U64(ld32(t_), 1);                                        \
		CHECK_EQ_U64(ld32(t_ + 4), 2);                                    \
		CHECK_EQ_U64(ld64(t_ + 8), 3);                                    \
		CHECK_EQ_U64(ld64(t_ + 16), 5);                                   \
		CHECK_EQ_U64(ld64(t_ + 24), 6);                                   \
		CHECK_EQ_U64(ld32(t_ + 32), 7);                                   \
		CHECK_EQ_U64(ld64(t_ + 40), 5);                                   \
	} while (0)

	/* MMAP2 with build-id */
	CHECK_EQ_U64(ld32(p), HWP_RECORD_MMAP2);
	CHECK_EQ_U64(ld16(p + 4), HWP_MISC_USER | HWP_MISC_MMAP_BUILD_ID);
	CHECK_EQ_U64(ld16(p + 6), 72 + 16 + 48);
	CHECK_EQ_U64(ld32(p + 8), 100);
	CHECK_EQ_U64(ld32(p + 12), 101);
	CHECK_EQ_U64(ld64(p + 16), 0x400000);
	CHECK_EQ_U64(ld64(p + 24), 0x2000);
	CHECK_EQ_U64(ld64(p + 32), 0x1000);
	CHECK_EQ_U64(p[40], 20);
	CHECK(memcmp(p + 44, bid, 20) == 0);
	CHECK_EQ_U64(ld32(p + 64), 5);
	CHECK_EQ_U64(ld32(p + 68), 2);
	CHECK(strcmp((const char *)p + 72, "/bin/true") == 0);
	TRAILER_OK(p, 136);
	p += ld16(p + 6);
	/* MMAP2 without build-id: maj/min/ino zero; NULL id: zero trailer */
	CHECK_EQ_U64(ld16(p + 4), HWP_MISC_KERNEL);
	CHECK_EQ_U64(ld16(p + 6), 72 + 8 + 48);
	CHECK_EQ_U64(ld64(p + 40) | ld64(p + 48) | ld64(p + 56), 0);
	CHECK_EQ_U64(ld64(p + 80) | ld64(p + 88) | ld64(p + 120), 0);
	p += ld16(p + 6);
	/* COMM */
	CHECK_EQ_U64(ld32(p), HWP_RECORD_COMM);
	CHECK_EQ_U64(ld16(p + 4), HWP_MISC_COMM_EXEC);
	CHECK_EQ_U64(ld16(p + 6), 16 + 16 + 48);
	CHECK(strcmp((const char *)p + 16, "comm-name") == 0);
	TRAILER_OK(p, 80);
	p += ld16(p + 6);
	/* FORK, EXIT */
	for (int i = 0; i < 2; i++) {
		CHECK_EQ_U64(ld32(p), i ? HWP_RECORD_EXIT : HWP_RECORD_FORK);
		CHECK_EQ_U64(ld16(p + 6), 32 + 48);
		CHECK_EQ_U64(ld32(p + 8), 200);
		CHECK_EQ_U64(ld32(p + 12), 100);
		CHECK_EQ_U64(ld32(p + 16), 201);
		CHECK_EQ_U64(ld32(p + 20), 101);
		CHECK_EQ_U64(ld64(p + 24), 55u + (unsigned)i);
		TRAILER_OK(p, 80);
		p += ld16(p + 6);
	}
	CHECK_EQ_U64(ld32(p), HWP_RECORD_FINISHED_ROUND);
	CHECK_EQ_U64(ld16(p + 6), 8);
	p += 8;
	CHECK(p == end);
#undef TRAILER_OK
	free(v.p);
}

static void test_errors(void)
{
	const char *path = tmp_path("err.data");
	struct hwp_attr a = basic_attr(HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_ID |
				       HWP_SAMPLE_BRANCH_STACK);
	struct hwp_attr b;
	struct hwp_branch_entry br[64];
	struct hwp_sample s;
	struct hwp_sample_in in;
	uint64_t id = 1, id2 = 2;
	struct hwp_writer *w;

	CHECK(hwp_writer__open(NULL) == NULL);
	CHECK(hwp_writer__open("/nonexistent-dir/x/perf.data") == NULL);
	hwp_writer__abort(NULL);
	CHECK(hwp_writer__close(NULL) < 0);
	CHECK_EQ_U64(hwp_writer__size(NULL), 0);

	w = hwp_writer__open(path);
	CHECK(w != NULL);
	if (!w)
		return;
	/* no attrs: cannot write records */
	CHECK(hwp_writer__add_finished_round(w) == -EINVAL);
	hwp_writer__abort(w);

	w = hwp_writer__open(path);
	if (!w)
		return;
	CHECK_EQ_U64(hwp_writer__add_attr(w, &a, &id, 1, "a"), 0);
	/* ID at another position: perf could not route samples */
	b = a;
	b.sample_type |= HWP_SAMPLE_TIME;
	CHECK(hwp_writer__add_attr(w, &b, &id2, 1, "b") == -EINVAL);
	/* fields after the id may differ */
	b = a;
	b.sample_type |= HWP_SAMPLE_PERIOD | HWP_SAMPLE_WEIGHT;
	CHECK_EQ_U64(hwp_writer__add_attr(w, &b, &id2, 1, "b"), 1);
	b = a;
	b.flags &= ~(1ULL << HWP_ATTR_SAMPLE_ID_ALL);
	CHECK(hwp_writer__add_attr(w, &b, &id2, 1, "c") == -EINVAL);
	b = a;
	b.sample_type |= HWP_SAMPLE_READ;
	CHECK(hwp_writer__add_attr(w, &b, &id2, 1, "d") == -EINVAL); /* READ without FORMAT_ID */
	b.sample_type = a.sample_type | HWP_SAMPLE_WEIGHT | HWP_SAMPLE_WEIGHT_STRUCT;
	CHECK(hwp_writer__add_attr(w, &b, &id2, 1, "e") == -EINVAL);
	b.sample_type = a.sample_type | (1ULL << 40);
	CHECK(hwp_writer__add_attr(w, &b, &id2, 1, "f") == -EINVAL);

	memset(br, 0, sizeof(br));
	memset(&s, 0, sizeof(s));
	memset(&in, 0, sizeof(in));
	in.s = &s;
	s.branch_nr = 4;
	CHECK(hwp_writer__add_sample(w, 0, &in) == -EINVAL); /* entries missing */
	in.branches = br;
	CHECK(hwp_writer__add_sample(w, 2, &in) == -EINVAL); /* no such attr */
	CHECK(hwp_writer__add_sample(w, -1, &in) == -EINVAL);
	s.branch_nr = 3000; /* 72 KB: over the u16 record size */
	CHECK(hwp_writer__add_sample(w, 0, &in) == -E2BIG);
	s.branch_nr = 64;
	CHECK_EQ_U64(hwp_writer__add_sample(w, 0, &in), 0);
	CHECK(hwp_writer__add_raw(w, br, 4) == -EINVAL);
	{
		uint8_t rec[16] = { 0 };

		st32(rec, 99);
		st16(rec + 6, 24); /* says 24, given 16 */
		CHECK(hwp_writer__add_raw(w, rec, 16) == -EINVAL);
		st16(rec + 6, 16);
		CHECK_EQ_U64(hwp_writer__add_raw(w, rec, 16), 0);
	}
	CHECK(hwp_writer__size(w) > 104 + 2 * 144 + 64 * 24);
	CHECK_EQ_U64(hwp_writer__close(w), 0);

	/* a failed write is sticky, and each later call says it again */
	if (access("/dev/full", W_OK) == 0 && (w = hwp_writer__open("/dev/full"))) {
		int rc = 0;

		CHECK_EQ_U64(hwp_writer__add_attr(w, &a, &id, 1, "a"), 0);
		for (int i = 0; i < 100000 && !rc; i++)
			rc = hwp_writer__add_sample(w, 0, &in);
		CHECK(rc == -ENOSPC);
		hwp__set_error(EINVAL, "something else");
		CHECK(hwp_writer__add_finished_round(w) == -ENOSPC);
		CHECK(strstr(hwp_errmsg(), "/dev/full: write failed") != NULL);
		hwp_writer__abort(w);
	}
}

/* Enough data to cross the output buffer several times: every record must
   come out intact and in order. */
static void test_large_output(void)
{
	const char *path = tmp_path("large.data");
	struct hwp_attr a = basic_attr(HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME |
				       HWP_SAMPLE_PERIOD | HWP_SAMPLE_BRANCH_STACK);
	struct hwp_branch_entry br[64];
	struct hwp_sample s;
	struct hwp_sample_in in;
	struct file_view v;
	const unsigned n = 20000; /* ~30 MB */
	struct hwp_writer *w = hwp_writer__open(path);

	CHECK(w != NULL);
	if (!w)
		return;
	CHECK_EQ_U64(hwp_writer__add_attr(w, &a, NULL, 0, "cycles"), 0);
	memset(&s, 0, sizeof(s));
	memset(&in, 0, sizeof(in));
	in.s = &s;
	in.branches = br;
	for (unsigned i = 0; i < n; i++) {
		s.ip = i;
		s.time = 1000 + i;
		s.branch_nr = i % 65;
		for (unsigned k = 0; k < s.branch_nr; k++) {
			memset(&br[k], 0, sizeof(br[k]));
			br[k].from = (uint64_t)i << 8 | k;
			br[k].to = ~br[k].from;
			br[k].cycles = (uint16_t)(i + k);
		}
		if (hwp_writer__add_sample(w, 0, &in)) {
			CHECK(!"add_sample failed");
			break;
		}
		if (i % 1000 == 999)
			hwp_writer__add_finished_round(w);
	}
	CHECK_EQ_U64(hwp_writer__close(w), 0);

	CHECK(view_open(&v, path) == 0);
	if (!v.p)
		return;
	CHECK(v.data_off + v.data_size <= v.len);
	{
		const uint8_t *p = v.p + v.data_off, *end = p + v.data_size;
		unsigned i = 0, bad = 0;

		while (p + 8 <= end) {
			uint16_t sz = ld16(p + 6);

			if (sz < 8)
				break;
			if (ld32(p) == HWP_RECORD_SAMPLE) {
				uint64_t nr = ld64(p + 40);

				bad += ld64(p + 8) != i || ld64(p + 24) != 1000 + i ||
				       nr != i % 65 || sz != 48 + 24 * nr;
				if (nr)
					bad += ld64(p + 48 + 24 * (nr - 1)) !=
					       ((uint64_t)i << 8 | (nr - 1));
				i++;
			}
			p += sz;
		}
		CHECK(p == end);
		CHECK_EQ_U64(i, n);
		CHECK_EQ_U64(bad, 0);
	}
	free(v.p);
}

static void test_host_features(void)
{
	const char *path = tmp_path("host.data");
	struct hwp_attr a = basic_attr(HWP_SAMPLE_IP);
	struct file_view v;
	uint64_t sz;
	struct hwp_writer *w = hwp_writer__open(path);

	CHECK(w != NULL);
	if (!w)
		return;
	CHECK_EQ_U64(hwp_writer__add_attr(w, &a, NULL, 0, NULL), 0);
	CHECK_EQ_U64(hwp_writer__set_string(w, HWP_FEAT_VERSION, "mine"), 0);
	CHECK_EQ_U64(hwp_writer__set_host_features(w), 0);
	CHECK_EQ_U64(hwp_writer__close(w), 0);
	CHECK(view_open(&v, path) == 0);
	if (!v.p)
		return;
	const uint8_t *f = view_feature(&v, HWP_FEAT_VERSION, &sz);

	CHECK(f && strcmp((const char *)f + 4, "mine") == 0); /* not overridden */
	CHECK(view_feature(&v, HWP_FEAT_ARCH, &sz) != NULL);
	CHECK(view_feature(&v, HWP_FEAT_OSRELEASE, &sz) != NULL);
	CHECK(view_feature(&v, HWP_FEAT_NRCPUS, &sz) != NULL);
	/* no names given: no EVENT_DESC, perf names the events itself */
	CHECK(view_feature(&v, HWP_FEAT_EVENT_DESC, &sz) == NULL);
	free(v.p);
}


/* Written with the writer, read back with hwprof's reader: every field of
   every sample (including the flag bits perf 6.1 never shows: spec, new_type,
   priv), the routing of samples to attrs by id, and the header facts. */
static uint64_t rt_x = 88172645463325252ULL;

static uint64_t rt_rnd(void)
{
	rt_x ^= rt_x << 13;
	rt_x ^= rt_x >> 7;
	rt_x ^= rt_x << 17;
	return rt_x;
}

#define RT_N 300

static bool entry_eq(const struct hwp_branch_entry *a, const struct hwp_branch_entry *b)
{
	return a->from == b->from && a->to == b->to && a->cycles == b->cycles &&
	       a->mispred == b->mispred && a->predicted == b->predicted &&
	       a->in_tx == b->in_tx && a->abort == b->abort && a->type == b->type &&
	       a->spec == b->spec && a->new_type == b->new_type && a->priv == b->priv;
}

static void test_reader_roundtrip(void)
{
	const char *path = tmp_path("rt.data");
	const uint64_t st_common = HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP | HWP_SAMPLE_TID |
				   HWP_SAMPLE_TIME | HWP_SAMPLE_CPU | HWP_SAMPLE_BRANCH_STACK;
	struct hwp_attr at[2];
	uint64_t ids0[2] = { 100, 101 }, ids1[1] = { 200 };
	static struct hwp_branch_entry br[RT_N][64];
	static uint64_t cc[RT_N][8], cnt[RT_N][64];
	static struct hwp_sample in_s[RT_N];
	static int in_attr[RT_N];
	uint8_t bid[20];
	struct hwp_writer *w = hwp_writer__open(path);
	struct hwp_reader *r;
	struct hwp_event ev;
	int n = 0, bad = 0, rc;

	CHECK(w != NULL);
	if (!w)
		return;
	at[0] = basic_attr(st_common | HWP_SAMPLE_PERIOD | HWP_SAMPLE_CALLCHAIN |
			   HWP_SAMPLE_WEIGHT_STRUCT | HWP_SAMPLE_DATA_SRC | HWP_SAMPLE_PHYS_ADDR);
	at[0].branch_sample_type |= HWP_BRANCH_HW_INDEX | HWP_BRANCH_COUNTERS;
	at[1] = basic_attr(st_common | HWP_SAMPLE_ADDR | HWP_SAMPLE_WEIGHT);
	at[1].type = 0;
	at[1].config = 0;
	CHECK_EQ_U64(hwp_writer__add_attr(w, &at[0], ids0, 2, "br_inst_retired:upp"), 0);
	CHECK_EQ_U64(hwp_writer__add_attr(w, &at[1], ids1, 1, "cycles:u"), 1);
	CHECK_EQ_U64(hwp_writer__set_string(w, HWP_FEAT_HOSTNAME, "rt-host"), 0);
	CHECK_EQ_U64(hwp_writer__set_string(w, HWP_FEAT_CPUID, "GenuineIntel,6,85,4"), 0);
	CHECK_EQ_U64(hwp_writer__set_nrcpus(w, 3, 4), 0);
	memset(bid, 0x3c, sizeof(bid));
	CHECK_EQ_U64(hwp_writer__add_build_id(w, 7, HWP_MISC_USER, bid, 20, "/bin/rt"), 0);
	CHECK_EQ_U64(hwp_writer__add_mmap2(w, 0, 7, 7, 0x400000, 0x1000, 0, bid, 20, 5, 2,
					   "/bin/rt", HWP_MISC_USER, NULL), 0);

	for (int i = 0; i < RT_N; i++) {
		struct hwp_sample *s = &in_s[i];
		struct hwp_sample_in in;
		int a = (int)(rt_rnd() % 2);

		in_attr[i] = a;
		memset(s, 0, sizeof(*s));
		s->cpumode = a ? HWP_MISC_KERNEL : HWP_MISC_USER;
		s->id = a ? 200 : ids0[rt_rnd() % 2];
		s->ip = rt_rnd();
		s->pid = (uint32_t)rt_rnd();
		s->tid = (uint32_t)rt_rnd();
		s->time = 1000 + (uint64_t)i * 10;
		s->cpu = (uint32_t)(rt_rnd() % 4);
		s->addr = rt_rnd();
		s->period = rt_rnd();
		s->callchain_nr = rt_rnd() % 9;
		for (uint64_t k = 0; k < s->callchain_nr; k++)
			cc[i][k] = rt_rnd();
		s->branch_nr = rt_rnd() % 65;
		s->branch_hw_idx = rt_rnd();
		for (uint64_t k = 0; k < s->branch_nr; k++) {
			hwp_branch_entry__decode(rt_rnd(), rt_rnd(), rt_rnd(), &br[i][k]);
			cnt[i][k] = rt_rnd();
		}
		s->weight = rt_rnd();
		s->data_src = rt_rnd();
		s->phys_addr = rt_rnd();
		memset(&in, 0, sizeof(in));
		in.s = s;
		in.branches = br[i];
		in.callchain = cc[i];
		in.branch_counters = cnt[i];
		if (hwp_writer__add_sample(w, a, &in)) {
			CHECK(!"add_sample");
			break;
		}
	}
	CHECK_EQ_U64(hwp_writer__close(w), 0);

	r = hwp_reader__open(path, NULL);
	CHECK(r != NULL);
	if (!r) {
		fprintf(stderr, "reader: %s\n", hwp_errmsg());
		return;
	}
	CHECK_EQ_U64(hwp_reader__nr_evsels(r), 2);
	if (hwp_reader__nr_evsels(r) == 2) {
		const struct hwp_evsel *e0 = hwp_reader__evsel(r, 0), *e1 = hwp_reader__evsel(r, 1);

		CHECK(e0->name && strcmp(e0->name, "br_inst_retired:upp") == 0);
		CHECK(e1->name && strcmp(e1->name, "cycles:u") == 0);
		CHECK_EQ_U64(e0->attr.size, 128);
		CHECK_EQ_U64(e0->attr.sample_type, at[0].sample_type);
		CHECK_EQ_U64(e0->attr.branch_sample_type, at[0].branch_sample_type);
		CHECK_EQ_U64(e0->nr_ids, 2);
		CHECK_EQ_U64(e1->nr_ids, 1);
		if (e1->nr_ids == 1)
			CHECK_EQ_U64(e1->ids[0], 200);
	}
	{
		const struct hwp_header_info *h = hwp_reader__header(r);

		CHECK(h->hostname && strcmp(h->hostname, "rt-host") == 0);
		CHECK(h->cpuid && strcmp(h->cpuid, "GenuineIntel,6,85,4") == 0);
		CHECK_EQ_U64(h->nr_cpus_online, 3);
		CHECK_EQ_U64(h->nr_cpus_avail, 4);
		CHECK_EQ_U64(h->nr_build_ids, 1);
		if (h->nr_build_ids == 1) {
			CHECK_EQ_U64(h->build_ids[0].pid, 7);
			CHECK_EQ_U64(h->build_ids[0].size, 20);
			CHECK(memcmp(h->build_ids[0].id, bid, 20) == 0);
			CHECK(strcmp(h->build_ids[0].filename, "/bin/rt") == 0);
		}
		CHECK(hwp_header_info__has(h, HWP_FEAT_SAMPLE_TIME));
		CHECK_EQ_U64(h->sample_time_start, 1000);
		CHECK_EQ_U64(h->sample_time_end, 1000 + (RT_N - 1) * 10);
	}
	while ((rc = hwp_reader__next(r, &ev)) == 1) {
		const struct hwp_sample *g, *s = &ev.sample;

		if (ev.type != HWP_RECORD_SAMPLE)
			continue;
		if (n >= RT_N) {
			bad++;
			break;
		}
		g = &in_s[n];
		if (!ev.evsel || ev.evsel->idx != in_attr[n]) {
			bad++;
			n++;
			continue;
		}
		bad += s->cpumode != g->cpumode || s->id != g->id || s->ip != g->ip ||
		       s->pid != g->pid || s->tid != g->tid || s->time != g->time ||
		       s->cpu != g->cpu || s->branch_nr != g->branch_nr;
		if (in_attr[n] == 0) {
			bad += s->period != g->period || s->callchain_nr != g->callchain_nr ||
			       !s->branch_has_hw_idx || s->branch_hw_idx != g->branch_hw_idx ||
			       s->weight != g->weight ||
			       s->weight_var1 != (uint32_t)g->weight ||
			       s->weight_var2 != (uint16_t)(g->weight >> 32) ||
			       s->weight_var3 != (uint16_t)(g->weight >> 48) ||
			       s->data_src != g->data_src || s->phys_addr != g->phys_addr;
			for (uint64_t k = 0; k < s->callchain_nr && k < g->callchain_nr; k++)
				bad += hwp_sample__callchain_ip(s, k) != cc[n][k];
			bad += s->branch_counters == NULL && g->branch_nr;
			for (uint64_t k = 0; s->branch_counters && k < g->branch_nr; k++)
				bad += ld64(s->branch_counters + 8 * k) != cnt[n][k];
		} else {
			bad += s->addr != g->addr || s->weight != g->weight || s->branch_has_hw_idx;
		}
		for (uint64_t k = 0; k < s->branch_nr && k < g->branch_nr; k++) {
			struct hwp_branch_entry e;

			hwp_sample__branch(s, k, &e);
			bad += !entry_eq(&e, &br[n][k]);
		}
		n++;
	}
	CHECK_EQ_U64(rc, 0);
	CHECK_EQ_U64(n, RT_N);
	CHECK_EQ_U64(bad, 0);
	hwp_reader__delete(r);
}

int main(void)
{
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/hwp_test_writer.XXXXXX", base ? base : "/tmp");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_flags_field_positions);
	RUN(test_flags_roundtrip_exhaustive);
	RUN(test_header_and_features);
	RUN(test_sample_layout);
	RUN(test_other_records);
	RUN(test_errors);
	RUN(test_large_output);
	RUN(test_host_features);
	RUN(test_reader_roundtrip);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
	TL_EXIT();
}
