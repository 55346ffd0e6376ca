/* SPDX-License-Identifier: MIT */
/*
 * Reader layout cases built byte by byte (independently of the writer):
 * every attr ABI size from VER0 (64) to VER8 (136) and a larger unknown one,
 * READ in all read_format combinations, a killed recording (data size 0),
 * foreign-endian refusal, routing by IDENTIFIER.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_data.h"
#include "testlib.h"
#include "util/bytes.h"

struct img {
	uint8_t b[8192];
	size_t len;
};

static size_t put64(struct img *m, uint64_t v)
{
	size_t at = m->len;
	st64(m->b + at, v);
	m->len += 8;
	return at;
}

/* A file-mode perf.data with one attr of ATTR_SIZE bytes, SAMPLE_TYPE, and
   the given READ_FORMAT; one sample with IP 0x1234 and, when READ is set,
   NR_READ group values. DATA_SIZE_ZERO leaves the header's data size 0. */
static void build(struct img *m, uint32_t attr_size, uint64_t sample_type, uint64_t read_format,
		  bool data_size_zero)
{
	memset(m, 0, sizeof(*m));
	m->len = HWP_FILE_HEADER_SIZE;
	/* attr + its ids section */
	size_t attr_at = m->len;
	st32(m->b + attr_at, 0);                              /* type */
	st32(m->b + attr_at + 4, attr_size == 64 ? 0 : attr_size); /* VER0 files say 0 */
	st64(m->b + attr_at + 8, 0x1c4);                      /* config */
	st64(m->b + attr_at + 16, 4000);
	st64(m->b + attr_at + 24, sample_type);
	st64(m->b + attr_at + 32, read_format);
	st64(m->b + attr_at + 40, 1ULL << HWP_ATTR_SAMPLE_ID_ALL);
	if (attr_size >= 80)
		st64(m->b + attr_at + 72, HWP_BRANCH_ANY); /* branch_sample_type */
	if (attr_size > 136)
		memset(m->b + attr_at + 136, 0xee, attr_size - 136); /* a future ABI's fields */
	m->len += attr_size;
	size_t ids_sec = m->len;
	m->len += 16;
	size_t ids_at = m->len;
	put64(m, 77);
	st64(m->b + ids_sec, ids_at);
	st64(m->b + ids_sec + 8, 8);

	/* data: one sample */
	size_t data_at = m->len;
	size_t rec = m->len;
	m->len += 8;
	if (sample_type & HWP_SAMPLE_IDENTIFIER)
		put64(m, 77);
	put64(m, 0x1234); /* ip */
	if (sample_type & HWP_SAMPLE_READ) {
		uint64_t nr = (read_format & HWP_FORMAT_GROUP) ? 3 : 1;
		if (read_format & HWP_FORMAT_GROUP)
			put64(m, nr);
		else
			put64(m, 1000); /* value */
		if (read_format & HWP_FORMAT_TOTAL_TIME_ENABLED)
			put64(m, 500);
		if (read_format & HWP_FORMAT_TOTAL_TIME_RUNNING)
			put64(m, 400);
		for (uint64_t i = 0; i < nr; i++) {
			if (read_format & HWP_FORMAT_GROUP)
				put64(m, 1000 + i);
			if (read_format & HWP_FORMAT_ID)
				put64(m, 77 + i);
			if (read_format & HWP_FORMAT_LOST)
				put64(m, 9 + i);
		}
	}
	st32(m->b + rec, HWP_RECORD_SAMPLE);
	st16(m->b + rec + 4, HWP_MISC_USER);
	st16(m->b + rec + 6, (uint16_t)(m->len - rec));
	size_t data_size = m->len - data_at;

	st64(m->b + 0, HWP_PERF_MAGIC2);
	st64(m->b + 8, HWP_FILE_HEADER_SIZE);
	st64(m->b + 16, attr_size + 16);
	st64(m->b + 24, attr_at);
	st64(m->b + 32, attr_size + 16);
	st64(m->b + 40, data_at);
	st64(m->b + 48, data_size_zero ? 0 : data_size);
}

static int read_one(struct img *m, struct hwp_event *ev, struct hwp_reader **out)
{
	struct hwp_reader *r = hwp_reader__open_mem(m->b, m->len, "test", NULL);
	int n;

	*out = r;
	if (!r)
		return -errno;
	do
		n = hwp_reader__next(r, ev);
	while (n > 0 && ev->type != HWP_RECORD_SAMPLE);
	return n;
}

static void test_every_attr_size(void)
{
	static const uint32_t sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136, 200 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct img m;
		struct hwp_event ev;
		struct hwp_reader *r;

		build(&m, sizes[i], HWP_SAMPLE_IP, 0, false);
		int n = read_one(&m, &ev, &r);
		CHECK(n == 1);
		if (n != 1) {
			fprintf(stderr, "attr size %u: %s\n", sizes[i], hwp_errmsg());
			hwp_reader__delete(r);
			continue;
		}
		const struct hwp_evsel *e = hwp_reader__evsel(r, 0);
		CHECK_EQ_U64(e->attr.config, 0x1c4);
		CHECK_EQ_U64(e->attr.sample_type, HWP_SAMPLE_IP);
		/* branch_sample_type exists from VER2 (80 bytes) on */
		CHECK_EQ_U64(e->attr.branch_sample_type, sizes[i] >= 80 ? HWP_BRANCH_ANY : 0);
		CHECK_EQ_U64(e->nr_ids, 1);
		CHECK_EQ_U64(ev.sample.ip, 0x1234);
		hwp_reader__delete(r);
	}
}

static void test_read_formats(void)
{
	for (uint64_t rf = 0; rf < 32; rf++) {
		struct img m;
		struct hwp_event ev;
		struct hwp_reader *r;
		struct hwp_read rd;
		struct hwp_read_value v;

		build(&m, 128, HWP_SAMPLE_IP | HWP_SAMPLE_READ, rf, false);
		CHECK(read_one(&m, &ev, &r) == 1);
		if (!r)
			continue;
		uint64_t nr = (rf & HWP_FORMAT_GROUP) ? 3 : 1;
		CHECK(hwp_read__parse(&ev.sample.read, rf, &rd) == 0);
		CHECK_EQ_U64(rd.nr, nr);
		CHECK_EQ_U64(rd.time_enabled, (rf & HWP_FORMAT_TOTAL_TIME_ENABLED) ? 500 : 0);
		CHECK_EQ_U64(rd.time_running, (rf & HWP_FORMAT_TOTAL_TIME_RUNNING) ? 400 : 0);
		for (uint64_t i = 0; i < nr; i++) {
			CHECK(hwp_read__value(&ev.sample.read, rf, i, &v) == 0);
			CHECK_EQ_U64(v.value, (rf & HWP_FORMAT_GROUP) ? 1000 + i : 1000);
			CHECK_EQ_U64(v.id, (rf & HWP_FORMAT_ID) ? 77 + i : 0);
			CHECK_EQ_U64(v.lost, (rf & HWP_FORMAT_LOST) ? 9 + i : 0);
		}
		CHECK(hwp_read__value(&ev.sample.read, rf, nr, &v) < 0);
		hwp_reader__delete(r);
	}
}

static void test_killed_recording_reads_to_eof(void)
{
	struct img m;
	struct hwp_event ev;
	struct hwp_reader *r;

	build(&m, 128, HWP_SAMPLE_IP, 0, true);
	CHECK(read_one(&m, &ev, &r) == 1);
	CHECK_EQ_U64(ev.sample.ip, 0x1234);
	CHECK(hwp_reader__next(r, &ev) == 0);
	hwp_reader__delete(r);
}

static void test_foreign_endian_refused(void)
{
	struct img m;

	build(&m, 128, HWP_SAMPLE_IP, 0, false);
	st64(m.b, HWP_PERF_MAGIC2_SWAPPED);
	struct hwp_reader *r = hwp_reader__open_mem(m.b, m.len, "be.data", NULL);
	CHECK(r == NULL);
	CHECK(strstr(hwp_errmsg(), "be.data") && strstr(hwp_errmsg(), "endian"));
	hwp_reader__delete(r);
}

static void test_identifier_routing(void)
{
	struct img m;
	struct hwp_event ev;
	struct hwp_reader *r;

	build(&m, 128, HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP, 0, false);
	CHECK(read_one(&m, &ev, &r) == 1);
	CHECK(ev.evsel == hwp_reader__evsel(r, 0));
	CHECK_EQ_U64(ev.sample.id, 77);
	CHECK_EQ_U64(ev.sample.ip, 0x1234);
	hwp_reader__delete(r);
}

int main(void)
{
	RUN(test_every_attr_size);
	RUN(test_read_formats);
	RUN(test_killed_recording_reads_to_eof);
	RUN(test_foreign_endian_refused);
	RUN(test_identifier_routing);
	TL_EXIT();
}
