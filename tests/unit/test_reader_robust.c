/* SPDX-License-Identifier: MIT */
/*
 * The perf.data reader on bad input, in process (fast enough for every
 * prefix, and under ASan+UBSan in the sanitizer build): every prefix of small
 * corpus files, every byte of their headers set to 0x00/0xff, and one case
 * per bug found by fuzzing. Errors must name the input and an offset; the
 * end of data is sticky.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "hwprof/perf_data.h"
#include "util/bytes.h"

#define NAME "bad.data"

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			abort();
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void put_hdr(struct buf *b, uint32_t type, uint16_t misc, uint16_t size)
{
	put(b, &type, 4);
	put(b, &misc, 2);
	put(b, &size, 2);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (p = malloc((size_t)n)) && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	*len = p ? (size_t)n : 0;
	fclose(f);
	return p;
}

/* The error contract: "NAME: ... offset 0x.." on one line. */
static int error_ok(void)
{
	const char *m = hwp_errmsg();

	if (strncmp(m, NAME ": ", strlen(NAME) + 2) == 0 && !strchr(m, '\n') && strstr(m, "offset 0x"))
		return 1;
	fprintf(stderr, "bad error message: '%s'\n", m);
	return 0;
}

/* Reads IMG both ways; returns 1 ok, 0 clean error, -1 contract broken. */
static int read_all(const uint8_t *img, size_t len)
{
	struct hwp_event ev;
	int rc, ret;
	struct hwp_reader *r = hwp_reader__open_mem(img, len, NAME, NULL);

	if (!r)
		return error_ok() ? 0 : -1;
	while ((rc = hwp_reader__next(r, &ev)) > 0) {
		struct hwp_branch_entry e;
		for (uint64_t i = 0; ev.type == HWP_RECORD_SAMPLE && i < ev.sample.branch_nr; i++)
			hwp_sample__branch(&ev.sample, i, &e);
		for (uint64_t i = 0; ev.type == HWP_RECORD_SAMPLE && i < ev.sample.callchain_nr; i++)
			(void)hwp_sample__callchain_ip(&ev.sample, i);
	}
	if (rc < 0)
		ret = error_ok() ? 0 : -1;
	else
		ret = hwp_reader__next(r, &ev) == 0 ? 1 : -1;
	hwp_reader__delete(r);

	r = hwp_reader__open_mem(img, len, NAME, NULL);
	struct hwp_ordered *q = r ? hwp_ordered__new(r) : NULL;
	if (!q) {
		hwp_reader__delete(r);
		return -1;
	}
	while ((rc = hwp_ordered__next(q, &ev)) > 0)
		;
	if ((rc < 0) != (ret == 0) || (rc < 0 && !error_ok()))
		ret = -1; /* the two orders must agree on the outcome */
	hwp_ordered__delete(q);
	hwp_reader__delete(r);
	return ret;
}

/* Reads every prefix of corpus file REL. Returns how many prefixes read as
   whole files, or -1 when the case was skipped (no corpus, or no such file). */
static int prefixes_of(const char *rel)
{
	char path[1024];
	const char *dir = tl_corpus();
	size_t len;
	int ok_count = 0;

	if (!dir) {
		snprintf(tl_skip_reason, sizeof(tl_skip_reason), "no corpus");
		tl_case_skipped = 1;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	uint8_t *img = slurp(path, &len);
	if (!img) {
		snprintf(tl_skip_reason, sizeof(tl_skip_reason), "%s is not in the corpus", rel);
		tl_case_skipped = 1;
		return -1;
	}
	CHECK(read_all(img, len) == 1);
	for (size_t n = 0; n < len; n++) {
		/* a copy of exactly N bytes, so ASan sees any read past its end */
		uint8_t *cut = malloc(n ? n : 1);
		memcpy(cut, img, n);
		int rc = read_all(cut, n);
		CHECK(rc >= 0);
		ok_count += rc == 1;
		free(cut);
		if (rc < 0) {
			fprintf(stderr, "  %s: prefix of %zu bytes\n", rel, n);
			break;
		}
	}
	/* a recording perf never finished (data size 0): data runs to EOF */
	if (len >= HWP_FILE_HEADER_SIZE && ld64(img + 8) == HWP_FILE_HEADER_SIZE) {
		st64(img + 48, 0);
		for (size_t n = ld64(img + 40); n < len; n++) {
			uint8_t *cut = malloc(n);
			memcpy(cut, img, n);
			int rc = read_all(cut, n);
			CHECK(rc >= 0);
			free(cut);
			if (rc < 0) {
				fprintf(stderr, "  %s (data size 0): prefix of %zu bytes\n", rel, n);
				break;
			}
		}
	}
	free(img);
	return ok_count;
}

static void test_prefixes_file_mode(void)
{
	int ok = prefixes_of("perf_data_converter/perf.data.branch-4.14");

	if (ok >= 0)
		CHECK(ok == 0); /* only the whole file is whole */
}

static void test_prefixes_compressed(void)
{
	int ok = prefixes_of("linux-perf-data/sleep.compressed2.data");

	if (ok >= 0)
		CHECK(ok == 0);
}

static void test_prefixes_pipe_mode(void)
{
	int ok = prefixes_of("perf_data_converter/perf.data.piped.header_features_aligned-6.12");

	if (ok >= 0)
		CHECK(ok > 10); /* pipe mode has no size: prefixes on record boundaries read */
}

static void test_header_bytes(void)
{
	const char *dir = tl_corpus();
	char path[1024];
	size_t len;

	if (!dir)
		SKIP("no corpus");
	snprintf(path, sizeof(path), "%s/perf_data_converter/perf.data.branch-4.14", dir);
	uint8_t *img = slurp(path, &len);
	if (!img)
		SKIP("perf.data.branch-4.14 is not in the corpus");
	/* header, attrs, ids and the first records */
	size_t upto = ld64(img + 40) + 256 < len ? ld64(img + 40) + 256 : len;
	for (size_t i = 0; i < upto; i++) {
		uint8_t save = img[i];
		for (int v = 0; v < 2; v++) {
			img[i] = v ? 0xff : 0x00;
			if (read_all(img, len) < 0) {
				fprintf(stderr, "  byte 0x%zx = 0x%02x\n", i, img[i]);
				CHECK(0);
			}
		}
		img[i] = save;
	}
	free(img);
}

/* Regression: a pipe-mode AUXTRACE whose payload size runs past the input
   moved the read position past the mapping (madvise then hit other memory
   on a real file, and a cut payload passed as a clean end). */
static void test_auxtrace_past_end(void)
{
	uint64_t sizes[] = { 16, 1ULL << 40, 1ULL << 63, UINT64_MAX - 64 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct buf b = { 0 };
		put(&b, "PERFILE2", 8);
		put64(&b, 16);
		put_hdr(&b, HWP_RECORD_AUXTRACE, 0, 48);
		put64(&b, sizes[k]);
		for (int i = 0; i < 4; i++)
			put64(&b, 0);
		put(&b, "12345678", 8); /* 8 of the payload bytes */
		CHECK(read_all(b.p, b.n) == 0);
		CHECK(strstr(hwp_errmsg(), "payload past the end") != NULL);
		free(b.p);
	}
}

/* Regression: attrs whose ids all cover the whole file cost attrs x file. */
static void test_ids_sum_bounded(void)
{
	struct buf b = { 0 };
	const uint64_t nattr = 64, stride = HWP_ATTR_SIZE_VER0 + 16;
	uint64_t data_off = HWP_FILE_HEADER_SIZE + nattr * stride;
	uint8_t attr[HWP_ATTR_SIZE_VER0] = { 0 };

	put(&b, "PERFILE2", 8);
	put64(&b, HWP_FILE_HEADER_SIZE);
	put64(&b, stride);
	put64(&b, HWP_FILE_HEADER_SIZE);
	put64(&b, nattr * stride);
	put64(&b, data_off);
	put64(&b, 0);
	for (int i = 0; i < 6; i++)
		put64(&b, 0);
	st32(attr + 4, HWP_ATTR_SIZE_VER0);
	for (uint64_t i = 0; i < nattr; i++) {
		put(&b, attr, sizeof(attr));
		put64(&b, 0);
		put64(&b, data_off); /* ids: the whole file before the data */
	}
	CHECK(read_all(b.p, b.n) == 0);
	CHECK(strstr(hwp_errmsg(), "ids sections add up") != NULL);
	free(b.p);
}

static void test_short_inputs(void)
{
	static const uint8_t magic[16] = "PERFILE2\x10";

	CHECK(read_all(magic, 0) == 0);
	CHECK(strstr(hwp_errmsg(), "empty input") != NULL);
	for (size_t n = 1; n < 16; n++) {
		CHECK(read_all(magic, n) == 0);
		CHECK(strstr(hwp_errmsg(), "truncated perf.data header") != NULL);
	}
	CHECK(read_all(magic, 16) == 1); /* an empty pipe-mode stream */
}

/* Regression: the stream reader did arithmetic on its NULL buffer. */
static void test_empty_pipe(void)
{
	int fds[2];
	char path[64];

	if (pipe(fds) < 0)
		SKIP("pipe: %s", strerror(errno));
	close(fds[1]);
	snprintf(path, sizeof(path), "/dev/fd/%d", fds[0]);
	struct hwp_reader *r = hwp_reader__open(path, NULL);
	CHECK(r == NULL);
	CHECK(strstr(hwp_errmsg(), "empty input") != NULL);
	hwp_reader__delete(r);
	close(fds[0]);
}

/* Regression: hwp_read__parse stepped over a value it had not checked. */
static void test_read_values_bounds(void)
{
	struct hwp_bytes empty = { NULL, 0 };
	struct hwp_read rd;
	struct hwp_read_value v;
	struct hwp_sample s;
	struct hwp_branch_entry e;

	CHECK(hwp_read__parse(&empty, 0, &rd) == -EINVAL);
	CHECK(hwp_read__parse(&empty, HWP_FORMAT_GROUP, &rd) == -EINVAL);
	CHECK(hwp_read__value(&empty, HWP_FORMAT_ID, 0, &v) == -EINVAL);
	memset(&s, 0, sizeof(s));
	hwp_sample__branch(&s, 1000, &e); /* out of range, NULL entries: zeroed */
	CHECK(e.from == 0 && e.to == 0);
	CHECK(hwp_sample__callchain_ip(&s, UINT64_MAX) == 0);
}

/* Regression: each PMU in PMU_CAPS copied the whole array (quadratic). */
static void test_many_pmu_caps(void)
{
	struct buf b = { 0 };
	const uint32_t npmu = 4000; /* 16 bytes each: one 64 KiB record */
	uint32_t v = npmu;

	put(&b, "PERFILE2", 8);
	put64(&b, 16);
	put_hdr(&b, HWP_RECORD_HEADER_FEATURE, 0, (uint16_t)(16 + 4 + 16 * npmu + 4));
	put64(&b, HWP_FEAT_PMU_CAPS);
	put(&b, &v, 4);
	for (uint32_t i = 0; i < npmu; i++) {
		v = 0; /* no caps */
		put(&b, &v, 4);
		v = 8; /* the PMU's name */
		put(&b, &v, 4);
		put(&b, "pmu\0\0\0\0\0", 8);
	}
	v = 0;
	put(&b, &v, 4); /* pad to 8 */
	struct hwp_reader *r = hwp_reader__open_mem(b.p, b.n, NAME, NULL);
	struct hwp_event ev;
	CHECK(r != NULL);
	if (r) {
		CHECK(hwp_reader__next(r, &ev) == 1);
		CHECK(hwp_reader__header(r)->nr_pmu_caps == npmu);
		CHECK(hwp_reader__next(r, &ev) == 0);
	}
	hwp_reader__delete(r);
	free(b.p);
}

int main(void)
{
	RUN(test_prefixes_file_mode);
	RUN(test_prefixes_compressed);
	RUN(test_prefixes_pipe_mode);
	RUN(test_header_bytes);
	RUN(test_auxtrace_past_end);
	RUN(test_ids_sum_bounded);
	RUN(test_short_inputs);
	RUN(test_empty_pipe);
	RUN(test_read_values_bounds);
	RUN(test_many_pmu_caps);
	TL_EXIT();
}
