/* The recorder's ring-buffer reader on fake perf mmap buffers (records that
   wrap around the end, corrupt headers, emit errors), and a branch-stack
   sample taken through it into perf.data and read back: the part of the
   hardware path that no PMU-less machine exercises. */
#include <errno.h>

#include "capture/attr_build.h"
#include "hwprof/capture.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"
#include "testlib.h"
#include "util/bytes.h"

#define PAGE 4096
#define DATA (2 * PAGE)

static uint8_t ring[PAGE + DATA];
static uint8_t scratch[65536];

struct got {
	int n;
	size_t sizes[16];
	uint8_t recs[16][256];
	int fail_at;
};

static int collect(void *ctx, const uint8_t *rec, size_t sz)
{
	struct got *g = ctx;

	if (g->n == g->fail_at)
		return -ENOSPC;
	g->sizes[g->n] = sz;
	memcpy(g->recs[g->n], rec, sz < 256 ? sz : 256);
	g->n++;
	return 0;
}

/* Writes REC at ring position POS (a free-running offset), wrapping. */
static void ring_put(uint64_t pos, const uint8_t *rec, size_t sz)
{
	for (size_t i = 0; i < sz; i++)
		ring[PAGE + ((pos + i) & (DATA - 1))] = rec[i];
}

static void set_head_tail(uint64_t head, uint64_t tail)
{
	st64(ring + 1024, head);
	st64(ring + 1032, tail);
}

static void make_rec(uint8_t *rec, uint32_t type, uint16_t sz, uint8_t fill)
{
	memset(rec, fill, sz);
	st32(rec, type);
	st16(rec + 4, 0);
	st16(rec + 6, sz);
}

static void test_wrap(void)
{
	uint8_t a[48], b[16], c[200];
	uint64_t tail = 5 * (uint64_t)DATA - 24; /* free-running, 24 bytes before the end */
	struct got g = { .fail_at = -1 };

	make_rec(a, 3, sizeof(a), 0xa1); /* wraps after 24 bytes */
	make_rec(b, 9, sizeof(b), 0xb2);
	make_rec(c, 10, sizeof(c), 0xc3);
	ring_put(tail, a, sizeof(a));
	ring_put(tail + 48, b, sizeof(b));
	ring_put(tail + 64, c, sizeof(c));
	set_head_tail(tail + 264, tail);
	CHECK(hwp__ring_drain(ring, PAGE, DATA, scratch, collect, &g) == 3);
	CHECK(g.n == 3);
	CHECK(g.sizes[0] == 48 && memcmp(g.recs[0], a, 48) == 0);
	CHECK(g.sizes[1] == 16 && memcmp(g.recs[1], b, 16) == 0);
	CHECK(g.sizes[2] == 200 && memcmp(g.recs[2], c, 200) == 0);
	CHECK_EQ_U64(ld64(ring + 1032), tail + 264);
	/* nothing new: nothing emitted */
	g.n = 0;
	CHECK(hwp__ring_drain(ring, PAGE, DATA, scratch, collect, &g) == 0 && g.n == 0);
	/* the header itself wrapping (record starts 4 bytes before the end) */
	tail = 7 * (uint64_t)DATA - 4;
	ring_put(tail, b, sizeof(b));
	set_head_tail(tail + 16, tail);
	CHECK(hwp__ring_drain(ring, PAGE, DATA, scratch, collect, &g) == 1);
	CHECK(g.n == 1 && memcmp(g.recs[0], b, 16) == 0);
}

static void test_corrupt_and_errors(void)
{
	uint8_t a[32], bad[8];
	struct got g = { .fail_at = -1 };
	uint64_t tail = 1000;

	make_rec(a, 3, sizeof(a), 0x11);
	make_rec(bad, 3, 8, 0);
	st16(bad + 6, 4); /* size below a header */
	ring_put(tail, a, sizeof(a));
	ring_put(tail + 32, bad, sizeof(bad));
	set_head_tail(tail + 40, tail);
	CHECK(hwp__ring_drain(ring, PAGE, DATA, scratch, collect, &g) == -EIO);
	CHECK(g.n == 1);
	CHECK_EQ_U64(ld64(ring + 1032), tail + 32); /* consumed up to the bad one */
	/* a record claiming more than head allows */
	make_rec(a, 3, sizeof(a), 0x22);
	ring_put(tail, a, sizeof(a));
	set_head_tail(tail + 16, tail);
	g.n = 0;
	CHECK(hwp__ring_drain(ring, PAGE, DATA, scratch, collect, &g) == -EIO && g.n == 0);
	/* the writer failing stops the copy; tail stays at the failed record */
	ring_put(tail, a, sizeof(a));
	ring_put(tail + 32, a, sizeof(a));
	set_head_tail(tail + 64, tail);
	g.n = 0;
	g.fail_at = 1;
	CHECK(hwp__ring_drain(ring, PAGE, DATA, scratch, collect, &g) == -ENOSPC);
	CHECK_EQ_U64(ld64(ring + 1032), tail + 32);
}

struct wctx {
	struct hwp_writer *w;
};

static int to_writer(void *ctx, const uint8_t *rec, size_t sz)
{
	return hwp_writer__add_raw(((struct wctx *)ctx)->w, rec, sz);
}

static void test_branch_sample_to_perf_data(void)
{
	/* the attr of `hwprof record -b` on an Intel host, a sample as the
	   kernel lays it out: ip, pid/tid, time, period, nr, {from, to, flags} */
	static const struct hwp_capture_host intel = { .can_profile_kernel = true,
						       .max_sample_rate = 100000, .arch = "x86_64" };
	struct hwp_attr_opts ao = { .sz = sizeof(ao), .branch_sample_type = HWP_BRANCH_ANY };
	struct hwp_attr_result *ar = calloc(1, sizeof(*ar));
	char path[] = "/tmp/hwprof-test-rec-XXXXXX";
	uint8_t rec[8 + 8 * 5 + 2 * 24];
	struct hwp_branch_entry e = { 0 };
	uint64_t id = 42;
	int fd;

	if (!ar)
		return;
	ar->sz = sizeof(*ar);
	CHECK(hwp_attr__build(&ao, &intel, ar) == 0);
	make_rec(rec, HWP_RECORD_SAMPLE, sizeof(rec), 0);
	st16(rec + 4, HWP_MISC_USER);
	st64(rec + 8, 0x401136);                     /* ip */
	st32(rec + 16, 1234);                        /* pid */
	st32(rec + 20, 1235);                        /* tid */
	st64(rec + 24, 1000000);                     /* time */
	st64(rec + 32, 250000);                      /* period */
	st64(rec + 40, 2);                           /* nr */
	st64(rec + 48, 0x401130);                    /* from */
	st64(rec + 56, 0x401100);                    /* to */
	e.mispred = 1;
	e.cycles = 17;
	st64(rec + 64, hwp_branch_entry__encode_flags(&e));
	st64(rec + 72, 0x4010f0);
	st64(rec + 80, 0x401000);
	e.mispred = 0;
	e.predicted = 1;
	e.cycles = 3;
	st64(rec + 88, hwp_branch_entry__encode_flags(&e));
	uint64_t tail = 3 * (uint64_t)DATA - 40; /* the sample wraps */
	ring_put(tail, rec, sizeof(rec));
	set_head_tail(tail + sizeof(rec), tail);

	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	struct wctx wc = { hwp_writer__open(path) };
	CHECK(wc.w != NULL);
	CHECK(hwp_writer__add_attr(wc.w, &ar->attr, &id, 1, "cycles") == 0);
	CHECK(hwp_writer__set_flag_feature(wc.w, HWP_FEAT_BRANCH_STACK) == 0);
	CHECK(hwp__ring_drain(ring, PAGE, DATA, scratch, to_writer, &wc) == 1);
	CHECK(hwp_writer__add_finished_round(wc.w) == 0);
	CHECK(hwp_writer__close(wc.w) == 0);

	struct hwp_reader *r = hwp_reader__open(path, NULL);
	struct hwp_event ev;
	int n, samples = 0;

	CHECK(r != NULL);
	while (r && (n = hwp_reader__next(r, &ev)) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE)
			continue;
		samples++;
		CHECK_EQ_U64(ev.sample.ip, 0x401136);
		CHECK_EQ_U64(ev.sample.branch_nr, 2);
		hwp_sample__branch(&ev.sample, 0, &e);
		CHECK(e.from == 0x401130 && e.to == 0x401100 && e.mispred && e.cycles == 17);
		hwp_sample__branch(&ev.sample, 1, &e);
		CHECK(e.from == 0x4010f0 && e.predicted && !e.mispred && e.cycles == 3);
	}
	CHECK(samples == 1);
	if (r) {
		CHECK(hwp_header_info__has(hwp_reader__header(r), HWP_FEAT_BRANCH_STACK));
		hwp_reader__delete(r);
	}
	/* perf itself, when installed: perf script prints the two entries */
	if (system("command -v perf >/dev/null 2>&1") == 0) {
		char cmd[256], line[512] = "";
		FILE *p;

		snprintf(cmd, sizeof(cmd), "perf script -F ip,brstack -i %s 2>/dev/null", path);
		p = popen(cmd, "r");
		if (p) {
			if (!fgets(line, sizeof(line), p))
				line[0] = 0;
			pclose(p);
		}
		CHECK(strstr(line, "0x401130/0x401100/M/-/-/17") != NULL);
		CHECK(strstr(line, "0x4010f0/0x401000/P/-/-/3") != NULL);
		if (!strstr(line, "0x401130/0x401100/M/-/-/17"))
			fprintf(stderr, "perf script: %s\n", line);
	}
	unlink(path);
	free(ar);
}

int main(void)
{
	RUN(test_wrap);
	RUN(test_corrupt_and_errors);
	RUN(test_branch_sample_to_perf_data);
	TL_EXIT();
}
