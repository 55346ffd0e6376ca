/* SPDX-License-Identifier: MIT */
/*
 * LLVM's sample profile, text form (what llvm-profgen writes from LBR data
 * and clang's -fprofile-sample-use reads), from the collector's fall-through
 * ranges and taken branches of one binary:
 *
 *   function:total:head
 *    offset[.discriminator]: count [callee:count ...]
 *    offset[.discriminator]: inlined_callee:total
 *     offset: count ...                  (the inlined body, one level deeper)
 *
 * offset = source line - the function's DW_AT_decl_line; the discriminator
 * is the base discriminator of the line table's (or, for a call site, of
 * DW_AT_GNU_discriminator). Counting follows llvm-profgen (LBR, no context):
 *   - an instruction's count is the sum of the counts of the ranges holding it;
 *   - a location's count is the MAX over its instructions of their counts;
 *   - a function's (and an inlined call site's) total is the sum over its
 *     instructions of count x instruction bytes;
 *   - head samples: taken call branches whose target is the function's entry;
 *   - call targets: the same calls, at the call instruction's location.
 */
#ifndef HWPROF_LLVM_PROFILE_H
#define HWPROF_LLVM_PROFILE_H

#include <stdio.h>

#include "hwprof/branch_collect.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

/*
 * Writes MODULE's profile from C (collected with opts.ranges, ranges
 * checked) to FP. The module's binary must carry DWARF (-g; clang's
 * -fdebug-info-for-profiling adds the discriminators and decl lines the
 * compiler matches). Functions by total, most first. Returns 0 or <0
 * (hwp_errmsg(): no binary or no debug info, a write failed, ENOMEM).
 */
HWP_API int hwp_llvm_profile__write(struct hwp_branch_collector *c, int module, FILE *fp);

/*
 * The flat profile from IP samples alone (C collected with
 * opts.ip_samples), as AutoFDO's create_llvm_prof writes it without LBR:
 *   - an instruction's count is the samples at it times its duplication
 *     factor; a location's count is the MAX over its instructions; every
 *     line of a sampled function part is listed (0 when no sample hit it);
 *   - a function's (and an inlined call site's) total is the sum of those
 *     counts; head samples are 0 and there are no call targets;
 *   - functions with at most max(10, 5e-6 x the module's samples) samples
 *     are left out.
 * Weaker than a branch profile: counts are sample densities (a long
 * instruction or a stall draws more samples), not executions. A first
 * comment line ('#', which LLVM's reader skips) says so.
 */
HWP_API int hwp_llvm_profile__write_ip_samples(struct hwp_branch_collector *c, int module, FILE *fp);

/*
 * CSSPGO's probe-based profile of a binary built with clang
 * -fpseudo-probe-for-profiling, as llvm-profgen writes it from branch
 * stacks without call stacks (no calling contexts): locations are pseudo
 * probes (index[.discriminator]) instead of lines,
 *   - a probe's count is the sum of the counts of the ranges holding its
 *     instruction (every function a range starts in is walked with 0, so
 *     its probes that never ran say 0); a function's (and an inlined call
 *     site's) total is the sum of its probes' counts;
 *   - head samples: the entry probe's (index 1) count;
 *   - call targets: taken branches to a function's entry from an address
 *     with a call probe, at that probe;
 *   - each function ends with its CFG hash ('!CFGChecksum:') from
 *     .pseudo_probe_desc, which the compiler matches.
 */
HWP_API int hwp_llvm_profile__write_probes(struct hwp_branch_collector *c, int module, FILE *fp);
HWP_END_DECLS

#endif
