/* The memory report sums while reading and keeps no sample (mem.h, c2c.h):
   its tables hold one entry per distinct key however many samples came, a
   recording with every sample written twice gives the same rows with every
   count doubled, and a report collecting one grouping gives that grouping's
   rows and refuses the others. */
#include <errno.h>
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

#define PID 300
#define TEXT 0x400000ULL
#define DATA 0x600000ULL
#define HEAP 0x2000000ULL
#define NADDR 12
#define NIP 5

static char path_small[256], path_big[256], path_twice[256];
static const uint8_t prog_id[20] = { 0x5e, 0x11, 3, 1, 4, 1, 5, 9, 2, 6 };

static uint64_t rs = 0x2545f4914f6cdd1dULL;

static uint64_t rnd(void)
{
	return next_random(&rs);
}

/*
 * N samples of one process (3 threads on 8 CPUs) over NADDR data addresses
 * (half in the binary's data mapping, half on [heap], some sharing a cache
 * line) and NIP instructions, loads and stores, with data sources from L1 to
 * HITM and varied latencies; each written TWICE times in a row when asked.
 * The same seed gives the same samples.
 */
static int write_recording(const char *path, unsigned n, int twice)
{
	struct hwp_writer *w = hwp_writer__open(path);
	struct hwp_sample id;
	uint64_t ids[1] = { 7 };
	int err = 0;

	if (!w)
		return -1;
	rs = 0x2545f4914f6cdd1dULL;
	err |= add_mem_attr(w, ids[0]) < 0;
	err |= add_program(w, PID, ids[0], "prog", "/fake/prog", prog_id, TEXT, &id) < 0;
	err |= hwp_writer__add_mmap2(w, 0, PID, PID, DATA, 0x10000, 0x10000, prog_id, 20, PROT_READ | PROT_WRITE, 0,
				     "/fake/prog", HWP_MISC_USER, &id) < 0;
	err |= hwp_writer__add_mmap2(w, 0, PID, PID, HEAP, 0x100000, 0, NULL, 0, PROT_READ | PROT_WRITE, 0, "[heap]",
				     HWP_MISC_USER, &id) < 0;
	for (unsigned i = 0; i < n && !err; i++) {
		static const uint64_t lvl[4] = { HWP_MEM_LVL_L1, HWP_MEM_LVL_L2, HWP_MEM_LVL_L3, HWP_MEM_LVL_LOC_RAM };
		uint64_t r = rnd();
		unsigned k = (unsigned)(r % NADDR), src = (unsigned)(r >> 8 & 3);
		int store = (r >> 12 & 3) == 0, hitm = src == 2 && (r >> 14 & 1);
		struct hwp_sample s;
		struct hwp_sample_in in = { .s = &s };

		memset(&s, 0, sizeof(s));
		s.cpumode = HWP_MISC_USER;
		s.id = ids[0];
		s.pid = PID;
		s.tid = PID + (k % 2 ? (uint32_t)(r >> 16) % 3 : 0);
		s.cpu = (uint32_t)(r >> 20) % 4 + (k == 3 ? 126 : 0); /* CPUs past 63 too */
		s.time = 1000 + 10 * (uint64_t)i;
		s.ip = TEXT + 0x100 + 4 * ((k + (r >> 24) % 2) % NIP);
		s.addr = (k % 2 ? DATA + 0x40 : HEAP + 0x1000) + 24 * k;
		s.weight = 4 + (r >> 28) % 300;
		s.data_src = (store ? HWP_MEM_OP_STORE : HWP_MEM_OP_LOAD) | (HWP_MEM_LVL_HIT | lvl[src]) << 5 |
			     (uint64_t)(hitm ? HWP_MEM_SNOOP_HITM : HWP_MEM_SNOOP_NONE) << 19;
		for (int t = 0; t <= twice && !err; t++)
			err |= hwp_writer__add_sample(w, 0, &in) < 0;
		if (i % 1000 == 999)
			err |= hwp_writer__add_finished_round(w) < 0;
	}
	return end_recording(w, err);
}

/* A report over PATH, read (collect: HWP_MEM_COLLECT_* or 0); its session in *S. */
static struct hwp_mem_report *report(const char *path, unsigned collect, struct hwp_session **s)
{
	struct hwp_mem_report_opts o = { .sz = sizeof(o), .collect = collect };
	struct hwp_mem_report *r;

	*s = hwp_session__open(path, NULL);
	if (!*s)
		return NULL;
	r = hwp_mem_report__new(*s, &o);
	if (r && hwp_mem_report__read(r) < 0) {
		hwp_mem_report__delete(r);
		r = NULL;
	}
	return r;
}

/* Ten times the samples over the same keys: the same number of entries. */
static void test_entries_follow_keys(void)
{
	struct hwp_session *s1, *s2;
	struct hwp_mem_report *small = report(path_small, 0, &s1), *big = report(path_big, 0, &s2);

	CHECK(small && big);
	if (small && big) {
		size_t a = hwp__mem_report_entries(small), b = hwp__mem_report_entries(big);
		CHECK_EQ_U64(hwp_mem_report__totals(small)->samples, 2000);
		CHECK_EQ_U64(hwp_mem_report__totals(big)->samples, 20000);
		CHECK_EQ_U64(a, b);
		/* instructions, addresses, sources, address x instruction pairs
		   and their few extra threads and CPUs: far below the samples */
		CHECK(b > NADDR && b < 200);
	}
	hwp_mem_report__delete(small);
	hwp_mem_report__delete(big);
	hwp_session__delete(s1);
	hwp_session__delete(s2);
}

static int same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Row X of the twice-written recording against row Y of the plain one. */
static int doubled(const struct hwp_mem_group *x, const struct hwp_mem_group *y)
{
	const struct hwp_mem_stats *a = &x->st, *b = &y->st;
	int ok = a->samples == 2 * b->samples && a->loads == 2 * b->loads && a->stores == 2 * b->stores &&
		 a->hitm == 2 * b->hitm && a->lat_sum == 2 * b->lat_sum && a->lat_max == b->lat_max;

	for (int s = 0; s < HWP_MEM_SRC__COUNT; s++)
		ok &= a->by_source[s] == 2 * b->by_source[s] && a->lat_by_source[s] == 2 * b->lat_by_source[s];
	for (int h = 0; h < HWP_MEM_HIST_BUCKETS; h++)
		ok &= a->hist[h] == 2 * b->hist[h];
	return ok && x->code.offset == y->code.offset && x->data_offset == y->data_offset &&
	       x->data_addr == y->data_addr && x->data_module == y->data_module && x->line == y->line &&
	       x->source == y->source && same_str(x->region, y->region) && same_str(x->symbol, y->symbol);
}

/* Every sample twice: the same rows in the same order, every count doubled. */
static void test_duplicated_samples(void)
{
	struct hwp_session *s1, *s2;
	struct hwp_mem_report *one = report(path_small, 0, &s1), *two = report(path_twice, 0, &s2);

	CHECK(one && two);
	if (!one || !two)
		goto out;
	CHECK_EQ_U64(hwp_mem_report__totals(two)->samples, 2 * hwp_mem_report__totals(one)->samples);
	CHECK_EQ_U64(hwp__mem_report_entries(one), hwp__mem_report_entries(two));
	for (int k = 0; k < HWP_MEM_KEY__COUNT; k++) {
		const struct hwp_mem_group *g1, *g2;
		size_t n1 = hwp_mem_report__groups(one, (enum hwp_mem_key)k, &g1);
		size_t n2 = hwp_mem_report__groups(two, (enum hwp_mem_key)k, &g2);

		CHECK(n1 != (size_t)-1 && n1 > 0);
		CHECK_EQ_U64(n1, n2);
		for (size_t i = 0; n1 == n2 && n1 != (size_t)-1 && i < n1; i++)
			if (!doubled(&g2[i], &g1[i])) {
				fprintf(stderr, "grouping %d row %zu: not the doubled row\n", k, i);
				CHECK(0);
				break;
			}
	}
	struct hwp_c2c *c1 = hwp_c2c__new(one), *c2 = hwp_c2c__new(two);
	CHECK(c1 && c2);
	if (c1 && c2) {
		const struct hwp_c2c_line *l1, *l2;
		const struct hwp_c2c_access *a1 = hwp_c2c__accesses(c1), *a2 = hwp_c2c__accesses(c2);
		size_t n1 = hwp_c2c__lines(c1, &l1), n2 = hwp_c2c__lines(c2, &l2);

		CHECK(n1 > 0);
		CHECK_EQ_U64(n1, n2);
		CHECK_EQ_U64(hwp_c2c__nr_lines_seen(c1), hwp_c2c__nr_lines_seen(c2));
		for (size_t i = 0; n1 == n2 && i < n1; i++) {
			CHECK(l2[i].addr == l1[i].addr && l2[i].samples == 2 * l1[i].samples &&
			      l2[i].stores == 2 * l1[i].stores && l2[i].hitm == 2 * l1[i].hitm &&
			      l2[i].lat_sum == 2 * l1[i].lat_sum && l2[i].nr_tids == l1[i].nr_tids &&
			      l2[i].nr_cpus == l1[i].nr_cpus && l2[i].nr == l1[i].nr);
			for (size_t j = 0; l2[i].nr == l1[i].nr && j < l1[i].nr; j++) {
				const struct hwp_c2c_access *x = &a2[l2[i].first + j], *y = &a1[l1[i].first + j];
				CHECK(x->offset == y->offset && x->code.offset == y->code.offset &&
				      x->samples == 2 * y->samples && x->loads == 2 * y->loads &&
				      x->nr_tids == y->nr_tids && x->nr_cpus == y->nr_cpus);
			}
		}
	}
	hwp_c2c__delete(c1);
	hwp_c2c__delete(c2);
out:
	hwp_mem_report__delete(one);
	hwp_mem_report__delete(two);
	hwp_session__delete(s1);
	hwp_session__delete(s2);
}

/* Collecting one grouping: its rows as the full report has them; the others
   and c2c refused with a message; fewer entries. */
static void test_collect_one(void)
{
	struct hwp_session *s1, *s2;
	struct hwp_mem_report *all = report(path_small, 0, &s1),
			      *one = report(path_small, HWP_MEM_COLLECT_KEY(HWP_MEM_BY_CACHELINE), &s2);
	const struct hwp_mem_group *g1, *g2;

	CHECK(all && one);
	if (!all || !one)
		goto out;
	CHECK(hwp__mem_report_entries(one) < hwp__mem_report_entries(all));
	size_t n1 = hwp_mem_report__groups(all, HWP_MEM_BY_CACHELINE, &g1);
	size_t n2 = hwp_mem_report__groups(one, HWP_MEM_BY_CACHELINE, &g2);
	CHECK(n1 != (size_t)-1 && n1 == n2);
	for (size_t i = 0; n1 == n2 && n1 != (size_t)-1 && i < n1; i++)
		CHECK(g1[i].st.samples == g2[i].st.samples && g1[i].st.lat_sum == g2[i].st.lat_sum &&
		      g1[i].data_addr == g2[i].data_addr);
	CHECK(hwp_mem_report__groups(one, HWP_MEM_BY_LINE, &g2) == (size_t)-1);
	CHECK(strstr(hwp_errmsg(), "line") != NULL);
	CHECK(hwp_c2c__new(one) == NULL && errno == EINVAL);
	/* its one grouping built, the table it came from is freed */
	CHECK_EQ_U64(hwp__mem_report_entries(one), 0);
	CHECK_EQ_U64(hwp_mem_report__totals(one)->samples, hwp_mem_report__totals(all)->samples);
out:
	hwp_mem_report__delete(all);
	hwp_mem_report__delete(one);
	hwp_session__delete(s1);
	hwp_session__delete(s2);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	tmp = tmp ? tmp : "/tmp";
	snprintf(path_small, sizeof(path_small), "%s/hwprof-memflat-%d-1.data", tmp, (int)getpid());
	snprintf(path_big, sizeof(path_big), "%s/hwprof-memflat-%d-10.data", tmp, (int)getpid());
	snprintf(path_twice, sizeof(path_twice), "%s/hwprof-memflat-%d-2.data", tmp, (int)getpid());
	if (write_recording(path_small, 2000, 0) < 0 || write_recording(path_big, 20000, 0) < 0 ||
	    write_recording(path_twice, 2000, 1) < 0) {
		printf("FAIL write_recording: %s\n", hwp_errmsg());
		return 1;
	}
	RUN(test_entries_follow_keys);
	RUN(test_duplicated_samples);
	RUN(test_collect_one);
	remove(path_small);
	remove(path_big);
	remove(path_twice);
	TL_EXIT();
}
