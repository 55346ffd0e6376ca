/* SPDX-License-Identifier: MIT */
/*
 * BOLT profiles of one binary from the collector's taken-branch and
 * fall-through range tables:
 *   - fdata, as perf2bolt writes it: one line per edge,
 *     "1 FUNC OFF 1 FUNC OFF MISPREDS COUNT" (a side outside every
 *     function: "0 [unknown] 0"); taken branches (returns left out, as
 *     perf2bolt ignores them) and the fall-through edges of the basic
 *     blocks each range runs over (from the block's last instruction to
 *     the next block, mispredicts 0), summed per edge;
 *   - pre-aggregated text, as 'perf2bolt --pa' reads it: "B FROM TO COUNT
 *     MISPREDS" per taken branch and "F START END COUNT" per range ("f"
 *     when the range likely began with a return from outside the function),
 *     link-time addresses in hex; 0 for an address outside the binary.
 */
#ifndef HWPROF_BOLT_PROFILE_H
#define HWPROF_BOLT_PROFILE_H

#include <stdio.h>

#include "hwprof/branch_collect.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

enum hwp_bolt_format {
	HWP_BOLT_FORMAT_FDATA,
	HWP_BOLT_FORMAT_PREAGG,
	/* fdata from IP samples alone (C collected with opts.ip_samples), as
	   'perf2bolt -nl' writes it: "no_lbr EVENT: ..." then "1 FUNC OFF
	   COUNT" per sampled address. Weaker than branch fdata: no edges,
	   no calls; BOLT spreads the sample counts over blocks. */
	HWP_BOLT_FORMAT_NO_LBR,
};

/*
 * Writes MODULE's BOLT profile from C (collected with opts.ranges, ranges
 * checked; HWP_BOLT_FORMAT_NO_LBR: with opts.ip_samples) to FP. Returns 0 or <0 (hwp_errmsg(): the binary is missing or
 * has no symbol table, a write failed, ENOMEM).
 */
HWP_API int hwp_bolt_profile__write(struct hwp_branch_collector *c, int module, enum hwp_bolt_format f,
				    FILE *fp);

HWP_END_DECLS

#endif
