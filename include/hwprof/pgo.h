/* SPDX-License-Identifier: MIT */
/*
 * The profile of one binary that a PGO tool reads, in any of the formats
 * of llvm_profile.h, bolt_profile.h and range_profile.h, chosen by name:
 * what to collect for it, which module it is for (a binary the recording
 * has no mapping for placed where its code explains the branches), and
 * writing it from branch stacks or, without them, from IP samples; also
 * from a fleet's rows (fleet.h) instead of a recording.
 */
#ifndef HWPROF_PGO_H
#define HWPROF_PGO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hwprof/branch_collect.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

struct hwp_export;
struct hwp_symbolizer;

enum hwp_pgo_format {
	HWP_PGO_LLVM,     /* LLVM's sample profile (text), as llvm-profgen writes it */
	HWP_PGO_BOLT,     /* BOLT's fdata, as perf2bolt writes it */
	HWP_PGO_BOLT_PA,  /* BOLT's pre-aggregated text (B and F lines) */
	HWP_PGO_AUTOFDO,  /* AutoFDO's unsymbolized text */
	HWP_PGO_PROPELLER, /* Propeller's cluster file (propeller.h; the symbol order: hwp_propeller__write()) */
	HWP_PGO_LLVM_CS,  /* CSSPGO's probe-based sample profile (text), as llvm-profgen writes it */
	HWP_PGO_NR_FORMATS,
};

/* "llvm", "bolt", "bolt-pa", "autofdo", "propeller", "llvm-cs"; NULL past the last. */
HWP_API const char *hwp_pgo__format_name(enum hwp_pgo_format f);

/* The collector options format F needs: ranges, the samples' addresses
   (AutoFDO's address section) and the IPs of samples without a stack
   (ALL_IPS: of every sample). */
HWP_API void hwp_pgo__collect_opts(enum hwp_pgo_format f, bool all_ips, struct hwp_branch_collect_opts *co);

/* After the read: whether the profile is one of IP samples, C having
   counted some and no branch entry at all (or ALL_IPS asked for them). */
HWP_API bool hwp_pgo__ip_profile(const struct hwp_branch_collector *c, bool all_ips);

/* What an IP-sample profile in F lacks against one from branch stacks, in
   words (static). */
HWP_API const char *hwp_pgo__ip_samples_lack(enum hwp_pgo_format f);

/* Where hwp_pgo__binary_module() would place a binary with no mapping. */
struct hwp_pgo_placement {
	uint64_t bias;            /* load bias (hwp_session__assume_mapped()) */
	uint64_t matched, tried;  /* the scored branches that agree / that fall in it */
};

/*
 * The module of the ELF file BINARY in C (hwp_range_profile__module_for_file()).
 * When the recording has no mapping for it but branches outside every map,
 * and BINARY's code explains them: -EAGAIN, *PL says where; read the
 * recording again after hwp_session__assume_mapped(s, BINARY, PL->bias)
 * and ask again. Else the module, or <0 (hwp_errmsg()).
 */
HWP_API int hwp_pgo__binary_module(struct hwp_branch_collector *c, const char *binary,
				   struct hwp_pgo_placement *pl);

/* Writes MODULE's profile in format F from C to FP: from IP samples when
   IPS (hwp_pgo__ip_profile(); not for propeller, which needs branch
   stacks). 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_pgo__write(struct hwp_branch_collector *c, int module, enum hwp_pgo_format f, bool ips, FILE *fp);
/* The same to the file PATH (NULL or "-": stdout). */
HWP_API int hwp_pgo__write_file(struct hwp_branch_collector *c, int module, enum hwp_pgo_format f, bool ips,
				const char *path);
/*
 * The sum of the profiles in format F (llvm, bolt, bolt-pa) that each
 * collector of CS[0..N) (one symbolizer; MODULE in it) would make alone,
 * written once to PATH (NULL or "-": stdout): what llvm-profdata merge or
 * merge-fdata makes of them. Not the profile of the collectors' summed
 * counts: each format keeps a location's largest count (llvm) or splits a
 * range's count by where the branches into it came from (bolt), per
 * recording. 0 or <0 (hwp_errmsg()).
 */
HWP_API int hwp_pgo__write_sum(struct hwp_branch_collector *const *cs, size_t n, int module, enum hwp_pgo_format f,
			       const char *path);

/*
 * The rows of E (every module's, summed over hosts: a profile counts
 * branches into the binary from others too) as the collector a recording
 * of them would make, named NAME, with *MODULE the module of BUILD_ID (hex).
 * NULL + errno: ENOENT when no row has that build-id, else hwp_errmsg().
 * Free with hwp_branch_collector__delete().
 */
HWP_API struct hwp_branch_collector *hwp_pgo__rows_collector(const struct hwp_export *e, struct hwp_symbolizer *sym,
							     const char *name, const char *build_id, int *module);

HWP_END_DECLS

#endif
