/* SPDX-License-Identifier: MIT */
/*
 * Skid: a non-precise event's interrupt lands some instructions after the
 * one that caused it; a precise one (PEBS, IBS, precise_ip > 0) names the
 * instruction itself. Given a recording with both over the same code, this
 * compares their attribution per source line and estimates the skid: for
 * each non-precise sample, the distance in bytes back to the nearest
 * address the precise event sampled in the same module (at most
 * HWP_SKID_MAX_BYTES; farther or none: "no precise sample before it").
 */
#ifndef HWPROF_SKID_H
#define HWPROF_SKID_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/code_loc.h"
#include "hwprof/hwprof.h"
#include "hwprof/session.h"

HWP_BEGIN_DECLS

#define HWP_SKID_MAX_BYTES 256
/* Distance buckets: 0, 1-3, 4-7, 8-15, 16-31, 32-63, 64-127, 128-256, none. */
#define HWP_SKID_BUCKETS 9

struct hwp_skid_opts {
	size_t sz;          /* sizeof(struct hwp_skid_opts) */
	int precise;        /* evsel index of the precise event; -1: the highest precise_ip */
	int imprecise;      /* evsel index of the other; -1: one with precise_ip 0 */
	/* Threads of the pass: 0 the CPUs available (fewer on a small file), 1
	   one; the result is the same (one file-mode perf.data, not
	   compressed, else one). */
	unsigned jobs;
};

/* One source line (or, without debug info, one instruction). */
struct hwp_skid_line {
	struct hwp_code_loc code;  /* a representative instruction */
	const char *file;          /* NULL: no line info (CODE is the key) */
	unsigned line;
	uint64_t precise, imprecise; /* samples of each event */
};

struct hwp_skid;

/* Reads every sample of S. NULL + errno, hwp_errmsg() (e.g. not two events). */
HWP_API struct hwp_skid *hwp_skid__new(struct hwp_session *s, const struct hwp_skid_opts *opts);
HWP_API void hwp_skid__delete(struct hwp_skid *k);
/* The two events chosen (evsels of the session's reader). */
HWP_API const struct hwp_evsel *hwp_skid__event(const struct hwp_skid *k, int precise);
HWP_API void hwp_skid__totals(const struct hwp_skid *k, uint64_t *precise, uint64_t *imprecise);
/* Lines, by the largest difference of share (imprecise minus precise, in
   absolute value) first. */
HWP_API size_t hwp_skid__lines(struct hwp_skid *k, const struct hwp_skid_line **out);
/* Non-precise samples per distance bucket; LABELS (may be NULL) gets the
   bucket names. Median distance of those with a precise sample before. */
HWP_API const uint64_t *hwp_skid__distribution(const struct hwp_skid *k, const char *const **labels,
					       double *median);

HWP_END_DECLS

#endif
