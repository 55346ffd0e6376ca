/* SPDX-License-Identifier: MIT */
/*
 * Decoding the plugin's raw files (src/emu/emu_raw.h): one file per guest
 * process, written in chunks of HWP_EMU_CHUNK bytes through shared memory.
 * A chunk ends at the first record that is not whole (the process was
 * killed while writing it), so a damaged chunk loses only its own tail.
 * Timed records of every file are gathered and put in time order
 * (CLOCK_MONOTONIC, shared by all processes); exact-count records are kept
 * per process from its last complete snapshot.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture/emu_internal.h"
#include "hwprof/hwprof.h"
#include "util/error.h"
#include "util/vec.h"

static int oom(void)
{
	return hwp__set_error(ENOMEM, "out of memory");
}

struct hwp__emu_module *hwp__emu_conv_module(struct hwp__emu_conv *c, const char *path)
{
	struct hwp__emu_module *m, **slot;

	for (size_t i = 0; i < c->nmods; i++)
		if (!strcmp(c->mods[i]->path, path))
			return c->mods[i];
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path)) || !(slot = HWP_VEC_PUSH(c->mods, c->nmods, c->cap_mods))) {
		if (m)
			free(m->path);
		free(m);
		return NULL;
	}
	hwp__emu_module_read(m);
	*slot = m;
	return m;
}

static int add_ev(struct hwp__emu_conv *c, uint32_t proc, uint64_t time, const struct hwp_emu_hdr *r)
{
	struct hwp__emu_ev *e = HWP_VEC_PUSH(c->evs, c->nevs, c->cap_evs);

	if (!e)
		return oom();
	e->time = time;
	e->seq = c->nevs - 1;
	e->proc = proc;
	e->r = r;
	return 0;
}

static int snap_add(const struct hwp_emu_hdr ***arr, size_t *n, size_t *cap,
		    const struct hwp_emu_hdr *r)
{
	const struct hwp_emu_hdr **slot = HWP_VEC_PUSH(*arr, *n, *cap);

	if (!slot)
		return oom();
	*slot = r;
	return 0;
}

/* The smallest valid size of a record of TYPE (unknown types: a header). */
static size_t min_size(uint32_t type)
{
	switch (type) {
	case HWP_EMU_PROC: return sizeof(struct hwp_emu_proc);
	case HWP_EMU_SAMPLE: return sizeof(struct hwp_emu_sample);
	case HWP_EMU_MMAP: return sizeof(struct hwp_emu_mmap) + 8;
	case HWP_EMU_THREAD:
	case HWP_EMU_THREAD_EXIT:
	case HWP_EMU_EXIT:
	case HWP_EMU_EXEC:
	case HWP_EMU_EXEC_FAIL: return sizeof(struct hwp_emu_task);
	case HWP_EMU_SNAP_BEGIN:
	case HWP_EMU_SNAP_END: return sizeof(struct hwp_emu_snap);
	case HWP_EMU_SITE: return sizeof(struct hwp_emu_site);
	case HWP_EMU_TARGET: return sizeof(struct hwp_emu_target);
	case HWP_EMU_STATS: return sizeof(struct hwp_emu_stats);
	case HWP_EMU_LOST: return sizeof(struct hwp_emu_lost);
	case HWP_EMU_MEM: return sizeof(struct hwp_emu_mem);
	default: return 8;
	}
}

/* A snapshot becomes the process's counts only when its END arrives. */
static void snap_end(struct hwp__emu_proc *p, const struct hwp_emu_snap *h)
{
	if (p->in_snap && p->tent_id == h->id) {
		const struct hwp_emu_hdr **t = p->snap;
		size_t cap = p->cap_snap;

		p->snap = p->tent;
		p->nsnap = p->ntent;
		p->cap_snap = p->cap_tent;
		p->tent = t;
		p->cap_tent = cap;
		p->ntent = 0;
	}
	p->in_snap = false;
}

/* One record of process PI: 0 or <0. */
static int scan_record(struct hwp__emu_conv *c, uint32_t pi, const struct hwp_emu_hdr *h)
{
	struct hwp__emu_proc *p = &c->procs[pi];

	switch (h->type) {
	case HWP_EMU_SAMPLE: {
		const struct hwp_emu_sample *r = (const void *)h;

		if (r->nr > HWP_EMU_MAX_DEPTH || r->nchain > HWP_EMU_MAX_CHAIN ||
		    sizeof(*r) + (size_t)r->nr * 24 + (size_t)r->nchain * 8 > h->size)
			return 0;
		return add_ev(c, pi, r->time, h);
	}
	case HWP_EMU_MEM:
		return add_ev(c, pi, ((const struct hwp_emu_mem *)h)->time, h);
	case HWP_EMU_PROC:
		return add_ev(c, pi, ((const struct hwp_emu_proc *)h)->time, h);
	case HWP_EMU_MMAP:
		return add_ev(c, pi, ((const struct hwp_emu_mmap *)h)->time, h);
	case HWP_EMU_THREAD:
	case HWP_EMU_THREAD_EXIT:
	case HWP_EMU_EXIT:
	case HWP_EMU_EXEC_FAIL:
		return add_ev(c, pi, ((const struct hwp_emu_task *)h)->time, h);
	case HWP_EMU_EXEC:
		if (h->size > sizeof(struct hwp_emu_task) &&
		    memchr((const char *)h + sizeof(struct hwp_emu_task), 0,
			   h->size - sizeof(struct hwp_emu_task)))
			p->exec_path = (const char *)h + sizeof(struct hwp_emu_task);
		return add_ev(c, pi, ((const struct hwp_emu_task *)h)->time, h);
	case HWP_EMU_LOST:
		return add_ev(c, pi, ((const struct hwp_emu_lost *)h)->time, h);
	case HWP_EMU_STATS:
		p->stats = *(const struct hwp_emu_stats *)h;
		p->has_stats = true;
		return 0;
	case HWP_EMU_SNAP_BEGIN:
		p->in_snap = true;
		p->tent_id = ((const struct hwp_emu_snap *)h)->id;
		p->ntent = 0;
		return 0;
	case HWP_EMU_SITE:
	case HWP_EMU_TARGET:
		return p->in_snap ? snap_add(&p->tent, &p->ntent, &p->cap_tent, h) : 0;
	case HWP_EMU_SNAP_END:
		snap_end(p, (const struct hwp_emu_snap *)h);
		return 0;
	default:
		return 0;
	}
}

static int scan_file(struct hwp__emu_conv *c, uint32_t pi)
{
	const struct hwp__emu_proc *p = &c->procs[pi];
	int err;

	for (size_t ch = 0; ch < p->len; ch += HWP_EMU_CHUNK) {
		size_t end = ch + HWP_EMU_CHUNK < p->len ? ch + HWP_EMU_CHUNK : p->len;

		for (size_t off = ch; off + 8 <= end;) {
			const struct hwp_emu_hdr *h = (const void *)(p->data + off);

			if (!h->type || h->size < 8 || h->size % 8 || h->size > end - off ||
			    h->size < min_size(h->type))
				break;
			off += h->size;
			if ((err = scan_record(c, pi, h)))
				return err;
		}
	}
	return 0;
}

/* Maps PATH when it is a raw file of this format (its first record is
   PROC); 1 when added, 0 when skipped, <0 on error. */
static int add_file(struct hwp__emu_conv *c, const char *path)
{
	const struct hwp_emu_proc *h;
	struct hwp__emu_proc *p;
	struct stat st;
	void *m;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(*h)) {
		close(fd);
		return 0;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return 0;
	h = m;
	if (h->h.type != HWP_EMU_PROC || h->magic != HWP_EMU_MAGIC || h->version != HWP_EMU_VERSION) {
		munmap(m, (size_t)st.st_size);
		return 0;
	}
	p = HWP_VEC_PUSH(c->procs, c->nprocs, c->cap_procs);
	if (!p) {
		munmap(m, (size_t)st.st_size);
		return oom();
	}
	p->data = m;
	p->len = (size_t)st.st_size;
	p->pid = h->pid;
	p->ppid = h->ppid;
	p->ptid = h->ptid;
	p->time = h->time;
	p->child = h->flags & HWP_EMU_PROC_CHILD;
	p->exec = h->flags & HWP_EMU_PROC_EXEC;
	p->parent = -1;
	return 1;
}

static int proc_cmp(const void *a, const void *b)
{
	const struct hwp__emu_proc *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The image process PID ran at TIME among the first N processes (they are
   in start order): the last one of PID started by then; -1 when none. */
static int image_at(const struct hwp__emu_conv *c, size_t n, uint32_t pid, uint64_t time)
{
	int found = -1;

	for (size_t j = 0; j < n && c->procs[j].time <= time; j++)
		if (c->procs[j].pid == pid)
			found = (int)j;
	return found;
}

/* Process I's parent (a fork child's) and name: the first process's is the
   command's, a fork child's its parent's, an exec'd image's the base name
   of the path the previous image exec'd (what the kernel calls it). */
static void name_proc(struct hwp__emu_conv *c, size_t i)
{
	struct hwp__emu_proc *p = &c->procs[i];
	const char *name = c->comm;

	if (p->child) {
		p->parent = image_at(c, i, p->ppid, p->time);
		if (p->parent >= 0)
			name = c->procs[p->parent].comm;
	} else if (p->exec) {
		int prev = image_at(c, i, p->pid, p->time);

		if (prev >= 0 && c->procs[prev].exec_path) {
			const char *slash = strrchr(c->procs[prev].exec_path, '/');

			name = slash ? slash + 1 : c->procs[prev].exec_path;
		} else if (prev >= 0) {
			name = c->procs[prev].comm;
		}
	}
	snprintf(p->comm, sizeof(p->comm), "%s", name);
}

static int ev_cmp(const void *a, const void *b)
{
	const struct hwp__emu_ev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int hwp__emu_conv_load(struct hwp__emu_conv *c)
{
	DIR *d = opendir(c->s->dir);
	struct dirent *e;
	int err = 0;

	if (!d)
		return hwp__set_error(errno, "%s: %s", c->s->dir, strerror(errno));
	while ((e = readdir(d))) {
		char path[PATH_MAX + 300];
		size_t nl = strlen(e->d_name);

		if (nl < 5 || strcmp(e->d_name + nl - 4, ".raw"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", c->s->dir, e->d_name);
		if ((err = add_file(c, path)) < 0)
			break;
		err = 0;
	}
	closedir(d);
	if (err)
		return err;
	/* in start order: a parent, and the image before an exec, come first */
	if (c->nprocs)
		qsort(c->procs, c->nprocs, sizeof(*c->procs), proc_cmp);
	for (size_t i = 0; i < c->nprocs; i++)
		if ((err = scan_file(c, (uint32_t)i)))
			return err;
	for (size_t i = 0; i < c->nprocs; i++)
		name_proc(c, i);
	if (c->nevs)
		qsort(c->evs, c->nevs, sizeof(*c->evs), ev_cmp);
	return 0;
}

void hwp__emu_conv_free(struct hwp__emu_conv *c)
{
	for (size_t i = 0; i < c->nprocs; i++) {
		munmap(c->procs[i].data, c->procs[i].len);
		free(c->procs[i].maps);
		free(c->procs[i].snap);
		free(c->procs[i].tent);
	}
	free(c->procs);
	free(c->evs);
	for (size_t i = 0; i < c->nmods; i++) {
		free(c->mods[i]->path);
		free(c->mods[i]);
	}
	free(c->mods);
}

static const struct hwp__emu_map *find_map(const struct hwp__emu_conv *c,
					   const struct hwp__emu_proc *p, uint64_t addr)
{
	for (int depth = 0; p && depth < 64; depth++) {
		for (size_t i = p->nmaps; i-- > 0;)
			if (addr >= p->maps[i].start && addr - p->maps[i].start < p->maps[i].len)
				return &p->maps[i];
		p = p->parent >= 0 ? &c->procs[p->parent] : NULL;
	}
	return NULL;
}

void hwp__emu_locate_addr(const struct hwp__emu_conv *c, const struct hwp__emu_proc *p,
			  uint64_t addr, const struct hwp__emu_module **mod, uint64_t *off)
{
	const struct hwp__emu_map *m = find_map(c, p, addr);

	*mod = m ? m->mod : NULL;
	*off = m ? addr - m->start + m->pgoff : addr;
}
