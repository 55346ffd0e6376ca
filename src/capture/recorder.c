/* SPDX-License-Identifier: MIT */
/*
 * The hardware recorder: forks the workload (held before exec), opens the
 * event on it (one ring buffer per online CPU, or one for the task with
 * --per-thread; children inherit it unless told otherwise), synthesizes
 * what perf synthesizes (the kernel text map, the child's COMM and MMAP2
 * from /proc/PID/maps), lets the workload exec (the event is enabled by
 * enable_on_exec), and copies every ring-buffer record (SAMPLE, MMAP2,
 * COMM, FORK, EXIT, LOST, ...) into perf.data, a FINISHED_ROUND after each
 * pass over the buffers, as perf record does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/maps_path.h"
#include "capture/attr_build.h"
#include "capture/probe.h"
#include "hwprof/capture.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/path_search.h"
#include "util/vec.h"

#define MMAP_DATA_HEAD 1024 /* offsetof(struct perf_event_mmap_page, data_head) */
#define MMAP_DATA_TAIL 1032
#define DEFAULT_MMAP_PAGES 128
#define MAX_RECORD 65536

struct ring {
	int fd;
	int cpu;
	uint8_t *base;
	size_t data_size;
};

struct rec {
	const struct hwp_record_opts *o;
	struct hwp_record_result *r;
	struct hwp_attr attr;
	int *cpus;
	size_t nr_cpus;
	struct ring *rings;
	size_t nr_rings;
	size_t page;
	struct hwp_writer *w;
	int attr_idx;
	char *tmp_path;
	pid_t child;
	int go_fd;  /* write end: lets the child exec */
	int err_fd; /* read end: the child's exec errno, EOF on success */
	uint8_t *scratch;
};

static void note(struct hwp_record_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(struct hwp_record_result *r, const char *fmt, ...)
{
	va_list ap;

	if (r->nr_notes >= sizeof(r->notes) / sizeof(r->notes[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(r->notes[r->nr_notes++], sizeof(r->notes[0]), fmt, ap);
	va_end(ap);
}

static int fail(struct rec *R, enum hwp_record_phase phase, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct rec *R, enum hwp_record_phase phase, int err, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	R->r->phase = phase;
	return hwp__set_error(err, "%s", msg);
}

/* ------------------------------------------------------------ CPUs */

static int online_cpus(struct rec *R)
{
	char line[1024];
	size_t cap = 0;
	const char *p;

	if (hwp__read_line("/sys", "devices/system/cpu/online", line, sizeof(line)) == 0 && line[0]) {
		for (p = line; *p;) {
			char *end;
			long a = strtol(p, &end, 10), b = a;

			if (end == p)
				break;
			p = end;
			if (*p == '-') {
				b = strtol(p + 1, &end, 10);
				p = end;
			}
			for (long c = a; c <= b && c < INT_MAX; c++) {
				int *slot = HWP_VEC_PUSH(R->cpus, R->nr_cpus, cap);

				if (!slot)
					return -ENOMEM;
				*slot = (int)c;
			}
			if (*p == ',')
				p++;
		}
	}
	if (!R->nr_cpus) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		for (long c = 0; c < n && c < 64; c++) {
			int *slot = HWP_VEC_PUSH(R->cpus, R->nr_cpus, cap);

			if (!slot)
				return -ENOMEM;
			*slot = (int)c;
		}
	}
	return R->nr_cpus ? 0 : -ENODEV;
}

/* ------------------------------------------------------------ workload */

/* PROG looked up as execvp() would: 0, or -errno. */
static int find_program(const char *prog, char *out, size_t len)
{
	char *found = hwp__path_search(prog, NULL);

	if (!found)
		return -errno;
	snprintf(out, len, "%s", found);
	free(found);
	return access(out, X_OK) == 0 ? 0 : -errno;
}

static int start_child(struct rec *R)
{
	int go[2], er[2];

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(er, O_CLOEXEC) < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		return -e;
	}
	fflush(NULL);
	R->child = fork();
	if (R->child < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(er[0]);
		close(er[1]);
		return -e;
	}
	if (R->child == 0) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		if (read(go[0], &c, 1) != 1)
			_exit(127); /* the recorder gave up */
		execvp(R->o->argv[0], R->o->argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	R->go_fd = go[1];
	R->err_fd = er[0];
	return 0;
}

static void kill_child(struct rec *R)
{
	if (R->child <= 0)
		return;
	if (R->go_fd >= 0) {
		close(R->go_fd); /* the child exits 127 without exec */
		R->go_fd = -1;
	} else {
		kill(R->child, SIGKILL);
	}
	waitpid(R->child, NULL, 0);
	R->child = 0;
}

/* ------------------------------------------------------------ events */

static long perf_event_open(const struct hwp_attr *a, pid_t pid, int cpu)
{
	uint8_t kattr[128];

	hwp__attr_to_kernel(a, kattr);
	return syscall(SYS_perf_event_open, kattr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* perf's evsel__detect_missing_features(), for the attr bits hwprof sets:
   on EINVAL, drop the newest one this kernel may not know, and say so. */
static bool drop_missing_feature(struct rec *R, struct hwp_attr *a)
{
	if (a->read_format & HWP_FORMAT_LOST) {
		a->read_format &= ~(uint64_t)HWP_FORMAT_LOST;
		note(R->r, "this kernel refuses read_format LOST (Linux < 6.0): opened without it, "
		     "as perf does");
		return true;
	}
	if (a->branch_sample_type & HWP_BRANCH_HW_INDEX) {
		a->branch_sample_type &= ~(uint64_t)HWP_BRANCH_HW_INDEX;
		note(R->r, "this kernel refuses branch hw_index (Linux < 5.7): opened without it, "
		     "as perf does");
		return true;
	}
	if (hwp_attr__flag(a, HWP_ATTR_KSYMBOL) || hwp_attr__flag(a, HWP_ATTR_BPF_EVENT)) {
		hwp__attr_set_flag(a, HWP_ATTR_KSYMBOL, false);
		hwp__attr_set_flag(a, HWP_ATTR_BPF_EVENT, false);
		note(R->r, "this kernel refuses ksymbol/bpf_event records (Linux < 5.1): opened "
		     "without them, as perf does");
		return true;
	}
	if (a->branch_sample_type & (HWP_BRANCH_NO_FLAGS | HWP_BRANCH_NO_CYCLES)) {
		a->branch_sample_type &= ~(uint64_t)(HWP_BRANCH_NO_FLAGS | HWP_BRANCH_NO_CYCLES);
		note(R->r, "this kernel refuses branch no_flags/no_cycles: opened without them, "
		     "as perf does");
		return true;
	}
	return false;
}

/* perf's fallback for cycles without a PMU: cpu-clock, if allowed and ERR says so. */
static bool fall_back_to_cpu_clock(struct rec *R, struct hwp_attr *a, int err)
{
	if (!R->o->allow_sw_fallback || a->type != 0 || a->config != 0 ||
	    (a->sample_type & HWP_SAMPLE_BRANCH_STACK) ||
	    !(err == ENOENT || err == ENXIO || err == ENODEV || err == EOPNOTSUPP))
		return false;
	note(R->r, "%s: no hardware cycles event here (%s): recording cpu-clock instead, "
	     "as perf does", R->r->event_name, strerror(err));
	a->type = 1;
	a->config = 0;
	hwp__attr_set_precise(a, 0);
	snprintf(R->r->event_name, sizeof(R->r->event_name), "cpu-clock");
	return true;
}

/* perf's fallback when the kernel may not be profiled: :u, precise_ip back to ASKED. */
static bool fall_back_to_user_only(struct rec *R, struct hwp_attr *a, int err, unsigned asked)
{
	char name[sizeof(R->r->event_name)];

	if (!(err == EACCES || err == EPERM) || hwp_attr__flag(a, HWP_ATTR_EXCLUDE_KERNEL) ||
	    hwp_attr__flag(a, HWP_ATTR_EXCLUDE_USER) || R->o->paranoid <= 1)
		return false;
	note(R->r, "kernel.perf_event_paranoid=%d: %s falls back to excluding kernel "
	     "and hypervisor samples (:u), as perf does", R->o->paranoid, R->r->event_name);
	hwp__attr_set_flag(a, HWP_ATTR_EXCLUDE_KERNEL, true);
	hwp__attr_set_flag(a, HWP_ATTR_EXCLUDE_HV, true);
	hwp__attr_set_precise(a, asked);
	snprintf(name, sizeof(name), "%s", R->r->event_name);
	snprintf(R->r->event_name, sizeof(R->r->event_name), "%.150s%su", name,
		 strchr(name, ':') ? "" : ":");
	return true;
}

/* The first open, with perf's fallbacks: lower precise_ip, drop attr bits
   an older kernel does not know, cycles without a PMU -> cpu-clock, and :u
   when the kernel may not be profiled. */
static int open_first(struct rec *R, int cpu, int *fdp)
{
	const struct hwp_record_opts *o = R->o;
	struct hwp_attr *a = &R->attr;
	unsigned asked = hwp_attr__precise_ip(a), lowered_err = 0;
	bool precise_retry = true;

	for (int tries = 0; tries < 64; tries++) {
		long fd = perf_event_open(a, R->child, cpu);
		int err;

		if (fd >= 0) {
			if (hwp_attr__precise_ip(a) != asked && asked)
				note(R->r, "%s: precise_ip %u not supported (%s): recorded with precise_ip %u",
				     R->r->event_name, asked, strerror((int)lowered_err),
				     hwp_attr__precise_ip(a));
			*fdp = (int)fd;
			return 0;
		}
		err = errno;
		R->r->open_errno = err;
		if (precise_retry && hwp_attr__precise_ip(a) > 0 &&
		    (o->precise_max || err == EOPNOTSUPP || err == EINVAL)) {
			if (!lowered_err)
				lowered_err = (unsigned)err;
			hwp__attr_set_precise(a, hwp_attr__precise_ip(a) - 1);
			continue;
		}
		if (err == EINVAL && drop_missing_feature(R, a)) {
			hwp__attr_set_precise(a, asked); /* perf restores precise_ip_orig */
			lowered_err = 0;
			continue;
		}
		if (fall_back_to_cpu_clock(R, a, err)) {
			asked = 0;
			precise_retry = false;
			continue;
		}
		if (fall_back_to_user_only(R, a, err, asked))
			continue;
		return fail(R, HWP_RECORD_PHASE_OPEN, err, "%s: perf_event_open failed: %s",
			    R->r->event_name, strerror(err));
	}
	return fail(R, HWP_RECORD_PHASE_OPEN, R->r->open_errno, "%s: perf_event_open failed: %s",
		    R->r->event_name, strerror(R->r->open_errno));
}

static int open_events(struct rec *R)
{
	size_t n = R->o->per_thread ? 1 : R->nr_cpus;
	unsigned pages = R->o->mmap_pages ? R->o->mmap_pages : DEFAULT_MMAP_PAGES;
	int rc;

	R->rings = calloc(n, sizeof(*R->rings));
	if (!R->rings)
		return fail(R, HWP_RECORD_PHASE_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct ring *g = &R->rings[i];
		int cpu = R->o->per_thread ? -1 : R->cpus[i];
		int fd = -1;

		g->fd = -1;
		g->cpu = cpu;
		if (i == 0) {
			if ((rc = open_first(R, cpu, &fd)) < 0)
				return rc;
		} else {
			long f = perf_event_open(&R->attr, R->child, cpu);

			if (f < 0) {
				R->r->open_errno = errno;
				return fail(R, HWP_RECORD_PHASE_OPEN, errno,
					    "%s: perf_event_open on CPU %d failed: %s", R->r->event_name,
					    cpu, strerror(errno));
			}
			fd = (int)f;
		}
		g->fd = fd;
		R->nr_rings++;
		g->data_size = (size_t)pages * R->page;
		void *m = mmap(NULL, g->data_size + R->page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

		if (m == MAP_FAILED) {
			int e = errno;

			return fail(R, HWP_RECORD_PHASE_MMAP, e,
				    "mmap of a %zu KiB ring buffer failed: %s%s", g->data_size / 1024,
				    strerror(e), e == EPERM || e == ENOMEM
						 ? " (over kernel.perf_event_mlock_kb? use fewer ring-buffer pages)"
						 : "");
		}
		g->base = m;
	}
	return 0;
}

/* ------------------------------------------------------------ synthesis */

static int synth_kernel_mmap(struct rec *R)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	uint64_t text = 0, etext = 0;
	uint8_t rec[8 + 32 + 64 + 64];
	static const char name[] = "[kernel.kallsyms]_text";
	uint64_t st = R->attr.sample_type;
	size_t trailer, nlen = (sizeof(name) + 7) & ~(size_t)7, sz;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f) && (!text || !etext)) {
		unsigned long long addr;
		char type, sym[256];

		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3)
			continue;
		if (!strcmp(sym, "_text"))
			text = addr;
		else if (!strcmp(sym, "_etext"))
			etext = addr;
	}
	fclose(f);
	if (!text)
		return 0; /* hidden by kptr_restrict: perf cannot record it either */
	trailer = hwp_attr__flag(&R->attr, HWP_ATTR_SAMPLE_ID_ALL)
			  ? 8 * (!!(st & HWP_SAMPLE_TID) + !!(st & HWP_SAMPLE_TIME) +
				 !!(st & HWP_SAMPLE_ID) + !!(st & HWP_SAMPLE_STREAM_ID) +
				 !!(st & HWP_SAMPLE_CPU) + !!(st & HWP_SAMPLE_IDENTIFIER))
			  : 0;
	sz = 8 + 32 + nlen + trailer;
	memset(rec, 0, sizeof(rec));
	st32(rec, HWP_RECORD_MMAP);
	st16(rec + 4, HWP_MISC_KERNEL);
	st16(rec + 6, (uint16_t)sz);
	st32(rec + 8, (uint32_t)-1); /* pid: the host kernel */
	st32(rec + 12, 0);
	st64(rec + 16, text);
	st64(rec + 24, etext > text ? etext - text : ~0ULL - text);
	st64(rec + 32, text); /* pgoff: the reference relocation symbol _text */
	memcpy(rec + 40, name, sizeof(name));
	return hwp_writer__add_raw(R->w, rec, sz);
}

static int synth_child(struct rec *R)
{
	char path[64], comm[64] = "", line[4096];
	FILE *f;
	int rc;
	bool all = hwp_attr__flag(&R->attr, HWP_ATTR_MMAP_DATA);

	snprintf(path, sizeof(path), "%d/comm", (int)R->child);
	hwp__read_line("/proc", path, comm, sizeof(comm));
	if ((rc = hwp_writer__add_comm(R->w, R->attr_idx, (uint32_t)R->child, (uint32_t)R->child,
				       comm[0] ? comm : "hwprof", false, NULL)) < 0)
		return rc;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)R->child);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, pgoff, ino;
		unsigned maj, min;
		char perms[8], name[4096] = "";
		uint32_t prot = 0, flags;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095[^\n]", &start, &end, perms,
			   &pgoff, &maj, &min, &ino, name) < 7)
			continue;
		if (perms[0] == 'r')
			prot |= 1; /* PROT_READ */
		if (perms[1] == 'w')
			prot |= 2;
		if (perms[2] == 'x')
			prot |= 4;
		if (!(prot & 4) && !all)
			continue; /* perf synthesizes executable maps unless -d */
		flags = perms[3] == 's' ? 1 /* MAP_SHARED */ : 2 /* MAP_PRIVATE */;
		char *n = name;

		while (*n == ' ' || *n == '\t')
			n++;
		/* (as the kernel's own MMAP2 records name it: a newline is one) */
		hwp__maps_path_unescape(n, maj, min, ino);
		if ((rc = hwp_writer__add_mmap2(R->w, R->attr_idx, (uint32_t)R->child,
						(uint32_t)R->child, start, end - start, pgoff, NULL, 0,
						prot, flags, *n ? n : "//anon", HWP_MISC_USER, NULL)) < 0)
			break;
	}
	fclose(f);
	return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------ ring buffers */

int hwp__ring_drain(uint8_t *base, size_t page, size_t data_size, uint8_t *scratch,
		    int (*emit)(void *ctx, const uint8_t *rec, size_t size), void *ctx)
{
	uint64_t head = __atomic_load_n((uint64_t *)(base + MMAP_DATA_HEAD), __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n((uint64_t *)(base + MMAP_DATA_TAIL), __ATOMIC_RELAXED);
	const uint8_t *data = base + page;
	size_t mask = data_size - 1;
	int n = 0, rc = 0;

	while (tail < head) {
		uint8_t hdr[8];
		size_t off = tail & mask, sz;

		for (int i = 0; i < 8; i++)
			hdr[i] = data[(off + (size_t)i) & mask];
		sz = ld16(hdr + 6);
		if (sz < 8 || tail + sz > head) {
			rc = hwp__set_error(EIO, "ring buffer: corrupt record header at %" PRIu64
					    " (size %zu, head %" PRIu64 ")", tail, sz, head);
			break;
		}
		/* a record wrapping around the end of the buffer is copied whole */
		if (off + sz <= data_size) {
			memcpy(scratch, data + off, sz);
		} else {
			size_t first = data_size - off;

			memcpy(scratch, data + off, first);
			memcpy(scratch + first, data, sz - first);
		}
		if ((rc = emit(ctx, scratch, sz)) < 0)
			break;
		n++;
		tail += sz;
	}
	/* what was consumed is given back to the kernel, even on error */
	__atomic_store_n((uint64_t *)(base + MMAP_DATA_TAIL), tail, __ATOMIC_RELEASE);
	return rc < 0 ? rc : n;
}

static int emit_record(void *ctx, const uint8_t *rec, size_t sz)
{
	struct rec *R = ctx;

	switch (ld32(rec)) {
	case HWP_RECORD_SAMPLE:
		R->r->samples++;
		break;
	case HWP_RECORD_LOST:
		if (sz >= 24)
			R->r->lost_records += ld64(rec + 16);
		break;
	case HWP_RECORD_LOST_SAMPLES:
		if (sz >= 16)
			R->r->lost_samples += ld64(rec + 8);
		break;
	}
	R->r->records++;
	return hwp_writer__add_raw(R->w, rec, sz);
}

static int drain(struct rec *R, struct ring *g, bool *wrote)
{
	int n = hwp__ring_drain(g->base, R->page, g->data_size, R->scratch, emit_record, R);

	if (n > 0)
		*wrote = true;
	return n < 0 ? n : 0;
}

static int drain_all(struct rec *R)
{
	bool wrote = false;
	int rc;

	for (size_t i = 0; i < R->nr_rings; i++)
		if ((rc = drain(R, &R->rings[i], &wrote)) < 0)
			return rc;
	return wrote ? hwp_writer__add_finished_round(R->w) : 0;
}

static int record_loop(struct rec *R)
{
	struct pollfd *pfd = calloc(R->nr_rings, sizeof(*pfd));
	bool killed = false;
	int rc = 0, status;

	if (!pfd)
		return fail(R, HWP_RECORD_PHASE_RUN, ENOMEM, "out of memory");
	for (size_t i = 0; i < R->nr_rings; i++) {
		pfd[i].fd = R->rings[i].fd;
		pfd[i].events = POLLIN;
	}
	for (;;) {
		pid_t w = waitpid(R->child, &status, WNOHANG);

		if (w == R->child) {
			R->r->wait_status = status;
			R->child = 0;
			break;
		}
		if (R->o->stop && *R->o->stop && !killed) {
			kill(R->child, SIGTERM);
			killed = true;
		}
		if (poll(pfd, R->nr_rings, 100) < 0 && errno != EINTR) {
			rc = fail(R, HWP_RECORD_PHASE_RUN, errno, "poll: %s", strerror(errno));
			break;
		}
		if ((rc = drain_all(R)) < 0) {
			R->r->phase = HWP_RECORD_PHASE_RUN;
			break;
		}
	}
	free(pfd);
	if (rc < 0)
		return rc;
	for (size_t i = 0; i < R->nr_rings; i++)
		ioctl(R->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	if ((rc = drain_all(R)) < 0)
		R->r->phase = HWP_RECORD_PHASE_RUN;
	return rc;
}

/* ------------------------------------------------------------ run */

static void cleanup(struct rec *R)
{
	kill_child(R);
	if (R->go_fd >= 0)
		close(R->go_fd);
	if (R->err_fd >= 0)
		close(R->err_fd);
	for (size_t i = 0; i < R->nr_rings; i++) {
		if (R->rings[i].base)
			munmap(R->rings[i].base, R->rings[i].data_size + R->page);
		if (R->rings[i].fd >= 0)
			close(R->rings[i].fd);
	}
	free(R->rings);
	free(R->cpus);
	free(R->scratch);
	if (R->w) {
		hwp_writer__abort(R->w);
		unlink(R->tmp_path);
	}
	free(R->tmp_path);
}

/* R set up for O, the arguments checked: nothing to clean up yet. */
static int setup(struct rec *R, const struct hwp_record_opts *o, struct hwp_record_result *res)
{
	char prog[4096];
	int rc;

	memset(R, 0, sizeof(*R));
	R->o = o;
	R->r = res;
	R->go_fd = R->err_fd = -1;
	R->page = (size_t)sysconf(_SC_PAGESIZE);
	if (!o->attr || !o->output || !o->argv || !o->argv[0])
		return fail(R, HWP_RECORD_PHASE_SETUP, EINVAL, "hwp_record__run: missing attr, output "
			    "or workload");
	if (o->mmap_pages & (o->mmap_pages - 1))
		return fail(R, HWP_RECORD_PHASE_SETUP, EINVAL, "%u ring buffer pages: must be a "
			    "power of 2", o->mmap_pages);
	R->attr = *o->attr;
	res->attr = R->attr;
	snprintf(res->event_name, sizeof(res->event_name), "%s", o->event_name ? o->event_name : "event");

	if ((rc = find_program(o->argv[0], prog, sizeof(prog))) < 0)
		return fail(R, HWP_RECORD_PHASE_EXEC, -rc, "%s: %s", o->argv[0],
			    rc == -ENOENT ? "command not found" : strerror(-rc));
	return 0;
}

/* The CPUs, the output file and the workload, forked and held before exec.
   A failure here cleans up what it got before it sets the message. */
static int prepare(struct rec *R)
{
	const struct hwp_record_opts *o = R->o;
	int rc, e;

	if (!o->per_thread && (rc = online_cpus(R)) < 0) {
		cleanup(R);
		return fail(R, HWP_RECORD_PHASE_SETUP, -rc, "cannot list online CPUs: %s",
			    strerror(-rc));
	}
	R->scratch = malloc(MAX_RECORD);
	if (!R->scratch || asprintf(&R->tmp_path, "%s.hwprof-tmp", o->output) < 0) {
		R->tmp_path = NULL;
		cleanup(R);
		return fail(R, HWP_RECORD_PHASE_SETUP, ENOMEM, "out of memory");
	}
	/* The output first: an unwritable path fails before anything runs. */
	R->w = hwp_writer__open(R->tmp_path);
	if (!R->w) {
		e = errno;
		cleanup(R);
		return fail(R, HWP_RECORD_PHASE_SETUP, e, "%s: cannot create: %s", o->output,
			    strerror(e));
	}
	if ((rc = start_child(R)) < 0) {
		cleanup(R);
		return fail(R, HWP_RECORD_PHASE_EXEC, -rc, "fork: %s", strerror(-rc));
	}
	return 0;
}

/* The attr in the output, with the ids of the opened events. */
static int add_attr(struct rec *R)
{
	uint64_t *ids = calloc(R->nr_rings, sizeof(*ids));
	int rc;

	if (!ids)
		return fail(R, HWP_RECORD_PHASE_SETUP, ENOMEM, "out of memory");
	for (size_t i = 0; i < R->nr_rings; i++)
		if (ioctl(R->rings[i].fd, PERF_EVENT_IOC_ID, &ids[i]) < 0) {
			rc = fail(R, HWP_RECORD_PHASE_OPEN, errno, "PERF_EVENT_IOC_ID: %s",
				  strerror(errno));
			goto out;
		}
	if ((rc = R->attr_idx = hwp_writer__add_attr(R->w, &R->attr, ids, R->nr_rings,
						     R->r->event_name)) < 0)
		R->r->phase = HWP_RECORD_PHASE_SETUP;
out:
	free(ids);
	return rc;
}

/* What the output holds before the workload runs: the attr, the header
   features, the synthesized kernel map and the child's COMM and MMAP2. */
static int describe(struct rec *R)
{
	const struct hwp_record_opts *o = R->o;
	int rc;

	R->r->attr = R->attr;
	R->r->nr_buffers = (unsigned)R->nr_rings;
	if ((rc = add_attr(R)) < 0)
		return rc;
	hwp_writer__set_host_features(R->w);
	if (o->cmdline_argc > 0 && o->cmdline_argv)
		hwp_writer__set_cmdline(R->w, o->cmdline_argc, o->cmdline_argv);
	if (R->attr.sample_type & HWP_SAMPLE_BRANCH_STACK)
		hwp_writer__set_flag_feature(R->w, HWP_FEAT_BRANCH_STACK);
	if ((rc = synth_kernel_mmap(R)) < 0 || (rc = synth_child(R)) < 0 ||
	    (rc = hwp_writer__add_finished_round(R->w)) < 0) {
		R->r->phase = HWP_RECORD_PHASE_RUN;
		return rc;
	}
	return 0;
}

/* Go: the child execs, enable_on_exec turns the event on; then the
   recording, until the workload exits. */
static int run_workload(struct rec *R)
{
	ssize_t n;
	int e;

	if (write(R->go_fd, "g", 1) != 1)
		return fail(R, HWP_RECORD_PHASE_EXEC, errno, "cannot start the workload: %s",
			    strerror(errno));
	close(R->go_fd);
	R->go_fd = -1;
	do
		n = read(R->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(e)) {
		waitpid(R->child, NULL, 0);
		R->child = 0;
		return fail(R, HWP_RECORD_PHASE_EXEC, e, "%s: %s", R->o->argv[0], strerror(e));
	}
	R->r->workload_ran = true;
	return record_loop(R);
}

/* The output closed and renamed from its temporary name to its own. */
static int finish_output(struct rec *R)
{
	int rc, e;

	R->r->attr = R->attr;
	R->r->bytes = hwp_writer__size(R->w);
	rc = hwp_writer__close(R->w);
	R->w = NULL;
	if (rc < 0) {
		R->r->phase = HWP_RECORD_PHASE_RUN;
		unlink(R->tmp_path);
		return rc;
	}
	if (rename(R->tmp_path, R->o->output) < 0) {
		e = errno;
		unlink(R->tmp_path);
		rc = fail(R, HWP_RECORD_PHASE_RUN, e, "%s: cannot rename %s to it: %s", R->o->output,
			  R->tmp_path, strerror(e));
	}
	return rc;
}

static int record_run(const struct hwp_record_opts *opts, struct hwp_record_result *res)
{
	struct hwp_record_opts o;
	struct rec R;
	int rc;

	if ((rc = HWP_OPTS_LOAD(opts, &o, struct hwp_record_opts)) < 0)
		return rc;
	if ((rc = setup(&R, &o, res)) < 0 || (rc = prepare(&R)) < 0)
		return rc;
	if ((rc = open_events(&R)) < 0)
		goto out;
	if ((rc = describe(&R)) < 0)
		goto out;
	if ((rc = run_workload(&R)) < 0)
		goto out;
	rc = finish_output(&R);
out:
	cleanup(&R);
	return rc;
}

int hwp_record__run(const struct hwp_record_opts *opts, struct hwp_record_result *out)
{
	struct hwp_record_result res;
	int rc;

	if (!opts)
		return hwp__set_error(EINVAL, "hwp_record__run: invalid argument");
	if ((rc = HWP_RESULT_BEGIN(out, &res, struct hwp_record_result)) < 0)
		return rc;
	memset(&res, 0, sizeof(res));
	rc = record_run(opts, &res);
	hwp__result_end(out, &res, sizeof(res));
	return rc;
}
