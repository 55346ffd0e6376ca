/* SPDX-License-Identifier: MIT */
/* Internal: what other analyses share with the branch collector. */
#ifndef HWPROF_ANALYSIS_BRANCH_COLLECT_INTERNAL_H
#define HWPROF_ANALYSIS_BRANCH_COLLECT_INTERNAL_H

#include "hwprof/branch_collect.h"

struct hwp__code_cache;

/* The collector's instruction cache (ranges already decoded stay decoded),
   made on first use; NULL on ENOMEM. Owned by the collector. */
struct hwp__code_cache *hwp__branch_collector_code_cache(struct hwp_branch_collector *c);

/* The session C reads. */
struct hwp_session *hwp__branch_collector_session(const struct hwp_branch_collector *c);

#endif
