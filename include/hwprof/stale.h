/* SPDX-License-Identifier: MIT */
/*
 * Stale profiles: a recording of one build of a program (OLD) carried over
 * to the next build (NEW) after source changes, so that the PGO writers
 * (pgo.h) give NEW's profile at NEW's addresses.
 *
 * Functions are matched by name and by a hash of their control-flow graph
 * (the blocks' opcode sequences and their in-function successors); a
 * function found under no name of OLD is matched by that hash alone when
 * exactly one such function of NEW has it (a renamed one). Within a
 * matched function whose hash differs (an edited one), blocks are matched
 * by their anchors: the opcode sequence with the names of the functions
 * called, aligned in layout order (the longest common subsequence, as a
 * diff aligns lines), then blocks whose anchor is unique on both sides
 * (moved ones). An instruction of a matched block maps to the one of the
 * same index in NEW's block; those between matched blocks are aligned by
 * their own hashes, exactly and then loosely (conditions flipped). Taken
 * branches whose ends map (a direct branch: to NEW's own target; a return:
 * after NEW's call) and the parts of fall-through ranges that map onto
 * NEW's instructions in order keep their counts; the rest is left out and
 * counted.
 */
#ifndef HWPROF_STALE_H
#define HWPROF_STALE_H

#include <stdint.h>

#include "hwprof/branch_collect.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

enum hwp_stale_how {
	HWP_STALE_UNMATCHED, /* no function of NEW: its counts are left out */
	HWP_STALE_SAME,      /* same name, same CFG hash */
	HWP_STALE_EDITED,    /* same name, another CFG hash: blocks matched by anchors */
	HWP_STALE_RENAMED,   /* another name, found by its CFG hash */
};

/* One function of OLD that the recording's counts touch. */
struct hwp_stale_func {
	const char *name;     /* in OLD */
	const char *new_name; /* in NEW; NULL when unmatched */
	enum hwp_stale_how how;
	uint32_t blocks, blocks_matched;         /* OLD's basic blocks */
	uint64_t branches, branches_matched;     /* taken-branch counts with an end in it */
	uint64_t insns, insns_matched;           /* instructions run in its ranges (range count x insns) */
};

struct hwp_stale_stats {
	uint64_t functions;     /* OLD's functions with counts */
	uint64_t by_how[4];     /* of those, by enum hwp_stale_how */
	uint64_t branches, branches_matched; /* taken-branch counts with an end in OLD */
	uint64_t insns, insns_matched;       /* instructions run in OLD's ranges */
	uint64_t ranges_split;  /* range rows cut in pieces (NEW's layout differs there) */
};

typedef void (*hwp_stale_func_fn)(void *ctx, const struct hwp_stale_func *f);

/*
 * A collector whose taken branches and fall-through ranges are C's (read
 * with opts.ranges) carried from OLD_MODULE (the recorded binary, at
 * OLD_PATH) to the binary NEW_PATH, registered as *NEW_MODULE in C's
 * symbolizer: give both to the PGO writers. Branches and ranges of other
 * modules are kept as they are. *ST (may be NULL) says how much of the
 * profile was matched; FN (may be NULL) is called per OLD function with
 * counts, in address order. The result uses C's symbolizer: delete it
 * before C. NULL + errno (hwp_errmsg(): a file that is no ELF binary, NEW
 * with the recorded build-id, ENOMEM).
 */
HWP_API struct hwp_branch_collector *hwp_stale__match(struct hwp_branch_collector *c, int old_module,
						      const char *old_path, const char *new_path, int *new_module,
						      struct hwp_stale_stats *st, hwp_stale_func_fn fn, void *ctx);

/* "unmatched", "same", "edited", "renamed"; NULL when out of range. */
HWP_API const char *hwp_stale__how_name(enum hwp_stale_how h);

HWP_END_DECLS

#endif
