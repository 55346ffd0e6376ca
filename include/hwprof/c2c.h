/* SPDX-License-Identifier: MIT */
/*
 * Cache-to-cache contention (perf c2c's shared data cache line table, in one
 * table): the cache lines of a memory report that were accessed by more than
 * one thread with at least one store, or that saw a HITM, ranked by HITMs,
 * then by stores, then by accesses; for each, the offsets within the line and
 * the code that touched each offset, loads against stores.
 */
#ifndef HWPROF_C2C_H
#define HWPROF_C2C_H

#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/mem.h"

HWP_BEGIN_DECLS

/* One offset within a line and one instruction touching it. */
struct hwp_c2c_access {
	uint32_t offset;             /* bytes from the line's start */
	struct hwp_code_loc code;
	const char *symbol, *file;   /* NULL when unknown */
	uint64_t sym_offset;
	unsigned line;
	uint64_t samples, loads, stores, hitm, lat_sum;
	uint32_t nr_tids, nr_cpus;
	/* the data type and member the instruction touches there, from DWARF
	   (as hwp_mem_group's): "struct counters" and "y"; NULL type unknown */
	const char *data_type, *data_member;
	bool data_stack_op;
};

struct hwp_c2c_line {
	uint64_t addr;               /* the line's virtual address (first seen) */
	int32_t data_module;         /* -1: anon/heap/stack/unmapped (ADDR is the key) */
	uint64_t data_offset;        /* module offset of the line (or ADDR) */
	const char *region;          /* map name or NULL */
	int32_t pid;                 /* the process, for anonymous memory (else -1) */
	uint64_t samples, loads, stores, hitm, lat_sum;
	uint32_t nr_tids, nr_cpus, nr_offsets;
	size_t first, nr;            /* its accesses in the access array */
};

struct hwp_c2c;

/* Builds the table from the per-address, per-instruction sums R kept while
   reading (R must outlive it, and collect its c2c tables: collect 0 or
   HWP_MEM_COLLECT_C2C), on as many threads as R was read on
   (hwp_mem_report__read_jobs()), the same table on any. NULL + errno,
   hwp_errmsg(). */
HWP_API struct hwp_c2c *hwp_c2c__new(struct hwp_mem_report *r);
HWP_API void hwp_c2c__delete(struct hwp_c2c *c);
/* The contended lines, ranked; and every line's accesses (offset, then most
   samples first), indexed by hwp_c2c_line.first / .nr. */
HWP_API size_t hwp_c2c__lines(const struct hwp_c2c *c, const struct hwp_c2c_line **lines);
HWP_API const struct hwp_c2c_access *hwp_c2c__accesses(const struct hwp_c2c *c);
/* All lines seen (contended or not). */
HWP_API uint64_t hwp_c2c__nr_lines_seen(const struct hwp_c2c *c);

HWP_END_DECLS

#endif
