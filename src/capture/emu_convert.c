/* SPDX-License-Identifier: MIT */
/*
 * The emulated recording as perf.data, through the writer:
 *   PROC (first process)  -> COMM (exec)
 *   PROC (fork child)     -> FORK + COMM
 *   THREAD / THREAD_EXIT  -> FORK + COMM / EXIT
 *   EXIT (exit_group)     -> EXIT
 *   MMAP                  -> MMAP2 per executable PT_LOAD segment, with the
 *                            module's build-id
 *   SAMPLE                -> SAMPLE (IP, TID, TIME, PERIOD, BRANCH_STACK, and
 *                            CALLCHAIN with -g or --call-graph lbr)
 * plus header features ARCH, CPUID, NRCPUS, ... (this host), CMDLINE,
 * BUILD_ID (every module mapped) and EVENT_DESC ("branches:emulated").
 *
 * Module offsets: QEMU loads the guest where it likes; samples carry guest
 * addresses, and the MMAP2 records map them to file offsets of the real
 * files, so perf symbolizes by module offset as usual.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/emu_internal.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "hwprof/perf_writer.h"
#include "util/error.h"
#include "util/vec.h"

#define EVENT_NAME "branches:emulated"
#define MEM_EVENT_NAME "mem:modelled"

static void set_id(struct hwp_sample *id, uint32_t pid, uint32_t tid, uint64_t time)
{
	memset(id, 0, sizeof(*id));
	id->pid = pid;
	id->tid = tid;
	id->time = time;
}

/* The entry flag bits the branch filter keeps. */
static uint64_t entry_mask(uint64_t bst)
{
	uint64_t keep = ~0ull;

	if (bst & HWP_BRANCH_NO_FLAGS)
		keep &= ~3ull;
	if (bst & HWP_BRANCH_NO_CYCLES)
		keep &= ~(0xffffull << HWP_BRF_CYCLES_SHIFT);
	if (!(bst & HWP_BRANCH_TYPE_SAVE))
		keep &= ~(0xfull << HWP_BRF_TYPE_SHIFT);
	if (!(bst & HWP_BRANCH_PRIV_SAVE))
		keep &= ~(7ull << HWP_BRF_PRIV_SHIFT);
	return keep;
}

/* True when the newest mapping of P at S->start is already S of MOD (the
   plugin reports a module again when code runs in another host mapping of
   it, e.g. the kernel did not merge its segments into one). */
static bool mapped(const struct hwp__emu_proc *p, const struct hwp__emu_module *mod,
		   const struct hwp__emu_seg *s)
{
	for (size_t i = p->nmaps; i-- > 0;) {
		const struct hwp__emu_map *m = &p->maps[i];

		if (s->start >= m->start && s->start - m->start < m->len)
			return m->mod == mod && m->start == s->start && m->len == s->len &&
			       m->pgoff == s->pgoff;
	}
	return false;
}

/* A raw MMAP names the host mapping the plugin found code in: QEMU maps
   guest code readable (not executable) on the host, so the kernel merges a
   module's first segments into one mapping from file offset 0. perf and
   the tools reading its output (llvm-profgen, perf2bolt) expect what the
   kernel reports for a native process: one MMAP2 per executable PT_LOAD
   segment, at its own file offset. So the mapping is split by the module's
   program headers; only a module without a usable one (not an ELF, or
   unreadable) keeps the host mapping. */
static int write_mmap(struct hwp__emu_conv *c, int ai, const struct hwp__emu_ev *e)
{
	struct hwp_writer *w = c->s->w;
	const struct hwp_emu_mmap *m = (const void *)e->r;
	const char *path = (const char *)(m + 1);
	struct hwp__emu_proc *p = &c->procs[e->proc];
	struct hwp__emu_module *mod;
	struct hwp__emu_seg segs[32];
	struct hwp_sample id;
	unsigned nseg;
	int err = 0;

	if (!memchr(path, 0, m->h.size - sizeof(*m)))
		return 0;
	mod = hwp__emu_conv_module(c, path);
	if (!mod)
		return hwp__set_error(ENOMEM, "out of memory");
	nseg = hwp__emu_module_segments(mod, m->start, m->len, m->pgoff, segs);
	/* memory samples: the data segments too, as perf's mmap_data records
	   them, so that data addresses resolve to modules and data symbols */
	if (nseg && c->s->o.mem_period)
		nseg += hwp__emu_module_data_segments(mod, m->start, m->len, m->pgoff, segs + nseg);
	if (!nseg) {
		segs[0] = (struct hwp__emu_seg){
			.start = m->start, .len = m->len, .pgoff = m->pgoff, .prot = m->prot
		};
		nseg = 1;
	}
	set_id(&id, p->pid, m->tid, e->time);
	for (unsigned i = 0; i < nseg && !err; i++) {
		struct hwp__emu_map *map;

		if (mapped(p, mod, &segs[i]))
			continue;
		map = HWP_VEC_PUSH(p->maps, p->nmaps, p->cap_maps);
		if (!map)
			return hwp__set_error(ENOMEM, "out of memory");
		map->start = segs[i].start;
		map->len = segs[i].len;
		map->pgoff = segs[i].pgoff;
		map->mod = mod;
		err = hwp_writer__add_mmap2(w, ai, p->pid, m->tid, segs[i].start, segs[i].len,
					    segs[i].pgoff, mod->bid_size ? mod->build_id : NULL,
					    mod->bid_size, segs[i].prot, m->flags, path,
					    HWP_MISC_USER, &id);
	}
	if (!err && mod->bid_size && !mod->listed) {
		err = hwp_writer__add_build_id(w, -1, HWP_MISC_USER, mod->build_id, mod->bid_size,
					       path);
		mod->listed = true;
	}
	return err;
}

static int write_sample(struct hwp__emu_conv *c, int ai, const struct hwp__emu_ev *e,
			uint64_t fmask)
{
	const struct hwp__emu_proc *p = &c->procs[e->proc];
	const struct hwp_emu_sample *r = (const void *)e->r;
	const struct hwp_emu_entry *en = (const void *)(r + 1);
	struct hwp_branch_entry br[HWP_EMU_MAX_DEPTH];
	struct hwp_sample_in in;
	struct hwp_sample s;
	uint64_t chain[2 + HWP_EMU_MAX_CHAIN] = { HWP_CONTEXT_USER, r->ip };
	const uint64_t *ret = (const uint64_t *)(en + r->nr);

	memset(&s, 0, sizeof(s));
	s.cpumode = HWP_MISC_USER;
	s.ip = r->ip;
	s.pid = p->pid;
	s.tid = r->tid;
	s.time = r->time;
	s.period = r->period;
	s.branch_nr = r->nr;
	s.branch_hw_idx = r->hw_idx;
	s.branch_has_hw_idx = (c->s->bst & HWP_BRANCH_HW_INDEX) != 0;
	for (uint32_t i = 0; i < r->nr; i++)
		hwp_branch_entry__decode(en[i].from, en[i].to, en[i].flags & fmask, &br[i]);
	memset(&in, 0, sizeof(in));
	in.s = &s;
	in.branches = br;
	if (c->s->o.lbr_callchain) {
		s.callchain_nr = 2;
		in.callchain = chain;
	} else if (c->s->o.callchain) {
		/* as the kernel writes a user callchain: the context marker,
		   the ip, the return addresses */
		for (uint32_t i = 0; i < r->nchain; i++)
			chain[2 + i] = ret[i];
		s.callchain_nr = 2 + r->nchain;
		in.callchain = chain;
	}
	return hwp_writer__add_sample(c->s->w, ai, &in);
}

/* A modelled memory sample (memory mode). */
static int write_mem(struct hwp__emu_conv *c, int ai, const struct hwp__emu_ev *e)
{
	const struct hwp__emu_proc *p = &c->procs[e->proc];
	const struct hwp_emu_mem *r = (const void *)e->r;
	struct hwp_sample_in in;
	struct hwp_sample s;

	memset(&s, 0, sizeof(s));
	s.cpumode = HWP_MISC_USER;
	s.ip = r->ip;
	s.pid = p->pid;
	s.tid = r->tid;
	s.time = r->time;
	s.addr = r->addr;
	s.cpu = r->vcpu;
	s.period = r->period;
	s.weight = r->latency;
	s.data_src = r->data_src;
	memset(&in, 0, sizeof(in));
	in.s = &s;
	return hwp_writer__add_sample(c->s->w, ai, &in);
}

static int write_event(struct hwp__emu_conv *c, int ai, const struct hwp__emu_ev *e, uint64_t fmask)
{
	struct hwp_writer *w = c->s->w;
	const struct hwp__emu_proc *p = &c->procs[e->proc];
	const struct hwp_emu_task *t = (const void *)e->r;
	struct hwp_sample id;
	int err = 0;

	switch (e->r->type) {
	case HWP_EMU_PROC:
		/* the first process and an exec'd image: COMM with the exec bit */
		set_id(&id, p->pid, p->pid, e->time);
		if (!p->child)
			return hwp_writer__add_comm(w, ai, p->pid, p->pid, p->comm, true, &id);
		err = hwp_writer__add_fork_exit(w, ai, HWP_RECORD_FORK, p->pid, p->ppid, p->pid,
						p->ptid ? p->ptid : p->ppid, e->time, &id);
		return err ? err : hwp_writer__add_comm(w, ai, p->pid, p->pid, p->comm, false, &id);
	case HWP_EMU_THREAD:
		set_id(&id, p->pid, t->tid, e->time);
		err = hwp_writer__add_fork_exit(w, ai, HWP_RECORD_FORK, p->pid, p->pid, t->tid,
						t->ptid ? t->ptid : p->pid, e->time, &id);
		return err ? err : hwp_writer__add_comm(w, ai, p->pid, t->tid, p->comm, false, &id);
	case HWP_EMU_THREAD_EXIT:
	case HWP_EMU_EXIT: {
		uint32_t tid = e->r->type == HWP_EMU_EXIT ? p->pid : t->tid;

		set_id(&id, p->pid, tid, e->time);
		return hwp_writer__add_fork_exit(w, ai, HWP_RECORD_EXIT, p->pid,
						 e->r->type == HWP_EMU_EXIT ? p->ppid : p->pid, tid,
						 tid, e->time, &id);
	}
	case HWP_EMU_MMAP:
		return write_mmap(c, ai, e);
	case HWP_EMU_SAMPLE:
		return c->s->o.mem_period ? 0 : write_sample(c, ai, e, fmask);
	case HWP_EMU_MEM:
		return c->s->o.mem_period ? write_mem(c, ai, e) : 0;
	default:
		return 0;
	}
}

/* The result counters an event contributes to. */
static void count_event(const struct hwp_emu_hdr *r, struct hwp_emu_result *res)
{
	switch (r->type) {
	case HWP_EMU_PROC:
		/* an exec'd image: the exec before it was followed */
		if (((const struct hwp_emu_proc *)r)->flags & HWP_EMU_PROC_EXEC) {
			res->nr_execs_followed++;
			if (res->nr_execs)
				res->nr_execs--;
		} else {
			res->nr_processes++;
		}
		break;
	case HWP_EMU_THREAD:
		res->nr_threads++;
		break;
	case HWP_EMU_EXEC:
		res->nr_execs++;
		break;
	case HWP_EMU_EXEC_FAIL:
		if (res->nr_execs)
			res->nr_execs--;
		break;
	case HWP_EMU_SAMPLE:
	case HWP_EMU_MEM:
		res->samples++;
		break;
	case HWP_EMU_LOST:
		res->lost += ((const struct hwp_emu_lost *)r)->count;
		break;
	default:
		break;
	}
}

static int write_features(struct hwp_emu *s)
{
	const char **argv = NULL;
	char num[6][48];
	int argc = 0, err;

	if ((err = hwp_writer__set_host_features(s->w)))
		return err;
	if (s->o.cmdline && s->o.cmdline_argc > 0)
		return hwp_writer__set_cmdline(s->w, s->o.cmdline_argc, s->o.cmdline);
	/* no command line given: the equivalent hwprof one */
	argv = calloc((size_t)s->o.argc + 16, sizeof(*argv));
	if (!argv)
		return hwp__set_error(ENOMEM, "out of memory");
	argv[argc++] = "hwprof";
	argv[argc++] = "record";
	argv[argc++] = "--emulate";
	snprintf(num[0], sizeof(num[0]), "-c%llu", (unsigned long long)s->o.period);
	argv[argc++] = num[0];
	if (s->o.jitter) {
		snprintf(num[1], sizeof(num[1]), "--jitter=%u", s->o.jitter);
		argv[argc++] = num[1];
	}
	if (s->o.seed) {
		snprintf(num[5], sizeof(num[5]), "--seed=%llu", (unsigned long long)s->o.seed);
		argv[argc++] = num[5];
	}
	snprintf(num[2], sizeof(num[2]), "--depth=%u", s->o.depth);
	argv[argc++] = num[2];
	snprintf(num[3], sizeof(num[3]), "--branch-filter=%#llx", (unsigned long long)s->bst);
	argv[argc++] = num[3];
	argv[argc++] = "-o";
	argv[argc++] = s->o.output;
	argv[argc++] = "--";
	for (int i = 0; i < s->o.argc; i++)
		argv[argc++] = s->o.argv[i];
	err = hwp_writer__set_cmdline(s->w, argc, argv);
	free(argv);
	return err;
}

static int add_attr(struct hwp_emu *s)
{
	struct hwp_attr a;

	memset(&a, 0, sizeof(a));
	if (s->o.mem_period) {
		/* PERF_TYPE_HW_CACHE L1D read access: sampled loads and stores,
		   their data source and latency modelled */
		a.type = 3;
		a.config = 0;
		a.sample_period = s->o.mem_period;
		a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_ADDR |
				HWP_SAMPLE_CPU | HWP_SAMPLE_PERIOD | HWP_SAMPLE_WEIGHT | HWP_SAMPLE_DATA_SRC;
		a.flags = 1ull << HWP_ATTR_DISABLED | 1ull << HWP_ATTR_INHERIT |
			  1ull << HWP_ATTR_EXCLUDE_KERNEL | 1ull << HWP_ATTR_EXCLUDE_HV |
			  1ull << HWP_ATTR_MMAP | 1ull << HWP_ATTR_COMM | 1ull << HWP_ATTR_ENABLE_ON_EXEC |
			  1ull << HWP_ATTR_TASK | 1ull << HWP_ATTR_SAMPLE_ID_ALL | 1ull << HWP_ATTR_MMAP2 |
			  1ull << HWP_ATTR_COMM_EXEC | 1ull << HWP_ATTR_BUILD_ID |
			  1ull << HWP_ATTR_MMAP_DATA | 2ull << HWP_ATTR_PRECISE_IP;
		return hwp_writer__add_attr(s->w, &a, NULL, 0, MEM_EVENT_NAME);
	}
	a.type = 0;   /* PERF_TYPE_HARDWARE */
	a.config = 4; /* PERF_COUNT_HW_BRANCH_INSTRUCTIONS: taken ones, modelled */
	a.sample_period = s->o.period;
	a.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_PERIOD |
			HWP_SAMPLE_BRANCH_STACK;
	if (s->o.lbr_callchain || s->o.callchain)
		a.sample_type |= HWP_SAMPLE_CALLCHAIN;
	a.branch_sample_type = s->bst;
	a.flags = 1ull << HWP_ATTR_DISABLED | 1ull << HWP_ATTR_INHERIT |
		  1ull << HWP_ATTR_EXCLUDE_KERNEL | 1ull << HWP_ATTR_EXCLUDE_HV |
		  1ull << HWP_ATTR_MMAP | 1ull << HWP_ATTR_COMM | 1ull << HWP_ATTR_ENABLE_ON_EXEC |
		  1ull << HWP_ATTR_TASK | 1ull << HWP_ATTR_SAMPLE_ID_ALL | 1ull << HWP_ATTR_MMAP2 |
		  1ull << HWP_ATTR_COMM_EXEC | 1ull << HWP_ATTR_BUILD_ID;
	return hwp_writer__add_attr(s->w, &a, NULL, 0, EVENT_NAME);
}

int hwp__emu_convert(struct hwp__emu_conv *c, struct hwp_emu_result *res)
{
	struct hwp_emu *s = c->s;
	uint64_t fmask = entry_mask(s->bst);
	int ai = add_attr(s), err;

	if (ai < 0)
		return ai;
	for (size_t i = 0; i < c->nevs; i++) {
		if ((err = write_event(c, ai, &c->evs[i], fmask)))
			return err;
		count_event(c->evs[i].r, res);
		if (i % 16384 == 16383 && (err = hwp_writer__add_finished_round(s->w)))
			return err;
	}
	for (size_t i = 0; i < c->nprocs; i++) {
		if (!c->procs[i].has_stats) {
			res->stats_missing = true;
			continue;
		}
		res->taken += c->procs[i].stats.taken;
		res->async += c->procs[i].stats.async;
		res->lost += c->procs[i].stats.lost;
		res->mem_accesses += c->procs[i].stats.mem_accesses;
	}
	return write_features(s);
}
