/* SPDX-License-Identifier: MIT */
/*
 * A sample profile of one function as LLVM's FunctionSamples holds it, for
 * the context-sensitive profile's post-processing (cs_nest.c): total and
 * head samples, the CFG checksum, context attributes (1 the binary inlined
 * it, 2 the pre-inliner inlines it), body counts by probe with their call
 * targets, and the callees' nested profiles by call site. Names are indices
 * into an interned name table the caller owns.
 */
#ifndef HWPROF_EXPORT_CS_SAMPLES_H
#define HWPROF_EXPORT_CS_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define HWP__CS_ATTR_INLINED 1u       /* ContextWasInlined */
#define HWP__CS_ATTR_SHOULD_INLINE 2u /* ContextShouldBeInlined */

struct hwp__cs_target {
	uint32_t name;
	uint64_t count;
};

struct hwp__cs_rec {
	uint32_t off, disc;
	uint64_t count;
	struct hwp__cs_target *t;
	size_t nt, ct;
};

struct hwp__cs_fs;

struct hwp__cs_callee {
	uint32_t off, disc, name;
	struct hwp__cs_fs *fs;
};

struct hwp__cs_fs {
	uint32_t name, attrs;
	bool named; /* LLVM's "context not empty": a merge into it keeps its attributes */
	uint64_t total, head, hash;
	struct hwp__cs_rec *body;
	size_t nbody, cbody;
	struct hwp__cs_callee *calls;
	size_t ncalls, ccalls;
};

/* A context frame: a function at a call site (0, 0 for the leaf). */
struct hwp__cs_frame {
	uint32_t name, off, disc;
};

/* A flat context profile: its context, outermost first, and its samples. */
struct hwp__cs_flat {
	struct hwp__cs_frame *frames;
	size_t n;
	struct hwp__cs_fs *fs;
};

struct hwp__cs_fs *hwp__cs_fs_new(uint32_t name);
void hwp__cs_fs_free(struct hwp__cs_fs *fs);
/* The body record at (OFF, DISC), created with count 0; NULL: ENOMEM. */
struct hwp__cs_rec *hwp__cs_fs_rec(struct hwp__cs_fs *fs, uint32_t off, uint32_t disc);
const struct hwp__cs_rec *hwp__cs_fs_find(const struct hwp__cs_fs *fs, uint32_t off, uint32_t disc);
int hwp__cs_rec_add_target(struct hwp__cs_rec *r, uint32_t name, uint64_t count);
/* The callee NAME's profile at call site (OFF, DISC), created empty when
   CREATE; NULL when absent or ENOMEM. */
struct hwp__cs_fs *hwp__cs_fs_callee(struct hwp__cs_fs *fs, uint32_t off, uint32_t disc, uint32_t name, bool create);
/* LLVM's FunctionSamples::merge(): SRC's counts added into DST (DST takes
   SRC's name and attributes when it has none yet; a different non-zero
   checksum leaves DST as it is). 0 or -ENOMEM. */
int hwp__cs_fs_merge(struct hwp__cs_fs *dst, const struct hwp__cs_fs *src);
/* removeCalledTargetAndBodySample(): the count removed. */
uint64_t hwp__cs_fs_remove_call(struct hwp__cs_fs *fs, uint32_t off, uint32_t disc, uint32_t name);
/* getHeadSamplesEstimate() of a context-sensitive profile. */
uint64_t hwp__cs_fs_head_estimate(const struct hwp__cs_fs *fs, bool cs);

/* Writes profiles V[0..N) (top-level, already in order) in LLVM's text
   format, nested: "name:total:head", callees indented under their sites. */
void hwp__cs_fs_write_nested(struct hwp__cs_fs *const *v, size_t n, char *const *names, FILE *fp);

#endif
