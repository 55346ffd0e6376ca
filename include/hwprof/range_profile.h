/* SPDX-License-Identifier: MIT */
/*
 * Fall-through ranges and taken branches of one binary as the text profiles
 * that PGO tools read:
 *   - AutoFDO's unsymbolized text, as 'simpleperf inject' writes it and
 *     create_llvm_prof / create_gcov read: three sections (range counts,
 *     address counts, branch counts), addresses relative to the first
 *     loadable segment;
 *   - llvm-profgen's unsymbolized profile ('--skip-symbolization' output,
 *     '--unsymbolized-profile' input): two sections (range and branch
 *     counts), addresses relative to the first executable segment's page.
 */
#ifndef HWPROF_RANGE_PROFILE_H
#define HWPROF_RANGE_PROFILE_H

#include <stdio.h>

#include "hwprof/branch_collect.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

enum hwp_range_format {
	HWP_RANGE_FORMAT_AUTOFDO,
	HWP_RANGE_FORMAT_PROFGEN,
	/* AutoFDO's text from IP samples alone (C collected with
	   opts.ip_samples): empty range and branch sections, every sample
	   address counted (what create_llvm_prof --use_lbr=false reads) */
	HWP_RANGE_FORMAT_AUTOFDO_IPS,
};

/*
 * Writes MODULE's profile from C (collected with opts.ranges, ranges
 * checked) to FP. AutoFDO: ranges, sample addresses and branches with both
 * ends in MODULE. llvm-profgen: ranges, and branches whose target is in
 * MODULE (a source elsewhere is written as llvm-profgen writes its
 * "external" address, 1 minus the base). Sorted by address. Returns 0 or <0
 * (hwp_errmsg(): the module's binary is missing, a write failed, ENOMEM).
 */
HWP_API int hwp_range_profile__write(struct hwp_branch_collector *c, int module, enum hwp_range_format f,
				     FILE *fp);

/*
 * The module a profile is for when none is named: of the modules with
 * ranges, the program (not a shared library) with the most range counts,
 * else the module with the most (with no branch stack at all: of the
 * modules sampled, with opts.ip_samples). -ENOENT when no range was counted.
 */
HWP_API int hwp_range_profile__default_module(struct hwp_branch_collector *c);
/* The module whose path, base name or build-id (hex) is NAME, among those
   in C's branch table; -ENOENT (hwp_errmsg() names a few) when none. */
HWP_API int hwp_range_profile__find_module(struct hwp_branch_collector *c, const char *name);

/*
 * The module whose build-id is that of the ELF file PATH (the binary a
 * profile is for), among the branches' (with no branch stack at all: the
 * sampled addresses', with opts.ip_samples). -ENOENT when PATH is no ELF file or has no build-id,
 * -ESTALE when the recording's module of the same base name has another
 * build-id (hwp_errmsg() names both), -ENOENT when no module matches.
 */
HWP_API int hwp_range_profile__module_for_file(struct hwp_branch_collector *c, const char *path);

/*
 * Where the ELF file PATH was loaded when C's recording holds no mapping
 * for it (perf script text has no mmap events; a process attached to late
 * may miss some): the load bias (link-time address + bias = run-time
 * address; 0 for a program linked at fixed addresses) at which the hottest
 * taken branches outside every recorded map land on PATH's branch
 * instructions, and direct ones on their targets. *MATCHED and *TRIED:
 * counts of the scored branches that agree / that fall in the binary.
 * Give the bias to hwp_session__assume_mapped() and read again.
 * -ENOENT (hwp_errmsg()) when no bias explains them (another binary ran).
 */
HWP_API int hwp_range_profile__infer_load_bias(struct hwp_branch_collector *c, const char *path,
					       uint64_t *bias, uint64_t *matched, uint64_t *tried);

HWP_END_DECLS

#endif
