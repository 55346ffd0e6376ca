/* c2c's lines are built on as many threads as the memory report was read
   on (c2c.c), each thread taking a share of the lines: whatever the share,
   the lines and their accesses must be those built on one thread, field by
   field. The recording spreads its samples over tens of thousands of cache
   lines, so that up to 8 threads each take some (at least 4096 a thread). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "analysis/mem_internal.h"
#include "hwprof/c2c.h"
#include "hwprof/data_src.h"
#include "hwprof/mem.h"
#include "hwprof/perf_writer.h"
#include "hwprof/session.h"
#include "mem_recording.h"
#include "testlib.h"

#define PID 400
#define TEXT 0x400000ULL
#define HEAP 0x2000000ULL
#define NLINES 40000 /* cache lines sampled (64 bytes each) */
#define NSAMPLES 200000
/* more lines than 64 threads take at their least (4096 each): their
   number is capped */
#define WIDE_LINES (70 * 4096)

static char path[256], path_wide[256];
static const uint8_t prog_id[20] = { 0xc2, 0xc, 2, 7, 1, 8, 2, 8 };
static uint64_t rs = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	return next_random(&rs);
}

/* N loads and stores of 8 threads on 8 CPUs over NLINES lines of the heap
   (EACH_ONCE: one sample on each line, in order; else at random), 16
   instructions, some HITMs, into FILE. */
static int write_recording(const char *file, unsigned nlines, unsigned n, bool each_once)
{
	struct hwp_writer *w = hwp_writer__open(file);
	struct hwp_sample id;
	uint64_t ids[1] = { 9 };
	int err = 0;

	if (!w)
		return -1;
	err |= add_mem_attr(w, ids[0]) < 0;
	err |= add_program(w, PID, ids[0], "c2cprog", "/fake/c2cprog", prog_id, TEXT, &id) < 0;
	err |= hwp_writer__add_mmap2(w, 0, PID, PID, HEAP, 0x1000000, 0, NULL, 0, PROT_READ | PROT_WRITE, 0, "[heap]",
				     HWP_MISC_USER, &id) < 0;
	for (unsigned i = 0; i < n && !err; i++) {
		uint64_t r = rnd();
		unsigned line = each_once ? i : (unsigned)(r % nlines);
		int store = (r >> 20 & 3) == 0, hitm = (r >> 22 & 7) == 0;
		struct hwp_sample s;
		struct hwp_sample_in in = { .s = &s };

		memset(&s, 0, sizeof(s));
		s.cpumode = HWP_MISC_USER;
		s.id = ids[0];
		s.pid = PID;
		s.tid = PID + (uint32_t)(r >> 24) % 8;
		s.cpu = (uint32_t)(r >> 28) % 8;
		s.time = 1000 + 10 * (uint64_t)i;
		s.ip = TEXT + 0x100 + 4 * ((r >> 32) % 16);
		s.addr = HEAP + 64 * (uint64_t)line + 8 * ((r >> 36) % 8);
		s.weight = 4 + (r >> 40) % 300;
		s.data_src = (store ? HWP_MEM_OP_STORE : HWP_MEM_OP_LOAD) |
			     (HWP_MEM_LVL_HIT | (hitm ? HWP_MEM_LVL_L3 : HWP_MEM_LVL_L1)) << 5 |
			     (uint64_t)(hitm ? HWP_MEM_SNOOP_HITM : HWP_MEM_SNOOP_NONE) << 19;
		err |= hwp_writer__add_sample(w, 0, &in) < 0;
		if (i % 1000 == 999)
			err |= hwp_writer__add_finished_round(w) < 0;
	}
	return end_recording(w, err);
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_access(const struct hwp_c2c_access *a, const struct hwp_c2c_access *b)
{
	return a->offset == b->offset && a->code.module == b->code.module && a->code.offset == b->code.offset &&
	       a->code.addr == b->code.addr && a->samples == b->samples && a->loads == b->loads &&
	       a->stores == b->stores && a->hitm == b->hitm && a->lat_sum == b->lat_sum &&
	       a->nr_tids == b->nr_tids && a->nr_cpus == b->nr_cpus && a->sym_offset == b->sym_offset &&
	       a->line == b->line && a->data_stack_op == b->data_stack_op && same_text(a->symbol, b->symbol) &&
	       same_text(a->file, b->file) && same_text(a->data_type, b->data_type) &&
	       same_text(a->data_member, b->data_member);
}

static bool same_line(const struct hwp_c2c_line *a, const struct hwp_c2c_line *b)
{
	return a->addr == b->addr && a->data_module == b->data_module && a->data_offset == b->data_offset &&
	       same_text(a->region, b->region) && a->pid == b->pid && a->samples == b->samples &&
	       a->loads == b->loads && a->stores == b->stores && a->hitm == b->hitm && a->lat_sum == b->lat_sum &&
	       a->nr_tids == b->nr_tids && a->nr_cpus == b->nr_cpus && a->nr_offsets == b->nr_offsets &&
	       a->first == b->first && a->nr == b->nr;
}

/* C (built on JOBS threads) against WANT (on one): the first difference
   on stderr. */
static bool same_c2c(const struct hwp_c2c *want, const struct hwp_c2c *c, unsigned jobs)
{
	const struct hwp_c2c_line *wl, *cl;
	size_t wn = hwp_c2c__lines(want, &wl), cn = hwp_c2c__lines(c, &cl);
	const struct hwp_c2c_access *wa = hwp_c2c__accesses(want), *ca = hwp_c2c__accesses(c);

	if (wn != cn || hwp_c2c__nr_lines_seen(want) != hwp_c2c__nr_lines_seen(c)) {
		fprintf(stderr, "%u threads: %zu lines (%llu seen), want %zu (%llu)\n", jobs, cn,
			(unsigned long long)hwp_c2c__nr_lines_seen(c), wn,
			(unsigned long long)hwp_c2c__nr_lines_seen(want));
		return false;
	}
	for (size_t i = 0; i < wn; i++) {
		if (!same_line(&wl[i], &cl[i])) {
			fprintf(stderr, "%u threads: line %zu differs\n", jobs, i);
			return false;
		}
		for (size_t k = wl[i].first; k < wl[i].first + wl[i].nr; k++)
			if (!same_access(&wa[k], &ca[k])) {
				fprintf(stderr, "%u threads: access %zu of line %zu differs\n", jobs, k, i);
				return false;
			}
	}
	return true;
}

/* FILE's c2c built on each of JOBS[0..N) threads equals that built on one,
   which saw at least MIN_SEEN lines and kept more than MIN_LINES. */
static void compare_threads(const char *file, const unsigned *jobs, size_t n, uint64_t min_seen, size_t min_lines)
{
	struct hwp_mem_report_opts o = { .sz = sizeof(o), .collect = HWP_MEM_COLLECT_C2C };
	struct hwp_session *s = hwp_session__open(file, NULL);
	struct hwp_mem_report *r = s ? hwp_mem_report__new(s, &o) : NULL;
	struct hwp_c2c *want = NULL;
	const struct hwp_c2c_line *l;

	CHECK(r && hwp_mem_report__read(r) == 0);
	if (!r)
		goto out;
	r->jobs = 1;
	CHECK((want = hwp_c2c__new(r)) != NULL);
	if (!want)
		goto out;
	CHECK(hwp_c2c__nr_lines_seen(want) >= min_seen);
	CHECK(hwp_c2c__lines(want, &l) > min_lines);
	for (size_t i = 0; i < n; i++) {
		r->jobs = jobs[i];
		struct hwp_c2c *c = hwp_c2c__new(r);

		CHECK(c && same_c2c(want, c, jobs[i]));
		hwp_c2c__delete(c);
	}
out:
	hwp_c2c__delete(want);
	hwp_mem_report__delete(r);
	hwp_session__delete(s);
}

/* Enough lines for 8 threads' shares, and many of them contended. */
static void test_shares_of_lines(void)
{
	static const unsigned jobs[] = { 2, 3, 8 };

	compare_threads(path, jobs, 3, 8 * 4096, 1000);
}

/* More threads than a build takes (-j reaches 4096), on more lines than
   the most threads take at their least. */
static void test_thread_limit(void)
{
	static const unsigned jobs[] = { 65, 4096 };

	compare_threads(path_wide, jobs, 2, WIDE_LINES, 0);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/hwprof-c2cparts-%d.data", tmp ? tmp : "/tmp", (int)getpid());
	snprintf(path_wide, sizeof(path_wide), "%s/hwprof-c2cparts-%d-wide.data", tmp ? tmp : "/tmp",
		 (int)getpid());
	if (write_recording(path, NLINES, NSAMPLES, false) < 0 ||
	    write_recording(path_wide, WIDE_LINES, WIDE_LINES, true) < 0) {
		printf("FAIL write_recording: %s\n", hwp_errmsg());
		return 1;
	}
	RUN(test_shares_of_lines);
	RUN(test_thread_limit);
	remove(path);
	remove(path_wide);
	TL_EXIT();
}
