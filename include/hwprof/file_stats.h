/* SPDX-License-Identifier: MIT */
/*
 * Whole-file statistics gathered in one pass: records per type, samples per
 * event, branch-stack depth histogram, which branch fields carry data, lost
 * and throttled samples. Memory is fixed whatever the file size.
 */
#ifndef HWPROF_FILE_STATS_H
#define HWPROF_FILE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_data.h"

HWP_BEGIN_DECLS

#define HWP_STATS_MAX_DEPTH 4096 /* > the deepest stack a 64 KiB record holds */
#define HWP_STATS_MAX_EVSELS 64  /* events counted separately */

enum hwp_branch_field {
	HWP_BF_MISPRED,
	HWP_BF_PREDICTED,
	HWP_BF_IN_TX,
	HWP_BF_ABORT,
	HWP_BF_CYCLES,
	HWP_BF_TYPE,
	HWP_BF_SPEC,
	HWP_BF_NEW_TYPE,
	HWP_BF_PRIV,
	HWP_BF_FROM_ZERO, /* entries whose from address is 0 */
	HWP_BF_COUNT,
};

/* The totals of a file: fields are only ever appended (the library owns them). */
struct hwp_file_totals {
	uint64_t records_unknown;
	uint64_t records_compressed_inner; /* records that came out of COMPRESSED* */
	uint64_t samples;
	uint64_t samples_unknown_id;
	uint64_t samples_user, samples_kernel, samples_other; /* by cpumode */
	uint64_t samples_ip_kernel;     /* by address: ip with the top bit set */
	uint64_t samples_with_branches; /* sample_type had BRANCH_STACK */
	uint64_t samples_with_callchain;
	uint64_t branch_entries;
	uint64_t hw_idx_samples;
	uint64_t lost_events;  /* sum of LOST.lost */
	uint64_t lost_samples; /* sum of LOST_SAMPLES.lost */
	uint64_t first_time, last_time; /* UINT64_MAX, 0 when no sample had a time */
	uint64_t bytes;        /* sum of record sizes (data section) */
};

/* Opaque: its tables grow with what it learns to count. */
struct hwp_file_stats;

/* NULL + errno (ENOMEM) and hwp_errmsg(). */
HWP_API struct hwp_file_stats *hwp_file_stats__new(void);
HWP_API void hwp_file_stats__delete(struct hwp_file_stats *st);
/* Back to nothing counted. */
HWP_API void hwp_file_stats__reset(struct hwp_file_stats *st);
HWP_API void hwp_file_stats__add(struct hwp_file_stats *st, const struct hwp_event *ev);

HWP_API const struct hwp_file_totals *hwp_file_stats__totals(const struct hwp_file_stats *st);
/* Records of TYPE (0 for types past HWP_RECORD_TYPE_MAX: see records_unknown). */
HWP_API uint64_t hwp_file_stats__records(const struct hwp_file_stats *st, unsigned type);
/* Samples of the event at reader index IDX (0 past HWP_STATS_MAX_EVSELS). */
HWP_API uint64_t hwp_file_stats__evsel_samples(const struct hwp_file_stats *st, size_t idx);
/* Samples whose branch stack holds DEPTH entries; DEPTH HWP_STATS_MAX_DEPTH
   counts every deeper stack too (0 past it). */
HWP_API uint64_t hwp_file_stats__depth(const struct hwp_file_stats *st, unsigned depth);
/* Branch entries whose field F is non-zero. */
HWP_API uint64_t hwp_file_stats__branch_field(const struct hwp_file_stats *st,
					      enum hwp_branch_field f);
HWP_API const char *hwp_branch_field__name(enum hwp_branch_field f);

HWP_END_DECLS

#endif
