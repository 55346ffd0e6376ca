/* SPDX-License-Identifier: MIT */
/*
 * The address contexts of the virtual unwinder (cs_unwind.h) made into
 * CSSPGO's probe-based context-sensitive profile, flat (one profile per
 * context, "[main:6 @ run:5 @ step]:total:head"), as llvm-profgen 19's
 * CSProfileGenerator makes it before its pre-inliner, cold-context merge
 * and nesting:
 *   - a context's call sites become the call probes' inline contexts
 *     (main:6 @ run:5), from the innermost site out to the first site
 *     without a call probe; an inline site of index 0 drops what came
 *     before it;
 *   - each block probe with a count (the sum of the ranges holding its
 *     instruction) lands in the profile of that context plus its own
 *     inline context (recursion compressed), whose leaf function's CFG hash
 *     it carries and which is marked "!Attributes: 1" when the probe's
 *     function was inlined; the entry probe's count is the head samples
 *     and, in an inlined function, a call of the caller's site;
 *   - every probe of a function node with a count is listed (0 if none);
 *   - a branch from a call probe's address counts on that probe, with the
 *     target function (its DWARF entry) as call target.
 */
#ifndef HWPROF_EXPORT_CS_CONTEXT_H
#define HWPROF_EXPORT_CS_CONTEXT_H

#include <stdio.h>

struct hwp__cs_binary;
struct hwp__cs_contexts;

enum hwp__cs_stage {
	HWP__CS_FLAT,           /* as above */
	HWP__CS_NESTED_MERGED,  /* cold contexts merged, nested (cs_nest.h): --csspgo-preinliner=0 */
	HWP__CS_NESTED,         /* nested, no merge: --csspgo-preinliner=0 --csprof-merge-cold-context=0 */
	HWP__CS_PREINLINED,     /* pre-inlined (cs_preinline.h), nested: llvm-profgen's defaults */
};

/* Writes the profile of PATH (with pseudo probes and DWARF) from CS. 0 or <0 (hwp_errmsg()). */
int hwp__cs_write_probe_profile(const struct hwp__cs_contexts *cs, const struct hwp__cs_binary *bin,
				const char *path, enum hwp__cs_stage stage, FILE *fp);

#endif
