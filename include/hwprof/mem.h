/* SPDX-License-Identifier: MIT */
/*
 * Memory-access analysis of precise samples (Intel PEBS load latency and
 * stores, AMD IBS op, hwprof's emulated memory samples): each sample decoded
 * into one access (code address, data address, latency, data source), and
 * the accesses of a recording totalled overall and per code symbol, source
 * line, data address, cache line and data object, with a log2 latency
 * histogram and a breakdown by data source. The report sums as it reads
 * (per distinct instruction, data address and data source, and c2c's
 * per-address, per-instruction counts): its memory grows with the distinct
 * keys, not with the samples.
 *
 *     struct hwp_mem_report *r = hwp_mem_report__new(session, NULL);
 *     hwp_mem_report__read(r);                 // every sample of the session
 *     const struct hwp_mem_stats *all = hwp_mem_report__totals(r);
 *     const struct hwp_mem_group *g; size_t n = hwp_mem_report__groups(r, HWP_MEM_BY_LINE, &g);
 */
#ifndef HWPROF_MEM_H
#define HWPROF_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/code_loc.h"
#include "hwprof/data_src.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_data.h"
#include "hwprof/session.h"

HWP_BEGIN_DECLS

/* One precise memory sample, decoded. */
struct hwp_mem_access {
	uint64_t ip, addr, phys_addr, data_src, data_page_size, time;
	uint32_t latency;  /* cycles: WEIGHT, WEIGHT_STRUCT's first field, or IBS DcMissLat
			      (IBS: tag-to-retire when the op did not miss) */
	uint16_t ins_lat;  /* WEIGHT_STRUCT's instruction latency (0 when absent) */
	int32_t pid, tid;
	uint32_t cpu;
	enum hwp_mem_source source;
	bool load, store, hitm, has_addr;
};

/* log2 latency buckets: bucket 0 holds latencies 0-1, bucket i (i >= 1)
   holds [2^i, 2^(i+1)), the last one everything from 2^(BUCKETS-1). */
#define HWP_MEM_HIST_BUCKETS 20

/* Counts over a set of accesses. Latency sums are over every access that
   carries one (a store's weight is often 0). */
struct hwp_mem_stats {
	uint64_t samples, loads, stores, hitm;
	uint64_t lat_sum, lat_max;
	uint64_t by_source[HWP_MEM_SRC__COUNT];
	uint64_t lat_by_source[HWP_MEM_SRC__COUNT];
	uint64_t hist[HWP_MEM_HIST_BUCKETS];
};

enum hwp_mem_key {
	HWP_MEM_BY_SYMBOL,    /* code: the function of the sampled instruction */
	HWP_MEM_BY_LINE,      /* code: its source file:line */
	HWP_MEM_BY_IP,        /* code: the instruction */
	HWP_MEM_BY_ADDR,      /* data: the address (module + offset for file-backed data) */
	HWP_MEM_BY_CACHELINE, /* data: the address rounded down to the cache line */
	HWP_MEM_BY_OBJECT,    /* data: the data symbol (ELF object), else the region:
				 [heap], [stack], anon, a mapped file, or "unknown" */
	HWP_MEM_BY_SOURCE,    /* the data source */
	HWP_MEM_BY_TYPE,      /* data: the type and member the instruction touches, from DWARF
				 (perf annotate --data-type); one row for stack operations,
				 one "unknown" for the rest */
	HWP_MEM_KEY__COUNT
};

/* One row of a grouping. Which fields are set depends on the key. */
struct hwp_mem_group {
	struct hwp_mem_stats st;
	struct hwp_code_loc code;  /* SYMBOL, LINE, IP: a representative instruction */
	const char *symbol;        /* SYMBOL, LINE, IP: function; OBJECT: data symbol; NULL unknown */
	uint64_t sym_offset;       /* IP: offset in the function; OBJECT: 0 */
	const char *file;          /* LINE (and SYMBOL/IP when known): source file */
	unsigned line;
	int32_t data_module;       /* ADDR, CACHELINE, OBJECT: module of the data (-1: anon/heap/stack) */
	uint64_t data_offset;      /* ADDR, CACHELINE: module offset, or the address itself */
	uint64_t data_addr;        /* ADDR, CACHELINE: the first virtual address seen */
	const char *region;        /* ADDR, CACHELINE, OBJECT: map name ("[heap]", "[stack]",
				      "//anon", a path) or NULL when no map holds it */
	enum hwp_mem_source source; /* SOURCE */
	/* IP, TYPE: the data type the (first) instruction touches: "struct
	   counters" and member "y" ("in.z" nested; NULL when the offset names
	   none, or for a scalar: "long"); NULL type: unknown. DATA_VAR: the
	   pointer variable or parameter, or global, it was found through (NULL
	   when none is named). */
	const char *data_type, *data_member, *data_var;
	bool data_stack_op;        /* IP, TYPE: no type: a push, pop, call or return */
};

struct hwp_mem_report_opts {
	size_t sz;               /* sizeof(struct hwp_mem_report_opts) */
	unsigned cache_line;     /* bytes, a power of two; 0: 64 */
	bool loads_only, stores_only;
	unsigned collect;        /* what to collect besides the totals and histograms:
				    0 everything, else HWP_MEM_COLLECT_* bits */
};

/* hwp_mem_report_opts.collect: the groupings (and c2c's tables) a report
   keeps sums for while reading; asking for one not collected is an error.
   Collecting less reads faster and holds less. */
#define HWP_MEM_COLLECT_KEY(key) (1u << (key)) /* hwp_mem_report__groups(r, KEY) */
#define HWP_MEM_COLLECT_C2C (1u << 16)         /* hwp_c2c__new(r) */
#define HWP_MEM_COLLECT_TOTALS (1u << 17)      /* nothing but the totals and histograms */

struct hwp_mem_report;

/* A report over session S (which must outlive it). NULL + errno, hwp_errmsg(). */
HWP_API struct hwp_mem_report *hwp_mem_report__new(struct hwp_session *s,
						   const struct hwp_mem_report_opts *opts);
HWP_API void hwp_mem_report__delete(struct hwp_mem_report *r);
/* Adds one sample (TH: its thread from hwp_session__next()); 1 counted, 0
   not a memory sample, <0 error. */
HWP_API int hwp_mem_report__add(struct hwp_mem_report *r, const struct hwp_event *ev,
				const struct hwp_thread *th);
/* Reads the rest of the session into the report. 0 or <0 (hwp_errmsg()). */
HWP_API int hwp_mem_report__read(struct hwp_mem_report *r);
/* The same on JOBS threads (0: the CPUs available, fewer on a small file),
   the result that of one to the byte: one file-mode perf.data, not
   compressed (else one thread; the log says why at HWP_LOG_INFO). */
HWP_API int hwp_mem_report__read_jobs(struct hwp_mem_report *r, unsigned jobs);

HWP_API const struct hwp_mem_stats *hwp_mem_report__totals(const struct hwp_mem_report *r);
/* Histogram by data source over every access: hist[bucket][source]. */
HWP_API const uint64_t (*hwp_mem_report__hist_by_source(const struct hwp_mem_report *r))[HWP_MEM_SRC__COUNT];
/* True when some sample's values were modelled (emulated recording). */
HWP_API bool hwp_mem_report__modelled(const struct hwp_mem_report *r);

/* The groups for KEY, most samples first (ties: larger latency sum, then
   key). Symbolizes on first call per key. Returns the number of groups;
   *OUT stays valid until the report is deleted. (size_t)-1 on error (KEY
   not collected: see hwp_mem_report_opts.collect). */
HWP_API size_t hwp_mem_report__groups(struct hwp_mem_report *r, enum hwp_mem_key key,
				      const struct hwp_mem_group **out);

/* The samples whose data type is known (HWP_MEM_BY_TYPE's rows other than
   "unknown"), of hwp_mem_report__totals()'s; pushes and pops, calls and
   returns (stack operations, never typed) in *STACK_OPS when not NULL. The
   report must collect a code grouping (SYMBOL, LINE, IP or TYPE); else
   (uint64_t)-1. */
HWP_API uint64_t hwp_mem_report__typed(struct hwp_mem_report *r, uint64_t *stack_ops);

HWP_API struct hwp_session *hwp_mem_report__session(const struct hwp_mem_report *r);

HWP_END_DECLS

#endif
