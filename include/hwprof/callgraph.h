/* SPDX-License-Identifier: MIT */
/*
 * Call graphs from sampled call stacks: PERF_SAMPLE_CALLCHAIN (frame
 * pointers, with its context markers) and LBR call-stack mode (branch
 * stacks recorded with the CALL_STACK filter, as `perf record --call-graph
 * lbr` and emulated call-stack recordings make), read as perf 6.1 reads
 * them: at most 127 addresses of a plain chain, a chain with an unknown
 * context marker discarded; in call-stack mode the kernel part of the chain,
 * then the branch stack's first target and every entry's source.
 *
 * Stacks are counted in a trie of frames keyed by module + file offset
 * (independent of process and load address): memory grows with the
 * distinct stacks, not with the samples. Each distinct frame is symbolized
 * once; a frame inside inlined code stands for its inline chain, innermost
 * first, as perf's callchains show it.
 *
 *     struct hwp_call_graph *cg = hwp_call_graph__new(session, NULL);
 *     hwp_call_graph__read(cg);
 *     const struct hwp_cg_function *f; size_t n = hwp_call_graph__functions(cg, &f);
 *     const struct hwp_cg_node *t;     size_t m = hwp_call_graph__tree(cg, &t);
 */
#ifndef HWPROF_CALLGRAPH_H
#define HWPROF_CALLGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/session.h"

HWP_BEGIN_DECLS

struct hwp_call_graph;

struct hwp_call_graph_opts {
	size_t sz;         /* sizeof(struct hwp_call_graph_opts) */
	bool no_inline;    /* a frame is its function only, no inline chain */
	/* Call-stack mode: continue a sample's LBR call stack with the callers
	   the same thread's earlier samples saw below it, as perf's
	   --stitch-lbr (needs the stacks' hardware index and the recording's
	   LBR depth, CPU_PMU_CAPS "branches"; else nothing is stitched). */
	bool stitch_lbr;
	/* Which samples count (enum hwp_cg_samples). */
	unsigned samples;
	/* A sample weighs its memory access's latency in cycles (PEBS WEIGHT,
	   IBS DcMissLat), not its period: the graph of where load latency is
	   spent. Only memory samples count then. */
	bool latency;
};

/* Which samples a call graph counts. */
enum hwp_cg_samples {
	HWP_CG_ALL,    /* every sample */
	HWP_CG_MEMORY, /* memory accesses: a data source (PEBS, IBS op loads and stores) */
	HWP_CG_HITM,   /* of those, the ones that hit a line modified in another cache (c2c's) */
};

/* Counts the call stacks of S's samples. NULL + errno (hwp_errmsg()). */
HWP_API struct hwp_call_graph *hwp_call_graph__new(struct hwp_session *s, const struct hwp_call_graph_opts *opts);
HWP_API void hwp_call_graph__delete(struct hwp_call_graph *cg);
/* One sample; TH its thread (may be NULL). 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_call_graph__add(struct hwp_call_graph *cg, const struct hwp_event *ev, const struct hwp_thread *th);
/* Every remaining sample of the session. 0 or <0. */
HWP_API int hwp_call_graph__read(struct hwp_call_graph *cg);
/* The same on JOBS threads (0: the CPUs available, fewer on a small file),
   the result that of one to the byte: one file-mode perf.data, not
   compressed, and no stitching of LBR call stacks (else one thread; the
   log says why at HWP_LOG_INFO). */
HWP_API int hwp_call_graph__read_jobs(struct hwp_call_graph *cg, unsigned jobs);

/* A function: a symbol of a module, an inlined function (by name), or,
   where nothing names the address, one address. */
struct hwp_cg_function {
	const char *name;     /* demangled as perf prints it; NULL: unresolved */
	int module;           /* symbolizer module id; -1: no map covers it */
	uint64_t offset;      /* symbol start (file offset), or the unresolved address's
				 offset in its module (kernel and no module: the address) */
	bool kernel;          /* found in a kernel map */
	bool inlined;         /* known only as inlined code */
	uint64_t self_period, self_samples;         /* samples whose IP is in it */
	uint64_t children_period, children_samples; /* samples with it on the stack (once each) */
};

/* Per-function totals (after reading), in first-seen order. Valid until the
   next add/read or delete. *OUT is NULL (and 0 returned) on failure:
   hwp_errmsg(). */
HWP_API size_t hwp_call_graph__functions(struct hwp_call_graph *cg, const struct hwp_cg_function **out);

/*
 * The calling-context tree by function, callers first: node 0 is the root
 * (no function); every other node's parent precedes it. TOTAL counts the
 * samples in the node's subtree, SELF those ending in it. Inlined functions
 * are nodes of their own (below the function they were inlined into).
 */
struct hwp_cg_node {
	uint32_t parent;
	uint32_t function; /* index into hwp_call_graph__functions() */
	uint64_t self_samples, self_period;
	uint64_t total_samples, total_period;
};
/* The same failure rule as hwp_call_graph__functions(). */
HWP_API size_t hwp_call_graph__tree(struct hwp_call_graph *cg, const struct hwp_cg_node **out);

struct hwp_call_graph_stats {
	size_t sz; /* sizeof(struct hwp_call_graph_stats): set by the caller */
	uint64_t samples, period;  /* every sample counted */
	uint64_t with_callchain;   /* of them with a chain */
	uint64_t callstack_lbr;    /* chains rebuilt from call-stack branch stacks */
	uint64_t stitched;         /* of them continued from earlier samples (stitch_lbr) */
	uint64_t discarded;        /* chains dropped on an unknown context marker */
	size_t frames, frame_nodes; /* distinct frames; nodes of the frame trie */
	/* Samples recorded to be unwound (perf record --call-graph dwarf: user
	   registers and a copy of the user stack; also user registers without
	   a copy, where the chain has no user part). Their user stacks are
	   unwound with the CFI of the binaries mapped (.eh_frame, .debug_frame,
	   frame pointers where neither covers an address) and follow the
	   chain's kernel part; how each unwinding ended: */
	uint64_t user_stacks;
	uint64_t unwound;            /* at the outermost frame, or perf's depth of 127 */
	uint64_t unwind_no_regs;     /* no user registers: kernel threads (nothing to unwind) */
	uint64_t unwind_no_stack;    /* no stack copy (or no pc and sp among the registers) */
	uint64_t unwind_stack_short; /* the copy ended before the outermost frame */
	uint64_t unwind_no_binary;   /* at a frame in a binary not found, or in memory no file maps */
	uint64_t unwind_stopped;     /* neither CFI nor a frame pointer led further, unreadable
					memory, or a 32-bit process */
	uint64_t unwind_frames;      /* user frames, all samples together */
	uint64_t unwind_by_rules;    /* samples unwound from cached per-address rules alone */
	uint64_t unwind_stack_size;  /* the largest stack copy recorded (bytes asked for) */
	/* binaries not found while unwinding, ", "-separated ("" when none);
	   valid while the call graph lives */
	const char *unwind_missing;
};
HWP_API int hwp_call_graph__stats(const struct hwp_call_graph *cg, struct hwp_call_graph_stats *st);

HWP_END_DECLS

#endif
