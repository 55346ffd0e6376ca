/* SPDX-License-Identifier: MIT */
/*
 * llvm-profgen 19's CS pre-inliner (CSPreInliner, on SampleContextTracker's
 * context trie), run on the flat context profiles before they are nested:
 *   - the profiled call graph: an edge per caller and callee function of
 *     the context trie, weighted by the larger of the call site's
 *     call-target count and the callee's head samples, summed over the
 *     contexts; edges at most the cold count threshold dropped;
 *   - the top-down order: Tarjan's SCCs from a root calling every
 *     function, nodes and edges by name; the members of an SCC ordered
 *     along the maximum spanning tree of its edges (heaviest first); all
 *     reversed;
 *   - per function in that order: its base profile (every context of it
 *     not inlined merged into the top-level one, their callee contexts
 *     promoted along), a size budget of 12 x its code size within
 *     [100, 50000], and a priority queue of its callee contexts (zero size
 *     first, then the call count, the smaller size, the larger GUID): a
 *     callee is inlined (marked ShouldBeInlined, its own callees queued)
 *     while the budget lasts if its size is under 150000 x its call
 *     count's hotness between the cold threshold and the 10% cutoff's
 *     count, + 1 (x 100 when the binary had inlined it); never at a cold
 *     call site, not even one of size 0;
 *   - contexts left under a caller and not inlined are dropped (their
 *     counts are in their base profiles).
 */
#ifndef HWPROF_EXPORT_CS_PREINLINE_H
#define HWPROF_EXPORT_CS_PREINLINE_H

#include <stddef.h>

#include "export/cs_nest.h"
#include "export/cs_samples.h"
#include "export/cs_sizes.h"

/* Replaces *V (*N profiles, consumed) by the profiles the pre-inliner
   keeps, their contexts as the trie left them. 0 or <0 (hwp_errmsg()). */
int hwp__cs_preinline(struct hwp__cs_flat **v, size_t *n, char *const *names, const struct hwp__cs_summary *sum,
		      const struct hwp__cs_sizes *sizes);

#endif
