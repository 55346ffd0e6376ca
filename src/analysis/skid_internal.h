/* SPDX-License-Identifier: MIT */
/* Library-private declarations of skid.c (the public side is include/hwprof/skid.h). */
#ifndef HWPROF_ANALYSIS_SKID_INTERNAL_H
#define HWPROF_ANALYSIS_SKID_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/skid.h"

struct hwp__resolver;
struct hwp__module_ids;

/*
 * A parallel pass (see hwp__branch_collector_merge(), whose module
 * numbering this shares): parts count shares of one session's samples,
 * each resolving through its own resolver, then merge into a skid that
 * has counted nothing, which ends as hwp_skid__new() would have made it.
 */

/* A skid of S's two events (chosen as hwp_skid__new() chooses) that has
   counted nothing. RES: a part's resolver (never the session's resolver
   nor the symbolizer's lazy state is touched: a part is made on the
   reading thread); NULL: the session's, for the skid merged into. NULL +
   errno, hwp_errmsg() (e.g. not two events). */
struct hwp_skid *hwp__skid_new_part(struct hwp_session *s, const struct hwp_skid_opts *opts,
				    struct hwp__resolver *res);
/* Counts sample number SEQ of the sequential order; RES->pos is set to
   HWP__COLLECT_POS(SEQ, HWP__SKID_POS) before resolving (after the memory
   report's, were both in one pass). 0 or <0 (hwp_errmsg()). */
#define HWP__SKID_POS 0xC0000
int hwp__skid_add_at(struct hwp_skid *k, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq);
/* Merges PARTS[0..N) into DST (made with hwp__skid_new_part(s, opts, NULL)
   for the same session and options), on the reading thread, after
   hwp__module_ids_register(IDS, N, sym); DST is then complete: what
   hwp_skid__new() answers, to the byte. 0 or <0 (hwp_errmsg()). */
int hwp__skid_merge(struct hwp_skid *dst, struct hwp_skid *const *parts, struct hwp__module_ids *const *ids,
		    size_t n);

#endif
