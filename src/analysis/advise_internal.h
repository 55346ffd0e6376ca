/* SPDX-License-Identifier: MIT */
/* Library-private declarations (not exported): the public side is include/hwprof/advise.h. */
#ifndef HWPROF_ANALYSIS_ADVISE_INTERNAL_H
#define HWPROF_ANALYSIS_ADVISE_INTERNAL_H

#include "hwprof/advise.h"

/* The options in effect (defaults filled in). */
const struct hwp_advise_opts *hwp__advisor_opts(const struct hwp_advisor *a);

#endif
