/* SPDX-License-Identifier: MIT */
/*
 * llvm-profgen 19's post-processing of the flat context-sensitive profile
 * (its CSProfileGenerator::postProcessProfiles()), in its order:
 *   - the profile summary of the profiles merged per function (LLVM's
 *     default cutoffs): hot count threshold the 99% entry's minimum
 *     count, cold the 99.9999% one's;
 *   - cold-context merge (when asked): each context profile whose total is
 *     under the hot threshold merged into the base profile [f] of its leaf
 *     function (llvm-profgen's --csprof-merge-cold-context, on when the
 *     pre-inliner is off);
 *   - the nested profile (--gen-cs-nested-profile): the contexts as a trie
 *     of (call site, function) frames, children in the order of LLVM's
 *     call-site hash (the MD5 of the name + 33 x the site); bottom up, each
 *     profile goes under its caller's profile at its call site (its call
 *     target count and as much of the site's count removed from the caller)
 *     or, when the caller has no profile, is merged into the top-level
 *     profile of its function (the first merged gives the attributes);
 *   - functions named __cxx_global_var_init* or __tls_init* dropped;
 *   - profiles by total, most first, then by name.
 */
#ifndef HWPROF_EXPORT_CS_NEST_H
#define HWPROF_EXPORT_CS_NEST_H

#include <stdbool.h>
#include <stdio.h>

#include "export/cs_samples.h"

struct hwp__cs_summary {
	uint64_t hot, cold, p10; /* the 99%, 99.9999% and 10% entries' minimum counts */
};

/* The summary of the flat profiles V[0..N) merged per function. 0 or -ENOMEM. */
int hwp__cs_summary(const struct hwp__cs_flat *v, size_t n, struct hwp__cs_summary *s);

/* Merges the profiles of V[0..*N) whose total is under HOT into base
   profiles [f], in place. 0 or -ENOMEM. */
int hwp__cs_merge_cold(struct hwp__cs_flat **v, size_t *n, uint64_t hot);

/* Writes V[0..N) as a nested profile to FP (the profiles are consumed:
   freed or moved). 0 or <0 (hwp_errmsg()). */
int hwp__cs_write_nested(struct hwp__cs_flat *v, size_t n, char *const *names, FILE *fp);

void hwp__cs_flats_free(struct hwp__cs_flat *v, size_t n);

#endif
