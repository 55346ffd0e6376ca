/* SPDX-License-Identifier: MIT */
/*
 * Unwinding rules cached per module and address: what libdwfl computes
 * for a frame (CFA = register + offset; each register undefined, the
 * same, saved at CFA + offset or CFA + offset itself), taken once from
 * the CFI libdwfl would use (.eh_frame, else .debug_frame) and kept with
 * the binary, so that a frame already seen costs a lookup and a few
 * loads instead of parsing and interpreting its CFI again. x86-64's rbx
 * left unspecified by the CFI is kept (the psABI's rule and perf 6.1's
 * libunwind's), where elfutils' defaults lose it; the libdwfl path
 * carries it the same way (unwind.c). A sample is
 * unwound from rules only when every frame it meets has a plain rule;
 * anything else (CFI expressions, signal frames, no CFI: elfutils' frame-
 * pointer step) leaves the whole sample to libdwfl, which the plain rules
 * reproduce step for step.
 */
#ifndef HWPROF_UNWIND_UNWIND_RULES_H
#define HWPROF_UNWIND_UNWIND_RULES_H

#include "unwind/unwind_internal.h"

struct hwp__rule_cache;

void hwp__rule_cache_delete(struct hwp__rule_cache *rc);

#define HWP__RULES_FALLBACK 100 /* hwp__unwind_rules(): libdwfl must unwind this sample */

/* Unwinds the sample U holds in space SP from rules: the end (enum
   hwp__unwind_stop), HWP__RULES_FALLBACK, or -ENOMEM. */
int hwp__unwind_rules(struct hwp__unwinder *u, struct hwp__space *sp);

/* Whether the CFI row of LOOK (a frame's lookup address, in SM) is a
   signal trampoline's (its caller's pc is exact): 1, 0 or -ENOMEM; and in
   *RBX_KEPT whether its caller's rbx is the frame's own though libdw says
   undefined (x86-64: the row leaves rbx unspecified, see unwind_rules.c). */
int hwp__rule_flags(struct hwp__unwinder *u, struct hwp__smod *sm, uint64_t look, bool *rbx_kept);

#endif
