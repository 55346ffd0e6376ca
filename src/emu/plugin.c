/* SPDX-License-Identifier: MIT */
/*
 * hwprof-emu.so: a QEMU TCG plugin (qemu-x86_64, user mode, plugin API v1 as
 * in QEMU 7.2) that records what a last-branch-record unit would: taken
 * branches in a per-vCPU ring, sampled every N taken branches, with
 * mispredict bits from a predictor model and cycle counts from a cost model.
 * Optionally it counts every branch site exactly (ground truth).
 *
 * Output: the raw stream of emu_raw.h, one file per guest process, written
 * through MAP_SHARED chunks (a killed process keeps what it recorded).
 *
 * How branches are seen. At translation time each TB's last instruction is
 * classified (x86_branch.c). At execution time one callback runs at the start
 * of every TB; the previous TB of the same vCPU then tells what its last
 * instruction did: for a conditional branch, the new TB starts at its target
 * (taken) or its fall-through (not taken); direct jumps and calls must land on
 * their target; indirect branches land anywhere. A TB start that none of this
 * explains is an asynchronous transfer: signal delivery (or any other
 * transfer QEMU makes behind the guest's back).
 *
 * QEMU 7.2 pitfalls handled:
 * - page-crossing instruction: x86 translation ends a TB before a later
 *   instruction that would cross into the next page and translates it again
 *   as the first instruction of the next TB, but the plugin still sees its
 *   first bytes as the TB's last instruction: a phantom X->X "branch". A TB
 *   whose last instruction starts within 15 bytes of the end of the TB's
 *   page remembers that address; when the next TB starts there, it was the
 *   phantom: no branch, the TB fell through to it.
 * - rep string instructions loop to themselves (X->X): not branches (LBR
 *   does not record their iterations either).
 * - signals: rt_sigaction is watched (handler addresses, and whether a
 *   handler serves synchronous faults only); delivery shows as a TB start
 *   that the previous TB's end does not explain (or, after an indirect
 *   branch, as a handler's entry), rt_sigreturn as a syscall. The previous
 *   TB's branch is kept pending until the handler returns, then resolved
 *   from where execution resumes (not counted when a synchronous fault
 *   restarts the instruction). The branch stack gets an IRQ entry (from: the
 *   interrupted TB's last instruction, to: the handler) and an ERET entry
 *   (from: the rt_sigreturn syscall, to: the resume address), so consecutive
 *   entries stay connected by straight-line code. A signal delivered as a
 *   handler returns gets an IRQ entry from the rt_sigreturn syscall.
 * - fork: the child continues with a copy of this state. The syscall-return
 *   hook of fork/vfork/clone/clone3 sees the pid change before the child
 *   runs guest code; the child drops what it inherited (the parent's output
 *   chunks, exact counts) and opens its own file.
 * - threads: all state is per vCPU (one vCPU per guest thread in user mode;
 *   an exited thread's vCPU index is reused: its counts are kept).
 * - no vDSO: guest time calls are syscalls; nothing to do.
 * - module addresses: the host address of translated code (insn_haddr) is
 *   looked up in the qemu process's own /proc/self/maps (guest = host -
 *   guest_base); the file mapping found there becomes an MMAP record, so
 *   samples symbolize by module offset wherever QEMU loaded the module.
 *
 * Predictor model (per vCPU, like a core's; sets the mispredict bits):
 * - conditional branches: gshare, 4096 2-bit saturating counters indexed by
 *   (branch address ^ 12 bits of global taken/not-taken history), counters
 *   start weakly not-taken; mispredicted when the counter's direction
 *   differs from the outcome.
 * - indirect jumps and calls: a 512-entry direct-mapped BTB tagged by
 *   branch address, holding the last target; mispredicted on a miss or a
 *   different target.
 * - returns: a 16-entry circular return stack buffer (calls push the return
 *   address, returns pop); mispredicted when the popped address differs.
 * - direct jumps and calls: always predicted. iret/retf/sysret: neither bit.
 * Shadow call stack (chain=1, record -g): calls push their return address,
 * a return pops up to and including the frame it returns to (a return to
 * an address on no frame, a retpoline's, pops nothing). Frames a longjmp
 * or an exception skipped (they leave by a jump) stay until a return goes
 * below them: the plugin interface of QEMU 7.2 reads no stack pointer. A sample's callchain is its
 * ip, then these return addresses, innermost first: what a frame-pointer
 * walk would find in code that keeps frame pointers, here exact whatever
 * the code was compiled with (leaf functions, -fomit-frame-pointer).
 * Signal delivery pushes nothing: a handler's chain continues with the
 * frames of the code it interrupted.
 * Cost model (sets the cycles of each entry): a clock counts half-cycles,
 * +1 per instruction executed (IPC 2), +2 per taken branch (a 1-cycle
 * redirect bubble), +32 per mispredicted branch (16 cycles, charged after
 * the branch, so it shows in the next entry, as the refetch delay does on
 * hardware). An entry's cycles = ceil(half-cycles since the previous entry
 * / 2), saturated at 65535.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "emu_raw.h"
#include "exec_follow.h"
#include "mem_model.h"
#include "qemu_api.h"
#include "util/hash.h"
#include "util/maps_path.h"
#include "util/hashmap.h"
#include "util/vec.h"
#include "x86_branch.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = 1;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv);

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define MAX_VCPUS 4096
#define NO_SITE UINT32_MAX

/* Predictor model (see above). */
#define PHT_BITS 12           /* gshare: 4096 2-bit counters, 12 bits of history */
#define PHT_SIZE (1u << PHT_BITS)
#define BTB_SIZE 512          /* indirect targets: direct-mapped, tagged */
#define RSB_SIZE 16           /* return stack buffer, circular */
/* Cost model (see above): cycles; the clock counts half-cycles. */
#define MISPREDICT_PENALTY 16
#define TAKEN_BUBBLE 1

#define MAX_PENDING 16
#define SS_MAX 4096 /* shadow stack frames kept (the innermost) */

/* perf_branch_entry type values (PERF_BR_*). */
enum {
	PERF_BR_UNKNOWN = 0,
	PERF_BR_COND = 1,
	PERF_BR_UNCOND = 2,
	PERF_BR_IND = 3,
	PERF_BR_CALL = 4,
	PERF_BR_IND_CALL = 5,
	PERF_BR_RET = 6,
	PERF_BR_SYSCALL = 7,
	PERF_BR_SYSRET = 8,
	PERF_BR_ERET = 11,
	PERF_BR_IRQ = 12,
};

static const uint8_t kind_br_type[HWP_EMU_K_COUNT] = {
	[HWP_EMU_K_COND] = PERF_BR_COND,       [HWP_EMU_K_JMP] = PERF_BR_UNCOND,
	[HWP_EMU_K_CALL] = PERF_BR_CALL,       [HWP_EMU_K_IJMP] = PERF_BR_IND,
	[HWP_EMU_K_ICALL] = PERF_BR_IND_CALL,  [HWP_EMU_K_RET] = PERF_BR_RET,
	[HWP_EMU_K_SYSCALL] = PERF_BR_SYSCALL, [HWP_EMU_K_TRAP] = PERF_BR_SYSCALL,
	[HWP_EMU_K_FAR] = PERF_BR_SYSRET,      [HWP_EMU_K_IRQ] = PERF_BR_IRQ,
	[HWP_EMU_K_ERET] = PERF_BR_ERET,
};

/* What a translated block ends with. Shared by every TB with the same shape. */
struct tbi {
	uint64_t start;  /* first instruction */
	uint64_t br;     /* last (executed) instruction: the branch */
	uint64_t fall;   /* the address after it */
	uint64_t target; /* direct target, else 0 */
	uint64_t phantom; /* br when it may be a phantom page-crossing insn, else 0 */
	uint32_t n_insns;
	uint32_t site; /* exact-count index, NO_SITE when not a branch */
	uint32_t cls;  /* C_* bits for the fast path */
	uint8_t kind;
	uint8_t rec; /* taken instances enter the ring (the -j filter) */
};

/* Fast-path classes of a TB's end (struct tbi.cls). */
enum {
	C_COND = 1,     /* gshare */
	C_CALL = 2,     /* pushes the return stack */
	C_RET = 4,      /* pops it */
	C_IND = 8,      /* BTB */
	C_ANY = 16,     /* any next pc is a valid target */
	C_NOFALL = 32,  /* next pc == fall is not a plain fall-through */
	C_REC = 64,     /* taken instances enter the ring */
	C_PHANTOM = 128 /* the last instruction may be a phantom */
};

/* The previous TB of a vCPU that has not run one yet (generic path). */
static const struct tbi no_tb = { .cls = C_NOFALL };

/*
 * A ring entry: the branch is the last instruction of the TB *tbi; the tag
 * bits say mispredicted (1), not predicted (2: signal entries) and, with 2,
 * return from a handler (4). HC is the vCPU's half-cycle count when the
 * branch retired: an entry's cycles are the difference to the entry before.
 * Flags are only worked out for the entries that go into a sample.
 */
#define RING_SIZE 128 /* > HWP_EMU_MAX_DEPTH: the oldest sampled entry has a predecessor */
#define TAG_MIS 1u
#define TAG_ASYNC 2u
#define TAG_ERET 4u
struct ring_ent {
	uintptr_t ptag;
	uint64_t to;
	uint64_t hc;
};

/* A chunk writer (emu_raw.h). */
struct writer {
	uint8_t *base;
	uint32_t off;
	bool failed;
};

struct cnt {
	uint64_t exec, taken;
};

/* An indirect branch's target (exact counts). */
struct tgt {
	uint32_t site;
	uint64_t target, count;
};

/* A branch site (exact counts): the index of its counters. */
struct site {
	uint64_t addr;
	uint8_t kind;
};

struct vcpu {
	const struct tbi *prev; /* &no_tb before the first TB */
	uint64_t pos;      /* ring write position */
	uint64_t hc;       /* half-cycles: the cost model's clock */
	int64_t countdown; /* taken branches until the next sample */
	uint64_t cur_period;
	uint64_t pos_base; /* pos when the history started */
	uint64_t hc_base;
	uint32_t valid;    /* call-stack mode: entries on the stack */
	uint32_t ss_n;     /* chain=1: frames on the shadow stack ss[] */
	uint32_t tid;      /* 0: not known yet */
	uint32_t idx;      /* vCPU index */
	uint64_t periods;  /* taken branches of the periods already sampled */
	uint64_t rng;
	/* predictor */
	uint32_t ghr;
	uint32_t rsb_top;
	uint64_t rsb[RSB_SIZE];
	struct {
		uint64_t pc, tgt;
	} btb[BTB_SIZE];
	uint16_t pht[PHT_SIZE]; /* not a char type: its stores alias nothing else */
	/* signals */
	const struct tbi *pend[MAX_PENDING];
	uint8_t pend_sync[MAX_PENDING];
	uint32_t npend;
	bool sigreturn;
	uint64_t clone_flags, clone_time;
	/* exact counts: cnt[site] (ncnt zeroed entries, a vector whose
	   capacity is its length); tg[], indexed by (site, target) in tgh
	   (at the end: the hot fields keep their places) */
	struct cnt *cnt;
	size_t ncnt;
	struct tgt *tg;
	size_t ntg;
	/* stats */
	uint64_t samples, async, lost;
	struct writer w;
	struct ring_ent ring[RING_SIZE];
	size_t tg_cap;
	struct hwp_hashmap tgh;
	/* memory samples (mem=N): this thread's modelled private caches */
	struct hwp_mm_private *mm;
	int64_t mem_countdown;
	uint64_t mem_samples, mem_accesses;
	/* chain=1: return addresses of the calls in progress, outermost first */
	uint64_t *ss;
};

struct module {
	uint64_t start, end; /* guest */
	bool file;
};

static struct {
	char dir[PATH_MAX];
	uint64_t period;
	unsigned jitter;
	uint64_t seed; /* the jitter's draws start from it (0: the clock) */
	unsigned depth;
	uint32_t rec_mask;
	bool callstack, exact, debug;
	bool chain; /* samples carry the shadow stack's call chain */
	bool windowed; /* every taken branch is recorded (see window) */
	bool model;    /* run the predictor and cost model (model=0: no_flags,no_cycles) */
	pid_t pid;
	int fd;
	uint64_t next_chunk;
	pthread_mutex_t file_lock;
	struct writer gw; /* process-wide records, under tr_lock */
	pthread_mutex_t tr_lock;
	uint64_t guest_base;
	bool have_base;
	/* translation tables: TB shapes (each allocated on its own: QEMU
	   holds the pointers), indexed by start in tbh; sites by address */
	struct tbi **tbs;
	size_t ntbs, tbs_cap;
	struct hwp_hashmap tbh;
	struct site *sites;
	size_t nsites, sites_cap;
	struct hwp_hashmap siteh;
	struct module *mods;
	size_t nmods, mods_cap;
	/* signal handlers (guest addresses) */
	uint64_t handler[65];
	uint64_t hmin, hmax;
	uint64_t snap_id;
	/* memory samples: every mem_period-th access (0: none), through the
	   modelled cache hierarchy shared by the process's threads */
	uint64_t mem_period;
	struct hwp_mm_shared *mm;
	/* following exec (exec_follow.h): this image's generation, and the
	   plugin arguments the next image gets again */
	unsigned gen;
	struct hwp_emu_follow follow;
} g = { .fd = -1, .file_lock = PTHREAD_MUTEX_INITIALIZER, .tr_lock = PTHREAD_MUTEX_INITIALIZER };

/* The driver's progress page (emu_raw.h), NULL when there is none. */
static struct hwp_emu_progress_page *progress;

static struct vcpu *vcpus[MAX_VCPUS];
/* The hot path's vCPU: that of this host thread, set by its first TB (the
   slow path), so that on_tb needs no index check nor vcpus[] load. Valid in
   user mode: a host thread runs one vCPU for its life, and a struct vcpu is
   never freed (a reused index and a forked child keep theirs). */
static __thread struct vcpu *cur_vcpu __attribute__((tls_model("initial-exec")));

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t gettid_(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/* ------------------------------------------------------------- raw output */

static bool chunk_new(struct writer *w)
{
	uint64_t off;
	void *p;

	if (w->failed || g.fd < 0)
		return false;
	pthread_mutex_lock(&g.file_lock);
	off = g.next_chunk;
	if (posix_fallocate(g.fd, (off_t)off, HWP_EMU_CHUNK) != 0) {
		pthread_mutex_unlock(&g.file_lock);
		w->failed = true;
		return false;
	}
	g.next_chunk += HWP_EMU_CHUNK;
	pthread_mutex_unlock(&g.file_lock);
	p = mmap(NULL, HWP_EMU_CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, g.fd, (off_t)off);
	if (w->base)
		munmap(w->base, HWP_EMU_CHUNK);
	if (p == MAP_FAILED) {
		w->base = NULL;
		w->failed = true;
		return false;
	}
	w->base = p;
	w->off = 0;
	return true;
}

static void *w_reserve(struct writer *w, uint32_t size)
{
	void *r;

	if (unlikely(!w->base || w->off + size > HWP_EMU_CHUNK) && !chunk_new(w))
		return NULL;
	r = w->base + w->off;
	w->off += size;
	return r;
}

/* Payload first, header last: a record cut short by a kill reads as type 0. */
static void w_commit(void *rec, uint32_t type, uint32_t size)
{
	struct hwp_emu_hdr *h = rec;

	h->size = size;
	__atomic_store_n(&h->type, type, __ATOMIC_RELEASE);
}

static void w_drop(struct writer *w)
{
	if (w->base)
		munmap(w->base, HWP_EMU_CHUNK);
	memset(w, 0, sizeof(*w));
}

static uint32_t pad8(size_t n)
{
	return (uint32_t)((n + 7) & ~(size_t)7);
}

static int open_output(uint32_t ppid, uint32_t ptid, uint64_t time)
{
	char path[PATH_MAX + 32];
	struct hwp_emu_proc *r;
	int fd;

	/* an exec'd image keeps its pid: the generation tells the files apart */
	if (g.gen)
		snprintf(path, sizeof(path), "%s/%d.%u.raw", g.dir, (int)g.pid, g.gen);
	else
		snprintf(path, sizeof(path), "%s/%d.raw", g.dir, (int)g.pid);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/* Out of the way of guest code that closes low descriptors. */
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, 900);
	if (hi >= 0) {
		close(fd);
		fd = hi;
	}
	g.fd = fd;
	g.next_chunk = 0;
	r = w_reserve(&g.gw, sizeof(*r));
	if (!r)
		return -ENOSPC;
	r->magic = HWP_EMU_MAGIC;
	r->version = HWP_EMU_VERSION;
	r->flags = (ppid ? HWP_EMU_PROC_CHILD : 0) | (g.gen ? HWP_EMU_PROC_EXEC : 0);
	r->pid = (uint32_t)g.pid;
	r->ppid = ppid;
	r->ptid = ptid;
	r->depth = g.depth;
	/* a fork child: the fork's time (the parent may have exec'd another
	   image since; the converter finds the parent's image by this time) */
	r->time = time ? time : now_ns();
	r->period = g.period;
	r->guest_base = g.guest_base;
	w_commit(r, HWP_EMU_PROC, sizeof(*r));
	return 0;
}

/* ----------------------------------------------------------------- vCPUs */

static uint64_t next_period(struct vcpu *v)
{
	uint64_t n = g.period, j;

	if (g.jitter && n > 1) {
		j = n * g.jitter / 100;
		if (j) {
			v->rng ^= v->rng << 13;
			v->rng ^= v->rng >> 7;
			v->rng ^= v->rng << 17;
			n = n - j + v->rng % (2 * j + 1);
		}
	}
	return n ? n : 1;
}

static void vcpu_reset(struct vcpu *v, unsigned idx)
{
	v->prev = &no_tb;
	v->idx = idx;
	v->pos_base = v->pos;
	v->hc_base = v->hc;
	v->valid = 0;
	v->ss_n = 0;
	v->tid = 0;
	v->npend = 0;
	v->sigreturn = false;
	/* (a seed makes the draws those of the last recording with it) */
	v->rng = 0x9e3779b97f4a7c15ull ^ (g.seed ? g.seed * 0xbf58476d1ce4e5b9ull : now_ns() * 2654435761u) ^ idx;
	if (!v->rng)
		v->rng = 1;
	v->periods += v->cur_period - (uint64_t)v->countdown; /* keep the count */
	v->cur_period = next_period(v);
	v->countdown = (int64_t)v->cur_period;
}

static struct vcpu *vcpu_new(unsigned idx)
{
	struct vcpu *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	for (unsigned i = 0; i < PHT_SIZE; i++)
		v->pht[i] = 1; /* weakly not taken */
	vcpu_reset(v, idx);
	vcpus[idx] = v;
	return v;
}

static void on_vcpu_init(qemu_plugin_id_t id, unsigned int idx)
{
	(void)id;
	if (idx >= MAX_VCPUS)
		return;
	/* A new guest thread, possibly on the index of one that exited: keep
	   the exact counts and the writer, start a fresh history. */
	if (vcpus[idx])
		vcpu_reset(vcpus[idx], idx);
	else
		vcpu_new(idx);
}

/* ------------------------------------------------------------- sampling */

static inline uint64_t kind_fbase(unsigned kind)
{
	return (uint64_t)kind_br_type[kind] << 20 | 1ull << 30 /* PERF_BR_PRIV_USER */;
}

static uint64_t taken_count(const struct vcpu *v)
{
	return v->periods + v->cur_period - (uint64_t)v->countdown;
}

static __attribute__((noinline)) void emit_sample(struct vcpu *v, uint64_t ip)
{
	uint64_t have = g.callstack ? v->valid : v->pos - v->pos_base;
	uint32_t nr = have < g.depth ? (uint32_t)have : g.depth;
	uint32_t nchain = v->ss_n < HWP_EMU_MAX_CHAIN ? v->ss_n : HWP_EMU_MAX_CHAIN;
	uint32_t size = (uint32_t)sizeof(struct hwp_emu_sample) + nr * 24 + nchain * 8;
	struct hwp_emu_sample *s = w_reserve(&v->w, size);
	uint64_t period = v->cur_period - (uint64_t)v->countdown;

	if (s) {
		struct hwp_emu_entry *e = (struct hwp_emu_entry *)(s + 1);

		if (!v->tid)
			v->tid = gettid_();
		s->tid = v->tid;
		s->vcpu = v->idx;
		s->time = now_ns();
		s->ip = ip;
		s->period = period;
		s->nr = nr;
		s->nchain = nchain;
		s->hw_idx = (v->pos - 1) & (g.depth - 1);
		for (uint32_t i = 0; i < nr; i++) {
			uint64_t q = v->pos - 1 - i;
			const struct ring_ent *r = &v->ring[q & (RING_SIZE - 1)];
			const struct tbi *p = (const struct tbi *)(r->ptag & ~(uintptr_t)7);
			unsigned tag = (unsigned)(r->ptag & 7);
			uint64_t prev_hc = q > v->pos_base ? v->ring[(q - 1) & (RING_SIZE - 1)].hc
							   : v->hc_base;
			uint64_t cyc = (r->hc - prev_hc + 1) / 2;
			unsigned kind = !(tag & TAG_ASYNC) ? p->kind
				      : (tag & TAG_ERET) ? HWP_EMU_K_ERET : HWP_EMU_K_IRQ;

			e[i].from = p->br;
			e[i].to = r->to;
			e[i].flags = kind_fbase(kind) | (tag & TAG_MIS) |
				     (uint64_t)!(tag & (TAG_MIS | TAG_ASYNC)) << 1 |
				     (cyc > 0xffff ? 0xffff : cyc) << 4;
		}
		for (uint32_t i = 0; i < nchain; i++)
			((uint64_t *)(e + nr))[i] = v->ss[v->ss_n - 1 - i];
		w_commit(s, HWP_EMU_SAMPLE, size);
		v->samples++;
		if (progress) {
			__atomic_fetch_add(&progress->samples, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&progress->taken, period, __ATOMIC_RELAXED);
		}
	} else {
		v->lost++;
	}
	v->periods += period;
	v->cur_period = next_period(v);
	v->countdown = (int64_t)v->cur_period;
}

static inline void ring_push(struct vcpu *v, const struct tbi *p, uint64_t to, unsigned tag)
{
	struct ring_ent *e = &v->ring[v->pos & (RING_SIZE - 1)];

	e->ptag = (uintptr_t)p | tag;
	e->to = to;
	e->hc = v->hc;
	v->pos++;
}

/* The generic path's ring update (both modes). */
static inline void ring_update(struct vcpu *v, const struct tbi *p, uint64_t to, unsigned tag,
			       unsigned kind)
{
	if (!g.callstack) {
		ring_push(v, p, to, tag);
	} else if (kind == HWP_EMU_K_RET || kind == HWP_EMU_K_ERET || kind == HWP_EMU_K_FAR) {
		/* call-stack mode: a return pops its call */
		if (v->valid) {
			v->pos--;
			v->valid--;
		}
	} else {
		ring_push(v, p, to, tag);
		v->valid += v->valid < g.depth;
	}
}

/* A taken branch of P to TO (generic path). */
static inline void taken(struct vcpu *v, const struct tbi *p, uint64_t to, bool mis)
{
	v->hc += 2 * TAKEN_BUBBLE;
	if (p->rec)
		ring_update(v, p, to, mis ? TAG_MIS : 0, p->kind);
	v->hc += 2 * MISPREDICT_PENALTY * mis;
	if (unlikely(--v->countdown <= 0))
		emit_sample(v, to);
}

/* Predictor tables are indexed by the address after the branch (unique per
   branch, and at hand without another load). */
static inline bool predict_cond(struct vcpu *v, uint64_t pc, bool tk)
{
	/* 2-bit saturating counters: [taken][counter] -> next counter */
	static const uint8_t next[2][4] = { { 0, 0, 1, 2 }, { 1, 2, 3, 3 } };
	uint32_t ghr = v->ghr;
	uint32_t i = ((uint32_t)pc ^ (uint32_t)(pc >> PHT_BITS) ^ ghr) & (PHT_SIZE - 1);
	unsigned c = v->pht[i] & 3;

	v->ghr = ((ghr << 1) | tk) & (PHT_SIZE - 1);
	v->pht[i] = next[tk][c];
	return (c >> 1) != tk;
}

static inline bool predict_ind(struct vcpu *v, uint64_t pc, uint64_t to)
{
	uint32_t i = (uint32_t)(pc ^ (pc >> 9) ^ (pc >> 18)) & (BTB_SIZE - 1);
	bool mis = v->btb[i].pc != pc || v->btb[i].tgt != to;

	v->btb[i].pc = pc;
	v->btb[i].tgt = to;
	return mis;
}

static inline void rsb_push(struct vcpu *v, uint64_t ret)
{
	v->rsb[++v->rsb_top & (RSB_SIZE - 1)] = ret;
}

static inline bool rsb_pop(struct vcpu *v, uint64_t to)
{
	return v->rsb[v->rsb_top-- & (RSB_SIZE - 1)] != to;
}

/* ----------------------------------------------------- shadow call stack */

static __attribute__((noinline)) void ss_push_slow(struct vcpu *v, uint64_t ret)
{
	if (!v->ss && !(v->ss = malloc(SS_MAX * sizeof(*v->ss))))
		return;
	if (v->ss_n == SS_MAX) { /* deeper than kept: the outermost half goes */
		memmove(v->ss, v->ss + SS_MAX / 2, SS_MAX / 2 * sizeof(*v->ss));
		v->ss_n = SS_MAX / 2;
	}
	v->ss[v->ss_n++] = ret;
}

static inline void ss_push(struct vcpu *v, uint64_t ret)
{
	if (likely(v->ss && v->ss_n < SS_MAX))
		v->ss[v->ss_n++] = ret;
	else
		ss_push_slow(v, ret);
}

/* A return to TO: pops the frame it returns to and any above it (skipped
   by a longjmp or an exception); nothing when TO is on no frame. */
static inline void ss_pop(struct vcpu *v, uint64_t to)
{
	for (uint32_t i = v->ss_n; i-- > 0;) {
		if (v->ss[i] == to) {
			v->ss_n = i;
			return;
		}
	}
}

/* ---------------------------------------------------------- exact counts */

static bool cnt_grow(struct vcpu *v, uint32_t site)
{
	size_t old = v->ncnt;

	if (site == NO_SITE || HWP_VEC_RESERVE(v->cnt, v->ncnt, (size_t)site + 1))
		return false;
	memset(v->cnt + old, 0, (v->ncnt - old) * sizeof(*v->cnt));
	return true;
}

static inline void count(struct vcpu *v, const struct tbi *p, bool tk)
{
	uint32_t s = p->site;

	if (unlikely(s >= v->ncnt) && !cnt_grow(v, s))
		return;
	v->cnt[s].exec++;
	v->cnt[s].taken += tk;
}

/* A target not seen yet; out of count_target, which then saves no registers. */
static __attribute__((noinline)) void tg_add(struct vcpu *v, uint32_t site, uint64_t target,
					     uint64_t h)
{
	struct tgt *t = HWP_VEC_PUSH(v->tg, v->ntg, v->tg_cap);

	if (!t)
		return;
	if (hwp__hashmap_add(&v->tgh, h, v->ntg - 1) < 0) {
		v->ntg--;
		return;
	}
	t->site = site;
	t->target = target;
	t->count = 1;
}

static inline void count_target(struct vcpu *v, uint32_t site, uint64_t target)
{
	/* user addresses fit 47 bits: the site goes above them */
	uint64_t h = hwp__hash64(target ^ ((uint64_t)site << 47 | (uint64_t)site >> 17));
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&v->tgh, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i)) {
		if (v->tg[i].site == site && v->tg[i].target == target) {
			v->tg[i].count++;
			return;
		}
	}
	tg_add(v, site, target, h);
}

/* ------------------------------------------------------------- signals */

static bool is_handler(uint64_t pc)
{
	if (pc < g.hmin || pc > g.hmax)
		return false;
	for (int s = 1; s <= 64; s++)
		if (g.handler[s] == pc)
			return true;
	return false;
}

static bool sync_sig(int s)
{
	return s == 4 || s == 5 || s == 7 || s == 8 || s == 11; /* ILL TRAP BUS FPE SEGV */
}

/* Only synchronous faults are delivered to this handler: the interrupted
   instruction did not complete. */
static bool handler_is_sync(uint64_t pc)
{
	bool any_sync = false;

	for (int s = 1; s <= 64; s++) {
		if (g.handler[s] != pc)
			continue;
		if (!sync_sig(s))
			return false;
		any_sync = true;
	}
	return any_sync;
}

static void async_entry(struct vcpu *v, const struct tbi *p, uint64_t to, unsigned kind)
{
	if ((g.rec_mask >> kind) & 1)
		ring_update(v, p, to, TAG_ASYNC | (kind == HWP_EMU_K_ERET ? TAG_ERET : 0), kind);
}

/* Can execution resume at S after a signal that interrupted Q's end? */
static bool resumes(const struct tbi *q, bool sync, uint64_t s)
{
	if (sync || (s >= q->start && s <= q->br))
		return s >= q->start && s <= q->br;
	switch (q->kind) {
	case HWP_EMU_K_COND:
		return s == q->fall || s == q->target;
	case HWP_EMU_K_JMP:
	case HWP_EMU_K_CALL:
		return s == q->target;
	case HWP_EMU_K_REP:
		return s == q->br || s == q->fall;
	case HWP_EMU_K_IJMP:
	case HWP_EMU_K_ICALL:
	case HWP_EMU_K_RET:
	case HWP_EMU_K_FAR:
		return true;
	default:
		return s == q->fall;
	}
}

/* The branch ending Q ran before a signal; execution resumed at S. */
static void resolve(struct vcpu *v, const struct tbi *q, bool sync, uint64_t s, bool exact)
{
	bool tk = false;

	if (sync || (s > q->start && s <= q->br))
		return; /* interrupted inside Q: its last instruction did not run */
	switch (q->kind) {
	case HWP_EMU_K_COND:
		if (s == q->fall)
			tk = false;
		else if (s == q->target)
			tk = true;
		else
			return;
		v->hc += 2 * MISPREDICT_PENALTY * predict_cond(v, q->fall, tk);
		break;
	case HWP_EMU_K_JMP:
		if (s != q->target)
			return;
		tk = true;
		break;
	case HWP_EMU_K_CALL:
		if (s != q->target)
			return;
		rsb_push(v, q->fall);
		if (g.chain)
			ss_push(v, q->fall);
		tk = true;
		break;
	case HWP_EMU_K_ICALL:
		rsb_push(v, q->fall);
		if (g.chain)
			ss_push(v, q->fall);
		/* fall through */
	case HWP_EMU_K_IJMP:
		predict_ind(v, q->fall, s);
		if (exact)
			count_target(v, q->site, s);
		tk = true;
		break;
	case HWP_EMU_K_RET:
		rsb_pop(v, s);
		if (g.chain)
			ss_pop(v, s);
		tk = true;
		break;
	case HWP_EMU_K_FAR:
		tk = true;
		break;
	case HWP_EMU_K_SYSCALL:
	case HWP_EMU_K_TRAP:
		if (s != q->fall)
			return;
		break;
	default:
		return;
	}
	if (exact)
		count(v, q, tk);
	if (tk)
		v->countdown--; /* counted; the sample waits for the next branch */
}

static __attribute__((noinline)) void on_async(struct vcpu *v, const struct tbi *p, uint64_t pc,
					       bool exact)
{
	v->async++;
	if (g.debug)
		fprintf(stderr, "hwprof-emu: async %d: tb %#llx..%#llx kind %u target %#llx fall %#llx -> %#llx%s\n",
			(int)v->idx, (unsigned long long)p->start, (unsigned long long)p->br, p->kind,
			(unsigned long long)p->target, (unsigned long long)p->fall,
			(unsigned long long)pc, v->sigreturn ? " (sigreturn)" : "");
	if (v->sigreturn && (p->kind == HWP_EMU_K_SYSCALL || p->kind == HWP_EMU_K_TRAP)) {
		v->sigreturn = false;
		if (exact)
			count(v, p, false);
		if (is_handler(pc) && (!v->npend || !resumes(v->pend[v->npend - 1],
							     v->pend_sync[v->npend - 1], pc))) {
			/* another signal delivered as the handler returned: it
			   interrupts the same place, which stays pending */
			async_entry(v, p, pc, HWP_EMU_K_IRQ);
			return;
		}
		if (v->npend) {
			v->npend--;
			resolve(v, v->pend[v->npend], v->pend_sync[v->npend], pc, exact);
		}
		async_entry(v, p, pc, HWP_EMU_K_ERET);
		return;
	}
	v->sigreturn = false;
	if (v->npend == MAX_PENDING) { /* handlers that never returned (longjmp) */
		memmove(v->pend, v->pend + 1, (MAX_PENDING - 1) * sizeof(v->pend[0]));
		memmove(v->pend_sync, v->pend_sync + 1, MAX_PENDING - 1);
		v->npend--;
	}
	v->pend[v->npend] = p;
	v->pend_sync[v->npend] = handler_is_sync(pc);
	v->npend++;
	async_entry(v, p, pc, HWP_EMU_K_IRQ);
}

/* -------------------------------------------------------- the hot path */

/* The generic path: resolves the previous TB's end P now that TB T starts
   at PC (every kind, signals, phantoms; exact counts; call-stack mode). The
   caller then makes T the previous TB. */
static inline __attribute__((always_inline)) void generic(struct vcpu *v, const struct tbi *t,
							  uint64_t pc, bool exact)
{
	const struct tbi *p = v->prev;
	bool mis, tk;

	(void)t;
	if (unlikely(p == &no_tb))
		return;
	switch (p->kind) {
	case HWP_EMU_K_NONE:
		if (likely(pc == p->fall))
			return;
		goto async;
	case HWP_EMU_K_REP:
		if (pc == p->br || pc == p->fall)
			return;
		goto async;
	case HWP_EMU_K_COND:
		if (pc == p->fall)
			tk = false;
		else if (pc == p->target)
			tk = true;
		else
			goto async;
		mis = predict_cond(v, p->fall, tk);
		if (exact)
			count(v, p, tk);
		if (tk)
			taken(v, p, pc, mis);
		else
			v->hc += 2 * MISPREDICT_PENALTY * mis;
		return;
	case HWP_EMU_K_CALL:
		if (unlikely(pc != p->target))
			goto async;
		rsb_push(v, p->fall);
		if (g.chain)
			ss_push(v, p->fall);
		if (exact)
			count(v, p, true);
		taken(v, p, pc, false);
		return;
	case HWP_EMU_K_JMP:
		if (unlikely(pc != p->target))
			goto async;
		if (exact)
			count(v, p, true);
		taken(v, p, pc, false);
		return;
	case HWP_EMU_K_RET:
		if (unlikely(pc == p->phantom || is_handler(pc)))
			goto async;
		mis = rsb_pop(v, pc);
		if (g.chain)
			ss_pop(v, pc);
		if (exact)
			count(v, p, true);
		taken(v, p, pc, mis);
		return;
	case HWP_EMU_K_ICALL:
	case HWP_EMU_K_IJMP:
		/* a signal handler's entry after an indirect branch: delivery */
		if (unlikely(pc == p->phantom || is_handler(pc)))
			goto async;
		if (p->kind == HWP_EMU_K_ICALL) {
			rsb_push(v, p->fall);
			if (g.chain)
				ss_push(v, p->fall);
		}
		mis = predict_ind(v, p->fall, pc);
		if (exact) {
			count(v, p, true);
			count_target(v, p->site, pc);
		}
		taken(v, p, pc, mis);
		return;
	case HWP_EMU_K_FAR:
		if (unlikely(pc == p->phantom || is_handler(pc)))
			goto async;
		if (exact)
			count(v, p, true);
		taken(v, p, pc, false);
		return;
	case HWP_EMU_K_SYSCALL:
	case HWP_EMU_K_TRAP:
		if (likely(pc == p->fall) && !v->sigreturn) {
			if (exact)
				count(v, p, false);
			return;
		}
		goto async;
	default:
		return;
	}
async:
	if (pc == p->phantom) {
		/* the phantom: re-translated as this TB's first instruction */
		v->hc--;
		return;
	}
	on_async(v, p, pc, exact);
}

static inline __attribute__((always_inline)) struct vcpu *vcpu_of(unsigned int vi)
{
	struct vcpu *v;

	if (unlikely(vi >= MAX_VCPUS))
		return NULL;
	v = vcpus[vi];
	if (unlikely(!v))
		v = vcpu_new(vi);
	return v;
}

static inline __attribute__((always_inline)) void set_prev(struct vcpu *v, const struct tbi *t)
{
	v->prev = t;
	v->hc += t->n_insns;
}


/* Out of the hot functions, so that they need no saved registers. */
static __attribute__((noinline)) void tb_slow(unsigned int vi, const struct tbi *t)
{
	struct vcpu *v = vcpu_of(vi);

	cur_vcpu = v;
	if (likely(v != NULL)) {
		generic(v, t, t->start, false);
		set_prev(v, t);
	}
}

static __attribute__((noinline)) void tb_slow_exact(unsigned int vi, const struct tbi *t)
{
	struct vcpu *v = vcpu_of(vi);

	cur_vcpu = v;
	if (likely(v != NULL)) {
		generic(v, t, t->start, true);
		set_prev(v, t);
	}
}

static __attribute__((noinline)) void tb_sample(struct vcpu *v, uint64_t ip)
{
	emit_sample(v, ip);
}

/*
 * Windowed recording (every taken branch and signal entry is recorded: the
 * default -j any). A sample holds the newest DEPTH ring entries, and the
 * cycles of the oldest need the entry before it: DEPTH + 1 positions. Every
 * position newer than a taken branch took the countdown down by at most one
 * (a taken entry by one, an ERET entry by the pending branch it resolves, an
 * IRQ entry by none), so the branches a sample reads had a countdown of at
 * most DEPTH + 1 when they ran. Further from a sample, neither their ring
 * entries nor the cost model's clock can be read (a sample only shows clock
 * differences within its entries): there only the predictor and the
 * countdown move, and the ring position (hw_idx shows it).
 */
static int64_t window; /* DEPTH + 1 */

/*
 * The hot path: one call at the start of every TB. Plain fall-through,
 * direct branches and indirect branches are resolved from what the previous
 * TB P left in the vCPU; anything else takes the generic path. Instantiated
 * per mode (the flags are constants in each): MODEL runs the predictor and
 * the cost model (off when no_flags and no_cycles clear their results
 * anyway), EXACT counts per site, NEAR (the window, or not windowed) keeps
 * the ring and the clock. No call-stack mode (generic path). Returns the
 * taken branch's mispredict bit through *MIS; 0 when P fell through, 1 when
 * it branched, -1 when the generic path ran instead.
 */
static inline __attribute__((always_inline)) int resolve_fast(struct vcpu *v,
							       const struct tbi *p,
							       uint64_t pc, bool *misp,
							       bool model, bool exact)
{
	uint32_t cls = p->cls;
	uint64_t fall = p->fall;
	bool mis = false;

	if (pc == fall && !(cls & C_NOFALL)) {
		if (cls & C_COND) {
			if (model)
				mis = predict_cond(v, fall, false);
			if (exact)
				count(v, p, false);
		}
		*misp = mis;
		return 0;
	}
	if (pc == p->target) {
		if (model && (cls & C_COND))
			mis = predict_cond(v, fall, true);
		if (model && (cls & C_CALL))
			rsb_push(v, fall);
	} else if ((cls & C_ANY) && !((cls & C_PHANTOM) && pc == p->phantom) &&
		   likely(pc < g.hmin || pc > g.hmax)) {
		if (model) {
			if (cls & C_RET) {
				mis = rsb_pop(v, pc);
			} else {
				mis = predict_ind(v, fall, pc);
				if (cls & C_CALL)
					rsb_push(v, fall);
			}
		}
		if (exact && (cls & C_IND))
			count_target(v, p->site, pc);
	} else {
		return -1;
	}
	if (exact)
		count(v, p, true);
	*misp = mis;
	return 1;
}

/* Near a sample (or not windowed): the ring and the clock too. */
static inline __attribute__((always_inline)) void hot_near(unsigned int vi, const struct tbi *t,
							   bool model, bool exact)
{
	struct vcpu *v = cur_vcpu;
	const struct tbi *p;
	uint64_t pc;
	bool mis;
	int r;

	if (unlikely(!v))
		goto slow;
	pc = t->start;
	p = v->prev;
	r = resolve_fast(v, p, pc, &mis, model, exact);
	if (unlikely(r < 0))
		goto slow;
	v->prev = t;
	if (!r) {
		if (model)
			v->hc += t->n_insns + 2 * MISPREDICT_PENALTY * mis;
		return;
	}
	if (model)
		v->hc += 2 * TAKEN_BUBBLE;
	if (p->cls & C_REC)
		ring_push(v, p, pc, mis);
	if (model)
		v->hc += 2 * MISPREDICT_PENALTY * mis + t->n_insns;
	if (unlikely(--v->countdown <= 0))
		tb_sample(v, pc);
	return;
slow:
	if (exact)
		tb_slow_exact(vi, t);
	else
		tb_slow(vi, t);
}

/* Windowed, far from a sample: no ring entry, no clock. NEAR_FN (a
   separate function: this one then needs no saved registers) does the rest. */
static inline __attribute__((always_inline)) void hot_far(unsigned int vi, const struct tbi *t,
							  bool model, bool exact,
							  qemu_plugin_vcpu_udata_cb_t near_fn)
{
	struct vcpu *v = cur_vcpu;
	bool mis;
	int r;

	if (unlikely(!v) || v->countdown <= window) {
		near_fn(vi, (void *)t);
		return;
	}
	r = resolve_fast(v, v->prev, t->start, &mis, model, exact);
	if (unlikely(r < 0)) {
		if (exact)
			tb_slow_exact(vi, t);
		else
			tb_slow(vi, t);
		return;
	}
	v->prev = t;
	if (r) {
		v->countdown--; /* > window >= 2: no sample due */
		v->pos++;
	}
}

#define HOT_NEAR(name, model, exact)                                            \
	static __attribute__((noinline)) void name(unsigned int vi, void *ud)  \
	{                                                                       \
		hot_near(vi, ud, model, exact);                                 \
	}
#define HOT_FAR(name, model, exact, near_fn)                                    \
	static void name(unsigned int vi, void *ud)                            \
	{                                                                       \
		hot_far(vi, ud, model, exact, near_fn);                         \
	}
HOT_NEAR(on_tb, true, false)
HOT_NEAR(on_tb_exact, true, true)
HOT_NEAR(on_tb_nomodel, false, false)
HOT_NEAR(on_tb_nomodel_exact, false, true)
HOT_FAR(on_tb_win, true, false, on_tb)
HOT_FAR(on_tb_win_exact, true, true, on_tb_exact)
HOT_FAR(on_tb_win_nomodel, false, false, on_tb_nomodel)
HOT_FAR(on_tb_win_nomodel_exact, false, true, on_tb_nomodel_exact)

/* Call-stack mode and call chains: the generic path for every TB. */
static void on_tb_generic(unsigned int vi, void *ud)
{
	struct vcpu *v = vcpu_of(vi);

	if (likely(v != NULL)) {
		generic(v, ud, ((const struct tbi *)ud)->start, false);
		set_prev(v, ud);
	}
}

static void on_tb_generic_exact(unsigned int vi, void *ud)
{
	struct vcpu *v = vcpu_of(vi);

	if (likely(v != NULL)) {
		generic(v, ud, ((const struct tbi *)ud)->start, true);
		set_prev(v, ud);
	}
}

/* The execution callback of every TB in this recording's mode. */
static qemu_plugin_vcpu_udata_cb_t exec_cb(void)
{
	if (g.callstack || g.chain)
		return g.exact ? on_tb_generic_exact : on_tb_generic;
	if (!g.windowed)
		return g.exact ? on_tb_exact : on_tb;
	if (!g.model)
		return g.exact ? on_tb_win_nomodel_exact : on_tb_win_nomodel;
	return g.exact ? on_tb_win_exact : on_tb_win;
}

/* ------------------------------------------------------ translation time */

static void emit_mmap(uint64_t gstart, uint64_t len, uint64_t pgoff, uint32_t maj, uint32_t min,
		      uint64_t ino, uint32_t prot, uint32_t flags, const char *path)
{
	size_t plen = strlen(path) + 1;
	uint32_t size = (uint32_t)sizeof(struct hwp_emu_mmap) + pad8(plen);
	struct hwp_emu_mmap *m;

	if (size > 8192 || !(m = w_reserve(&g.gw, size)))
		return;
	memset(m, 0, size);
	m->tid = gettid_();
	m->prot = prot;
	m->time = now_ns();
	m->start = gstart;
	m->len = len;
	m->pgoff = pgoff;
	m->ino = ino;
	m->maj = maj;
	m->min = min;
	m->flags = flags;
	memcpy(m + 1, path, plen);
	w_commit(m, HWP_EMU_MMAP, size);
}

static void add_module(uint64_t start, uint64_t end, bool file)
{
	struct module *m = HWP_VEC_PUSH(g.mods, g.nmods, g.mods_cap);

	if (!m)
		return;
	m->start = start;
	m->end = end;
	m->file = file;
}

static bool known_module(uint64_t gaddr)
{
	static size_t last;

	if (last < g.nmods && gaddr >= g.mods[last].start && gaddr < g.mods[last].end)
		return true;
	for (size_t i = 0; i < g.nmods; i++) {
		if (gaddr >= g.mods[i].start && gaddr < g.mods[i].end) {
			last = i;
			return true;
		}
	}
	return false;
}

/* Finds the host mapping of HADDR in /proc/self/maps; records it (in guest
   addresses) as a module, with an MMAP record when it is file-backed. */
static void scan_maps(uint64_t haddr)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[PATH_MAX + 128];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		char perms[8];
		int n = 0;
		char *path;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi, perms, &off, &maj,
			   &min, &ino, &n) < 7)
			continue;
		if (haddr < lo || haddr >= hi)
			continue;
		path = line + n;
		path[strcspn(path, "\n")] = 0;
		hwp__maps_path_unescape(path, maj, min, ino); /* "\012": a newline of the name */
		if (path[0] == '/' && strstr(path, " (deleted)") == NULL) {
			/* QEMU maps guest code readable, not executable, on the
			   host (and the kernel may merge it with its neighbours):
			   the guest executed code here, so say r-x. */
			uint32_t prot = 1 /* PROT_READ */ | 4 /* PROT_EXEC */;
			uint32_t flags = perms[3] == 's' ? 1 /* MAP_SHARED */ : 2 /* MAP_PRIVATE */;

			emit_mmap(lo - g.guest_base, hi - lo, off, maj, min, ino, prot, flags, path);
			add_module(lo - g.guest_base, hi - g.guest_base, true);
		} else {
			add_module(lo - g.guest_base, hi - g.guest_base, false);
		}
		break;
	}
	fclose(f);
}

static uint32_t site_get(uint64_t addr, unsigned kind)
{
	uint64_t h = hwp__hash_combine(addr, kind);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&g.siteh, h);
	struct site *st;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (g.sites[i].addr == addr && g.sites[i].kind == kind)
			return i;
	if (g.nsites >= NO_SITE || !(st = HWP_VEC_PUSH(g.sites, g.nsites, g.sites_cap)))
		return NO_SITE;
	if (hwp__hashmap_add(&g.siteh, h, g.nsites - 1) < 0) {
		g.nsites--;
		return NO_SITE;
	}
	st->addr = addr;
	st->kind = (uint8_t)kind;
	return (uint32_t)(g.nsites - 1);
}

static uint32_t tb_class(struct tbi *t)
{
	uint32_t c;

	switch (t->kind) {
	case HWP_EMU_K_NONE: c = 0; break;
	case HWP_EMU_K_COND: c = C_COND; break;
	case HWP_EMU_K_JMP: c = C_NOFALL; break;
	case HWP_EMU_K_CALL: c = C_CALL | C_NOFALL; break;
	case HWP_EMU_K_IJMP: c = C_IND | C_ANY | C_NOFALL; break;
	case HWP_EMU_K_ICALL: c = C_IND | C_CALL | C_ANY | C_NOFALL; break;
	case HWP_EMU_K_RET: c = C_RET | C_ANY | C_NOFALL; break;
	default: /* far, syscall, trap, rep: the generic path */
		t->target = 0;
		return C_NOFALL;
	}
	if (t->rec)
		c |= C_REC;
	if (t->phantom)
		c |= C_PHANTOM;
	return c;
}

/* The shared TB shape equal to KEY; a new one when there is none. */
static struct tbi *tbi_get(const struct tbi *key)
{
	uint64_t h = hwp__hash64(key->start);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&g.tbh, h);
	struct tbi *t, **slot;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i)) {
		t = g.tbs[i];
		if (t->start == key->start && t->br == key->br && t->fall == key->fall &&
		    t->target == key->target && t->kind == key->kind && t->n_insns == key->n_insns &&
		    t->phantom == key->phantom)
			return t;
	}
	if (!(t = malloc(sizeof(*t))))
		return NULL;
	if (!(slot = HWP_VEC_PUSH(g.tbs, g.ntbs, g.tbs_cap)))
		goto fail;
	if (hwp__hashmap_add(&g.tbh, h, g.ntbs - 1) < 0) {
		g.ntbs--;
		goto fail;
	}
	*t = *key;
	*slot = t;
	return t;
fail:
	free(t);
	return NULL;
}

/* Every load and store: through the modelled caches; every mem_period-th
   one of a thread becomes a sample. UD is the instruction's address. */
static void on_mem(unsigned int vi, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
	struct vcpu *v = vcpu_of(vi);
	bool store = qemu_plugin_mem_is_store(info);
	enum hwp_mm_level lvl;

	if (unlikely(!v))
		return;
	if (unlikely(!v->mm)) {
		v->mm = calloc(1, sizeof(*v->mm));
		if (!v->mm)
			return;
		v->mem_countdown = (int64_t)g.mem_period;
	}
	lvl = hwp__mm_access(g.mm, v->mm, v->idx + 1, vaddr, store);
	v->mem_accesses++;
	if (--v->mem_countdown > 0)
		return;
	v->mem_countdown = (int64_t)g.mem_period;
	struct hwp_emu_mem *m = w_reserve(&v->w, sizeof(*m));
	if (!m) {
		v->lost++;
		return;
	}
	if (!v->tid)
		v->tid = gettid_();
	m->tid = v->tid;
	m->vcpu = v->idx;
	m->time = now_ns();
	m->ip = (uint64_t)(uintptr_t)ud;
	m->addr = vaddr;
	m->period = g.mem_period;
	m->data_src = hwp__mm_data_src(lvl, store);
	m->latency = hwp_mm_latency[lvl];
	m->pad = 0;
	w_commit(m, HWP_EMU_MEM, sizeof(*m));
	v->mem_samples++;
}

static void on_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct qemu_plugin_insn *first, *last;
	struct tbi key, *t;
	uint64_t lv, ls;

	(void)id;
	if (!n)
		return;
	memset(&key, 0, sizeof(key));
	key.start = qemu_plugin_tb_vaddr(tb);
	first = qemu_plugin_tb_get_insn(tb, 0);
	last = qemu_plugin_tb_get_insn(tb, n - 1);
	lv = qemu_plugin_insn_vaddr(last);
	ls = qemu_plugin_insn_size(last);
	key.kind = (uint8_t)hwp__emu_classify(qemu_plugin_insn_data(last), ls, lv, &key.target);
	key.br = lv;
	key.fall = lv + ls;
	key.n_insns = (uint32_t)n;
	/* QEMU 7.2 ends a TB before a later instruction that would cross into
	   the next page, but the plugin still sees its first bytes as the TB's
	   last instruction; the next TB then starts at that instruction. Which
	   of the two happened is only known when the next TB starts. */
	if (n > 1 && !((lv ^ key.start) & ~0xfffull) && (lv | 0xfff) - lv < 15)
		key.phantom = lv;
	key.rec = (g.rec_mask >> key.kind) & 1;
	key.site = NO_SITE;
	key.cls = tb_class(&key);

	pthread_mutex_lock(&g.tr_lock);
	if (!g.have_base) {
		g.guest_base = (uint64_t)(uintptr_t)qemu_plugin_insn_haddr(first) - key.start;
		g.have_base = true;
	}
	if (!known_module(key.start))
		scan_maps(key.start + g.guest_base);
	if (key.kind != HWP_EMU_K_NONE && key.kind != HWP_EMU_K_REP)
		key.site = site_get(key.br, key.kind);
	t = tbi_get(&key);
	pthread_mutex_unlock(&g.tr_lock);
	if (t)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, exec_cb(), QEMU_PLUGIN_CB_NO_REGS, t);
	if (g.mem_period)
		for (size_t i = 0; i < n; i++) {
			struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, i);
			qemu_plugin_register_vcpu_mem_cb(in, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
							 (void *)(uintptr_t)qemu_plugin_insn_vaddr(in));
		}
}

/* ---------------------------------------------------- process lifecycle */

static void write_task(struct writer *w, uint32_t type, uint32_t tid, uint32_t ptid,
		       uint64_t time, const char *path)
{
	size_t plen = path ? strnlen(path, 4000) + 1 : 0;
	uint32_t size = (uint32_t)sizeof(struct hwp_emu_task) + pad8(plen);
	struct hwp_emu_task *r = w_reserve(w, size);

	if (!r)
		return;
	memset(r, 0, size);
	r->tid = tid;
	r->ptid = ptid;
	r->time = time;
	if (plen) {
		memcpy(r + 1, path, plen - 1);
		((char *)(r + 1))[plen - 1] = 0;
	}
	w_commit(r, type, size);
}

/* Exact counts so far (cumulative); under tr_lock. */
static void write_snapshot(void)
{
	struct hwp_emu_snap *sn;
	uint64_t id = ++g.snap_id, nr = 0;
	struct vcpu **vs;
	unsigned nv = 0;

	if (!g.exact || !(vs = malloc(MAX_VCPUS * sizeof(*vs))))
		return;
	for (unsigned i = 0; i < MAX_VCPUS; i++)
		if (vcpus[i])
			vs[nv++] = vcpus[i];
	if ((sn = w_reserve(&g.gw, sizeof(*sn)))) {
		sn->id = id;
		sn->nr_sites = g.nsites;
		w_commit(sn, HWP_EMU_SNAP_BEGIN, sizeof(*sn));
	}
	for (uint32_t s = 0; s < g.nsites; s++) {
		uint64_t e = 0, tk = 0;
		struct hwp_emu_site *r;

		for (unsigned i = 0; i < nv; i++) {
			if (s < vs[i]->ncnt) {
				e += vs[i]->cnt[s].exec;
				tk += vs[i]->cnt[s].taken;
			}
		}
		if (!e || !(r = w_reserve(&g.gw, sizeof(*r))))
			continue;
		r->addr = g.sites[s].addr;
		r->executed = e;
		r->taken = tk;
		r->kind = g.sites[s].kind;
		r->pad = 0;
		w_commit(r, HWP_EMU_SITE, sizeof(*r));
		nr++;
	}
	for (unsigned i = 0; i < nv; i++) {
		struct vcpu *v = vs[i];

		for (size_t k = 0; k < v->ntg; k++) {
			struct hwp_emu_target *r;

			if (v->tg[k].site >= g.nsites || !(r = w_reserve(&g.gw, sizeof(*r))))
				continue;
			r->site = g.sites[v->tg[k].site].addr;
			r->target = v->tg[k].target;
			r->count = v->tg[k].count;
			w_commit(r, HWP_EMU_TARGET, sizeof(*r));
		}
	}
	if ((sn = w_reserve(&g.gw, sizeof(*sn)))) {
		sn->id = id;
		sn->nr_sites = nr;
		w_commit(sn, HWP_EMU_SNAP_END, sizeof(*sn));
	}
	free(vs);
}

static void write_stats(void)
{
	struct hwp_emu_stats *st = w_reserve(&g.gw, sizeof(*st));

	if (!st)
		return;
	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < MAX_VCPUS; i++) {
		struct vcpu *v = vcpus[i];

		if (!v)
			continue;
		st->taken += taken_count(v);
		st->samples += v->samples;
		st->async += v->async;
		st->lost += v->lost;
		st->mem_accesses += v->mem_accesses;
	}
	w_commit(st, HWP_EMU_STATS, sizeof(*st));
}

static void on_exit_cb(qemu_plugin_id_t id, void *ud)
{
	(void)id;
	(void)ud;
	if (getpid() != g.pid) /* a fork child that never reached a hook */
		return;
	pthread_mutex_lock(&g.tr_lock);
	write_stats();
	write_snapshot();
	pthread_mutex_unlock(&g.tr_lock);
}

/* In a fork child, before it runs any guest code. */
static void become_child(unsigned int vi)
{
	uint32_t ppid = (uint32_t)g.pid, ptid = 0;
	uint64_t fork_time = vi < MAX_VCPUS && vcpus[vi] ? vcpus[vi]->clone_time : 0;

	pthread_mutex_init(&g.file_lock, NULL);
	pthread_mutex_init(&g.tr_lock, NULL);
	if (vi < MAX_VCPUS && vcpus[vi])
		ptid = vcpus[vi]->tid;
	for (unsigned i = 0; i < MAX_VCPUS; i++) {
		struct vcpu *v = vcpus[i];

		if (!v)
			continue;
		w_drop(&v->w); /* the parent's chunks: not ours to write */
		if (v->cnt)
			memset(v->cnt, 0, v->ncnt * sizeof(*v->cnt));
		v->ntg = 0;
		hwp__hashmap_clear(&v->tgh);
		/* the taken branches so far were the parent's: count from 0 */
		v->periods = (uint64_t)v->countdown - v->cur_period;
		v->samples = v->async = v->lost = 0;
		v->tid = 0;
		if (i != vi)
			vcpu_reset(v, i);
	}
	w_drop(&g.gw);
	if (g.fd >= 0)
		close(g.fd);
	g.fd = -1;
	g.pid = getpid();
	g.gen = 0;
	g.follow.gen = 0;
	g.snap_id = 0;
	open_output(ppid, ptid, fork_time);
}

/* Copies guest memory without trusting the guest's pointer (a bad one
   fails the syscall with EFAULT; it must not crash QEMU here). */
static ssize_t guest_read(uint64_t gaddr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)(gaddr + g.guest_base), len };

	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
}

static void on_syscall(qemu_plugin_id_t id, unsigned int vi, int64_t num, uint64_t a1,
		       uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6, uint64_t a7,
		       uint64_t a8)
{
	struct vcpu *v = vi < MAX_VCPUS ? vcpus[vi] : NULL;

	(void)id;
	(void)a3;
	(void)a4;
	(void)a5;
	(void)a6;
	(void)a7;
	(void)a8;
	if (!v)
		return;
	switch (num) {
	case 15: /* rt_sigreturn */
		v->sigreturn = true;
		break;
	case 13: /* rt_sigaction(sig, act, oact) */
		if (a1 >= 1 && a1 <= 64 && a2) {
			uint64_t h;

			if (guest_read(a2, &h, sizeof(h)) != sizeof(h))
				break; /* the syscall fails with EFAULT */
			g.handler[a1] = h > 1 ? h : 0; /* SIG_DFL, SIG_IGN */
			g.hmin = UINT64_MAX;
			g.hmax = 0;
			for (int s = 1; s <= 64; s++) {
				if (!g.handler[s])
					continue;
				if (g.handler[s] < g.hmin)
					g.hmin = g.handler[s];
				if (g.handler[s] > g.hmax)
					g.hmax = g.handler[s];
			}
		}
		break;
	case 56:  /* clone(flags, ...) */
	case 57:  /* fork */
	case 58:  /* vfork */
	case 435: /* clone3(args, size) */
		v->clone_flags = num == 56 ? a1 : 0;
		if (num == 435 && a1)
			guest_read(a1, &v->clone_flags, sizeof(v->clone_flags));
		v->clone_time = now_ns();
		if (!v->tid)
			v->tid = gettid_();
		break;
	case 60: /* exit (this thread) */
		if (!v->tid)
			v->tid = gettid_();
		write_task(&v->w, HWP_EMU_THREAD_EXIT, v->tid, 0, now_ns(), NULL);
		break;
	case 231: /* exit_group */
		if (!v->tid)
			v->tid = gettid_();
		write_task(&v->w, HWP_EMU_EXIT, v->tid, 0, now_ns(), NULL);
		break;
	case 59:  /* execve(path, ...) */
	case 322: /* execveat(dirfd, path, ...) */
	{
		char path[1024];
		ssize_t n = guest_read(num == 59 ? a1 : a2, path, sizeof(path) - 1);

		path[n > 0 ? n : 0] = 0;
		if (!v->tid)
			v->tid = gettid_();
		write_task(&v->w, HWP_EMU_EXEC, v->tid, 0, now_ns(), path);
		pthread_mutex_lock(&g.tr_lock);
		write_stats();
		write_snapshot(); /* the process image may be gone after this */
		pthread_mutex_unlock(&g.tr_lock);
		g.follow.guest_base = g.guest_base;
		if (num == 59)
			hwp_emu_follow_exec(&g.follow, -100 /* AT_FDCWD */, a1, a2, a3, 0);
		else
			hwp_emu_follow_exec(&g.follow, (int64_t)(int32_t)a1, a2, a3, a4, a5);
		break;
	}
	case 11: /* munmap(addr, len): forget modules there */
		pthread_mutex_lock(&g.tr_lock);
		for (size_t i = 0; i < g.nmods;) {
			if (g.mods[i].start < a1 + a2 && a1 < g.mods[i].end)
				g.mods[i] = g.mods[--g.nmods];
			else
				i++;
		}
		pthread_mutex_unlock(&g.tr_lock);
		break;
	default:
		break;
	}
}

static void on_syscall_ret(qemu_plugin_id_t id, unsigned int vi, int64_t num, int64_t ret)
{
	struct vcpu *v = vi < MAX_VCPUS ? vcpus[vi] : NULL;

	(void)id;
	if (!v)
		return;
	if (num == 56 || num == 57 || num == 58 || num == 435) {
		if (ret == 0 && getpid() != g.pid)
			become_child(vi);
		else if (ret > 0 && (v->clone_flags & 0x00010000 /* CLONE_THREAD */))
			write_task(&v->w, HWP_EMU_THREAD, (uint32_t)ret, v->tid, v->clone_time, NULL);
	} else if ((num == 59 || num == 322) && ret < 0) {
		write_task(&v->w, HWP_EMU_EXEC_FAIL, v->tid, 0, now_ns(), NULL);
	}
}

/* ----------------------------------------------------------------- setup */

/* Maps the driver's progress page when there is one (not an error when not:
   qemu run by hand). Fork children share it. */
static void open_progress(void)
{
	char path[PATH_MAX + 32];
	struct stat st;
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/" HWP_EMU_PROGRESS_FILE, g.dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(*progress)) {
		close(fd); /* a shorter file would fault (SIGBUS) when written */
		return;
	}
	p = mmap(NULL, sizeof(*progress), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p != MAP_FAILED)
		progress = p;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		return false;
	*out = v;
	return true;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	uint64_t v;
	int err;

	if (info->system_emulation || strcmp(info->target_name, "x86_64") != 0) {
		fprintf(stderr, "hwprof-emu: needs qemu-x86_64 in user mode (got %s%s)\n",
			info->target_name, info->system_emulation ? ", system mode" : "");
		return -1;
	}
	g.period = 20011;
	g.depth = 32;
	g.model = true;
	g.rec_mask = ~0u & ~((1u << HWP_EMU_K_NONE) | (1u << HWP_EMU_K_REP) |
			     (1u << HWP_EMU_K_SYSCALL) | (1u << HWP_EMU_K_TRAP));
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t kl = eq ? (size_t)(eq - a) : strlen(a);
		const char *val = eq ? eq + 1 : "";

#define KEY(k) (kl == sizeof(k) - 1 && !strncmp(a, k, kl))
		if (KEY("out")) {
			snprintf(g.dir, sizeof(g.dir), "%s", val);
		} else if (KEY("period") && parse_u64(val, &v) && v) {
			g.period = v;
		} else if (KEY("jitter") && parse_u64(val, &v) && v <= 100) {
			g.jitter = (unsigned)v;
		} else if (KEY("seed") && parse_u64(val, &v)) {
			g.seed = v;
		} else if (KEY("depth") && parse_u64(val, &v) && v >= 1 && v <= HWP_EMU_MAX_DEPTH &&
			   !(v & (v - 1))) {
			g.depth = (unsigned)v;
		} else if (KEY("kinds") && parse_u64(val, &v)) {
			g.rec_mask = (uint32_t)v;
		} else if (KEY("callstack") && parse_u64(val, &v)) {
			g.callstack = v != 0;
		} else if (KEY("chain") && parse_u64(val, &v)) {
			g.chain = v != 0;
		} else if (KEY("exact") && parse_u64(val, &v)) {
			g.exact = v != 0;
		} else if (KEY("model") && parse_u64(val, &v)) {
			g.model = v != 0;
		} else if (KEY("mem") && parse_u64(val, &v)) {
			g.mem_period = v;
		} else if (KEY("gen") && parse_u64(val, &v) && v < 1u << 20) {
			g.gen = (unsigned)v;
		} else {
			fprintf(stderr, "hwprof-emu: bad plugin argument '%s'\n", a);
			return -1;
		}
#undef KEY
	}
	if (!g.dir[0]) {
		fprintf(stderr, "hwprof-emu: no out=DIR argument\n");
		return -1;
	}
	if (g.dir[0] != '/') { /* the guest may change directory, then fork or exec */
		char *abs = realpath(g.dir, NULL);

		if (abs && strlen(abs) < sizeof(g.dir))
			snprintf(g.dir, sizeof(g.dir), "%s", abs);
		free(abs);
	}
	{ /* QEMU need not keep ARGV after this returns */
		char **copy = calloc((size_t)argc + 1, sizeof(*copy));

		for (int i = 0; copy && i < argc; i++)
			if (!(copy[i] = strdup(argv[i])))
				return -1;
		g.follow.plugin_args = (const char *const *)copy;
		g.follow.nplugin_args = copy ? argc : 0;
	}
	g.follow.gen = g.gen;
	g.follow.dir = g.dir;
	{
		uint32_t all = 1u << HWP_EMU_K_COND | 1u << HWP_EMU_K_JMP | 1u << HWP_EMU_K_CALL |
			       1u << HWP_EMU_K_IJMP | 1u << HWP_EMU_K_ICALL | 1u << HWP_EMU_K_RET |
			       1u << HWP_EMU_K_FAR | 1u << HWP_EMU_K_IRQ | 1u << HWP_EMU_K_ERET;

		const char *nw = getenv("HWPROF_EMU_NOWINDOW"); /* tests: "1" turns it off */

		g.windowed = !g.callstack && !g.chain && (g.rec_mask & all) == all && !(nw && !strcmp(nw, "1"));
		window = (int64_t)g.depth + 1;
	}
	g.debug = getenv("HWPROF_EMU_DEBUG") != NULL;
	if (g.mem_period && !(g.mm = calloc(1, sizeof(*g.mm)))) {
		fprintf(stderr, "hwprof-emu: out of memory for the cache model\n");
		return -1;
	}
	g.hmin = UINT64_MAX;
	g.pid = getpid();
	open_progress();
	if ((err = open_output(0, 0, 0)) < 0) {
		fprintf(stderr, "hwprof-emu: %s/%d.raw: %s\n", g.dir, (int)g.pid, strerror(-err));
		return -1;
	}
	qemu_plugin_register_vcpu_init_cb(id, on_vcpu_init);
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb_trans);
	qemu_plugin_register_vcpu_syscall_cb(id, on_syscall);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, on_syscall_ret);
	qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
	return 0;
}
