/* SPDX-License-Identifier: MIT */
/*
 * Private declarations shared by the emulated-capture driver's files:
 *   emulate.c       options, the temporary directory, new/finish/delete
 *   emu_qemu.c      qemu and plugin lookup, the program check, spawn, wait
 *   emu_module.c    ELF facts of the modules code ran from (build-id, PT_LOAD),
 *                   and their per-segment mappings for MMAP2
 *   emu_raw.c       decoding the plugin's raw files into time-ordered events
 *   emu_convert.c   events -> perf.data through the writer
 *   emu_exact.c     exact per-branch-site counts (JSON lines)
 */
#ifndef HWPROF_CAPTURE_EMU_INTERNAL_H
#define HWPROF_CAPTURE_EMU_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "emu/emu_raw.h"
#include "hwprof/emulate.h"

struct hwp_writer;

struct hwp_emu {
	struct hwp_emu_opts o;
	char *qemu, *plugin, *prog;
	/* a script as the command: the interpreters the kernel would run, one
	   per level (interp[depth - 1] is the ELF executable QEMU starts), each
	   with its optional argument */
	int depth;
	char interp[4][256], iarg[4][256];
	char dir[PATH_MAX];
	struct hwp_writer *w;
	FILE *exact;
	uint64_t bst;
	uint32_t kinds;
	bool callstack;
	pid_t pid;
	bool waited;
	/* DIR/progress, mapped while qemu runs (NULL when it could not be) */
	const struct hwp_emu_progress_page *progress;
};

/* ------------------------------------------------ emu_qemu.c: the process */

/* Finds qemu, the plugin and the program of S->o (sets s->qemu, s->plugin,
   s->prog); 0 or <0 with the message set. */
int hwp__emu_locate(struct hwp_emu *s);
/* Kills (if still running) and reaps qemu; unmaps the progress page. */
void hwp__emu_reap(struct hwp_emu *s);

/* ------------------------------------------ emu_module.c: ELF facts */

struct hwp__emu_module {
	char *path;
	uint8_t build_id[20];
	uint8_t bid_size;
	struct {
		uint64_t off, vaddr, filesz;
		uint32_t flags; /* p_flags: PF_X 1, PF_W 2, PF_R 4 */
	} load[16];
	unsigned nload;
	bool listed; /* in the BUILD_ID feature */
};

/* Build-id and PT_LOAD segments of M->path (left empty when unreadable). */
void hwp__emu_module_read(struct hwp__emu_module *m);
/* The link-time address of file offset OFF, or -1 outside every PT_LOAD. */
int64_t hwp__emu_module_vaddr(const struct hwp__emu_module *m, uint64_t off);

/* One mapping of a module as the loader makes it: a PT_LOAD segment at its
   load address, page-aligned, with the protection of its p_flags. */
struct hwp__emu_seg {
	uint64_t start, len, pgoff;
	uint32_t prot; /* PROT_READ 1, PROT_WRITE 2, PROT_EXEC 4 */
};

/* The executable PT_LOAD segments of M as mapped in a process where the
   host mapping [START, START+LEN) holds file offset PGOFF at START: fills
   SEGS (room for 16), returns how many; 0 when the mapping holds no
   executable segment of M (not an ELF, unreadable, or inconsistent). */
unsigned hwp__emu_module_segments(const struct hwp__emu_module *m, uint64_t start, uint64_t len,
				  uint64_t pgoff, struct hwp__emu_seg *segs);
/* The same bias, M's writable data segments (memory samples: perf's mmap_data). */
unsigned hwp__emu_module_data_segments(const struct hwp__emu_module *m, uint64_t start, uint64_t len,
				       uint64_t pgoff, struct hwp__emu_seg *segs);

/* ------------------------------------------- emu_raw.c: the raw files */

struct hwp__emu_map {
	uint64_t start, len, pgoff;
	struct hwp__emu_module *mod;
};

struct hwp__emu_proc {
	uint32_t pid, ppid, ptid;
	uint64_t time;
	bool child;
	bool exec;  /* an image exec'd by the process before it (same pid) */
	int parent; /* index of the parent process, -1 when unknown */
	char comm[16];         /* as the kernel names it: the exec'd path's base name */
	const char *exec_path; /* the path of this image's last execve, NULL when none */
	uint8_t *data;
	size_t len;
	struct hwp__emu_map *maps;
	size_t nmaps, cap_maps;
	/* exact: the last complete snapshot (snap), the one being read (tent) */
	const struct hwp_emu_hdr **snap, **tent;
	size_t nsnap, ntent, cap_snap, cap_tent;
	uint64_t tent_id;
	bool in_snap;
	bool has_stats;
	struct hwp_emu_stats stats;
};

struct hwp__emu_ev {
	uint64_t time;
	uint64_t seq;
	uint32_t proc;
	const struct hwp_emu_hdr *r;
};

/* Everything read from the raw directory. */
struct hwp__emu_conv {
	struct hwp_emu *s;
	struct hwp__emu_proc *procs;
	size_t nprocs, cap_procs;
	struct hwp__emu_ev *evs; /* every timed record, in time order once loaded */
	size_t nevs, cap_evs;
	struct hwp__emu_module **mods;
	size_t nmods, cap_mods;
	char comm[16];
};

/* Maps every raw file of C->s->dir and collects its events in time order. */
int hwp__emu_conv_load(struct hwp__emu_conv *c);
void hwp__emu_conv_free(struct hwp__emu_conv *c);
/* The module of PATH, read once; NULL when out of memory. */
struct hwp__emu_module *hwp__emu_conv_module(struct hwp__emu_conv *c, const char *path);
/* Module and file offset of ADDR in process P (or its ancestors, whose maps
   a fork child inherited); MOD NULL and OFF = ADDR when unmapped. */
void hwp__emu_locate_addr(const struct hwp__emu_conv *c, const struct hwp__emu_proc *p,
			  uint64_t addr, const struct hwp__emu_module **mod, uint64_t *off);

/* ------------------------------------- emu_convert.c: perf.data output */

/* Writes the attr, every event and the header features to S->w (left open
   for the caller to close), counting into RES. */
int hwp__emu_convert(struct hwp__emu_conv *c, struct hwp_emu_result *res);

/* ------------------------------------- emu_exact.c: exact counts */

/* Writes the exact per-site counts of every process's last snapshot to
   C->s->exact; *NR_SITES = sites written. */
int hwp__emu_write_exact(struct hwp__emu_conv *c, uint64_t *nr_sites);

/* The plugin's branch-kind mask and call-stack flag for a branch filter; <0 when
   the filter asks for nothing emulation can record (kernel-only). */
int hwp__emu_filter_kinds(uint64_t branch_filter, uint32_t *kinds, bool *callstack);
pid_t hwp__emu_pid(const struct hwp_emu *s);

#endif
