/* SPDX-License-Identifier: MIT */
/* Internal: profiles of several collectors summed (hwp_pgo__write_sum()). */
#ifndef HWPROF_EXPORT_PROFILE_SUM_H
#define HWPROF_EXPORT_PROFILE_SUM_H

#include <stddef.h>
#include <stdio.h>

#include "hwprof/bolt_profile.h"

/* The sum of the profiles each of CS[0..N) (one symbolizer) would write
   alone, written once: 0 or <0 (hwp_errmsg()). */
int hwp__bolt_profile_write_sum(struct hwp_branch_collector *const *cs, size_t n, int module, enum hwp_bolt_format f,
				FILE *fp);
int hwp__llvm_profile_write_sum(struct hwp_branch_collector *const *cs, size_t n, int module, FILE *fp);

#endif
