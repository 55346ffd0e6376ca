/* SPDX-License-Identifier: MIT */
/*
 * Internal: a parallel pass over a session (parallel_pass.c). Whatever it
 * counts comes in parts, one per thread, each adding its share of the
 * samples; at the end the parts merge into what adding every sample in
 * order would have made.
 */
#ifndef HWPROF_SESSION_PARALLEL_PASS_H
#define HWPROF_SESSION_PARALLEL_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/session.h"

struct hwp__resolver;
struct hwp__module_ids;

/* A place in the sequential order: sample SEQ's I-th thing (entry, row
   made...), I < 2^20. */
#define HWP__COLLECT_POS(seq, i) ((uint64_t)(seq) << 20 | (i))

/* The CPUs this process may run on (at least 1). */
unsigned hwp__cpus_available(void);

/* Threads for S when none are asked: the CPUs available, fewer for a small
   input (at least 1). */
unsigned hwp__default_jobs(struct hwp_session *s);

/* Why S cannot be read in parallel (several inputs, text, a pipe,
   compressed records: what does not stay mapped), NULL when it can. */
const char *hwp__parallel_refusal(struct hwp_session *s);

/*
 * The threads to read S on, JOBS asked (0: the default), and REFUSAL the
 * caller's own reason to read on one (NULL: none); 1 when one. Says which
 * and why at HWP_LOG_INFO.
 */
unsigned hwp__parallel_jobs(struct hwp_session *s, unsigned jobs, const char *refusal);

/*
 * What a pass counts. A part resolves through RES only (its own module
 * numbers: session/module_ids.h) and never changes the session or the
 * symbolizer: parts run at once. ADD gets the samples of its share in
 * order, SEQ each one's number in the sequential order. MERGE runs on the
 * reading thread once every sample is added and the parts' modules are
 * registered in the symbolizer in the sequential order; it must make
 * exactly what adding every sample in order would have made.
 */
struct hwp__parallel_ops {
	void *ctx;
	void *(*part_new)(void *ctx, struct hwp__resolver *res);
	int (*add)(void *part, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq);
	int (*merge)(void *ctx, void *const *parts, struct hwp__module_ids *const *ids, size_t n);
	void (*part_delete)(void *part);
	/* the samples of one IP to one part where it can, on enough threads
	   (parallel_pass.c's ROUTE_MIN_PARTS): what the parts make per IP is
	   then made once, not by each part */
	bool route_by_ip;
};

/*
 * Reads every record of S on JOBS threads (>= 2, this one included), the
 * samples counted by OPS's parts. S must be one file-mode input whose
 * records stay mapped (hwp__parallel_refusal()). 0 or <0 (hwp_errmsg():
 * the error the sequential pass would have met first).
 */
int hwp__parallel_pass(struct hwp_session *s, const struct hwp__parallel_ops *ops, unsigned jobs);

#endif
