/* SPDX-License-Identifier: MIT */
/*
 * DWARF unwinding of the user stacks perf copies into samples (perf record
 * --call-graph dwarf: PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER), as
 * perf 6.1's report unwinds them: elfutils' libdwfl frame API, with the
 * sample's registers as the initial frame, memory read from the stack copy
 * and, outside it, from the mapped binaries' files; each frame's CFI from
 * .eh_frame, else .debug_frame (of the binary or of its separate debug file
 * found by build-id), else elfutils' frame-pointer step. The first frame
 * is the interrupted pc, each caller's is its return address minus one
 * (perf's entries: the call instruction's function and inline chain).
 *
 * An unwinder is an object of its owner (no global state: a parallel pass
 * gives each worker its own). It reads the thread's maps (hwp_thread__*:
 * the owner keeps them from changing meanwhile) and finds files itself
 * from what the owner gives it once (unwind_env), never the session's
 * symbolizer or resolver. What it keeps so that a long recording does not
 * redo work, where perf starts from scratch for every sample:
 *   - per binary (path + build-id): the files found, opened once;
 *   - per address space: a Dwfl with the modules reported so far (each
 *     when a frame first lands in it) and the CFI elfutils parsed for them;
 *     a frame whose module no longer matches the maps starts it afresh;
 *   - per module and address (unwind_rules.c): the unwinding rule of the
 *     address, taken from the same CFI, so that a frame already seen costs
 *     a lookup and a few loads; a sample whose frames all have a simple
 *     rule (CFA = register + offset, registers saved at CFA + offset) is
 *     unwound from these alone, every other one through libdwfl.
 */
#ifndef HWPROF_UNWIND_UNWIND_H
#define HWPROF_UNWIND_UNWIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/maps.h"
#include "hwprof/perf_data.h"

struct hwp__unwinder;

/* What the owner gives the unwinder once. */
struct hwp__unwind_env {
	/* where binaries and their debug files are found (copied) */
	const char *symfs;
	const char *const *debug_dirs;
	size_t n_debug_dirs;
	/* the recording's build-ids by file name, for maps that carry none
	   (not copied: they must outlive the unwinder) */
	const struct hwp_build_id *build_ids;
	size_t nr_build_ids;
	uint16_t e_machine; /* the recording's architecture (EM_*); 0: the sampled binary's */
	bool no_rules;      /* unwind every sample through libdwfl (tests compare the two) */
};

/* Why a sample's unwinding ended. */
enum hwp__unwind_stop {
	HWP__UNWIND_DONE,        /* the outermost frame, or the depth asked for */
	HWP__UNWIND_NO_REGS,     /* no user registers: a kernel thread's sample, nothing to unwind */
	HWP__UNWIND_NO_STACK,    /* no stack copy (or no pc/sp among the registers) */
	HWP__UNWIND_STACK_SHORT, /* the stack copy ended before the outermost frame */
	HWP__UNWIND_NO_BINARY,   /* a frame in a binary not found, or in memory no file maps */
	HWP__UNWIND_STOPPED,     /* neither CFI nor a frame pointer led further; unreadable memory */
	HWP__UNWIND_ARCH,        /* an architecture or ABI not unwound (32-bit processes) */
	HWP__UNWIND_NSTOPS
};

struct hwp__unwind_stats {
	uint64_t samples;                      /* given to hwp__unwind() */
	uint64_t stops[HWP__UNWIND_NSTOPS];    /* per end */
	uint64_t frames;                       /* frames given */
	uint64_t by_rules;                     /* samples unwound from cached rules alone */
	uint64_t spaces;                       /* Dwfl address spaces set up (again) */
	uint64_t rules;                        /* distinct (module, address) rules made */
	uint64_t stack_size;                   /* the largest stack copy asked for (bytes) */
	char missing[256];                     /* binaries not found, ", "-separated (truncated) */
};

/* NULL + errno (ENOMEM). */
struct hwp__unwinder *hwp__unwinder_new(const struct hwp__unwind_env *env);
void hwp__unwinder_delete(struct hwp__unwinder *u);

/*
 * Unwinds the user stack of sample S (of thread TH, whose maps are read):
 * at most MAX frames into IPS, *N of them (none unless the sample has
 * registers and a stack copy). Returns the end (enum hwp__unwind_stop) or
 * -ENOMEM.
 */
int hwp__unwind(struct hwp__unwinder *u, const struct hwp_sample *s, const struct hwp_thread *th,
		uint64_t *ips, size_t max, size_t *n);

const struct hwp__unwind_stats *hwp__unwinder_stats(const struct hwp__unwinder *u);
/* Adds ST (another unwinder's: a part of a parallel pass) to U's. */
void hwp__unwinder_add_stats(struct hwp__unwinder *u, const struct hwp__unwind_stats *st);

#endif
