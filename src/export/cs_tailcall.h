/* SPDX-License-Identifier: MIT */
/*
 * llvm-profgen's missing-frame inference (--infer-missing-frames, on by
 * default): a call stack has no frame for a function that left by a tail
 * call, so a caller's call site may be followed by a frame of a function
 * it does not call. When the sampled branches give exactly one path of
 * tail calls from a function the site called to the next frame's
 * function, the tail-call sites of that path are put in between.
 *   - call sites: calls (direct or not) inside a DWARF function; their
 *     callees: the functions the sampled branches from them entered;
 *   - tail-call sites: direct jumps into another function, and indirect
 *     jumps, inside a DWARF function; their targets: the functions the
 *     sampled branches from them reached in another function range;
 *   - functions are DWARF names (all ranges of one name one function);
 *     a path is unique when exactly one exists (depth-first, cycles not
 *     followed, results kept per pair of functions).
 */
#ifndef HWPROF_EXPORT_CS_TAILCALL_H
#define HWPROF_EXPORT_CS_TAILCALL_H

#include <stddef.h>
#include <stdint.h>

struct hwp__cs_binary;
struct hwp__cs_contexts;
struct hwp__cs_tailcalls;

/* The call and tail-call edges of B that CS's branches took. 0 or -ENOMEM. */
int hwp__cs_tailcalls_new(const struct hwp__cs_binary *b, const struct hwp__cs_contexts *cs,
			  struct hwp__cs_tailcalls **out);
void hwp__cs_tailcalls_free(struct hwp__cs_tailcalls *t);
/* Appends call site FROM to *PATH (*N of *CAP), then the tail-call sites
   between it and TO (the next frame's address) when they are known. 0 or -ENOMEM. */
int hwp__cs_tailcalls_infer(struct hwp__cs_tailcalls *t, uint64_t from, uint64_t to, uint64_t **path, size_t *n,
			    size_t *cap);

#endif
