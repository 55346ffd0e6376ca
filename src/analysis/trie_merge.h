/* SPDX-License-Identifier: MIT */
/*
 * Internal: the tries of a parallel pass's parts (the call graph's stacks)
 * merged into one on several threads (trie_merge.c). The merged trie is
 * the one a sequential pass makes: its nodes numbered in the order they
 * were first made (by the sample first to make them, and within a sample
 * by depth: a sample makes its nodes along one path), their counts summed.
 */
#ifndef HWPROF_ANALYSIS_TRIE_MERGE_H
#define HWPROF_ANALYSIS_TRIE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/callgraph_struct.h"

/* A part's trie: node 0 the root, each node after its parent, made by
   sample SEQ[I] (not decreasing with I, below 2^44; no two parts share a
   sample, and the nodes one sample makes are each at a depth of its own,
   below 2^20); KEYS[I] is node I's key in the merged trie's terms (its
   own key is not read). */
struct hwp__trie_part {
	const struct hwp__cg_tnode *nodes;
	const uint32_t *keys;
	const uint64_t *seq;
	size_t nnodes;
};

/* PARTS[0..N) merged on up to THREADS threads into *OUT (malloc'd, *NOUT
   nodes, node 0 the root with no counts). 0, -ENOMEM, -EINVAL (a node
   before its parent) or -EOVERFLOW (more nodes than an index holds,
   HWP_HASHMAP_MAX_ENTRIES, or a sample number or depth past the limits
   above). */
int hwp__trie_merge(const struct hwp__trie_part *parts, size_t n, unsigned threads, struct hwp__cg_tnode **out,
		    size_t *nout);

#endif
