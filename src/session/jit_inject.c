/* SPDX-License-Identifier: MIT */
/*
 * jitdumps injected as `perf inject --jit` injects them (perf 6.1's
 * util/jitdump.c), without writing anything: the recording's MMAP of a
 * dump file "DIR/jit-PID.dump" (the JIT maps its own dump to leave this
 * marker) makes the dump's code loads and moves maps of their process at
 * their timestamps, each "DIR/jitted-PID-INDEX.so" at pgoff
 * HWP_JIT_TEXT_OFFSET, as the MMAP2 records perf inject writes; samples
 * then resolve to the code that was at their address at their time (a
 * later load at an address replaces an earlier one). As perf inject does:
 *  - the marker itself is not mapped, and later "//anon..." and
 *    "/memfd:..." maps of the process are dropped (the JIT's code heap:
 *    the loads describe it);
 *  - the dump is used only when its timestamps can be put on the
 *    recording's clock: every event with CLOCK_MONOTONIC (perf record -k
 *    mono), or for a dump of architecture timestamps (TSC) the recording's
 *    TIME_CONV record;
 *  - without sample times every load is mapped at the marker.
 * A dump that cannot be used is said once, in one line; the recording is
 * read on without it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "session/session_internal.h"
#include "symbolize/jit_sources.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/vec.h"

#define CLOCK_MONOTONIC_ID 1
#define MAP_SHARED_FLAG 1u
#define PROT_EXEC_FLAG 4u

/* A load or move to map at TIME (perf's time). */
struct pending {
	uint64_t time, seq;
	const struct hwp__jit_code *c;
	char *name; /* perf inject's "DIR/jitted-PID-INDEX.so" */
};

struct hwp__jit_inject {
	struct pending *v;
	size_t n, cap, next; /* v[next..n) wait, sorted by (time, seq) */
	uint64_t seq;
	int32_t *pids; /* processes whose dump was injected */
	size_t npids, cappids;
	/* TIME_CONV: TSC -> perf time (perf_event_mmap_page's documented formula) */
	bool have_conv, conv_ext, cap_zero, cap_short;
	uint64_t time_shift, time_mult, time_zero, time_cycles, time_mask;
};

static struct hwp__jit_inject *state(struct hwp__session_input *in)
{
	if (!in->jit)
		in->jit = calloc(1, sizeof(*in->jit));
	return in->jit;
}

void hwp__session_jit_free(struct hwp__session_input *in)
{
	struct hwp__jit_inject *j = in->jit;

	if (!j)
		return;
	for (size_t i = 0; i < j->n; i++)
		free(j->v[i].name);
	free(j->v);
	free(j->pids);
	free(j);
	in->jit = NULL;
}

static bool injected_pid(const struct hwp__jit_inject *j, int32_t pid)
{
	for (size_t i = 0; j && i < j->npids; i++)
		if (j->pids[i] == pid)
			return true;
	return false;
}

/* perf's tsc_to_perf_time() after convert_timestamp()'s checks. */
static uint64_t tsc_to_time(const struct hwp__jit_inject *j, uint64_t cyc)
{
	if (j->conv_ext && !j->cap_zero)
		return 0;
	if (j->conv_ext && j->cap_short)
		cyc = j->time_cycles + ((cyc - j->time_cycles) & j->time_mask);
	unsigned shift = j->time_shift < 64 ? (unsigned)j->time_shift : 63;
	uint64_t quot = cyc >> shift, rem = cyc & ((1ull << shift) - 1);

	return j->time_zero + quot * j->time_mult + ((rem * j->time_mult) >> shift);
}

static void time_conv(struct hwp__session_input *in, const struct hwp_event *ev)
{
	struct hwp__jit_inject *j;

	if (ev->size < 32 || !(j = state(in)))
		return;
	j->time_shift = ld64(ev->data + 8);
	j->time_mult = ld64(ev->data + 16);
	j->time_zero = ld64(ev->data + 24);
	j->conv_ext = ev->size >= 50;
	if (j->conv_ext) {
		j->time_cycles = ld64(ev->data + 32);
		j->time_mask = ld64(ev->data + 40);
		j->cap_zero = ev->data[48];
		j->cap_short = ev->data[49];
	}
	j->have_conv = j->time_mult != 0;
}

/* Why the recording's clock cannot place DUMP's timestamps; NULL if it can. */
static const char *clock_problem(struct hwp_session *s, const struct hwp__jit_inject *j, const struct hwp__jitdump *d)
{
	if (d->flags & HWP_JITDUMP_FLAG_ARCH_TIMESTAMP)
		return j && j->have_conv ? NULL
					 : "its timestamps are the CPU's (TSC) and the recording has no TIME_CONV "
					   "record to convert them";
	for (size_t i = 0; i < hwp_reader__nr_evsels(s->reader); i++) {
		const struct hwp_attr *a = &hwp_reader__evsel(s->reader, i)->attr;

		if (!hwp_attr__flag(a, HWP_ATTR_USE_CLOCKID) || a->clockid != CLOCK_MONOTONIC_ID)
			return "the recording's clock is not CLOCK_MONOTONIC, the jitdump's (perf record -k mono "
			       "records with it)";
	}
	return NULL;
}

static int pending_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Queues DUMP's loads and moves (read through marker FILENAME). */
static int queue(struct hwp__jit_inject *j, const struct hwp__jitdump *d, const char *filename, bool timed)
{
	char name[4096];

	if (HWP_VEC_RESERVE(j->v, j->cap, j->n + d->n_codes) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < d->n_codes; i++) {
		const struct hwp__jit_code *c = &d->codes[i];

		if (!hwp__jit_sources_code_name(filename, c, name, sizeof(name)))
			continue;
		struct pending *p = &j->v[j->n];
		if (!(p->name = strdup(name)))
			return -ENOMEM;
		p->c = c;
		p->seq = j->seq++;
		p->time = !timed ? 0 : (d->flags & HWP_JITDUMP_FLAG_ARCH_TIMESTAMP) ? tsc_to_time(j, c->time) : c->time;
		j->n++;
	}
	hwp__sort(j->v + j->next, j->n - j->next, sizeof(*j->v), pending_cmp);
	return 0;
}

/* perf inject's MMAP2 for P, applied to the input's address spaces. */
static int map_code(struct hwp_session *s, const struct pending *p)
{
	const struct hwp__jit_code *c = p->c;
	uint64_t len = c->code_size;

	if (c->unwind_mapped) {
		uint64_t aligned = (len + 7) & ~(uint64_t)7;

		len = aligned < len || aligned + c->unwind_mapped < aligned ? UINT64_MAX : aligned + c->unwind_mapped;
	}
	struct hwp_mmap_event e = {
		.pid = (int32_t)c->pid,
		.tid = (int32_t)c->tid,
		.cpumode = HWP_MISC_USER,
		.start = c->code_addr,
		.len = len,
		.pgoff = HWP_JIT_TEXT_OFFSET,
		.prot = PROT_EXEC_FLAG,
		.flags = MAP_SHARED_FLAG,
		.filename = p->name,
	};
	int err = hwp_machine__mmap(s->machine, &e);

	return err == -ENOMEM ? err : 0;
}

int hwp__session_jit_apply(struct hwp_session *s, struct hwp__session_input *in, uint64_t time)
{
	struct hwp__jit_inject *j = in->jit;
	int err;

	if (!j || j->next >= j->n || j->v[j->next].time > time || !s->machine)
		return 0;
	if (s->before_change && (err = s->before_change(s->before_change_ctx)) < 0)
		return err;
	for (; j->next < j->n && j->v[j->next].time <= time; j->next++)
		if ((err = map_code(s, &j->v[j->next])) < 0)
			return hwp__set_error(ENOMEM, "%s: out of memory mapping JIT code %s", hwp_session__path(s),
					      j->v[j->next].name);
	return 0;
}

static bool anon_code_heap(const char *f)
{
	return !strncmp(f, "//anon", 6) || !strncmp(f, "/memfd:", 7);
}

int hwp__session_jit_mmap(struct hwp_session *s, struct hwp__session_input *in, const struct hwp_event *ev)
{
	struct hwp__jit_inject *j = in->jit;
	uint32_t name_off = ev->type == HWP_RECORD_MMAP2 ? 72 : 40;

	if (ev->type == HWP_RECORD_TIME_CONV) {
		time_conv(in, ev);
		return 0;
	}
	if ((ev->type != HWP_RECORD_MMAP && ev->type != HWP_RECORD_MMAP2) || ev->size <= name_off)
		return 0;
	int32_t pid = (int32_t)ld32(ev->data + 8);
	size_t max = ev->size - name_off;
	const char *f = (const char *)ev->data + name_off;

	if (strnlen(f, max) == max)
		return 0; /* no NUL: no name to match */
	if (injected_pid(j, pid) && anon_code_heap(f))
		return 1;
	if (!hwp__jitdump_marker(f, pid, NULL))
		return 0;
	const struct hwp__jitdump *d = hwp__jit_sources_dump(s->jit, f);
	if (!d) {
		hwp__log(HWP_LOG_WARN, "%s", hwp_errmsg());
		return 0;
	}
	if (!(j = state(in)))
		return hwp__set_error(ENOMEM, "%s: out of memory reading %s", hwp_session__path(s), f);
	const char *why = clock_problem(s, j, d);
	if (why) {
		hwp__log(HWP_LOG_WARN, "%s: not used: %s", f, why);
		return 0;
	}
	uint64_t t = hwp_event__time(ev);
	int32_t *slot = HWP_VEC_PUSH(j->pids, j->npids, j->cappids);
	if (!slot || queue(j, d, f, t != UINT64_MAX) < 0)
		return hwp__set_error(ENOMEM, "%s: out of memory queueing the code of %s", hwp_session__path(s), f);
	*slot = pid;
	hwp__log(HWP_LOG_INFO, "%s: %zu code loads and %zu moves of process %" PRId32 " mapped at their times", f,
		 d->n_loads, d->n_moves, pid);
	/* the loads up to the marker's time (every one without times) now;
	   perf inject drops the marker */
	int err = hwp__session_jit_apply(s, in, t);
	return err < 0 ? err : 1;
}
