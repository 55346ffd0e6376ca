/* SPDX-License-Identifier: MIT */
/*
 * llvm-profgen's virtual unwinder for samples that carry a call stack and
 * a branch stack (hybrid samples), for probe-based (CSSPGO) profiles: the
 * branch stack is walked from the newest entry to the oldest against the
 * call stack, which each entry changes (a call pops the leaf frame, a
 * return pushes the frame of the return's call, another branch moves the
 * leaf), and the fall-through range before each entry and the entry
 * itself are counted on the leaf's *parent* frame, i.e. under the call
 * sites that led there. Frames outside the binary ("external") cut the
 * context; recursion is compressed (adjacent repeated sequences of call
 * sites kept once). What comes out is llvm-profgen --skip-symbolization's
 * context-sensitive text: per context, range and branch counts.
 */
#ifndef HWPROF_EXPORT_CS_UNWIND_H
#define HWPROF_EXPORT_CS_UNWIND_H

#include <stdint.h>
#include <stdio.h>

#include "util/hashmap.h"

struct hwp__cs_binary;

struct hwp__cs_count {
	uint64_t a, b, count;
};

/* One calling context: its call sites (outermost first) and what ran under them. */
struct hwp__cs_context {
	uint64_t *sites;
	size_t nsites;
	struct hwp__cs_count *ranges, *branches; /* sorted and merged by hwp__cs_contexts_finish() */
	size_t nranges, cranges, nbranches, cbranches;
	size_t rmerged, bmerged; /* how many were left by the last merge */
};

struct hwp__cs_contexts {
	struct hwp__cs_context *v;
	size_t n, cap;
	struct hwp_hashmap map;
};

/*
 * One sample in the binary's link-time addresses (HWP__CS_EXTERNAL outside
 * it), as llvm-profgen reads it: STACK leaf first, each frame above the
 * leaf the call before its return address; LBR newest first, both ends of
 * an entry never external.
 */
struct hwp__cs_lbr {
	uint64_t src, dst;
};

struct hwp__cs_unwinder;

struct hwp__cs_unwinder *hwp__cs_unwinder_new(const struct hwp__cs_binary *b, struct hwp__cs_contexts *out);
void hwp__cs_unwinder_free(struct hwp__cs_unwinder *u);
/* Unwinds one sample seen COUNT times into the contexts. 0 or -ENOMEM. */
int hwp__cs_unwind(struct hwp__cs_unwinder *u, const uint64_t *stack, size_t nstack, const struct hwp__cs_lbr *lbr,
		   size_t nlbr, uint64_t count);

/* llvm-profgen's compressRecursionContext() without a size limit over
   C[0..N) (equal values: the same frame); returns the new length. */
size_t hwp__cs_compress(uint64_t *c, size_t n);

/* Sorts and merges each context's counts. */
void hwp__cs_contexts_finish(struct hwp__cs_contexts *c);
void hwp__cs_contexts_free(struct hwp__cs_contexts *c);
/* llvm-profgen --skip-symbolization's text: contexts by their text
   ("[0x250 @ 0x1da]", addresses less BASE), counts by address. */
int hwp__cs_contexts_write(struct hwp__cs_contexts *c, uint64_t base, FILE *fp);

#endif
