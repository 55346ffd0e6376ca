/* SPDX-License-Identifier: MIT */
/*
 * The session's inside, for the analyses above it: the per-entry address
 * resolution inlined. A branch stack is dozens of addresses of one thread,
 * mostly in one or two modules: the thread and the map generation are
 * checked once per sample (hwp__session_enter_thread), then each address
 * costs a range check against the map its stream used last.
 */
#ifndef HWPROF_SESSION_INTERNAL_H
#define HWPROF_SESSION_INTERNAL_H

#include "hwprof/session.h"

/* The last map one address stream (a slot) used. */
struct hwp__resolve_cache {
	bool valid;
	bool identity, kernel;
	uint64_t start, end, pgoff;
	int32_t module;
};

struct hwp__module_ids;

/*
 * Address resolution with its caches: the session's own, or one per
 * thread of a parallel pass (each reads the address spaces, none changes
 * them). A cache only remembers what a lookup answered (the same map for
 * the same address space, generation and address), so two resolvers
 * answer alike whatever each resolved before.
 */
struct hwp__resolver {
	struct hwp_session *s;
	const struct hwp_thread *thread; /* the addresses' (NULL: none known) */
	uint64_t cache_generation;
	const void *cache_maps; /* the address space the caches were filled in */
	bool cache_filled;
	/* Set by the owner (a parallel pass: the generation its samples were
	   read under), instead of read from the machine, whose cache lines
	   the reading thread writes all the time. */
	bool pinned;
	uint64_t generation;
	struct hwp__resolve_cache cache[HWP_SESSION_RESOLVE_SLOTS];
	/* the module of the maps resolved last (a resolve-cache miss between
	   two maps would otherwise look the module up by name each time),
	   valid while the maps stay as they were at MODULE_GENERATION */
	struct {
		const struct hwp_map *map;
		int32_t module;
	} map_module[4];
	uint64_t module_generation;
	unsigned map_module_next;
	/* NULL: modules are registered in the session's symbolizer as found;
	   else numbered apart (a parallel pass: see module_ids.h), POS the
	   place of the next new one in the sequential order */
	struct hwp__module_ids *ids;
	uint64_t pos;
};

void hwp__resolver_init(struct hwp__resolver *r, struct hwp_session *s, struct hwp__module_ids *ids);
/* Forgets every cached map. */
void hwp__resolver_invalidate(struct hwp__resolver *r);
/* The session's own resolver. */
struct hwp__resolver *hwp__session_resolver(struct hwp_session *s);

/* One recording of the session: its reader, perf's order over it and its
   processes' address spaces (pids of two recordings are unrelated). */
struct hwp__session_input {
	struct hwp_reader *reader;
	struct hwp_ordered *ordered;
	struct hwp_machine *machine;
	struct hwp_session_input_stats st;
	struct hwp__jit_inject *jit; /* its jitdumps' code, waiting to be mapped (jit_inject.c) */
};

struct hwp_session {
	struct hwp_session_opts o;
	/* the inputs, read one after the other; reader, ordered and machine
	   are the current one's */
	struct hwp__session_input *inputs;
	size_t nr_inputs, cur;
	struct hwp_reader *reader;
	struct hwp_ordered *ordered;
	struct hwp_machine *machine;
	struct hwp_symbolizer *sym;
	int32_t kernel_module;
	/* delivered so far, all inputs: written for every record by the
	   reading thread, so kept 64 bytes away from the fields a parallel
	   pass's threads read for every sample (machine): a cache line both
	   use would move between the cores each time */
	char apart_before[64];
	uint64_t records, samples;
	char apart_after[64];
	bool said_end;
	struct hwp__resolver res; /* resolution for the session's callers */
	/* When set, called before the address spaces change (a parallel pass
	   waits there for the samples handed out); <0 stops the session. */
	int (*before_change)(void *ctx);
	void *before_change_ctx;
	/* samples' threads found since the address spaces' generation
	   threads_generation, by tid (session.c's sample_thread()) */
#define HWP__SESSION_THREADS_SEEN 16
	const struct hwp_thread *threads_seen[HWP__SESSION_THREADS_SEEN];
	uint64_t threads_generation;
	struct hwp_map *assumed; /* hwp_session__assume_mapped()'s segments */
	size_t nassumed;
	/* the perf maps and jitdumps every symbolizer of the session shares */
	struct hwp__jit_sources *jit;
};

/* RAW: hwp_session__next() gives samples peeked only (their fields before
   the sample, and the sample's sample_type, cpumode, ip, pid, tid and time:
   hwp__reader_peek_sample()), the caller parsing them
   (hwp__reader_parse_sample()); else parsed (the default). */
void hwp__session_set_raw_samples(struct hwp_session *s, bool raw);

/* A pass failed after reading on (a parallel pass learns of a sample's
   error, or fails to merge, after the reading thread went further): the
   input being read counts as not read to its end, as in the sequential
   pass, which stops at the error (a caller then says the error, not that
   an input read to its end counted nothing). */
void hwp__session_stopped_early(struct hwp_session *s);

/* A symbolizer made as the session's is (the same files and options), for
   a thread of a parallel pass that must look symbols up while the
   session's may not change: its module ids are its own. NULL + error. */
struct hwp_symbolizer *hwp__session_new_symbolizer(struct hwp_session *s);

/*
 * jitdumps, injected as perf inject --jit does (jit_inject.c). For each
 * record of input IN, before the address spaces take it in:
 * hwp__session_jit_mmap() reads TIME_CONV and MMAP records, returns 1 for
 * an MMAP the address spaces must not take (a jitdump marker, the code heap
 * of a process whose dump is injected), 0 otherwise, <0 on error;
 * hwp__session_jit_apply() maps the code loaded up to TIME (the record's).
 */
int hwp__session_jit_mmap(struct hwp_session *s, struct hwp__session_input *in, const struct hwp_event *ev);
int hwp__session_jit_apply(struct hwp_session *s, struct hwp__session_input *in, uint64_t time);
void hwp__session_jit_free(struct hwp__session_input *in);

/* What the recording says of FILENAME's layout when the binary is not at
   hand: the lowest file offset it was mapped executable from (any input;
   false when never), simpleperf's record of its lowest executable address
   (NULL when none). */
bool hwp__session_exec_pgoff(const struct hwp_session *s, const char *filename, uint64_t *pgoff);
const struct hwp_file_vaddr *hwp__session_file_vaddr(const struct hwp_session *s, const char *filename);

/* The assumed map holding user address ADDR, or NULL (assumed_maps.c). */
const struct hwp_map *hwp__session_assumed_map(const struct hwp_session *s, uint64_t addr);
void hwp__session_assumed_free(struct hwp_session *s);

/* Addresses resolved from now on are TH's (NULL: no thread known). */
void hwp__resolver_enter(struct hwp__resolver *r, const struct hwp_thread *th);
/* The slow path: look the map up and refill SLOT's cache. */
int hwp__resolver_miss(struct hwp__resolver *r, unsigned slot, uint64_t addr, struct hwp_code_loc *loc);

static inline void hwp__resolve_cache_fill(const struct hwp__resolve_cache *mc, uint64_t addr,
					   struct hwp_code_loc *loc)
{
	loc->addr = addr;
	loc->module = mc->module;
	loc->cpumode = mc->kernel ? HWP_MISC_KERNEL : HWP_MISC_USER;
	loc->offset = mc->identity ? addr : addr - mc->start + mc->pgoff;
}

/* hwp_session__resolve() for the thread last entered; SLOT < HWP_SESSION_RESOLVE_SLOTS. */
static inline int hwp__resolver_resolve(struct hwp__resolver *r, unsigned slot, uint64_t addr,
					struct hwp_code_loc *loc)
{
	const struct hwp__resolve_cache *mc = &r->cache[slot];

	if (mc->valid && addr >= mc->start && addr < mc->end) {
		hwp__resolve_cache_fill(mc, addr, loc);
		return 0;
	}
	return hwp__resolver_miss(r, slot, addr, loc);
}

/* The same with the session's resolver. */
static inline void hwp__session_enter_thread(struct hwp_session *s, const struct hwp_thread *th)
{
	hwp__resolver_enter(&s->res, th);
}

static inline int hwp__session_resolve(struct hwp_session *s, unsigned slot, uint64_t addr,
				       struct hwp_code_loc *loc)
{
	return hwp__resolver_resolve(&s->res, slot, addr, loc);
}

#endif
