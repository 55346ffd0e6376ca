/* SPDX-License-Identifier: MIT */
/*
 * The modelled data-cache hierarchy of emulated memory samples. Every
 * load and store of the guest goes through it; sampled ones report the
 * level that served them and its latency. The model (all values modelled,
 * not measured):
 *
 *   line      64 bytes
 *   L1D       32 KiB, 8-way, LRU, private per thread         4 cycles
 *   L2        1 MiB, 16-way, LRU, private per thread        14 cycles
 *   L3        32 MiB, 16-way, LRU, shared by the process    50 cycles
 *   HITM      the line is modified by another thread       100 cycles
 *   DRAM      everything else                             200 cycles
 *
 * Coherence: a directory (2^20 lines, direct-mapped) remembers each line's
 * last writer, whether its copy is still modified, and a write generation.
 * A store by another thread makes the other threads' private copies stale
 * (their next access misses them); an access to a line another thread
 * holds modified is a HITM and leaves the line shared. No prefetcher, no
 * TLB (data_src says TLB N/A), inclusive fills (a miss fills every level).
 * Threads run in parallel under QEMU: shared state is updated with relaxed
 * atomics, and a race only makes one access's result approximate.
 */
#ifndef HWPROF_EMU_MEM_MODEL_H
#define HWPROF_EMU_MEM_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define HWP_MM_LINE_SHIFT 6
#define HWP_MM_L1_SETS 64   /* 32 KiB / 64 B / 8 ways */
#define HWP_MM_L1_WAYS 8
#define HWP_MM_L2_SETS 1024 /* 1 MiB / 64 B / 16 ways */
#define HWP_MM_L2_WAYS 16
#define HWP_MM_L3_SETS 32768 /* 32 MiB / 64 B / 16 ways */
#define HWP_MM_L3_WAYS 16
#define HWP_MM_DIR_BITS 20

enum hwp_mm_level { HWP_MM_L1, HWP_MM_L2, HWP_MM_L3, HWP_MM_HITM, HWP_MM_DRAM };
extern const uint32_t hwp_mm_latency[5];

/* Shared by the threads of one process. */
struct hwp_mm_shared {
	uint64_t l3[HWP_MM_L3_SETS * HWP_MM_L3_WAYS]; /* line + 1, 0 empty; MRU first */
	uint64_t dir[1u << HWP_MM_DIR_BITS];
};

/* One thread's private caches: entries are line << 16 | generation. */
struct hwp_mm_private {
	uint64_t l1[HWP_MM_L1_SETS * HWP_MM_L1_WAYS];
	uint64_t l2[HWP_MM_L2_SETS * HWP_MM_L2_WAYS];
};

/* One access by thread ME (1-based, < 8192). Returns the level. */
enum hwp_mm_level hwp__mm_access(struct hwp_mm_shared *sh, struct hwp_mm_private *pv, uint32_t me,
				 uint64_t addr, bool store);
/* perf_mem_data_src of an access served at LEVEL. */
uint64_t hwp__mm_data_src(enum hwp_mm_level level, bool store);

#endif
