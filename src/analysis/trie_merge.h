/* SPDX-License-Identifier: MIT */
/*
 * Internal: the tries of a parallel pass's parts (the call graph's stacks)
 * merged into one on several threads (trie_merge.c). The merged trie is
 * the one a sequential pass makes: its nodes numbered in the order their
 * first makers came (the sample that made the node first, then the part,
 * then the node's place there), their counts summed.
 */
#ifndef HWPROF_ANALYSIS_TRIE_MERGE_H
#define HWPROF_ANALYSIS_TRIE_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/callgraph_struct.h"

/* A part's trie: node 0 the root, each node after its parent, made by
   sample SEQ[I] (increasing with I; no two parts share a sample); KEYS[I]
   is node I's key in the merged trie's terms (its own key is not read). */
struct hwp__trie_part {
	const struct hwp__cg_tnode *nodes;
	const uint32_t *keys;
	const uint64_t *seq;
	size_t nnodes;
};

/* PARTS[0..N) merged on up to THREADS threads into *OUT (malloc'd, *NOUT
   nodes, node 0 the root with no counts). 0, -ENOMEM, -EINVAL (a node
   before its parent) or -EOVERFLOW (more than UINT32_MAX nodes). */
int hwp__trie_merge(const struct hwp__trie_part *parts, size_t n, unsigned threads, struct hwp__cg_tnode **out,
		    size_t *nout);

#endif
