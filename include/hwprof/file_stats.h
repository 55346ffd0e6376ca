/* SPDX-License-Identifier: MIT */
/*
 * Whole-file statistics gathered in one pass: records per type, samples per
 * event, branch-stack depth histogram, which branch fields carry data, lost
 * and throttled samples. Memory is fixed whatever the file size.
 */
#ifndef HWPROF_FILE_STATS_H
#define HWPROF_FILE_STATS_H

#include <stdint.h>

#include "hwprof/perf_data.h"

#define HWP_STATS_MAX_DEPTH 4096 /* > the deepest stack a 64 KiB record holds */
#define HWP_STATS_MAX_EVSELS 64

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

struct hwp_file_stats {
	uint64_t records[HWP_RECORD_TYPE_MAX];
	uint64_t records_unknown;
	uint64_t records_compressed_inner; /* records that came out of COMPRESSED* */
	uint64_t samples;
	uint64_t samples_unknown_id;
	uint64_t samples_per_evsel[HWP_STATS_MAX_EVSELS];
	uint64_t samples_user, samples_kernel, samples_other; /* by cpumode */
	uint64_t samples_ip_kernel; /* by address: ip with the top bit set */
	uint64_t samples_with_branches; /* sample_type had BRANCH_STACK */
	uint64_t samples_with_callchain;
	uint64_t depth_hist[HWP_STATS_MAX_DEPTH + 1]; /* last slot: deeper */
	uint64_t branch_entries;
	uint64_t branch_field_nonzero[HWP_BF_COUNT];
	uint64_t hw_idx_samples;
	uint64_t lost_events;  /* sum of LOST.lost */
	uint64_t lost_samples; /* sum of LOST_SAMPLES.lost */
	uint64_t first_time, last_time;
	uint64_t bytes; /* sum of record sizes (data section) */
};

void hwp_file_stats__init(struct hwp_file_stats *st);
void hwp_file_stats__add(struct hwp_file_stats *st, const struct hwp_event *ev);
const char *hwp_branch_field__name(enum hwp_branch_field f);

#endif
