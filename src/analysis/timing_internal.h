/* SPDX-License-Identifier: MIT */
/* Internal: what the timing's other files need of it. */
#ifndef HWPROF_ANALYSIS_TIMING_INTERNAL_H
#define HWPROF_ANALYSIS_TIMING_INTERNAL_H

#include "hwprof/timing.h"

/* The session and the collector T was made with. */
struct hwp_session *hwp__timing_session(const struct hwp_timing *t);
struct hwp_branch_collector *hwp__timing_collector(const struct hwp_timing *t);

#endif
