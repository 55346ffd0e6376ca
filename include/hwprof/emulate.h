/* SPDX-License-Identifier: MIT */
/*
 * Emulated branch-stack capture: runs a program under qemu-x86_64 with
 * hwprof's TCG plugin (hwprof-emu.so) and turns what the plugin recorded
 * into one perf.data (and, optionally, exact per-branch-site counts).
 *
 *   s = hwp_emu__new(&opts);       checks qemu, the plugin, the program, the
 *                                  outputs (nothing runs yet)
 *   hwp_emu__start(s);             starts qemu (returns its pid)
 *   hwp_emu__wait(s, &res);        waits for it (call again after EINTR;
 *                                  hwp_emu__progress() says how far it got)
 *   hwp_emu__finish(s, &res);      writes perf.data (+ the exact counts)
 *   hwp_emu__delete(s);            removes the temporary files
 *
 * The library never prints and installs no signal handler: a caller that
 * wants Ctrl-C to stop the program (and still get a file) forwards signals
 * to hwp__emu_pid().
 */
#ifndef HWPROF_EMULATE_H
#define HWPROF_EMULATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

#define HWP_EMU_DEFAULT_PERIOD 20011 /* taken branches per sample */
#define HWP_EMU_DEFAULT_DEPTH 32
#define HWP_EMU_DEFAULT_MEM_PERIOD 1009 /* memory accesses per sample (--mem) */

struct hwp_emu_opts {
	size_t sz;               /* sizeof(struct hwp_emu_opts) */
	const char *output;      /* perf.data path (NULL: "perf.data") */
	uint64_t period;         /* taken branches per sample (0: default) */
	unsigned jitter;         /* +-percent of the period, 0..100 */
	unsigned depth;          /* 8, 16, 32 or 64 (0: default) */
	uint64_t branch_filter;  /* HWP_BRANCH_* (0: any, user) */
	const char *exact;       /* exact per-site counts (JSON lines), or NULL */
	const char *qemu;        /* NULL: $HWPROF_QEMU, else qemu-x86_64 in PATH */
	const char *plugin;      /* NULL: $HWPROF_EMU_PLUGIN, else hwprof-emu.so next to
				    /proc/self/exe, else in its ../lib/hwprof/ */
	int argc;                /* the program and its arguments */
	char *const *argv;
	int cmdline_argc;        /* the CMDLINE header feature (NULL: built from opts) */
	const char *const *cmdline;
	bool lbr_callchain;      /* --call-graph lbr: samples also carry CALLCHAIN
				    (PERF_CONTEXT_USER, ip), which perf completes
				    from the call-stack branch stack */
	/* Memory samples instead of branch stacks: every MEM_PERIOD-th load or
	   store of each thread, with its data address, and the data source and
	   latency of a modelled cache hierarchy (src/emu/mem_model.h; event
	   "mem:modelled", sample_type IP|TID|TIME|ADDR|CPU|PERIOD|DATA_SRC|
	   WEIGHT). 0: branch stacks as usual. */
	uint64_t mem_period;
	/* record -g: samples also carry CALLCHAIN (PERF_CONTEXT_USER, ip, then
	   the return addresses of the calls in progress, innermost first, from
	   the plugin's shadow call stack: exact, frame pointers or not), next
	   to the branch stack, as perf record -b -g writes them */
	bool callchain;
	/* --seed: where the period jitter's random draws start (each thread's
	   from this and its number), so that a recording can be made again
	   sample for sample; 0: from the clock, different every time */
	uint64_t seed;
};

struct hwp_emu_result {
	size_t sz; /* sizeof(struct hwp_emu_result): set by the caller */
	/* how the program ended */
	bool exited;
	int exit_status;
	int term_signal;          /* when killed */
	/* what was recorded */
	uint64_t samples, taken, lost, async;
	uint64_t nr_processes, nr_threads;
	uint64_t nr_execs;        /* execve calls whose new image ran unrecorded (not
				     x86-64, or a form not followed: see hwprof-record(1)) */
	uint64_t nr_sites;        /* exact: branch sites written */
	uint64_t bytes;           /* size of perf.data */
	uint64_t mem_accesses;    /* memory mode: loads and stores emulated */
	bool stats_missing;       /* a process ended without its final counts
				     (killed): the file has what was recorded */
	uint64_t nr_execs_followed; /* execve calls whose new image was recorded */
};

struct hwp_emu;

/* perf record --call-graph lbr in O: the call-stack branch mode (with no
   filter given, user branches without cycles nor flags, with hw_index) and
   samples carrying a callchain that perf completes from the branch stack. */
HWP_API void hwp_emu_opts__lbr_call_stack(struct hwp_emu_opts *o);

/* NULL + errno and hwp_errmsg() ("qemu-x86_64 not found: install qemu-user"). */
HWP_API struct hwp_emu *hwp_emu__new(const struct hwp_emu_opts *opts);
/* Starts qemu; returns its pid, or <0 (hwp_errmsg()). */
HWP_API pid_t hwp_emu__start(struct hwp_emu *s);
/* 0 when qemu ended (RES says how), -EINTR when interrupted, <0 on error. */
HWP_API int hwp_emu__wait(struct hwp_emu *s, struct hwp_emu_result *res);
/* How far a running recording got (for a progress display): samples so far
   and the taken branches of their periods; zeros when unknown. 0 or <0. */
struct hwp_emu_progress {
	size_t sz; /* sizeof(struct hwp_emu_progress): set by the caller */
	uint64_t samples, taken;
};
HWP_API int hwp_emu__progress(const struct hwp_emu *s, struct hwp_emu_progress *p);
/* Converts the recording; 0 or <0. Works on whatever was recorded. */
HWP_API int hwp_emu__finish(struct hwp_emu *s, struct hwp_emu_result *res);
HWP_API void hwp_emu__delete(struct hwp_emu *s);

/* How hwp_emu__run() reports while the workload runs. */
struct hwp_emu_run_opts {
	size_t sz;         /* sizeof(struct hwp_emu_run_opts) */
	unsigned tick_ms;  /* call PROGRESS this often (0: never) */
	/* P: the counters so far, SECS since the start; a last call with P NULL
	   once the workload ended, before the recording is converted. Runs
	   outside any signal handler. */
	void (*progress)(void *arg, const struct hwp_emu_progress *p, double secs);
	void *arg;
};
/*
 * hwp_emu__start(), hwp_emu__wait() and hwp_emu__finish() in one call, the
 * first SIGINT, SIGTERM or SIGHUP meanwhile sent on to the workload as
 * SIGTERM (what was recorded is still written), as perf record does; the
 * handlers before are restored. With progress calls, a SIGALRM interval
 * timer runs while waiting (SIGALRM's handler restored too). OPTS may be
 * NULL. 0 (RES says how the program ended and what was written) or <0
 * (hwp_errmsg()).
 */
HWP_API int hwp_emu__run(struct hwp_emu *s, const struct hwp_emu_run_opts *opts, struct hwp_emu_result *res);

HWP_END_DECLS

#endif
