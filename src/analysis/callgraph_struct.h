/* SPDX-License-Identifier: MIT */
/* Internal: the call graph's fields, for its own files (the call graph and
   the merge of a parallel pass's parts) only. */
#ifndef HWPROF_ANALYSIS_CALLGRAPH_STRUCT_H
#define HWPROF_ANALYSIS_CALLGRAPH_STRUCT_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/callchain.h"
#include "analysis/chain_cache.h"
#include "hwprof/callgraph.h"
#include "util/hashmap.h"

struct hwp__resolver;

#define HWP__CG_TERM 0x80000000u /* trie key flag: the sample's IP's function (a part: its frame), a leaf */

struct hwp__cg_frame {
	int32_t module;
	bool kernel;
	bool ret; /* a return address: its inline chain is the call's (offset - 1) */
	uint64_t offset;
	uint32_t fn_first; /* expansion in fnlist: innermost inline first, outer last */
	uint32_t fn_n;     /* (a part's frames are not expanded: 0) */
};

struct hwp__cg_tnode {
	uint32_t parent;
	uint32_t key; /* frame id, | HWP__CG_TERM for a leaf */
	uint64_t samples, period;
};

struct hwp_call_graph {
	struct hwp_session *session;
	struct hwp_call_graph_opts o;
	/* how addresses are resolved: the session's resolver, or a part's */
	struct hwp__resolver *res;
	/* the event of the last memory access decoded, and whether it is IBS */
	const struct hwp_evsel *mem_evsel;
	bool mem_ibs;

	struct hwp__cg_frame *frames;
	size_t nframes, frames_cap;
	struct hwp_hashmap frame_map;
	uint32_t *fnlist;
	size_t nfnlist, fnlist_cap;

	struct hwp_cg_function *funcs;
	size_t nfuncs, funcs_cap;
	struct hwp_hashmap func_map;

	struct hwp__cg_tnode *nodes; /* node 0: the root */
	size_t nnodes, nodes_cap;
	struct hwp_hashmap node_map; /* (parent, key) -> node; after a merge, made at the first lookup */

	struct hwp__chain chain; /* the sample being added */
	struct hwp__chain_cache chains; /* chain -> the trie node it led to */

	/*
	 * A part of a parallel pass (callgraph_part.h): its frames are not
	 * symbolized (module ids are the part's own, see module_ids.h), a leaf
	 * is keyed by the IP's frame, not its function, and each frame and
	 * node keeps the number of the sample that made it (samples come in
	 * increasing numbers: SEQ is the one being added).
	 */
	bool part, added;
	uint64_t seq;
	uint64_t *frame_seq, *node_seq;
	size_t frame_seq_cap, node_seq_cap;

	/* derived, each on demand (DIRTY: samples added since) */
	bool dirty, funcs_derived, tree_derived;
	struct hwp_cg_node *tree;
	size_t ntree, tree_cap;
	struct hwp_hashmap tree_map;
	uint32_t *stamp;
	uint32_t *fmap; /* frame-trie node -> function-tree node */

	struct hwp_call_graph_stats st;
};

/* The frame (MODULE, OFFSET, KERNEL, RET), made (and symbolized, but in a
   part) when new. 0 or <0 (hwp_errmsg()). */
int hwp__cg_frame(struct hwp_call_graph *cg, int32_t module, uint64_t offset, bool kernel, bool ret,
		  uint32_t *id);
/* Moves what the chain cache's leaves counted into their nodes: before
   anything reads the nodes' counts. */
void hwp__cg_settle(struct hwp_call_graph *cg);
/* The functions as hwp_call_graph__functions() lists them, without deriving
   their totals (left stale): for what reads only who they are, as a flame
   graph of the tree does. */
size_t hwp__call_graph_function_names(const struct hwp_call_graph *cg, const struct hwp_cg_function **out);

#endif
