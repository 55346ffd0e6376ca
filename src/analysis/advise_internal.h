/* SPDX-License-Identifier: MIT */
/* Library-private declarations (not exported): the public side is include/hwprof/advise.h. */
#ifndef HWPROF_ANALYSIS_ADVISE_INTERNAL_H
#define HWPROF_ANALYSIS_ADVISE_INTERNAL_H

#include "hwprof/advise.h"

/* The options in effect (defaults filled in). */
const struct hwp_advise_opts *hwp__advisor_opts(const struct hwp_advisor *a);
/* The findings so far, to annotate in place (advise_calls.c). */
struct hwp_finding *hwp__advisor_findings_rw(struct hwp_advisor *a, size_t *n);
/* A copy of S that lives as long as A (NULL: out of memory). */
const char *hwp__advisor_keep(struct hwp_advisor *a, const char *s);

#endif
