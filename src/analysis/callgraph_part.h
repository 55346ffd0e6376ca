/* SPDX-License-Identifier: MIT */
/*
 * Internal: the call graph as a part of a parallel pass (callgraph_merge.c).
 * Each part counts a share of the samples, resolving addresses through its
 * own resolver and numbering modules apart (module_ids.h); it symbolizes
 * nothing, so it never touches the session's resolver or the symbolizer's
 * lazy tables. Its frames stay (module, offset) and its leaves are keyed by
 * the IP's frame; each frame and trie node keeps the number of the sample
 * that made it. The merge makes the frames again in the order the
 * sequential pass first met them (symbolizing them then, so functions are
 * numbered as there) and merges the trie nodes on as many threads as there
 * were parts, numbered in the order they were made (trie_merge.h), the
 * leaves of one function's frames becoming that function's.
 */
#ifndef HWPROF_ANALYSIS_CALLGRAPH_PART_H
#define HWPROF_ANALYSIS_CALLGRAPH_PART_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/callgraph.h"
#include "hwprof/session.h"

struct hwp__resolver;
struct hwp__module_ids;

/* Why the call graph of S with O (a whole struct) cannot be counted in
   parts, NULL when it can: stitching (opts.stitch_lbr on a recording with call stacks to
   stitch) continues each sample with its thread's previous one. */
const char *hwp__call_graph_part_refusal(struct hwp_session *s, const struct hwp_call_graph_opts *o);

/* A part of a parallel pass: adds its share of the samples, resolving
   through RES only (RES->ids set), never touching the session's resolver or
   the symbolizer's lazy state. Made on the reading thread (the session's
   symbolizer is made here if it was not). NULL + errno (hwp_errmsg()),
   also where hwp__call_graph_part_refusal() says why not. */
struct hwp_call_graph *hwp__call_graph_new_part(struct hwp_session *s, const struct hwp_call_graph_opts *o,
						struct hwp__resolver *res);

/* Adds sample number SEQ of the sequential order (a part's samples come in
   increasing numbers; hwp_call_graph__add() and __read() are not for
   parts). RES->generation must be the one the sample met (set per batch). It sets RES->pos = HWP__COLLECT_POS(seq, 0x40000)
   before resolving (the collector resolves a sample's addresses first at
   (seq, 0..), the call graph after it). 0 or <0 (hwp_errmsg()). */
int hwp__call_graph_add_at(struct hwp_call_graph *g, const struct hwp_event *ev, const struct hwp_thread *th,
			   uint64_t seq);

/* Merges PARTS[0..N) into DST (made with hwp_call_graph__new() for the same
   session and options, nothing added), on the reading thread after
   hwp__module_ids_register(IDS, N, sym) (part K's module ids translate
   with hwp__module_ids_real(IDS[K], id)). DST is then what adding every
   sample in order would have made. 0 or <0 (hwp_errmsg()). */
int hwp__call_graph_merge(struct hwp_call_graph *dst, struct hwp_call_graph *const *parts,
			  struct hwp__module_ids *const *ids, size_t n);

#endif
