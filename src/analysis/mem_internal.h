/* SPDX-License-Identifier: MIT */
/* Library-private declarations (not exported): the public side is include/hwprof/mem.h. */
#ifndef HWPROF_ANALYSIS_MEM_INTERNAL_H
#define HWPROF_ANALYSIS_MEM_INTERNAL_H

#include "hwprof/mem.h"
#include "util/arena.h"
#include "util/hashmap.h"

/* True when EVSEL is an AMD IBS op event (by its name "ibs_op..." or its PMU
   type in the recording's PMU mappings). */
bool hwp__mem_evsel_is_ibs_op(struct hwp_session *s, const struct hwp_evsel *evsel);
unsigned hwp__mem_hist_bucket(uint32_t latency);

/*
 * Decodes sample EV when it carries memory information: DATA_SRC (with
 * ADDR, WEIGHT or WEIGHT_STRUCT, PHYS_ADDR, DATA_PAGE_SIZE when present), or
 * the RAW registers of an AMD ibs_op event (IBS_RAW true: the caller knows
 * the event is ibs_op; the IBS data source becomes a data_src value, see
 * hwp_ibs_op__data_src()). Returns 1 (A filled), 0 when EV is not a memory
 * sample (an IBS op that neither loads nor stores), <0 on malformed raw data
 * (hwp_errmsg()).
 */
int hwp__mem_access_decode(const struct hwp_event *ev, bool ibs_raw, struct hwp_mem_access *a);
unsigned hwp__mem_report_cache_line(const struct hwp_mem_report *r);

/* Samples that named no memory access (other events, IBS non-memory ops). */
uint64_t hwp__mem_report_skipped(const struct hwp_mem_report *r);

/*
 * The report's tables. It keeps no sample: each one is added to the sums of
 * its keys as it is read, and a group row shows, besides the sums, what the
 * first sample of its key showed (its instruction, data address, region,
 * source). Each table is in the order its keys were first seen, so merging
 * a table's entries into coarser groups in that order finds each group's
 * first sample first.
 */

/* The data side of one sample, as a group row shows it. */
struct hwp__mem_data_loc {
	int32_t data_module;   /* -1: no file-backed map (DATA_OFFSET = address) */
	enum hwp_mem_source source;
	uint64_t data_offset, data_addr;
	const char *region;    /* map name (interned), or NULL */
};

#define HWP__MEM_NO_CODE UINT32_MAX

/* One distinct instruction (module + offset): symbolized once, on demand. */
struct hwp__mem_code {
	struct hwp_code_loc loc;          /* its first sample's */
	struct hwp__mem_data_loc first;   /* its first sample's data */
	struct hwp_mem_stats st;
	const char *symbol, *file;
	unsigned line;
	uint64_t sym_start, sym_offset;
	const char *dtype, *dmember, *dvar; /* the data type it touches (interned), NULL unknown */
	uint8_t dhow;                       /* enum hwp__dtype_how */
};

/* One distinct data location: (HI, data offset, region), HI the module or,
   for anonymous memory (per process), pid << 32 | 0xffffffff. */
struct hwp__mem_datum {
	uint64_t hi;
	struct hwp__mem_data_loc first;   /* its first sample's (DATA_OFFSET is the key) */
	uint32_t code;                    /* its first sample's instruction, or HWP__MEM_NO_CODE */
	struct hwp_mem_stats st;
};

/* One data source (the table of HWP_MEM_BY_SOURCE). */
struct hwp__mem_src {
	struct hwp__mem_data_loc first;
	uint32_t code;
	struct hwp_mem_stats st;
};

/* c2c: one (data address, instruction) pair of the samples with an address. */
struct hwp__mem_c2c_acc {
	uint64_t hi, data_offset;         /* as hwp__mem_datum's */
	struct hwp_code_loc code;         /* its first sample's */
	uint64_t addr;                    /* its first sample's virtual address */
	const char *region;               /* its first sample's map name */
	uint64_t samples, loads, stores, hitm, lat_sum;
	uint64_t cpu_mask;                /* the CPUs below 64 it saw; others in the report's set */
	uint64_t tid_mask;                /* the threads it saw that the report numbers below 64 */
	uint32_t tid;                     /* its first sample's thread; others numbered 64 or more in
					     the report's set */
	uint32_t nr_tids, nr_cpus;        /* distinct so far */
};

/* c2c: the threads of the samples with an address, numbered in the order
   first seen: an access keeps those below 64 as bits (most programs have
   fewer threads), so a thread seen again costs no set lookup. */
struct hwp__mem_threads {
	uint32_t *tid;                    /* by number */
	size_t nr, cap;
	struct hwp_hashmap map;
	struct hwp__mem_firsts_v {
		uint64_t *v;
		size_t nr, cap;
	} first;                          /* a part's: the sample that named each first */
	uint32_t last_tid, last;          /* the last one looked up (LAST: its number + 1, 0 none) */
};
/* Thread TID's number in R (numbered now, at R's sample SEQ, when new);
   <0: -ENOMEM. */
int64_t hwp__mem_thread(struct hwp_mem_report *r, uint32_t tid, uint64_t seq);
/* Its number when R has seen it, else -1. */
int64_t hwp__mem_thread_find(const struct hwp_mem_report *r, uint32_t tid);

/* A set of (c2c access, value) pairs: the threads an access saw besides its
   first sample's, or the CPUs above 63 it saw. */
struct hwp__mem_pairs {
	uint64_t *v;                      /* access << 32 | value */
	size_t nr, cap;
	struct hwp_hashmap map;
};

/* One of those sets grouped by access: the values of access I are
   val[first[I] .. first[I + 1]). */
struct hwp__mem_pairs_index {
	size_t *first;
	uint32_t *val;
};
/* Groups P's pairs by access (NR_ACC of them; a counting sort). 0 or
   -ENOMEM (no message); free it either way. */
int hwp__mem_pairs_index_build(struct hwp__mem_pairs_index *e, const struct hwp__mem_pairs *p, size_t nr_acc);
void hwp__mem_pairs_index_free(struct hwp__mem_pairs_index *e);

/* A sample decoded and resolved, waiting to join the tables: they are
   updated a batch at a time, every key's cache misses hinted first and then
   waited for together (the tables outgrow the caches). */
struct hwp__mem_pending {
	struct hwp_mem_access a;
	struct hwp_code_loc code;
	struct hwp__mem_data_loc d;
	uint64_t hi, h_code, h_data, h_acc;
	uint64_t seq;                     /* a part's: the sample's number */
	unsigned bucket;
};
#define HWP__MEM_BATCH 32

struct hwp__resolver;
struct hwp__module_ids;

/* A map name and the region a report interned for it. */
struct hwp__mem_region_seen {
	const char *name, *region;
};

struct hwp_mem_report {
	struct hwp_session *s;
	unsigned line_size;
	unsigned collect;                 /* HWP_MEM_COLLECT_* bits (never 0 here) */
	unsigned jobs;                    /* the threads it was read on (c2c's lines are built on as many) */
	bool loads_only, stores_only, modelled;
	struct hwp_mem_stats totals;
	uint64_t hist_src[HWP_MEM_HIST_BUCKETS][HWP_MEM_SRC__COUNT];
	uint64_t skipped;
	struct hwp_arena strings;
	/* interned region names */
	const char **regions;
	size_t nr_regions, regions_cap;
	struct hwp_hashmap region_map;
	/* evsel -> is ibs_op, cached by evsel pointer, a few (a load and a
	   store event's samples interleave) */
#define HWP__MEM_EVSELS 4
	const struct hwp_evsel *evsel_seen[HWP__MEM_EVSELS];
	bool evsel_ibs[HWP__MEM_EVSELS];
	/* map name -> region, a few (hwp__mem_region_cached()): the address
	   spaces' names are interned and kept as long as the session, so one
	   pointer is one name */
#define HWP__MEM_REGIONS 8
	struct hwp__mem_region_seen region_seen[HWP__MEM_REGIONS];
	/* the tables */
	struct hwp__mem_code *codes;
	size_t nr_codes, codes_cap;
	struct hwp_hashmap code_map;
	bool codes_symbolized;            /* a code grouping ran: rows show their first sample's code */
	bool codes_typed;                 /* their data types are known (the IP and TYPE groupings) */
	uint64_t typed, stack_ops;        /* samples of instructions with a data type, of stack operations */
	struct hwp__mem_datum *data;
	size_t nr_data, data_cap;
	struct hwp_hashmap data_map;
	struct hwp__mem_src src[HWP_MEM_SRC__COUNT];
	uint8_t src_order[HWP_MEM_SRC__COUNT]; /* sources in the order first seen */
	unsigned nr_src;
	struct hwp__mem_c2c_acc *acc;
	size_t nr_acc, acc_cap;
	struct hwp_hashmap acc_map;
	struct hwp__mem_pairs tids, cpus;
	struct hwp__mem_threads threads;
	struct hwp__mem_pending pending[HWP__MEM_BATCH];
	unsigned nr_pending;
	/* how addresses are resolved: the session's resolver, or a part's */
	struct hwp__resolver *res;
	/* A part of a parallel pass (mem_merge.c): where in the sequential
	   order (sample numbers) each row of each table was first added; the
	   sample being added is number SEQ. */
	bool part;
	uint64_t seq;
	struct hwp__mem_firsts {
		uint64_t *v;
		size_t nr, cap;
	} first_code, first_data, first_acc;
	uint64_t first_src[HWP_MEM_SRC__COUNT];
	/* the groupings, built on demand */
	struct hwp__mem_grouping {
		bool done;
		struct hwp_mem_group *rows;
		size_t nr, cap;
	} g[HWP_MEM_KEY__COUNT];
};

/* Adds the samples still pending to the tables: before reading them. 0 or
   -ENOMEM (message set). */
int hwp__mem_report_flush(struct hwp_mem_report *r);

/* Symbolizes every distinct instruction once (for the code groupings). */
void hwp__mem_symbolize_codes(struct hwp_mem_report *r);

/* Entries the report's tables hold (instructions, data locations, sources,
   c2c accesses and their extra threads and CPUs): what its memory grows
   with, for tests. A table is freed once every grouping read from it is
   built. */
size_t hwp__mem_report_entries(struct hwp_mem_report *r);

/* The tables' entries for a pending sample X (made on first sight, and in
   a part noted as first added at X's sample), for the merge; NULL: out of
   memory. */
struct hwp__mem_code *hwp__mem_code_entry(struct hwp_mem_report *r, const struct hwp__mem_pending *x,
					  uint32_t *idx);
struct hwp__mem_datum *hwp__mem_data_entry(struct hwp_mem_report *r, const struct hwp__mem_pending *x,
					   uint32_t code);
struct hwp__mem_c2c_acc *hwp__mem_acc_entry(struct hwp_mem_report *r, const struct hwp__mem_pending *x,
					    uint32_t *idx);
/* Adds VAL to access ACC's set; 1 when it was not there, 0, or -ENOMEM. */
int hwp__mem_pairs_add(struct hwp__mem_pairs *s, uint32_t acc, uint32_t val);
/* NAME interned in R's strings; NULL: out of memory. */
const char *hwp__mem_intern(struct hwp_mem_report *r, const char *name);

/* NAME as R interned it, through SEEN[0..N), a cache by NAME's address
   (valid while every name it was given lives, one name per pointer: a
   lookup by string is a hash of it and a compare); NULL: out of memory. */
static inline const char *hwp__mem_region_cached(struct hwp_mem_report *r, struct hwp__mem_region_seen *seen,
						 size_t n, const char *name)
{
	struct hwp__mem_region_seen *e = &seen[((uintptr_t)name >> 3) % n];

	if (e->name != name) {
		const char *region = hwp__mem_intern(r, name);

		if (!region)
			return NULL;
		e->name = name;
		e->region = region;
	}
	return e->region;
}
/* The hashes of X's keys (X's code, data location and HI set). */
void hwp__mem_pending_hash(struct hwp__mem_pending *x);
/* Adds the sums of FROM to TO. */
void hwp__mem_stats_merge(struct hwp_mem_stats *to, const struct hwp_mem_stats *from);

/*
 * A parallel pass (mem_merge.c): parts add shares of one session's samples,
 * each resolving through its own resolver, then merge into a report that
 * has added nothing, which ends as the report of every sample added in
 * order (see hwp__branch_collector_merge(), whose module numbering this
 * shares).
 */

/* A part of a parallel pass: adds its share of the samples, resolving
   through RES only, never touching the session's resolver or the
   symbolizer's lazy state. Made on the reading thread. */
struct hwp_mem_report *hwp__mem_report_new_part(struct hwp_session *s, const struct hwp_mem_report_opts *o,
						struct hwp__resolver *res);
/* Adds sample number SEQ of the sequential order (hwp_mem_report__add()'s
   answer). It sets RES->pos = HWP__COLLECT_POS(SEQ, HWP__MEM_POS) before
   resolving: in one pass the branch collector resolves a sample's
   addresses first, at (SEQ, 0..), the call graph at (SEQ, 0x40000..), the
   memory report after them. */
#define HWP__MEM_POS 0x80000
int hwp__mem_report_add_at(struct hwp_mem_report *m, const struct hwp_event *ev, const struct hwp_thread *th,
			   uint64_t seq);
/* Merges PARTS[0..N) into DST (made with hwp_mem_report__new() for the same
   session and options, nothing added), on the reading thread, after
   hwp__module_ids_register(IDS, N, sym) (part K's module ids translate
   with hwp__module_ids_real(IDS[K], id)): DST is then what adding every
   sample in order to DST would have made, every grouping and c2c's table
   to the byte. The parts are left flushed, otherwise unchanged. 0 or <0
   (hwp_errmsg()). */
int hwp__mem_report_merge(struct hwp_mem_report *dst, struct hwp_mem_report *const *parts,
			  struct hwp__module_ids *const *ids, size_t n);

#endif
