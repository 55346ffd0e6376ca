/* SPDX-License-Identifier: MIT */
/*
 * What `hwprof record` decides around hwp_attr__build() and hwp_record__run()
 * (hwprof/capture.h) that is not its options: the precise memory event of
 * record --mem put into the attr, why an event could not be opened on this
 * machine, and the previous recording kept as FILE.old. The command says
 * each in terms of its own flags.
 */
#ifndef HWPROF_RECORD_SETUP_H
#define HWPROF_RECORD_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/capture.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

/*
 * The attr options for E's loads event (hwp_mem_events__choose()): its
 * encoding as an event string in BUF (AO->event points there), with the
 * weight and the data address sampled. 0, or -EOPNOTSUPP when E cannot be
 * recorded by hwp_record__run() (Arm SPE writes to an AUX area; no PMU).
 */
HWP_API int hwp_mem_events__attr_opts(const struct hwp_mem_events *e, struct hwp_attr_opts *ao, char *buf,
				      size_t len);
/* After hwp_attr__build() with those options: R's attr gets E's PMU type,
   encoding and ldlat, and its name E's (IBS also samples the RAW registers,
   which hwprof mem decodes). */
HWP_API void hwp_mem_events__apply(const struct hwp_mem_events *e, struct hwp_attr_result *r);

/* Why perf_event_open failed, from the machine's facts (hwprof/probe.h). */
enum hwp_open_failure_kind {
	HWP_OPEN_FAILURE_OTHER = 0,      /* none of these: hwp_errmsg() says it */
	HWP_OPEN_FAILURE_PERMISSION,     /* EACCES/EPERM under perf_event_paranoid */
	HWP_OPEN_FAILURE_SW_BRANCHES,    /* a software event asked for branch stacks */
	HWP_OPEN_FAILURE_NO_BRANCHES,    /* no branch records here: why */
	HWP_OPEN_FAILURE_BRANCH_FILTER,  /* branch records, but not with that filter */
	HWP_OPEN_FAILURE_NO_HW_PMU,      /* a hardware event without a PMU: why */
};

struct hwp_open_failure {
	enum hwp_open_failure_kind kind;
	int paranoid;                 /* perf_event_paranoid (PERMISSION) */
	const char *paranoid_meaning; /* what that level allows (static) */
	bool kernel_branches;         /* the attr asked for kernel branches */
	char why[256];                /* NO_BRANCHES, NO_HW_PMU: the probe's reason */
};

/*
 * Classifies the failure of hwp_record__run() R (phase OPEN) of attr A,
 * probing the machine as `hwprof check` does. 0 (OUT filled; hwp_errmsg()
 * still says run's error), or <0 when the probe fails (hwp_errmsg()).
 */
HWP_API int hwp_record__explain_open(const struct hwp_attr *a, const struct hwp_record_result *r,
				     struct hwp_open_failure *out);

/*
 * Before writing PATH: a non-empty PATH becomes PATH.old, as perf record
 * keeps its previous perf.data; an old PATH.old goes first (a directory only
 * when it holds nothing but perf's data files). "-", a missing or empty PATH
 * (or a device) are left alone. 0, or <0 with hwp_errmsg().
 */
HWP_API int hwp_record__keep_old_output(const char *path);

/*
 * perf record's call-graph MODE, "fp", "dwarf[,SIZE]" or "lbr", into AO
 * (the dwarf stack dump size rounded up to a multiple of 8, as perf does).
 * 0, or <0 (hwp_errmsg(): the mode or the size that is wrong).
 */
HWP_API int hwp_attr_opts__set_callgraph(struct hwp_attr_opts *ao, const char *mode);

/* The recorder's options that come from the built attr AR and HOST: the
   attr, its event's name and precise fallback, perf's cpu-clock fallback
   (when no branch stack was asked for) and the paranoid level. */
HWP_API void hwp_record_opts__set_attr(struct hwp_record_opts *ro, const struct hwp_attr_result *ar,
				       const struct hwp_capture_host *host);

/* The privilege levels among LEVELS (HWP_BRANCH_USER, _KERNEL, _HV) in
   words, "user/kernel/hypervisor", into NAMES, and as event modifiers,
   "ukh", into MODS (each truncated to its length). */
HWP_API void hwp_branch_filter__level_names(uint64_t levels, char *names, size_t nlen, char *mods, size_t mlen);

/* hwp_record__run() with SIGINT and SIGTERM stopping the workload (OPTS's
   stop flag replaced), the handlers before restored at the end. */
HWP_API int hwp_record__run_interruptible(const struct hwp_record_opts *opts, struct hwp_record_result *r);

HWP_END_DECLS

#endif
