/* The session: perf's order, address spaces before delivery, module+offset
   resolution, callbacks, option checking and fresh error messages. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "hwprof/branch_collect.h"
#include "hwprof/perf_writer.h"
#include "hwprof/session.h"
#include "testlib.h"

static char path[256];
static const uint8_t prog_id[20] = { 0xab, 0xcd, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

static struct hwp_sample id_of(uint32_t pid, uint64_t time)
{
	struct hwp_sample id;

	memset(&id, 0, sizeof(id));
	id.pid = id.tid = pid;
	id.time = time;
	return id;
}

static int sample(struct hwp_writer *w, uint32_t pid, uint64_t time, uint64_t from, uint64_t to)
{
	struct hwp_sample s = id_of(pid, time);
	struct hwp_branch_entry e[2];
	struct hwp_sample_in in = { .s = &s, .branches = e };

	memset(e, 0, sizeof(e));
	e[0].from = from;
	e[0].to = to;
	e[0].mispred = 1;
	e[1].from = to + 0x10;
	e[1].to = from;
	e[1].predicted = 1;
	s.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_BRANCH_STACK;
	s.cpumode = HWP_MISC_USER;
	s.ip = to;
	s.branch_nr = 2;
	return hwp_writer__add_sample(w, 0, &in);
}

/* The recordings' one event: cycles with every-branch stacks; 0 or -1. */
static int add_cycles(struct hwp_writer *w)
{
	struct hwp_attr a;

	memset(&a, 0, sizeof(a));
	a.sample_period = 1000;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = HWP_BRANCH_ANY | HWP_BRANCH_USER;
	a.flags = (1ULL << HWP_ATTR_SAMPLE_ID_ALL) | (1ULL << HWP_ATTR_MMAP) | (1ULL << HWP_ATTR_COMM) |
		  (1ULL << HWP_ATTR_MMAP2);
	return hwp_writer__add_attr(w, &a, NULL, 0, "cycles") < 0 ? -1 : 0;
}

/*
 * Two processes run one binary (same build-id) at different load addresses;
 * samples within a round are written out of time order; the FORK of process
 * 200 comes before its MMAP2 in time but after it in the file.
 */
static int write_recording(void)
{
	struct hwp_writer *w = hwp_writer__open(path);
	int err = 0;

	if (!w)
		return -1;
	err |= add_cycles(w) < 0;
	struct hwp_sample id = id_of(100, 1000);
	err |= hwp_writer__add_comm(w, 0, 100, 100, "prog", false, &id) < 0;
	err |= hwp_writer__add_mmap2(w, 0, 100, 100, 0x400000, 0x10000, 0x1000, prog_id, 20, PROT_READ | PROT_EXEC,
				     0, "/fake/prog", HWP_MISC_USER, &id) < 0;
	id = id_of(200, 1100);
	err |= hwp_writer__add_mmap2(w, 0, 200, 200, 0x500000, 0x10000, 0x1000, prog_id, 20, PROT_READ | PROT_EXEC,
				     0, "/fake/prog", HWP_MISC_USER, &id) < 0;
	err |= sample(w, 100, 3000, 0x400100, 0x400200) < 0; /* out of order: 3000 before 2000 */
	err |= sample(w, 200, 2000, 0x500100, 0x500200) < 0;
	err |= hwp_writer__add_finished_round(w) < 0;
	err |= sample(w, 100, 4000, 0x400100, 0x400200) < 0;
	err |= sample(w, 100, 5000, 0xffffffff81000010ULL, 0x400200) < 0; /* kernel, no map */
	err |= hwp_writer__add_finished_round(w) < 0;
	if (err) {
		hwp_writer__abort(w);
		return -1;
	}
	return hwp_writer__close(w);
}

static void test_order_threads_and_resolve(void)
{
	struct hwp_session *s = hwp_session__open(path, NULL);
	struct hwp_event ev;
	const struct hwp_thread *th;
	uint64_t times[8];
	int32_t pids[8];
	struct hwp_code_loc locs[8];
	size_t n = 0;
	int rc;

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(!hwp_session__is_text(s));
	CHECK(!strcmp(hwp_session__path(s), path));
	while ((rc = hwp_session__next(s, &ev, &th)) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE) {
			CHECK(th == NULL);
			continue;
		}
		CHECK(th != NULL);
		if (!th || n == 8)
			break;
		times[n] = ev.sample.time;
		pids[n] = hwp_thread__pid(th);
		CHECK(hwp_session__resolve(s, th, ev.sample.ip, 0, &locs[n]) == 0);
		n++;
	}
	CHECK(rc == 0);
	CHECK_EQ_U64(n, 4);
	if (n == 4) {
		/* perf's order: time order within what a round released */
		CHECK_EQ_U64(times[0], 2000);
		CHECK_EQ_U64(times[1], 3000);
		CHECK_EQ_U64(pids[0], 200);
		CHECK_EQ_U64(pids[1], 100);
		/* one binary, two load addresses: one module, one offset */
		CHECK(locs[0].module >= 0);
		CHECK_EQ_U64(locs[0].module, locs[1].module);
		CHECK_EQ_U64(locs[0].offset, 0x200 + 0x1000);
		CHECK_EQ_U64(locs[1].offset, 0x200 + 0x1000);
		CHECK_EQ_U64(locs[0].addr, 0x500200);
		CHECK(locs[0].cpumode == HWP_MISC_USER);
	}
	/* the module is the recorded path, known to the symbolizer */
	struct hwp_symbolizer *sym = hwp_session__symbolizer(s);
	CHECK(sym && !strcmp(hwp_symbolizer__module_name(sym, locs[0].module), "/fake/prog"));
	/* a kernel address without a kernel map is still the kernel's */
	struct hwp_code_loc k;
	CHECK(hwp_session__resolve(s, th, 0xffffffff81000010ULL, 1, &k) == 0);
	CHECK(k.module == hwp_symbolizer__kernel_module(sym) && k.cpumode == HWP_MISC_KERNEL);
	CHECK_EQ_U64(k.offset, 0xffffffff81000010ULL);
	/* an address nothing maps */
	CHECK(hwp_session__resolve(s, th, 0x900000, 1, &k) == 0);
	CHECK(k.module == -1 && k.offset == 0x900000);
	CHECK(hwp_session__next(s, &ev, &th) == 0); /* the end is sticky */
	hwp_session__delete(s);
}

struct counts {
	int samples, others, stop_after;
};

static int on_sample(void *ctx, const struct hwp_event *ev, const struct hwp_thread *th)
{
	struct counts *c = ctx;

	(void)ev;
	if (!th)
		return -EFAULT;
	if (++c->samples == c->stop_after)
		return -42;
	return 0;
}

static int on_other(void *ctx, const struct hwp_event *ev)
{
	struct counts *c = ctx;

	c->others += ev->type != HWP_RECORD_SAMPLE;
	return 0;
}

static void test_process_callbacks(void)
{
	struct counts c = { 0 };
	struct hwp_session_handler h = { .sz = sizeof(h), .ctx = &c, .sample = on_sample, .other = on_other };
	struct hwp_session *s = hwp_session__open(path, NULL);

	CHECK(s && hwp_session__process(s, &h) == 0);
	CHECK_EQ_U64(c.samples, 4);
	CHECK(c.others >= 3); /* COMM, 2 MMAP2, FINISHED_ROUNDs */
	hwp_session__delete(s);

	/* a callback's error stops the walk and is returned */
	c = (struct counts){ .stop_after = 2 };
	s = hwp_session__open(path, NULL);
	CHECK(s && hwp_session__process(s, &h) == -42);
	CHECK_EQ_U64(c.samples, 2);
	hwp_session__delete(s);
}

static void test_no_maps(void)
{
	struct hwp_session_opts o = { .sz = sizeof(o), .no_maps = true };
	struct hwp_session *s = hwp_session__open(path, &o);
	struct hwp_event ev;
	const struct hwp_thread *th = (const void *)1;
	int samples = 0;

	CHECK(s && hwp_session__machine(s) == NULL);
	while (s && hwp_session__next(s, &ev, &th) > 0) {
		CHECK(th == NULL);
		if (ev.type == HWP_RECORD_SAMPLE) {
			struct hwp_code_loc l;
			CHECK(hwp_session__resolve(s, NULL, ev.sample.ip, 0, &l) == 0);
			CHECK(l.module == -1 && l.offset == ev.sample.ip);
			samples++;
		}
	}
	CHECK_EQ_U64(samples, 4);
	CHECK(hwp_session__sample_types(s) & HWP_SAMPLE_BRANCH_STACK);
	hwp_session__delete(s);
}

static void test_branch_collector(void)
{
	struct hwp_session *s = hwp_session__open(path, NULL);
	struct hwp_branch_collect_opts o = { .sz = sizeof(o), .split = HWP_SPLIT_MISPRED };
	struct hwp_branch_collector *c = s ? hwp_branch_collector__new(s, &o) : NULL;

	CHECK(c && hwp_branch_collector__read(c) == 0);
	if (c) {
		const struct hwp_branch_collect_stats *st = hwp_branch_collector__stats(c);
		CHECK_EQ_U64(st->samples, 4);
		CHECK_EQ_U64(st->entries, 8);
		CHECK_EQ_U64(st->entries_with_flags, 8);
		const struct hwp_branch_table *t = hwp_branch_collector__table(c);
		CHECK_EQ_U64(hwp_branch_table__total(t), 8);
		/* processes 100 and 200 merge: from 0x1100 -> 0x1200 (mispredicted)
		   in 3 samples, the kernel one apart */
		size_t nr;
		const struct hwp_branch_row *rows = hwp_branch_table__rows(t, &nr);
		uint64_t merged = 0;
		for (size_t i = 0; i < nr; i++)
			if (rows[i].key.from.offset == 0x1100 && rows[i].key.to.offset == 0x1200) {
				merged += rows[i].c.count;
				CHECK_EQ_U64(rows[i].c.mispred, rows[i].c.count);
			}
		CHECK_EQ_U64(merged, 3);
	}
	hwp_branch_collector__delete(c);
	hwp_session__delete(s);
}

static char path2[300], path3[300];
static const uint8_t lib_id[20] = { 0x11, 0x22, 3, 4, 5, 6, 7, 8, 9, 10 };


/* A kernel map over the top of the address space and, inside it, a user
   map of process 300. */
static int write_overlap(void)
{
	struct hwp_writer *w = hwp_writer__open(path2);
	struct hwp_sample id = id_of(300, 1000);
	int err;

	if (!w)
		return -1;
	err = add_cycles(w);
	err |= hwp_writer__add_comm(w, 0, 300, 300, "high", false, &id) < 0;
	err |= hwp_writer__add_mmap2(w, 0, (uint32_t)-1, 0, 0xffff800000000000ULL, 0x7fff00000000ULL, 0, NULL, 0,
				     PROT_READ | PROT_EXEC, 0, "[kernel.kallsyms]_text", HWP_MISC_KERNEL, &id) < 0;
	err |= hwp_writer__add_mmap2(w, 0, 300, 300, 0xffff900000000000ULL, 0x10000, 0x2000, lib_id, 20,
				     PROT_READ | PROT_EXEC, 0, "/fake/high", HWP_MISC_USER, &id) < 0;
	err |= sample(w, 300, 2000, 0xffff900000000100ULL, 0xffff900000000200ULL) < 0;
	if (err) {
		hwp_writer__abort(w);
		return -1;
	}
	return hwp_writer__close(w);
}

/* The first sample of PATH2's session S and its thread. */
static const struct hwp_thread *first_sample(struct hwp_session *s)
{
	struct hwp_event ev;
	const struct hwp_thread *th = NULL;

	while (hwp_session__next(s, &ev, &th) > 0)
		if (ev.type == HWP_RECORD_SAMPLE)
			return th;
	return NULL;
}

/* What an address resolves to does not depend on what was resolved before
   (the caches only remember; a parallel pass relies on it). */
static void test_resolution_is_history_free(void)
{
	struct hwp_session *fresh = NULL, *after = NULL;
	const struct hwp_thread *t1, *t2;
	struct hwp_code_loc k, u1, u2;
	const uint64_t kaddr = 0xffff880000000000ULL, uaddr = 0xffff900000000100ULL;

	CHECK(write_overlap() == 0);
	CHECK((fresh = hwp_session__open(path2, NULL)) != NULL);
	CHECK((after = hwp_session__open(path2, NULL)) != NULL);
	if (!fresh || !after)
		goto out;
	CHECK((t1 = first_sample(fresh)) != NULL);
	CHECK((t2 = first_sample(after)) != NULL);
	CHECK(hwp_session__resolve(fresh, t1, uaddr, 0, &u1) == 0);
	/* the kernel's map holds KADDR and UADDR; the user map UADDR only, first */
	CHECK(hwp_session__resolve(after, t2, kaddr, 0, &k) == 0);
	CHECK(k.cpumode == HWP_MISC_KERNEL);
	CHECK(hwp_session__resolve(after, t2, uaddr, 0, &u2) == 0);
	CHECK(u1.cpumode == HWP_MISC_USER && u2.cpumode == HWP_MISC_USER);
	CHECK_EQ_U64(u1.offset, 0x2100);
	CHECK_EQ_U64(u2.offset, u1.offset);
	CHECK(u2.module == u1.module);
out:
	hwp_session__delete(fresh);
	hwp_session__delete(after);
	remove(path2);
}

/* Three processes, a library loaded and a process forked between samples,
   many rounds: enough for every thread of a parallel pass. */
static int write_busy(void)
{
	struct hwp_writer *w = hwp_writer__open(path3);
	int err;

	if (!w)
		return -1;
	err = add_cycles(w);
	for (uint32_t p = 100; p < 103; p++) {
		struct hwp_sample id = id_of(p, 10);

		err |= hwp_writer__add_comm(w, 0, p, p, "prog", false, &id) < 0;
		err |= hwp_writer__add_mmap2(w, 0, p, p, 0x400000 + 0x100000 * (p - 100), 0x10000, 0x1000, prog_id, 20,
					     PROT_READ | PROT_EXEC, 0, "/fake/prog", HWP_MISC_USER, &id) < 0;
	}
	for (uint64_t i = 0; i < 6000 && !err; i++) {
		uint32_t p = 100 + (uint32_t)(i % 4 == 3 ? 3 : i % 3);
		uint64_t base = p == 103 || (p == 101 && i > 2000 && i % 2) ? 0x700000 : 0x400000 + 0x100000 * (p - 100);
		struct hwp_sample id = id_of(p, 100 + i);

		if (i == 1500)
			err |= hwp_writer__add_fork_exit(w, 0, HWP_RECORD_FORK, 103, 102, 103, 102, 100 + i, &id) < 0;
		if (i == 2000) {
			err |= hwp_writer__add_mmap2(w, 0, 101, 101, 0x700000, 0x10000, 0, lib_id, 20,
						     PROT_READ | PROT_EXEC, 0, "/fake/lib", HWP_MISC_USER, &id) < 0;
			err |= hwp_writer__add_mmap2(w, 0, 103, 103, 0x700000, 0x10000, 0, lib_id, 20,
						     PROT_READ | PROT_EXEC, 0, "/fake/lib", HWP_MISC_USER, &id) < 0;
		}
		err |= sample(w, p, 100 + i, base + 0x100 + (i % 37) * 8, base + 0x400 + (i % 11) * 4) < 0;
		if (i % 500 == 499)
			err |= hwp_writer__add_finished_round(w) < 0;
	}
	if (err) {
		hwp_writer__abort(w);
		return -1;
	}
	return hwp_writer__close(w);
}

static bool same_loc(const struct hwp_code_loc *a, const struct hwp_code_loc *b)
{
	return a->module == b->module && a->cpumode == b->cpumode && a->offset == b->offset && a->addr == b->addr;
}

static bool same_rows(const struct hwp_branch_table *a, const struct hwp_branch_table *b)
{
	size_t na, nb;
	const struct hwp_branch_row *ra, *rb;

	if (!a || !b)
		return a == b;
	ra = hwp_branch_table__rows(a, &na);
	rb = hwp_branch_table__rows(b, &nb);
	if (na != nb || hwp_branch_table__total(a) != hwp_branch_table__total(b))
		return false;
	for (size_t i = 0; i < na; i++)
		if (!same_loc(&ra[i].key.from, &rb[i].key.from) || !same_loc(&ra[i].key.to, &rb[i].key.to) ||
		    ra[i].key.mispred_state != rb[i].key.mispred_state || ra[i].c.count != rb[i].c.count ||
		    ra[i].c.mispred != rb[i].c.mispred || ra[i].c.predicted != rb[i].c.predicted ||
		    ra[i].c.cycles_sum != rb[i].c.cycles_sum)
			return false;
	return true;
}

/* hwp_branch_collector__read_jobs(): the rows (their order, modules and
   recorded addresses too), stats and module names of a sequential read. */
static void test_read_jobs(void)
{
	struct hwp_branch_collect_opts o = { .sz = sizeof(o), .split = HWP_SPLIT_MISPRED, .blocks = true,
					     .ranges = true, .ip_samples = HWP_IP_SAMPLES_ALL };
	struct hwp_session *s[2] = { NULL, NULL };
	struct hwp_branch_collector *c[2] = { NULL, NULL };

	CHECK(write_busy() == 0);
	for (int k = 0; k < 2; k++) {
		s[k] = hwp_session__open(path3, NULL);
		c[k] = s[k] ? hwp_branch_collector__new(s[k], &o) : NULL;
	}
	CHECK(c[0] && c[1]);
	if (!c[0] || !c[1])
		goto out;
	CHECK(hwp_branch_collector__read(c[0]) == 0);
	CHECK(hwp_branch_collector__read_jobs(c[1], 3) == 0);
	const struct hwp_branch_collect_stats *a = hwp_branch_collector__stats(c[0]),
					      *b = hwp_branch_collector__stats(c[1]);
	CHECK_EQ_U64(a->samples, 6000);
	CHECK_EQ_U64(b->samples, a->samples);
	CHECK_EQ_U64(b->entries, a->entries);
	CHECK_EQ_U64(b->ip_samples, a->ip_samples);
	CHECK(same_rows(hwp_branch_collector__table(c[0]), hwp_branch_collector__table(c[1])));
	CHECK(same_rows(hwp_branch_collector__blocks(c[0]), hwp_branch_collector__blocks(c[1])));
	CHECK(same_rows(hwp_branch_collector__ranges(c[0]), hwp_branch_collector__ranges(c[1])));
	CHECK(!memcmp(hwp_branch_collector__range_stats(c[0]), hwp_branch_collector__range_stats(c[1]),
		      sizeof(struct hwp_range_stats)));
	/* the modules, numbered in the same order */
	struct hwp_symbolizer *y0 = hwp_session__symbolizer(s[0]), *y1 = hwp_session__symbolizer(s[1]);
	for (int m = 0; m < 3; m++) {
		const char *n0 = hwp_symbolizer__module_name(y0, m), *n1 = hwp_symbolizer__module_name(y1, m);
		CHECK((!n0 && !n1) || (n0 && n1 && !strcmp(n0, n1)));
	}
	/* counted before: one thread, the same rows */
	CHECK(hwp_branch_collector__read_jobs(c[1], 3) == 0);
out:
	for (int k = 0; k < 2; k++) {
		hwp_branch_collector__delete(c[k]);
		hwp_session__delete(s[k]);
	}
	remove(path3);
}

/* libbpf's rules: zero size refused, unknown non-zero tail refused, a larger
   struct with a zero tail and an older smaller one accepted. */
static void test_opts_checked(void)
{
	struct {
		struct hwp_session_opts o;
		uint64_t newer;
	} big;
	struct hwp_session *s;

	struct hwp_session_opts zero = { .sz = 0 };
	errno = 0;
	CHECK(hwp_session__open(path, &zero) == NULL && errno == EINVAL);
	CHECK(strstr(hwp_errmsg(), "size") != NULL);

	memset(&big, 0, sizeof(big));
	big.o.sz = sizeof(big);
	big.newer = 1;
	CHECK(hwp_session__open(path, &big.o) == NULL && errno == EINVAL);
	big.newer = 0;
	CHECK((s = hwp_session__open(path, &big.o)) != NULL);
	hwp_session__delete(s);

	/* an older caller knew only sz and symfs */
	struct hwp_session_opts old = { .sz = offsetof(struct hwp_session_opts, debug_dirs), .symfs = "/" };
	old.no_maps = true; /* beyond its size: must be ignored */
	CHECK((s = hwp_session__open(path, &old)) != NULL);
	CHECK(s && hwp_session__machine(s) != NULL);
	hwp_session__delete(s);

	struct hwp_session_handler h = { .sz = 0 };
	s = hwp_session__open(path, NULL);
	CHECK(s && hwp_session__process(s, &h) == -EINVAL);
	hwp_session__delete(s);
}

/* Every failure sets its own message: nothing is left over from the one before. */
static void test_error_messages_are_fresh(void)
{
	char bad[300];
	FILE *f;

	CHECK(hwp_session__open("/nonexistent/a.data", NULL) == NULL);
	CHECK(strstr(hwp_errmsg(), "/nonexistent/a.data") != NULL);

	/* a truncated copy: opens, then fails while reading */
	snprintf(bad, sizeof(bad), "%s.cut", path);
	uint8_t buf[1 << 16];
	f = fopen(path, "rb");
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	if (f)
		fclose(f);
	CHECK(n > 200);
	f = fopen(bad, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	fwrite(buf, 1, 8, f); /* magic only */
	fclose(f);
	CHECK(hwp_session__open(bad, NULL) == NULL);
	CHECK(strstr(hwp_errmsg(), bad) != NULL);
	CHECK(strstr(hwp_errmsg(), "/nonexistent") == NULL);
	remove(bad);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/hwprof-session-%d.data", tmp ? tmp : "/tmp", (int)getpid());
	if (write_recording() < 0) {
		printf("FAIL write_recording: %s\n", hwp_errmsg());
		return 1;
	}
	RUN(test_order_threads_and_resolve);
	RUN(test_process_callbacks);
	RUN(test_no_maps);
	RUN(test_branch_collector);
	RUN(test_opts_checked);
	RUN(test_error_messages_are_fresh);
	snprintf(path2, sizeof(path2), "%s.overlap", path);
	snprintf(path3, sizeof(path3), "%s.busy", path);
	RUN(test_resolution_is_history_free);
	RUN(test_read_jobs);
	remove(path);
	TL_EXIT();
}
