/* Unit tests for the per-process address-space model (src/symbolize/maps.c),
   plus a scenario file checked against perf 6.1's own reading of it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"
#include "output/outbuf.h"
#include "output/perf_script.h"
#include "hwprof/maps.h"
#include "testlib.h"
#include "util/bytes.h"
#include "symbolize/maps_internal.h"

#define PROT_RX 5u
#define PROT_RW 3u
#define HUGETLB 0x40000u

static int mmap_user(struct hwp_machine *m, int32_t pid, int32_t tid, uint64_t start,
		     uint64_t len, uint64_t pgoff, const char *name)
{
	struct hwp_mmap_event e;

	memset(&e, 0, sizeof(e));
	e.pid = pid;
	e.tid = tid;
	e.cpumode = HWP_MISC_USER;
	e.start = start;
	e.len = len;
	e.pgoff = pgoff;
	e.prot = PROT_RX;
	e.filename = name;
	return hwp_machine__mmap(m, &e);
}

/* The offset perf would print for ADDR in process PID, or ADDR unchanged. */
static uint64_t user_off(struct hwp_machine *m, int32_t pid, uint64_t addr)
{
	const struct hwp_map *mp = hwp_machine__find_map(m, pid, HWP_MISC_USER, addr);
	return mp && !mp->kernel ? hwp_map__map_ip(mp, addr) : addr;
}

static const char *name_at(struct hwp_machine *m, int32_t pid, uint64_t addr)
{
	const struct hwp_map *mp = hwp_machine__find_map(m, pid, HWP_MISC_USER, addr);
	return mp ? mp->filename : "";
}

/* ------------------------------------------------------------ overlaps */

static void test_overlap_middle_split(void)
{
	struct hwp_machine *m = hwp_machine__new();
	const struct hwp_map *v;

	CHECK(mmap_user(m, 1, 1, 0x10000, 0x10000, 0x1000, "/a") == 0);
	CHECK(mmap_user(m, 1, 1, 0x14000, 0x2000, 0x500000, "/b") == 0);
	struct hwp_thread *t = hwp_machine__find_thread(m, 1);
	CHECK(t != NULL);
	if (!t)
		goto out;
	size_t n = hwp_thread__maps(t, &v);
	CHECK_EQ_U64(n, 3);
	if (n != 3)
		goto out;
	CHECK_EQ_U64(v[0].start, 0x10000);
	CHECK_EQ_U64(v[0].end, 0x14000);
	CHECK_EQ_U64(v[0].pgoff, 0x1000);
	CHECK(!strcmp(v[1].filename, "/b"));
	CHECK_EQ_U64(v[2].start, 0x16000);
	CHECK_EQ_U64(v[2].end, 0x20000);
	/* the part after keeps the file offsets it had: pgoff moves with start */
	CHECK_EQ_U64(v[2].pgoff, 0x1000 + 0x6000);
	CHECK(!strcmp(v[2].filename, "/a"));
	CHECK_EQ_U64(user_off(m, 1, 0x13fff), 0x13fff - 0x10000 + 0x1000);
	CHECK_EQ_U64(user_off(m, 1, 0x14010), 0x500010);
	CHECK_EQ_U64(user_off(m, 1, 0x17000), 0x7000 + 0x1000);
	CHECK_EQ_U64(user_off(m, 1, 0x20000), 0x20000); /* end is exclusive */
out:
	hwp_machine__delete(m);
}

static void test_overlap_spanning_several(void)
{
	struct hwp_machine *m = hwp_machine__new();
	const struct hwp_map *v;

	CHECK(mmap_user(m, 1, 1, 0x1000, 0x1000, 0, "/a") == 0);
	CHECK(mmap_user(m, 1, 1, 0x3000, 0x1000, 0, "/b") == 0);
	CHECK(mmap_user(m, 1, 1, 0x5000, 0x2000, 0, "/c") == 0);
	CHECK(mmap_user(m, 1, 1, 0x9000, 0x1000, 0, "/d") == 0);
	/* covers the end of /a, all of /b, the start of /c */
	CHECK(mmap_user(m, 1, 1, 0x1800, 0x4000, 0x100, "/n") == 0);
	size_t n = hwp_thread__maps(hwp_machine__find_thread(m, 1), &v);
	CHECK_EQ_U64(n, 4);
	if (n == 4) {
		CHECK(!strcmp(v[0].filename, "/a") && v[0].start == 0x1000 && v[0].end == 0x1800);
		CHECK(!strcmp(v[1].filename, "/n") && v[1].start == 0x1800 && v[1].end == 0x5800);
		CHECK(!strcmp(v[2].filename, "/c") && v[2].start == 0x5800 && v[2].end == 0x7000);
		CHECK_EQ_U64(v[2].pgoff, 0x800);
		CHECK(!strcmp(v[3].filename, "/d"));
	}
	/* exact replacement */
	CHECK(mmap_user(m, 1, 1, 0x9000, 0x1000, 0x42000, "/e") == 0);
	CHECK(!strcmp(name_at(m, 1, 0x9000), "/e"));
	CHECK_EQ_U64(user_off(m, 1, 0x9010), 0x42010);
	n = hwp_thread__maps(hwp_machine__find_thread(m, 1), &v);
	CHECK_EQ_U64(n, 4);
	/* a map covering everything leaves only itself */
	CHECK(mmap_user(m, 1, 1, 0, 0x100000, 0, "/all") == 0);
	n = hwp_thread__maps(hwp_machine__find_thread(m, 1), &v);
	CHECK_EQ_U64(n, 1);
	/* sorted and disjoint after many random inserts */
	uint64_t x = 12345;
	for (int i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		uint64_t start = (x >> 20) % 0x100000, len = 1 + (x >> 44) % 0x4000;
		CHECK(mmap_user(m, 1, 1, start, len, 0, (x & 1) ? "/x" : "/y") == 0);
		const struct hwp_map *mp = hwp_machine__find_map(m, 1, HWP_MISC_USER, start);
		CHECK(mp && mp->start == start && mp->end == start + len);
	}
	n = hwp_thread__maps(hwp_machine__find_thread(m, 1), &v);
	for (size_t i = 1; i < n; i++)
		CHECK(v[i - 1].end <= v[i].start && v[i].start < v[i].end);
	hwp_machine__delete(m);
}

static void test_empty_and_wrapping_maps(void)
{
	struct hwp_machine *m = hwp_machine__new();

	CHECK(mmap_user(m, 1, 1, 0x1000, 0x2000, 0, "/a") == 0);
	CHECK(mmap_user(m, 1, 1, 0x1800, 0, 0, "/empty") == 0);
	CHECK(!strcmp(name_at(m, 1, 0x1800), "/a"));
	CHECK_EQ_U64(user_off(m, 1, 0x1800), 0x800);
	CHECK(mmap_user(m, 1, 1, 0xfffffffffffff000ULL, 0x2000, 0, "/top") == 0);
	/* end wraps: clamped to the top (exclusive) */
	CHECK(!strcmp(name_at(m, 1, 0xfffffffffffffff0ULL), "/top"));
	hwp_machine__delete(m);
}

/* ------------------------------------------------------------ identity */

static void test_identity_names(void)
{
	static const char *const ident[] = {
		"//anon", "/dev/zero (deleted)", "/dev/zero", "/anon_hugepage (deleted)",
		"[stack]", "[stack:1234]", "[heap]", "/SYSV00000000 (deleted)",
	};
	static const char *const not_ident[] = {
		"[vdso]", "[vsyscall]", "/lib/libc.so.6", "[heap2]", "//anon2", "[uprobes]",
	};
	for (size_t i = 0; i < sizeof(ident) / sizeof(*ident); i++)
		CHECK(hwp__map_name_is_identity(ident[i], 0));
	for (size_t i = 0; i < sizeof(not_ident) / sizeof(*not_ident); i++)
		CHECK(!hwp__map_name_is_identity(not_ident[i], 0));
	CHECK(hwp__map_name_is_identity("/mnt/huge/f", HUGETLB));

	struct hwp_machine *m = hwp_machine__new();
	CHECK(mmap_user(m, 1, 1, 0x7000000, 0x1000, 0x3000, "//anon") == 0);
	CHECK(mmap_user(m, 1, 1, 0x8000000, 0x1000, 0x3000, "[heap]") == 0);
	CHECK(mmap_user(m, 1, 1, 0x9000000, 0x2000, 0x3000, "[vdso]") == 0);
	CHECK(mmap_user(m, 1, 1, 0xa000000, 0x1000, 0x3000, "[vsyscall]") == 0);
	CHECK_EQ_U64(user_off(m, 1, 0x7000010), 0x7000010);
	CHECK_EQ_U64(user_off(m, 1, 0x8000010), 0x8000010);
	CHECK_EQ_U64(user_off(m, 1, 0x9001010), 0x1010); /* vdso: pgoff forced to 0 */
	CHECK_EQ_U64(user_off(m, 1, 0xa000010), 0x3010);
	/* an identity map split by an overlap stays identity on both sides */
	CHECK(mmap_user(m, 1, 1, 0x7000400, 0x100, 0, "/lib") == 0);
	CHECK_EQ_U64(user_off(m, 1, 0x7000800), 0x7000800);
	CHECK_EQ_U64(user_off(m, 1, 0x7000410), 0x10);
	hwp_machine__delete(m);
}

/* ------------------------------------------------------------ threads */

static void test_fork_clones_process(void)
{
	struct hwp_machine *m = hwp_machine__new();
	const struct hwp_map *pv, *cv;

	CHECK(mmap_user(m, 10, 10, 0x400000, 0x1000, 0, "/bin/p") == 0);
	CHECK(hwp_machine__fork(m, 20, 20, 10, 10, true) == 0);
	/* after the fork the two address spaces are independent */
	CHECK(mmap_user(m, 10, 10, 0x500000, 0x1000, 0, "/parent-only") == 0);
	CHECK(mmap_user(m, 20, 20, 0x400000, 0x800, 0x9000, "/child-exec") == 0);
	CHECK(!strcmp(name_at(m, 20, 0x400100), "/child-exec"));
	CHECK(!strcmp(name_at(m, 20, 0x400900), "/bin/p"));
	CHECK_EQ_U64(user_off(m, 20, 0x400900), 0x900);
	CHECK(!strcmp(name_at(m, 10, 0x400100), "/bin/p"));
	CHECK(!strcmp(name_at(m, 20, 0x500100), ""));
	size_t np = hwp_thread__maps(hwp_machine__find_thread(m, 10), &pv);
	size_t nc = hwp_thread__maps(hwp_machine__find_thread(m, 20), &cv);
	CHECK_EQ_U64(np, 2);
	CHECK_EQ_U64(nc, 2);
	CHECK(pv != cv);
	/* FORK_EXEC (synthesized FORK): the child gets no copy */
	CHECK(hwp_machine__fork(m, 30, 30, 10, 10, false) == 0);
	CHECK(!strcmp(name_at(m, 30, 0x400100), ""));
	hwp_machine__delete(m);
}

static void test_threads_share_maps(void)
{
	struct hwp_machine *m = hwp_machine__new();
	const struct hwp_map *a, *b;

	CHECK(mmap_user(m, 10, 10, 0x400000, 0x1000, 0, "/bin/p") == 0);
	CHECK(hwp_machine__fork(m, 10, 11, 10, 10, true) == 0);
	struct hwp_thread *t11 = hwp_machine__find_thread(m, 11);
	CHECK(t11 && hwp_thread__pid(t11) == 10 && hwp_thread__tid(t11) == 11);
	/* an mmap by one thread is seen by all threads of the process */
	CHECK(mmap_user(m, 10, 11, 0x600000, 0x1000, 0, "/lib/dl") == 0);
	CHECK(!strcmp(name_at(m, 10, 0x600000), "/lib/dl"));
	CHECK(hwp_thread__maps(hwp_machine__find_thread(m, 10), &a) ==
	      hwp_thread__maps(hwp_machine__find_thread(m, 11), &b));
	CHECK(a == b);
	/* a thread first seen through a sample/MMAP shares its leader's maps,
	   creating the leader when needed */
	CHECK(mmap_user(m, 40, 41, 0x700000, 0x1000, 0, "/bin/q") == 0);
	CHECK(hwp_machine__find_thread(m, 40) != NULL);
	CHECK(!strcmp(name_at(m, 40, 0x700000), "/bin/q"));
	/* exec (COMM exec) does not clear maps in perf: only new mmaps replace */
	struct hwp_thread *th = hwp_machine__findnew_thread(m, 40, 41);
	CHECK(th && hwp_thread__find_map(th, HWP_MISC_USER, 0x700010) != NULL);
	CHECK(th && hwp_thread__find_map(th, HWP_MISC_KERNEL, 0x700010) == NULL);
	CHECK(th && hwp_thread__find_map(th, HWP_MISC_HYPERVISOR, 0x700010) == NULL);
	hwp_machine__delete(m);
}

static void test_unknown_pid_joins_leader(void)
{
	struct hwp_machine *m = hwp_machine__new();

	/* a thread first seen with pid -1 owns maps; when its pid becomes
	   known it drops them for its leader's (machine__update_thread_pid) */
	CHECK(mmap_user(m, -1, 51, 0x400000, 0x1000, 0, "/early") == 0);
	CHECK(mmap_user(m, 50, 50, 0x800000, 0x1000, 0, "/leader") == 0);
	struct hwp_thread *t = hwp_machine__findnew_thread(m, 50, 51);
	CHECK(t && hwp_thread__pid(t) == 50);
	CHECK(t && hwp_thread__find_map(t, HWP_MISC_USER, 0x400000) == NULL);
	CHECK(t && hwp_thread__find_map(t, HWP_MISC_USER, 0x800000) != NULL);
	hwp_machine__delete(m);
}

static void test_fork_reuses_tid(void)
{
	struct hwp_machine *m = hwp_machine__new();

	CHECK(mmap_user(m, 10, 10, 0x400000, 0x1000, 0, "/bin/p") == 0);
	CHECK(mmap_user(m, 60, 60, 0x900000, 0x1000, 0, "/old60") == 0);
	/* the tid is reused: the old thread and its maps are gone */
	CHECK(hwp_machine__fork(m, 60, 60, 10, 10, true) == 0);
	CHECK(!strcmp(name_at(m, 60, 0x900000), ""));
	CHECK(!strcmp(name_at(m, 60, 0x400000), "/bin/p"));
	/* a parent known with another pid is stale: it is made again */
	CHECK(hwp_machine__fork(m, 70, 70, 65, 60, true) == 0);
	struct hwp_thread *p = hwp_machine__find_thread(m, 60);
	CHECK(p && hwp_thread__pid(p) == 65);
	CHECK(!strcmp(name_at(m, 70, 0x400000), ""));
	/* fork of a tid onto itself does not crash */
	CHECK(hwp_machine__fork(m, 80, 80, 80, 80, true) == 0);
	hwp_machine__delete(m);
}

static void test_many_threads(void)
{
	struct hwp_machine *m = hwp_machine__new();

	for (int32_t pid = 1000; pid < 6000; pid++) {
		CHECK(mmap_user(m, pid, pid, 0x400000 + (uint64_t)pid * 0x1000, 0x1000, 0, "/x") == 0);
		CHECK(hwp_machine__fork(m, pid, pid + 100000, pid, pid, true) == 0);
	}
	for (int32_t pid = 1000; pid < 6000; pid++) {
		struct hwp_thread *t = hwp_machine__find_thread(m, pid + 100000);
		CHECK(t && hwp_thread__pid(t) == pid);
		CHECK(t && hwp_thread__find_map(t, HWP_MISC_USER, 0x400000 + (uint64_t)pid * 0x1000));
	}
	hwp_machine__delete(m);
}

/* ------------------------------------------------------------ records */

static size_t put_mmap2(uint8_t *rec, uint16_t misc, int32_t pid, int32_t tid, uint64_t addr,
			uint64_t len, uint64_t pgoff, uint32_t prot, uint32_t flags, const char *name)
{
	size_t nl = strlen(name) + 1, size = (72 + nl + 7) & ~(size_t)7;

	memset(rec, 0, size);
	st32(rec, HWP_RECORD_MMAP2);
	st16(rec + 4, misc);
	st16(rec + 6, (uint16_t)size);
	st32(rec + 8, (uint32_t)pid);
	st32(rec + 12, (uint32_t)tid);
	st64(rec + 16, addr);
	st64(rec + 24, len);
	st64(rec + 32, pgoff);
	st32(rec + 64, prot);
	st32(rec + 68, flags);
	memcpy(rec + 72, name, nl);
	return size;
}

static struct hwp_event raw_event(const uint8_t *rec)
{
	struct hwp_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = ld32(rec);
	ev.misc = ld16(rec + 4);
	ev.size = ld16(rec + 6);
	ev.data = rec;
	return ev;
}

static void test_records(void)
{
	struct hwp_machine *m = hwp_machine__new();
	uint8_t rec[256];
	struct hwp_event ev;

	/* MMAP2 carrying a build-id */
	put_mmap2(rec, HWP_MISC_USER | HWP_MISC_MMAP_BUILD_ID, 5, 5, 0x400000, 0x1000, 0x2000,
		  PROT_RX, 0, "/bin/bid");
	rec[40] = 20;
	for (int i = 0; i < 20; i++)
		rec[44 + i] = (uint8_t)(i + 1);
	ev = raw_event(rec);
	CHECK(hwp_machine__process_event(m, &ev) == 0);
	const struct hwp_map *mp = hwp_machine__find_map(m, 5, HWP_MISC_USER, 0x400010);
	CHECK(mp && mp->build_id_size == 20 && mp->build_id[19] == 20 && mp->pgoff == 0x2000);
	CHECK(mp && !strcmp(mp->filename, "/bin/bid") && mp->prot == PROT_RX);

	/* MMAP2 without: maj/min/ino */
	size_t sz = put_mmap2(rec, HWP_MISC_USER, 5, 5, 0x500000, 0x1000, 0, PROT_RW, HUGETLB,
			      "/mnt/huge/f");
	st32(rec + 40, 8);
	st32(rec + 44, 2);
	st64(rec + 48, 777);
	ev = raw_event(rec);
	CHECK(hwp_machine__process_event(m, &ev) == 0);
	mp = hwp_machine__find_map(m, 5, HWP_MISC_USER, 0x500010);
	CHECK(mp && mp->maj == 8 && mp->min == 2 && mp->ino == 777 && !mp->build_id_size);
	CHECK(mp && mp->identity && mp->flags == HUGETLB);

	/* a kernel-mode MMAP goes to the kernel maps, not the process */
	put_mmap2(rec, HWP_MISC_KERNEL, -1, 0, 0xffffffffa0000000ULL, 0x10000, 0, PROT_RX, 0,
		  "/lib/modules/6.1/foo.ko");
	ev = raw_event(rec);
	CHECK(hwp_machine__process_event(m, &ev) == 0);
	CHECK(hwp_machine__find_map(m, 5, HWP_MISC_USER, 0xffffffffa0000010ULL) == NULL);
	mp = hwp_machine__find_map(m, 5, HWP_MISC_KERNEL, 0xffffffffa0000010ULL);
	CHECK(mp && mp->kernel && !mp->identity);
	put_mmap2(rec, HWP_MISC_KERNEL, -1, 0, 0xffffffff81000000ULL, 0x1000000,
		  0xffffffff81000000ULL, PROT_RX, 0, "[kernel.kallsyms]_text");
	ev = raw_event(rec);
	CHECK(hwp_machine__process_event(m, &ev) == 0);
	mp = hwp_machine__find_map(m, 5, HWP_MISC_KERNEL, 0xffffffff81000010ULL);
	CHECK(mp && mp->kernel && mp->identity);

	/* MMAP (v1): the MMAP_DATA misc bit means not executable */
	memset(rec, 0, sizeof(rec));
	st32(rec, HWP_RECORD_MMAP);
	st16(rec + 4, HWP_MISC_USER | (1u << 13));
	st16(rec + 6, 48);
	st32(rec + 8, 5);
	st32(rec + 12, 5);
	st64(rec + 16, 0x600000);
	st64(rec + 24, 0x1000);
	memcpy(rec + 40, "/data", 6);
	ev = raw_event(rec);
	CHECK(hwp_machine__process_event(m, &ev) == 0);
	mp = hwp_machine__find_map(m, 5, HWP_MISC_USER, 0x600000);
	CHECK(mp && mp->prot == 0 && !strcmp(mp->filename, "/data"));

	/* a filename without its NUL is cut at the record's end */
	memset(rec + 40, 'z', 8);
	st16(rec + 4, HWP_MISC_USER);
	ev = raw_event(rec);
	CHECK(hwp_machine__process_event(m, &ev) == 0);
	mp = hwp_machine__find_map(m, 5, HWP_MISC_USER, 0x600000);
	CHECK(mp && !strcmp(mp->filename, "zzzzzzzz") && mp->prot == 4);

	/* short records are refused without a change */
	st16(rec + 6, 40);
	ev = raw_event(rec);
	CHECK(hwp_machine__process_event(m, &ev) == -EINVAL);

	/* FORK record: pid, ppid, tid, ptid */
	memset(rec, 0, 32);
	st32(rec, HWP_RECORD_FORK);
	st16(rec + 6, 32);
	st32(rec + 8, 6);
	st32(rec + 12, 5);
	st32(rec + 16, 6);
	st32(rec + 20, 5);
	ev = raw_event(rec);
	CHECK(hwp_machine__process_event(m, &ev) == 0);
	mp = hwp_machine__find_map(m, 6, HWP_MISC_USER, 0x400010);
	CHECK(mp && !strcmp(mp->filename, "/bin/bid"));
	(void)sz;
	hwp_machine__delete(m);
}

/* ------------------------------------------------------------ against perf */

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
	static char buf[2][512];
	static int k;

	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
	return buf[k];
}

/*
 * A perf.data exercising each rule, with samples whose callchains visit
 * every kind of map. Events are in time order.
 */
struct scen {
	struct hwp_writer *w;
	uint64_t t;
	int err;
};

static struct hwp_sample id_of(struct scen *s, uint32_t pid, uint32_t tid)
{
	struct hwp_sample id;

	memset(&id, 0, sizeof(id));
	id.pid = pid;
	id.tid = tid;
	id.time = s->t += 1000;
	return id;
}

static void sc_mmap(struct scen *s, uint32_t pid, uint32_t tid, uint64_t addr, uint64_t len,
		    uint64_t pgoff, uint32_t prot, uint32_t flags, const char *name, uint16_t cpumode)
{
	struct hwp_sample id = id_of(s, pid, tid);

	if (hwp_writer__add_mmap2(s->w, 0, pid, tid, addr, len, pgoff, NULL, 0, prot, flags, name,
				  cpumode, &id) < 0)
		s->err = 1;
}

static void sc_fork(struct scen *s, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		    uint32_t ptid)
{
	struct hwp_sample id = id_of(s, pid, tid);

	if (hwp_writer__add_fork_exit(s->w, 0, type, pid, ppid, tid, ptid, id.time, &id) < 0)
		s->err = 1;
}

/* FORK with misc bit 13 (perf's synthesized FORK_EXEC), written by hand */
static void sc_fork_exec(struct scen *s, uint32_t pid, uint32_t ppid)
{
	uint8_t rec[48];
	uint64_t t = s->t += 1000;

	memset(rec, 0, sizeof(rec));
	st32(rec, HWP_RECORD_FORK);
	st16(rec + 4, 1u << 13);
	st16(rec + 6, sizeof(rec));
	st32(rec + 8, pid);
	st32(rec + 12, ppid);
	st32(rec + 16, pid);
	st32(rec + 20, ppid);
	st64(rec + 24, t);
	st32(rec + 32, pid); /* sample_id_all: TID, TIME */
	st32(rec + 36, pid);
	st64(rec + 40, t);
	if (hwp_writer__add_raw(s->w, rec, sizeof(rec)) < 0)
		s->err = 1;
}

static void sc_comm(struct scen *s, uint32_t pid, uint32_t tid, const char *comm, bool exec)
{
	struct hwp_sample id = id_of(s, pid, tid);

	if (hwp_writer__add_comm(s->w, 0, pid, tid, comm, exec, &id) < 0)
		s->err = 1;
}

static void sc_sample(struct scen *s, uint32_t pid, uint32_t tid, uint16_t cpumode,
		      const uint64_t *chain, size_t n)
{
	struct hwp_sample smp = id_of(s, pid, tid);
	struct hwp_sample_in in;

	smp.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_CALLCHAIN |
			  HWP_SAMPLE_PERIOD;
	smp.cpumode = cpumode;
	smp.ip = n > 1 ? chain[1] : 0;
	smp.period = 1;
	smp.callchain_nr = n;
	memset(&in, 0, sizeof(in));
	in.s = &smp;
	in.callchain = chain;
	if (hwp_writer__add_sample(s->w, 0, &in) < 0)
		s->err = 1;
}

#define K HWP_CONTEXT_KERNEL
#define U HWP_CONTEXT_USER
#define SAMPLE(pid, tid, ...)                                                              \
	do {                                                                               \
		static const uint64_t c_[] = { __VA_ARGS__ };                              \
		sc_sample(&s, pid, tid, HWP_MISC_USER, c_, sizeof(c_) / sizeof(*c_));      \
	} while (0)

static int write_scenario(const char *path)
{
	struct scen s = { NULL, 1000000, 0 };
	struct hwp_attr a;

	s.w = hwp_writer__open(path);
	if (!s.w)
		return -1;
	memset(&a, 0, sizeof(a));
	a.type = 0;
	a.config = 0;
	a.sample_period = 1000;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_CALLCHAIN |
			HWP_SAMPLE_PERIOD;
	a.flags = (1ULL << HWP_ATTR_SAMPLE_ID_ALL) | (1ULL << HWP_ATTR_MMAP) |
		  (1ULL << HWP_ATTR_COMM) | (1ULL << HWP_ATTR_MMAP2);
	if (hwp_writer__add_attr(s.w, &a, NULL, 0, "cycles") < 0) {
		hwp_writer__abort(s.w);
		return -1;
	}

	/* kernel image and a module */
	sc_mmap(&s, (uint32_t)-1, 0, 0xffffffff81000000ULL, 0x1000000, 0xffffffff81000000ULL,
		PROT_RX, 0, "[kernel.kallsyms]_text", HWP_MISC_KERNEL);
	sc_mmap(&s, (uint32_t)-1, 0, 0xffffffffa0000000ULL, 0x10000, 0, PROT_RX, 0,
		"/lib/modules/6.1.0/kernel/foo.ko", HWP_MISC_KERNEL);
	/* process 100 */
	sc_comm(&s, 100, 100, "app", false);
	sc_mmap(&s, 100, 100, 0x400000, 0x10000, 0, PROT_RX, 0, "/usr/bin/app", HWP_MISC_USER);
	sc_mmap(&s, 100, 100, 0x7f0000000000ULL, 0x200000, 0x1000, PROT_RX, 0, "/lib/libc.so.6",
		HWP_MISC_USER);
	sc_mmap(&s, 100, 100, 0x7f1000000000ULL, 0x10000, 0x7000, 7, 0x22, "//anon", HWP_MISC_USER);
	sc_mmap(&s, 100, 100, 0x1000000, 0x100000, 0, PROT_RW, 0, "[heap]", HWP_MISC_USER);
	sc_mmap(&s, 100, 100, 0x7ffff0000000ULL, 0x21000, 0, PROT_RW, 0, "[stack]", HWP_MISC_USER);
	sc_mmap(&s, 100, 100, 0x7f2000000000ULL, 0x1000, 0x3000, PROT_RX, 0,
		"/SYSV00000000 (deleted)", HWP_MISC_USER);
	sc_mmap(&s, 100, 100, 0x7f3000000000ULL, 0x1000, 0x3000, PROT_RX, 0, "/dev/zero (deleted)",
		HWP_MISC_USER);
	sc_mmap(&s, 100, 100, 0x7f4000000000ULL, 0x1000, 0x3000, PROT_RX, 0,
		"/anon_hugepage (deleted)", HWP_MISC_USER);
	sc_mmap(&s, 100, 100, 0x7f5000000000ULL, 0x1000, 0x3000, PROT_RX, HUGETLB, "/mnt/huge/f",
		HWP_MISC_USER);
	sc_mmap(&s, 100, 100, 0x7fff00000000ULL, 0x2000, 0x1234, PROT_RX, 0, "[vdso]",
		HWP_MISC_USER);
	sc_mmap(&s, 100, 100, 0xffffffffff600000ULL, 0x1000, 0x10, PROT_RX, 0, "[vsyscall]",
		HWP_MISC_USER);
	/* a new map in the middle of libc splits it */
	sc_mmap(&s, 100, 100, 0x7f0000100000ULL, 0x1000, 0x5000, PROT_RX, 0, "/lib/other.so",
		HWP_MISC_USER);
	/* a data (non-exec) map over the end of app */
	sc_mmap(&s, 100, 100, 0x40f000, 0x2000, 0x22000, PROT_RW, 0, "/usr/bin/app",
		HWP_MISC_USER);
	SAMPLE(100, 100, K, 0xffffffff81000100ULL, 0xffffffffa0000100ULL, 0x400100, U, 0x400123,
	       0x7f0000000100ULL, 0x7f00000ff000ULL, 0x7f0000100100ULL, 0x7f0000101100ULL,
	       0x7f1000000100ULL, 0x1000100, 0x7ffff0000100ULL, 0x7f2000000100ULL,
	       0x7f3000000100ULL, 0x7f4000000100ULL, 0x7f5000000100ULL, 0x7fff00001100ULL,
	       0xffffffffff600100ULL, 0x40f800, 0xffffffff81000200ULL, 0xffffffffa0000200ULL,
	       0xdead, 0x7f0000200000ULL);
	/* no marker: user; HV: nothing resolves */
	SAMPLE(100, 100, 0x400200, 0x7f0000000200ULL);
	SAMPLE(100, 100, HWP_CONTEXT_HV, 0x400300, U, 0x400300);
	/* a thread of 100 maps something: the whole process sees it */
	sc_fork(&s, HWP_RECORD_FORK, 100, 100, 101, 100);
	sc_mmap(&s, 100, 101, 0x7f6000000000ULL, 0x1000, 0x8000, PROT_RX, 0, "/lib/dl.so",
		HWP_MISC_USER);
	SAMPLE(100, 100, U, 0x7f6000000010ULL, 0x400400);
	SAMPLE(100, 101, U, 0x7f6000000020ULL, 0x400400);
	/* process 200 forks from 100: a copy */
	sc_fork(&s, HWP_RECORD_FORK, 200, 100, 200, 100);
	sc_mmap(&s, 100, 100, 0x7f7000000000ULL, 0x1000, 0, PROT_RX, 0, "/lib/late.so",
		HWP_MISC_USER);
	SAMPLE(200, 200, U, 0x400500, 0x7f0000000500ULL, 0x7f6000000030ULL, 0x7f7000000010ULL);
	SAMPLE(100, 100, U, 0x7f7000000010ULL);
	/* 200 execs: maps are kept, the new binary replaces what it covers */
	sc_comm(&s, 200, 200, "newprog", true);
	sc_mmap(&s, 200, 200, 0x400000, 0x8000, 0x1000, PROT_RX, 0, "/usr/bin/newprog",
		HWP_MISC_USER);
	SAMPLE(200, 200, U, 0x400600, 0x408600, 0x7f0000000600ULL);
	/* exit does not drop the maps */
	sc_fork(&s, HWP_RECORD_EXIT, 200, 200, 200, 200);
	SAMPLE(200, 200, U, 0x400700, 0x7f0000000700ULL);
	/* a synthesized FORK (FORK_EXEC): no copy */
	sc_fork_exec(&s, 300, 100);
	SAMPLE(300, 300, U, 0x400800, 0x7f0000000800ULL);
	/* tid reuse: a new process 100-child on tid 300 replaces it */
	sc_fork(&s, HWP_RECORD_FORK, 300, 100, 300, 100);
	SAMPLE(300, 300, U, 0x400900);
	/* a thread first seen in a sample with a new pid shares the leader's */
	sc_mmap(&s, 400, 400, 0x500000, 0x1000, 0x2000, PROT_RX, 0, "/bin/four", HWP_MISC_USER);
	SAMPLE(400, 401, U, 0x500010);
	/* pid -1 thread, later known: drops its own maps for the leader's */
	sc_mmap(&s, (uint32_t)-1, 501, 0x600000, 0x1000, 0x3000, PROT_RX, 0, "/bin/early",
		HWP_MISC_USER);
	SAMPLE(500, 501, U, 0x600010);
	/* an unknown context discards the chain */
	SAMPLE(100, 100, U, 0x400a00, HWP_CONTEXT_GUEST, 0x400b00);
	if (s.err) {
		hwp_writer__abort(s.w);
		return -1;
	}
	hwp_writer__set_host_features(s.w);
	return hwp_writer__close(s.w);
}

/*
 * What perf 6.1 prints for the scenario (`perf script -F ip`), checked
 * against perf itself below. Sample by sample: kernel and module addresses
 * as they are, also a user address after PERF_CONTEXT_KERNEL (not in the
 * kernel maps); app 0x123; libc (pgoff 0x1000) 0x1100 and 0x100000;
 * other.so 0x5100; libc after the split 0x102100 (pgoff moved); //anon,
 * [heap], [stack], /SYSV, /dev/zero, /anon_hugepage and MAP_HUGETLB as they
 * are; [vdso] 0x1100 (pgoff 0x1234 ignored); [vsyscall] 0x110 (not
 * identity); the data map 0x22800; kernel addresses in user mode, 0xdead
 * and libc's end as they are. Then: no marker = user; HV resolves nothing;
 * a thread's mmap is its process'; a forked process has a copy (dl.so) and
 * not later maps (late.so); exec keeps old maps under the new binary; EXIT
 * keeps them; FORK_EXEC copies nothing; a reused tid gets a fresh copy; a
 * new thread shares its leader's maps; a pid -1 thread drops its own maps
 * when its pid shows; an unknown context empties the chain.
 */
static const char scenario_expected[] =
	"\n"
	"\tffffffff81000100\n"
	"\tffffffffa0000100\n"
	"\t          400100\n"
	"\t             123\n"
	"\t            1100\n"
	"\t          100000\n"
	"\t            5100\n"
	"\t          102100\n"
	"\t    7f1000000100\n"
	"\t         1000100\n"
	"\t    7ffff0000100\n"
	"\t    7f2000000100\n"
	"\t    7f3000000100\n"
	"\t    7f4000000100\n"
	"\t    7f5000000100\n"
	"\t            1100\n"
	"\t             110\n"
	"\t           22800\n"
	"\tffffffff81000200\n"
	"\tffffffffa0000200\n"
	"\t            dead\n"
	"\t    7f0000200000\n"
	"\n"
	"\n"
	"\t             200\n"
	"\t            1200\n"
	"\n"
	"\n"
	"\t          400300\n"
	"\t             300\n"
	"\n"
	"\n"
	"\t            8010\n"
	"\t             400\n"
	"\n"
	"\n"
	"\t            8020\n"
	"\t             400\n"
	"\n"
	"\n"
	"\t             500\n"
	"\t            1500\n"
	"\t            8030\n"
	"\t    7f7000000010\n"
	"\n"
	"\n"
	"\t              10\n"
	"\n"
	"\n"
	"\t            1600\n"
	"\t            8600\n"
	"\t            1600\n"
	"\n"
	"\n"
	"\t            1700\n"
	"\t            1700\n"
	"\n"
	"\n"
	"\t          400800\n"
	"\t    7f0000000800\n"
	"\n"
	"\n"
	"\t             900\n"
	"\n"
	"\n"
	"\t            2010\n"
	"\n"
	"\n"
	"\t          600010\n"
	"\n"
	"\n"
	"\n";

static char *slurp_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
			buf[n] = 0;
			*len = (size_t)n;
		} else {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

/* hwprof's rendering of PATH (what `hwprof script` does), via a file: the
   output buffer writes to a file descriptor. */
static char *render_hwprof(const char *path, size_t *len)
{
	const char *out = tmp_path("hwprof.txt");
	struct hwp_reader *r = hwp_reader__open(path, NULL);
	struct hwp_ordered *q = r ? hwp_ordered__new(r) : NULL;
	struct hwp_machine *m = hwp_machine__new();
	FILE *f = fopen(out, "w");
	struct hwp_outbuf o;
	struct hwp_event ev;
	char *buf = NULL;

	if (!q || !m || !f || hwp__outbuf_init(&o, f) < 0)
		goto out;
	while (hwp_ordered__next(q, &ev) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel) {
			hwp_machine__process_event(m, &ev);
			continue;
		}
		hwp__perf_script_sample_in(&o, &ev, true, hwp_machine__sample_thread(m, &ev));
	}
	if (hwp__outbuf_finish(&o) == 0 && fclose(f) == 0)
		buf = slurp_file(out, len);
	f = NULL;
out:
	if (f)
		fclose(f);
	hwp_machine__delete(m);
	hwp_ordered__delete(q);
	hwp_reader__delete(r);
	return buf;
}

static char *slurp_cmd(const char *cmd, size_t *len)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, k;

	if (!p)
		return NULL;
	do {
		if (n + 4096 > cap) {
			cap = (cap + 4096) * 2;
			char *nb = realloc(buf, cap);
			if (!nb)
				break;
			buf = nb;
		}
		k = fread(buf + n, 1, cap - n - 1, p);
		n += k;
	} while (k > 0);
	if (pclose(p) != 0) {
		free(buf);
		return NULL;
	}
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

static void test_scenario_golden(void)
{
	size_t hlen = 0;

	CHECK(write_scenario(tmp_path("scenario.data")) == 0);
	char *h = render_hwprof(tmp_path("scenario.data"), &hlen);
	CHECK(h != NULL);
	CHECK(h && hlen == sizeof(scenario_expected) - 1 && !memcmp(h, scenario_expected, hlen));
	if (h && (hlen != sizeof(scenario_expected) - 1 || memcmp(h, scenario_expected, hlen)))
		fprintf(stderr, "hwprof's rendering differs from the expected text: see %s\n",
			tmp_path("hwprof.txt"));
	free(h);
}

/* The expected text is what perf 6.1 itself prints for the file. */
static void test_scenario_vs_perf(void)
{
	const char *data = tmp_path("scenario.data");
	char cmd[1024];
	size_t plen = 0;

	if (access("/usr/bin/perf", X_OK) != 0)
		SKIP("/usr/bin/perf not installed");
	if (access(data, R_OK) != 0)
		CHECK(write_scenario(data) == 0);
	snprintf(cmd, sizeof(cmd), "/usr/bin/perf script -F ip -i '%s' 2>/dev/null", data);
	char *p = slurp_cmd(cmd, &plen);
	if (!p)
		SKIP("perf script could not read the scenario file");
	CHECK(plen == sizeof(scenario_expected) - 1 && !memcmp(p, scenario_expected, plen));
	if (plen != sizeof(scenario_expected) - 1 || memcmp(p, scenario_expected, plen)) {
		FILE *f = fopen(tmp_path("perf.txt"), "w");
		if (f) {
			fwrite(p, 1, plen, f);
			fclose(f);
		}
		fprintf(stderr, "perf prints something else for %s: see %s\n", data,
			tmp_path("perf.txt"));
	}
	free(p);
}

int main(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";

	snprintf(tmpdir, sizeof(tmpdir), "%s/hwp_test_maps.XXXXXX", base);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(test_overlap_middle_split);
	RUN(test_overlap_spanning_several);
	RUN(test_empty_and_wrapping_maps);
	RUN(test_identity_names);
	RUN(test_fork_clones_process);
	RUN(test_threads_share_maps);
	RUN(test_unknown_pid_joins_leader);
	RUN(test_fork_reuses_tid);
	RUN(test_many_threads);
	RUN(test_records);
	RUN(test_scenario_golden);
	RUN(test_scenario_vs_perf);
	TL_EXIT();
}
