/* SPDX-License-Identifier: MIT */
/*
 * CSSPGO's context-sensitive profile of one binary built with clang
 * -fpseudo-probe-for-profiling, from samples that carry a call chain and a
 * branch stack at once (perf record -b -g, hwprof record --emulate -g), as
 * llvm-profgen 19 makes it from `perf script -F ip,brstack` of such a
 * recording:
 *   - each sample's call stack in the binary's link-time addresses (a frame
 *     outside the binary is one "external" frame; a frame above the leaf
 *     is the call before its return address; a sample whose leaf is in a
 *     prolog or an epilog is dropped), its leaf the newest branch's target;
 *   - the branch stack unwound against it, newest entry first: the
 *     fall-through ranges and the branches counted under the call sites
 *     that led to them (the calling context), contexts cut at external
 *     frames, recursion compressed.
 */
#ifndef HWPROF_CS_PROFILE_H
#define HWPROF_CS_PROFILE_H

#include <stdio.h>

#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

enum hwp_cs_format {
	/* llvm-profgen --skip-symbolization: per context "[0x250 @ 0x1da]",
	   range and branch counts, addresses relative to the first executable
	   segment's page */
	HWP_CS_FORMAT_UNSYMBOLIZED,
	/* the probe-based profile, one flat profile per calling context
	   ("[main:6 @ run:5 @ step]:total:head", probes as in
	   hwp_llvm_profile__write_probes()), as llvm-profgen 19 writes it with
	   --csspgo-preinliner=0 --gen-cs-nested-profile=0
	   --csprof-merge-cold-context=0 */
	HWP_CS_FORMAT_PROBES_FLAT,
	/* the same profiles nested (contexts inside their callers' profiles
	   at the call sites, the others top-level) after cold contexts (total
	   under the profile summary's hot threshold) are merged into their
	   functions' base profiles, as llvm-profgen 19 writes them with
	   --csspgo-preinliner=0 */
	HWP_CS_FORMAT_PROBES_NESTED,
	/* llvm-profgen 19's default: the pre-inliner decides which contexts
	   stay (to be inlined, "!Attributes: 2") and merges the others into
	   base profiles, then the profile is nested */
	HWP_CS_FORMAT_PROBES,
};

struct hwp_cs_opts {
	size_t sz;         /* sizeof(struct hwp_cs_opts) */
	const char *symfs; /* as hwp_session_opts.symfs */
	enum hwp_cs_format format;
};

/*
 * Reads the recordings INPUTS[0..N) and writes the profile of BINARY (the
 * ELF file, with its .symtab; DWARF for prologs) to FP. Samples without a
 * call chain or a branch stack are skipped. 0 or <0 (hwp_errmsg(): no
 * sample with both, the binary unreadable, a write failed, ENOMEM).
 */
HWP_API int hwp_cs_profile__write(const char *const *inputs, size_t n, const char *binary,
				  const struct hwp_cs_opts *o, FILE *fp);

HWP_END_DECLS

#endif
