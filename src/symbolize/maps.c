/* SPDX-License-Identifier: MIT */
/*
 * perf's address-space model (machine -> threads -> maps). See maps.h for
 * the rules; the function comments name the perf 6.1 function each step
 * follows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/maps.h"
#include "symbolize/maps_internal.h"
#include "util/arena.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

#define HWP_PROT_EXEC 0x4u
#define HWP_MAP_HUGETLB 0x40000u
#define HWP_MISC_MMAP_DATA (1u << 13)
#define HWP_MISC_FORK_EXEC (1u << 13)
#define HWP_KSYMBOL_UNREGISTER 1u

/* One process' maps: sorted by start, never overlapping, never empty ranges. */
struct hwp_maps {
	struct hwp_map *v;
	size_t nr, cap;
	unsigned refcnt;
};

struct hwp_thread {
	size_t idx; /* in the machine's threads */
	struct hwp_machine *machine;
	int32_t pid, tid;
	struct hwp_maps *maps;
};

struct hwp_machine {
	struct hwp_thread **threads; /* every thread; tids indexes them */
	size_t nthreads, threads_cap;
	struct hwp_hashmap tids;
	/* threads found last, by the low bits of their tid (perf keeps one,
	   its last_match): samples of a few threads interleave */
#define RECENT 16
	struct hwp_thread *recent[RECENT];
	struct hwp_maps kmaps;
	/* interned file names, indexed by content */
	const char **names;
	size_t names_nr, names_cap;
	/* per name (same index): the lowest pgoff of its executable user
	   maps, UINT64_MAX when none (hwp__machine_exec_pgoff) */
	uint64_t *exec_pgoff;
	size_t exec_pgoff_cap;
	struct hwp_hashmap name_map;
	struct hwp_arena arena;
	uint64_t generation; /* bumped by every change that can move maps or threads */
};

/* ---- file-name rules (util/map.h) ---- */

bool hwp__map_name_is_identity(const char *f, uint32_t flags)
{
	return (flags & HWP_MAP_HUGETLB) || !strcmp(f, "//anon") ||
	       !strncmp(f, "/dev/zero", 9) || !strncmp(f, "/anon_hugepage", 14) ||
	       !strncmp(f, "[stack", 6) || !strncmp(f, "/SYSV", 5) || !strcmp(f, "[heap]");
}

bool hwp__map_name_is_vdso(const char *f)
{
	return !strcmp(f, "[vdso]");
}

/* The kernel image (its addresses are absolute), as opposed to modules. */
static bool is_kernel_image(const char *f)
{
	if (!strncmp(f, "[kernel.kallsyms]", 17) || !strncmp(f, "[guest.kernel.kallsyms", 22))
		return true;
	return f[0] != '/' && f[0] != '['; /* perf's extra kernel maps (trampolines) */
}

/* ---- name interning ---- */

/* The index of interned name S, or -1. */
static int64_t name_index(const struct hwp_machine *m, const char *s)
{
	uint64_t h = hwp__hash_str(s);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&m->name_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (!strcmp(m->names[i], s))
			return i;
	return -1;
}

static const char *intern(struct hwp_machine *m, const char *s)
{
	uint64_t h = hwp__hash_str(s);
	int64_t i = name_index(m, s);

	if (i >= 0)
		return m->names[i];
	const char **slot = HWP_VEC_PUSH(m->names, m->names_nr, m->names_cap);
	if (!slot)
		return NULL;
	char *copy = hwp__arena_strndup(&m->arena, s, strlen(s));
	if (!copy || hwp__hashmap_add(&m->name_map, h, m->names_nr - 1) < 0) {
		m->names_nr--;
		return NULL;
	}
	*slot = copy;
	return copy;
}

/* ---- maps (util/maps.c) ---- */

static struct hwp_maps *maps__new(void)
{
	struct hwp_maps *ms = calloc(1, sizeof(*ms));
	if (ms)
		ms->refcnt = 1;
	return ms;
}

static void maps__put(struct hwp_maps *ms)
{
	if (ms && --ms->refcnt == 0) {
		free(ms->v);
		free(ms);
	}
}

static int maps__reserve(struct hwp_maps *ms, size_t n)
{
	return HWP_VEC_RESERVE(ms->v, ms->cap, n);
}

/* Index of the first map whose end is above ADDR (the kernel's find_vma). */
static size_t maps__first_ending_after(const struct hwp_maps *ms, uint64_t addr)
{
	size_t lo = 0, hi = ms->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ms->v[mid].end > addr)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static const struct hwp_map *maps__find(const struct hwp_maps *ms, uint64_t addr)
{
	size_t i = maps__first_ending_after(ms, addr);
	if (i < ms->nr && ms->v[i].start <= addr)
		return &ms->v[i];
	return NULL;
}

/*
 * maps__fixup_overlappings() then maps__insert(): the maps NM overlaps are
 * removed, keeping the part before NM and the part after it (whose pgoff
 * moves with its start). An empty map is not stored: perf would split the
 * map it falls in at that point, which changes no lookup.
 */
static int maps__insert(struct hwp_maps *ms, const struct hwp_map *nm)
{
	if (nm->end <= nm->start)
		return 0;
	size_t i = maps__first_ending_after(ms, nm->start), j = i;
	while (j < ms->nr && ms->v[j].start < nm->end)
		j++;

	struct hwp_map before, after;
	bool has_before = false, has_after = false;
	if (j > i) {
		if (ms->v[i].start < nm->start) {
			before = ms->v[i];
			before.end = nm->start;
			has_before = true;
		}
		if (ms->v[j - 1].end > nm->end) {
			after = ms->v[j - 1];
			after.pgoff += nm->end - after.start;
			after.start = nm->end;
			has_after = true;
		}
	}
	size_t nins = 1 + has_before + has_after;
	size_t nr = ms->nr - (j - i) + nins;
	if (maps__reserve(ms, nr) < 0)
		return -ENOMEM;
	if (j < ms->nr)
		memmove(&ms->v[i + nins], &ms->v[j], (ms->nr - j) * sizeof(*ms->v));
	if (has_before)
		ms->v[i++] = before;
	ms->v[i++] = *nm;
	if (has_after)
		ms->v[i] = after;
	ms->nr = nr;
	return 0;
}

static void maps__remove_at(struct hwp_maps *ms, size_t i)
{
	if (i + 1 < ms->nr)
		memmove(&ms->v[i], &ms->v[i + 1], (ms->nr - i - 1) * sizeof(*ms->v));
	ms->nr--;
}

/* maps__clone(): the child's maps get copies of every parent map. */
static int maps__clone(struct hwp_maps *dst, const struct hwp_maps *src)
{
	if (src->nr == 0)
		return 0;
	if (dst->nr == 0) {
		if (maps__reserve(dst, src->nr) < 0)
			return -ENOMEM;
		memcpy(dst->v, src->v, src->nr * sizeof(*src->v));
		dst->nr = src->nr;
		return 0;
	}
	for (size_t i = 0; i < src->nr; i++) {
		int err = maps__insert(dst, &src->v[i]);
		if (err)
			return err;
	}
	return 0;
}

/* ---- threads (util/machine.c, util/thread.c) ---- */

static uint64_t tid_hash(int32_t tid)
{
	return hwp__hash64((uint32_t)tid);
}

static struct hwp_thread *lookup(const struct hwp_machine *m, int32_t tid)
{
	struct hwp_thread *r = m->recent[(uint32_t)tid % RECENT];

	if (r && r->tid == tid)
		return r;

	struct hwp_hashmap_probe p = hwp__hashmap_probe(&m->tids, tid_hash(tid));
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (m->threads[i]->tid == tid)
			return m->threads[i];
	return NULL;
}

/* Takes T out of the table (machine__remove_thread); the caller frees it.
   The last thread fills its place, so the array stays dense. */
static void unlink_thread(struct hwp_machine *m, struct hwp_thread *t)
{
	if (t->idx < m->nthreads && m->threads[t->idx] == t &&
	    hwp__hashmap_remove(&m->tids, tid_hash(t->tid), t->idx) == 0) {
		struct hwp_thread *last = m->threads[--m->nthreads];

		if (last != t) {
			hwp__hashmap_renumber(&m->tids, tid_hash(last->tid), last->idx, t->idx);
			last->idx = t->idx;
			m->threads[t->idx] = last;
		}
	}
	if (m->recent[(uint32_t)t->tid % RECENT] == t)
		m->recent[(uint32_t)t->tid % RECENT] = NULL;
}

static void free_thread(struct hwp_thread *t)
{
	if (t) {
		maps__put(t->maps);
		free(t);
	}
}

/* machine__update_thread_pid(): a thread first seen without its pid joins
   its leader's maps once the pid is known. */
static void update_pid(struct hwp_machine *m, struct hwp_thread *t, int32_t pid)
{
	if (pid == t->pid || pid == -1 || t->pid != -1)
		return;
	/* the thread's process (and maybe its maps) change: cached lookups go */
	m->generation++;
	t->pid = pid;
	if (pid == t->tid)
		return;
	struct hwp_thread *leader = hwp_machine__findnew_thread(m, pid, pid);
	if (!leader || leader->maps == t->maps)
		return;
	maps__put(t->maps);
	t->maps = leader->maps;
	t->maps->refcnt++;
}

/* machine__find_thread(): no creation, but the pid is still filled in. */
static struct hwp_thread *find_thread(struct hwp_machine *m, int32_t pid, int32_t tid)
{
	struct hwp_thread *t = lookup(m, tid);
	if (t) {
		/* written only when it changes: a parallel pass's threads read
		   the machine's lines while this one finds a thread per sample */
		if (m->recent[(uint32_t)tid % RECENT] != t)
			m->recent[(uint32_t)tid % RECENT] = t;
		update_pid(m, t, pid);
	}
	return t;
}

static struct hwp_thread *thread_oom(const struct hwp_machine *m, int32_t pid, int32_t tid)
{
	hwp__set_error(ENOMEM, "maps: out of memory adding thread %d of process %d (%zu threads known)", tid,
		       pid, m->nthreads);
	return NULL;
}

struct hwp_thread *hwp_machine__findnew_thread(struct hwp_machine *m, int32_t pid, int32_t tid)
{
	struct hwp_thread *t = find_thread(m, pid, tid);
	if (t)
		return t;
	struct hwp_thread **slot = HWP_VEC_PUSH(m->threads, m->nthreads, m->threads_cap);
	if (!slot)
		return thread_oom(m, pid, tid);
	t = calloc(1, sizeof(*t));
	if (!t || hwp__hashmap_add(&m->tids, tid_hash(tid), m->nthreads - 1) < 0) {
		free(t);
		m->nthreads--;
		return thread_oom(m, pid, tid);
	}
	*slot = t;
	t->idx = m->nthreads - 1;
	t->machine = m;
	t->pid = pid;
	t->tid = tid;
	/* thread__init_maps(): a process leader (or unknown pid) owns maps,
	   other threads share their leader's. The thread is in the table
	   first, as in perf, so a leader lookup sees it. */
	if (pid == tid || pid == -1) {
		t->maps = maps__new();
	} else {
		struct hwp_thread *leader = hwp_machine__findnew_thread(m, pid, pid);
		if (leader) {
			t->maps = leader->maps;
			t->maps->refcnt++;
		}
	}
	if (!t->maps) {
		unlink_thread(m, t);
		free(t);
		return thread_oom(m, pid, tid);
	}
	m->recent[(uint32_t)tid % RECENT] = t;
	return t;
}

struct hwp_thread *hwp_machine__find_thread(const struct hwp_machine *m, int32_t tid)
{
	return lookup(m, tid);
}

struct hwp_thread *hwp_machine__sample_thread(struct hwp_machine *m, const struct hwp_event *ev)
{
	int32_t pid = -1, tid = -1;
	if (ev->sample.sample_type & HWP_SAMPLE_TID) {
		pid = (int32_t)ev->sample.pid;
		tid = (int32_t)ev->sample.tid;
	}
	return hwp_machine__findnew_thread(m, pid, tid);
}

int32_t hwp_thread__pid(const struct hwp_thread *t)
{
	return t->pid;
}

int32_t hwp_thread__tid(const struct hwp_thread *t)
{
	return t->tid;
}

/* machine__process_fork_event() and thread__fork(). */
int hwp_machine__fork(struct hwp_machine *m, int32_t pid, int32_t tid, int32_t ppid,
		      int32_t ptid, bool clone_maps)
{
	m->generation++;
	struct hwp_thread *t = find_thread(m, pid, tid);
	struct hwp_thread *parent = hwp_machine__findnew_thread(m, ppid, ptid);
	struct hwp_thread *detached = NULL;
	int err = 0;

	if (!parent)
		return -ENOMEM; /* message set */
	/* A thread with the parent's tid but another pid is stale (its EXIT
	   or FORK was lost): start that tid again. */
	if (parent->pid != ppid) {
		unlink_thread(m, parent);
		if (t == parent)
			t = NULL;
		free_thread(parent);
		parent = hwp_machine__findnew_thread(m, ppid, ptid);
		if (!parent)
			return -ENOMEM; /* message set */
	}
	/* A thread already using the child's tid is gone. */
	if (t) {
		unlink_thread(m, t);
		if (t == parent)
			detached = t; /* still the parent below */
		else
			free_thread(t);
	}
	t = hwp_machine__findnew_thread(m, pid, tid);
	if (!t) {
		err = -ENOMEM;
	} else if (t->pid != parent->pid && t->maps != parent->maps && clone_maps) {
		/* a new process copies its parent's maps; a new thread of the
		   parent's process already shares them */
		if (maps__clone(t->maps, parent->maps) < 0)
			err = hwp__set_error(ENOMEM, "maps: out of memory copying %zu maps of process %d to process %d",
					     parent->maps->nr, parent->pid, t->pid);
	}
	free_thread(detached);
	return err;
}

/* ---- mmaps ---- */

static int map_oom(const char *filename)
{
	return hwp__set_error(ENOMEM, "maps: out of memory adding the map of %s", filename);
}

/* machine__process_kernel_mmap_event(), simplified: the kernel image and
   modules land in the kernel maps. */
static int kernel_mmap(struct hwp_machine *m, const struct hwp_map *nm)
{
	struct hwp_map km = *nm;
	km.kernel = true;
	km.identity = is_kernel_image(km.filename);
	return maps__insert(&m->kmaps, &km) < 0 ? map_oom(km.filename) : 0;
}

/* Keeps the lowest pgoff of NAME's (interned) executable maps. */
static int note_exec_pgoff(struct hwp_machine *m, const char *name, uint64_t pgoff)
{
	int64_t i = name_index(m, name);

	if (i < 0)
		return 0;
	if ((size_t)i >= m->exec_pgoff_cap) {
		size_t cap = m->names_cap > (size_t)i ? m->names_cap : (size_t)i + 1;
		uint64_t *v = realloc(m->exec_pgoff, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = m->exec_pgoff_cap; k < cap; k++)
			v[k] = UINT64_MAX;
		m->exec_pgoff = v;
		m->exec_pgoff_cap = cap;
	}
	if (pgoff < m->exec_pgoff[i])
		m->exec_pgoff[i] = pgoff;
	return 0;
}

bool hwp__machine_exec_pgoff(const struct hwp_machine *m, const char *filename, uint64_t *pgoff)
{
	int64_t i = name_index(m, filename);

	if (i < 0 || (size_t)i >= m->exec_pgoff_cap || m->exec_pgoff[i] == UINT64_MAX)
		return false;
	*pgoff = m->exec_pgoff[i];
	return true;
}

/* machine__process_mmap{,2}_event() and map__new(). */
int hwp_machine__mmap(struct hwp_machine *m, const struct hwp_mmap_event *e)
{
	m->generation++;
	struct hwp_map nm;

	memset(&nm, 0, sizeof(nm));
	nm.filename = intern(m, e->filename ? e->filename : "");
	if (!nm.filename)
		return map_oom(e->filename ? e->filename : "");
	nm.start = e->start;
	nm.end = e->start + e->len;
	if (nm.end < nm.start)
		nm.end = UINT64_MAX; /* wraps: up to the top of the address space */
	nm.pgoff = e->pgoff;
	nm.prot = e->prot;
	nm.flags = e->flags;
	nm.maj = e->maj;
	nm.min = e->min;
	nm.ino = e->ino;
	nm.ino_generation = e->ino_generation;
	if (e->build_id && e->build_id_size) {
		nm.build_id_size = e->build_id_size > 20 ? 20 : e->build_id_size;
		memcpy(nm.build_id, e->build_id, nm.build_id_size);
	}

	if (e->cpumode == HWP_MISC_KERNEL || e->cpumode == HWP_MISC_GUEST_KERNEL)
		return kernel_mmap(m, &nm);

	struct hwp_thread *t = hwp_machine__findnew_thread(m, e->pid, e->tid);
	if (!t)
		return -ENOMEM; /* message set */
	nm.identity = hwp__map_name_is_identity(nm.filename, nm.flags);
	if (nm.identity && (nm.prot & HWP_PROT_EXEC)) {
		/* map__new(): executable memory no file backs is JIT-compiled
		   code, named after the perf map that may describe it */
		char name[32];

		snprintf(name, sizeof(name), "/tmp/perf-%d.map", (int)t->pid);
		if (!(nm.filename = intern(m, name)))
			return map_oom(name);
	}
	if (hwp__map_name_is_vdso(nm.filename))
		nm.pgoff = 0;
	if ((nm.prot & HWP_PROT_EXEC) && !nm.identity && note_exec_pgoff(m, nm.filename, nm.pgoff) < 0)
		return map_oom(nm.filename);
	return maps__insert(t->maps, &nm) < 0 ? map_oom(nm.filename) : 0;
}

/* A NUL-terminated string at OFF in the record (cut at the record's end). */
static const char *record_str(struct hwp_machine *m, const struct hwp_event *ev, uint32_t off)
{
	const char *s = (const char *)ev->data + off;
	size_t n = strnlen(s, ev->size - off);
	if (n < ev->size - off)
		return s;
	char *copy = hwp__arena_strndup(&m->arena, s, n); /* unterminated */
	return copy;
}

/* A record too small for its type: perf skips it, the caller may too. */
static int too_short(const struct hwp_event *ev, uint32_t need)
{
	const char *name = hwp_record_type__name(ev->type);

	return hwp__set_error(EINVAL, "maps: %s record at offset 0x%llx (record %llu) has %u bytes, fewer than the %u its type needs",
			      name ? name : "unknown", (unsigned long long)ev->file_offset,
			      (unsigned long long)ev->index, ev->size, need);
}

static int ksymbol(struct hwp_machine *m, const struct hwp_event *ev)
{
	if (ev->size < 25)
		return too_short(ev, 25);
	uint64_t addr = ld64(ev->data + 8);
	uint32_t len = ld32(ev->data + 16);
	uint16_t flags = ld16(ev->data + 22);

	m->generation++;
	if (flags & HWP_KSYMBOL_UNREGISTER) {
		const struct hwp_map *km = maps__find(&m->kmaps, addr);
		if (km)
			maps__remove_at(&m->kmaps, (size_t)(km - m->kmaps.v));
		return 0;
	}
	const char *name = record_str(m, ev, 24);
	struct hwp_map nm;
	memset(&nm, 0, sizeof(nm));
	nm.filename = name ? intern(m, name) : NULL;
	if (!nm.filename)
		return map_oom("a kernel symbol");
	nm.start = addr;
	nm.end = addr + len < addr ? UINT64_MAX : addr + len;
	nm.kernel = true;
	nm.identity = true; /* a kernel symbol: addresses are absolute */
	return maps__insert(&m->kmaps, &nm) < 0 ? map_oom(nm.filename) : 0;
}

int hwp_machine__process_event(struct hwp_machine *m, const struct hwp_event *ev)
{
	const uint8_t *d = ev->data;
	struct hwp_mmap_event e;

	switch (ev->type) {
	case HWP_RECORD_MMAP:
	case HWP_RECORD_MMAP2: {
		bool two = ev->type == HWP_RECORD_MMAP2;
		uint32_t name_off = two ? 72 : 40;
		if (ev->size <= name_off)
			return too_short(ev, name_off + 1);
		memset(&e, 0, sizeof(e));
		e.pid = (int32_t)ld32(d + 8);
		e.tid = (int32_t)ld32(d + 12);
		e.cpumode = ev->misc & HWP_MISC_CPUMODE_MASK;
		e.start = ld64(d + 16);
		e.len = ld64(d + 24);
		e.pgoff = ld64(d + 32);
		if (two) {
			if (ev->misc & HWP_MISC_MMAP_BUILD_ID) {
				e.build_id_size = d[40] > 20 ? 20 : d[40];
				e.build_id = d + 44;
			} else {
				e.maj = ld32(d + 40);
				e.min = ld32(d + 44);
				e.ino = ld64(d + 48);
				e.ino_generation = ld64(d + 56);
			}
			e.prot = ld32(d + 64);
			e.flags = ld32(d + 68);
		} else {
			e.prot = (ev->misc & HWP_MISC_MMAP_DATA) ? 0 : HWP_PROT_EXEC;
		}
		e.filename = record_str(m, ev, name_off);
		if (!e.filename)
			return map_oom("a file name");
		return hwp_machine__mmap(m, &e);
	}
	case HWP_RECORD_FORK:
		if (ev->size < 24)
			return too_short(ev, 24);
		return hwp_machine__fork(m, (int32_t)ld32(d + 8), (int32_t)ld32(d + 16),
					 (int32_t)ld32(d + 12), (int32_t)ld32(d + 20),
					 !(ev->misc & HWP_MISC_FORK_EXEC));
	case HWP_RECORD_EXIT:
		if (ev->size < 24)
			return too_short(ev, 24);
		find_thread(m, (int32_t)ld32(d + 8), (int32_t)ld32(d + 16));
		return 0;
	case HWP_RECORD_COMM:
	case HWP_RECORD_NAMESPACES:
	case HWP_RECORD_ITRACE_START:
		if (ev->size < 16)
			return too_short(ev, 16);
		return hwp_machine__findnew_thread(m, (int32_t)ld32(d + 8), (int32_t)ld32(d + 12))
			       ? 0
			       : -ENOMEM;
	case HWP_RECORD_KSYMBOL:
		return ksymbol(m, ev);
	case HWP_RECORD_SAMPLE:
		if (!ev->evsel)
			return 0; /* perf drops samples of unknown events */
		return hwp_machine__sample_thread(m, ev) ? 0 : -ENOMEM;
	default:
		return 0;
	}
}

/* ---- lookups (thread__find_map) ---- */

const struct hwp_map *hwp_thread__find_map(const struct hwp_thread *t, uint16_t cpumode,
					   uint64_t addr)
{
	if (cpumode == HWP_MISC_KERNEL)
		return maps__find(&t->machine->kmaps, addr);
	if (cpumode == HWP_MISC_USER)
		return maps__find(t->maps, addr);
	return NULL;
}

const struct hwp_map *hwp_machine__find_map(const struct hwp_machine *m, int32_t pid,
					    uint16_t cpumode, uint64_t addr)
{
	if (cpumode == HWP_MISC_KERNEL)
		return maps__find(&m->kmaps, addr);
	if (cpumode != HWP_MISC_USER)
		return NULL;
	const struct hwp_thread *t = lookup(m, pid);
	return t ? maps__find(t->maps, addr) : NULL;
}

size_t hwp_thread__maps(const struct hwp_thread *t, const struct hwp_map **maps)
{
	*maps = t->maps->v;
	return t->maps->nr;
}

size_t hwp__machine_kernel_maps(const struct hwp_machine *m, const struct hwp_map **maps)
{
	*maps = m->kmaps.v;
	return m->kmaps.nr;
}

/* ---- life cycle ---- */

struct hwp_machine *hwp_machine__new(void)
{
	struct hwp_machine *m = calloc(1, sizeof(*m));
	if (!m) {
		hwp__set_error(ENOMEM, "out of memory making the address spaces");
		return NULL;
	}
	m->kmaps.refcnt = 1;
	return m;
}

void hwp_machine__delete(struct hwp_machine *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nthreads; i++)
		free_thread(m->threads[i]);
	free(m->threads);
	hwp__hashmap_free(&m->tids);
	free(m->kmaps.v);
	free(m->names);
	free(m->exec_pgoff);
	hwp__hashmap_free(&m->name_map);
	hwp__arena_free(&m->arena);
	free(m);
}

uint64_t hwp__machine_generation(const struct hwp_machine *m)
{
	return m->generation;
}

const void *hwp__thread_maps_key(const struct hwp_thread *t)
{
	return t ? (const void *)t->maps : NULL;
}

void hwp__thread_clip_to_gap(const struct hwp_thread *t, uint16_t cpumode, uint64_t addr, uint64_t *start,
			     uint64_t *end)
{
	const struct hwp_maps *ms = cpumode == HWP_MISC_KERNEL ? &t->machine->kmaps : t->maps;
	size_t i = maps__first_ending_after(ms, addr);

	/* no map holds ADDR: map i (if any) starts above it, map i - 1 ends at or below it */
	if (i < ms->nr && ms->v[i].start < *end)
		*end = ms->v[i].start;
	if (i > 0 && ms->v[i - 1].end > *start)
		*start = ms->v[i - 1].end;
}

bool hwp__machine_event_changes(const struct hwp_event *ev)
{
	switch (ev->type) {
	case HWP_RECORD_MMAP:
	case HWP_RECORD_MMAP2:
	case HWP_RECORD_FORK:
	case HWP_RECORD_EXIT:
	case HWP_RECORD_COMM:
	case HWP_RECORD_NAMESPACES:
	case HWP_RECORD_ITRACE_START:
	case HWP_RECORD_KSYMBOL:
		return true;
	default:
		return false;
	}
}

bool hwp__machine_sample_changes(const struct hwp_machine *m, const struct hwp_event *ev)
{
	int32_t pid = -1, tid = -1;

	if (ev->sample.sample_type & HWP_SAMPLE_TID) {
		pid = (int32_t)ev->sample.pid;
		tid = (int32_t)ev->sample.tid;
	}
	if (pid == -1)
		return false; /* update_pid() changes nothing; a new thread is new */
	const struct hwp_thread *t = lookup(m, tid);
	if (t)
		return t->pid == -1;
	/* a new thread of a known leader first seen without its pid */
	t = pid != tid ? lookup(m, pid) : NULL;
	return t && t->pid == -1;
}
