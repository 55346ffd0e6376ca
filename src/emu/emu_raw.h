/* SPDX-License-Identifier: MIT */
/*
 * The raw stream the emulation plugin (src/emu/plugin.c, loaded into
 * qemu-x86_64) writes and the driver (src/capture/emulate.c) turns into one
 * perf.data. Shared by both sides; host byte order (both run on one host).
 *
 * One file per guest process: DIR/PID.raw. The file is a sequence of
 * HWP_EMU_CHUNK-byte chunks, written through a MAP_SHARED mapping so that
 * whatever was recorded survives the process being killed (even SIGKILL).
 * Each writer (a vCPU, or the process-wide writer for MMAP/exact records)
 * owns one chunk at a time and appends records to it; a record never spans
 * chunks. A record whose type is 0 ends its chunk (the rest is unused).
 * A record's header is stored last (type with release order), so a record
 * cut short by a kill reads as type 0.
 *
 * Record sizes are multiples of 8. Chunk 0 starts with HWP_EMU_PROC.
 */
#ifndef HWPROF_EMU_RAW_H
#define HWPROF_EMU_RAW_H

#include <stdint.h>

#define HWP_EMU_MAGIC 0x3157524d45505748ULL /* "HWPEMRW1" */
#define HWP_EMU_VERSION 1
#define HWP_EMU_CHUNK (1u << 20)
#define HWP_EMU_MAX_DEPTH 64
/* chain=1: return addresses a sample carries at most (the kernel's default
   perf_event_max_stack, 127 frames, less the sample's ip) */
#define HWP_EMU_MAX_CHAIN 126

enum hwp_emu_rec_type {
	HWP_EMU_PROC = 1,    /* hwp_emu_proc: first record of a file */
	HWP_EMU_SAMPLE,      /* hwp_emu_sample + nr x hwp_emu_entry (+ nchain x u64) */
	HWP_EMU_MMAP,        /* hwp_emu_mmap + NUL-terminated path, padded */
	HWP_EMU_THREAD,      /* hwp_emu_task: a thread was created */
	HWP_EMU_THREAD_EXIT, /* hwp_emu_task: a thread called exit */
	HWP_EMU_EXIT,        /* hwp_emu_task: the process called exit_group */
	HWP_EMU_EXEC,        /* hwp_emu_task + path: execve (not followed) */
	HWP_EMU_EXEC_FAIL,   /* hwp_emu_task: that execve failed */
	HWP_EMU_SNAP_BEGIN,  /* hwp_emu_snap: exact counts follow */
	HWP_EMU_SITE,        /* hwp_emu_site */
	HWP_EMU_TARGET,      /* hwp_emu_target */
	HWP_EMU_SNAP_END,    /* hwp_emu_snap */
	HWP_EMU_STATS,       /* hwp_emu_stats (at exit) */
	HWP_EMU_LOST,        /* hwp_emu_lost: samples dropped (no space) */
	HWP_EMU_MEM,         /* hwp_emu_mem: a sampled load or store (mem=N) */
};

/* Branch kinds: the plugin classifies each TB's last instruction. */
enum hwp_emu_kind {
	HWP_EMU_K_NONE = 0, /* no branch: the TB ended for another reason */
	HWP_EMU_K_COND,     /* jcc, loop*, jrcxz */
	HWP_EMU_K_JMP,      /* jmp rel */
	HWP_EMU_K_CALL,     /* call rel */
	HWP_EMU_K_IJMP,     /* jmp r/m, far jmp */
	HWP_EMU_K_ICALL,    /* call r/m, far call */
	HWP_EMU_K_RET,      /* ret, ret imm16 */
	HWP_EMU_K_SYSCALL,  /* syscall, sysenter */
	HWP_EMU_K_TRAP,     /* int, int3, into */
	HWP_EMU_K_REP,      /* rep-prefixed string instruction (loops to itself) */
	HWP_EMU_K_FAR,      /* iret, retf, sysret: returns the plugin cannot predict */
	HWP_EMU_K_IRQ,      /* pseudo: asynchronous entry (signal delivery) */
	HWP_EMU_K_ERET,     /* pseudo: return from a signal handler (rt_sigreturn) */
	HWP_EMU_K_COUNT,
};

struct hwp_emu_hdr {
	uint32_t type;
	uint32_t size; /* whole record, header included */
};

#define HWP_EMU_PROC_CHILD 1u /* created by fork */
#define HWP_EMU_PROC_EXEC 2u  /* an image exec'd by a process recorded before (same pid) */

struct hwp_emu_proc {
	struct hwp_emu_hdr h;
	uint64_t magic;
	uint32_t version;
	uint32_t flags;
	uint32_t pid, ppid; /* ppid: the recorded parent (0 for the first process) */
	uint32_t ptid, depth;
	uint64_t time;   /* CLOCK_MONOTONIC ns */
	uint64_t period; /* taken branches per sample */
	uint64_t guest_base;
};

struct hwp_emu_entry {
	uint64_t from, to, flags; /* flags: perf_branch_entry's third word */
};

struct hwp_emu_sample {
	struct hwp_emu_hdr h;
	uint32_t tid, vcpu;
	uint64_t time;
	uint64_t ip;
	uint64_t period;
	uint32_t nr;
	uint32_t nchain; /* chain=1: return addresses after the entries, else 0 */
	uint64_t hw_idx;
	/* struct hwp_emu_entry entries[nr], newest first;
	   uint64_t chain[nchain]: the shadow call stack's return addresses,
	   innermost first */
};

/* A sampled memory access: its instruction, data address, and what the
   modelled cache hierarchy (mem_model.h) made of it. */
struct hwp_emu_mem {
	struct hwp_emu_hdr h;
	uint32_t tid, vcpu;
	uint64_t time;
	uint64_t ip, addr;
	uint64_t period;   /* memory accesses since the previous sample */
	uint64_t data_src; /* perf_mem_data_src */
	uint32_t latency;  /* modelled cycles */
	uint32_t pad;
};

struct hwp_emu_mmap {
	struct hwp_emu_hdr h;
	uint32_t tid, prot;
	uint64_t time;
	uint64_t start, len, pgoff; /* guest addresses */
	uint64_t ino;
	uint32_t maj, min;
	uint32_t flags, pad;
	/* char path[] */
};

struct hwp_emu_task {
	struct hwp_emu_hdr h;
	uint32_t tid, ptid;
	uint64_t time;
	/* HWP_EMU_EXEC: char path[] */
};

struct hwp_emu_snap {
	struct hwp_emu_hdr h;
	uint64_t id; /* snapshots are cumulative: the last complete one counts */
	uint64_t nr_sites;
};

struct hwp_emu_site {
	struct hwp_emu_hdr h;
	uint64_t addr; /* guest address of the branch instruction */
	uint64_t executed, taken;
	uint32_t kind, pad;
};

struct hwp_emu_target {
	struct hwp_emu_hdr h;
	uint64_t site, target, count;
};

struct hwp_emu_stats {
	struct hwp_emu_hdr h;
	uint64_t taken, samples, async, lost;
	uint64_t mem_accesses; /* loads and stores seen (mem=N), for the period arithmetic */
};

struct hwp_emu_lost {
	struct hwp_emu_hdr h;
	uint64_t time, count;
};

/*
 * DIR/progress: one page the driver creates before qemu starts. Every guest
 * process (fork children inherit the shared mapping) and thread adds to it
 * at each sample (atomically), so that the driver can show how far the
 * recording got while it runs; the raw files stay the record.
 */
#define HWP_EMU_PROGRESS_FILE "progress"
struct hwp_emu_progress_page {
	uint64_t samples;
	uint64_t taken; /* the periods of those samples */
};

#endif
