/* SPDX-License-Identifier: MIT */
/* Internal: the paths' parts of a parallel pass (session/parallel_pass.h). */
#ifndef HWPROF_ANALYSIS_PATHS_INTERNAL_H
#define HWPROF_ANALYSIS_PATHS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/paths.h"

struct hwp__module_ids;

/* A part counting after its own collector part C (module numbers IDS)
   the paths that merge into WHOLE (which decides for it whether a branch
   continues a path). */
struct hwp_paths *hwp__paths_new_part(struct hwp_paths *whole, struct hwp_branch_collector *c,
				      struct hwp__module_ids *ids);
/* hwp_paths__add() of the sample numbered SEQ in the sequential order. */
int hwp__paths_add_at(struct hwp_paths *p, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq);
/* Merges PARTS[0..N) (IDS[k]: part k's module numbers, registered) into
   DST, which counted nothing: then as the sequential pass's (before
   hwp_paths__build()). 0 or <0. */
int hwp__paths_merge(struct hwp_paths *dst, struct hwp_paths *const *parts, struct hwp__module_ids *const *ids,
		     size_t n);

#endif
