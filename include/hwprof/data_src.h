/* SPDX-License-Identifier: MIT */
/*
 * Precise-sample memory fields: PERF_SAMPLE_DATA_SRC (the kernel's
 * union perf_mem_data_src, include/uapi/linux/perf_event.h) and AMD IBS op
 * samples (PERF_SAMPLE_RAW of the ibs_op PMU), decoded into fields, perf
 * 6.1's text and one coarse data source for reports.
 */
#ifndef HWPROF_DATA_SRC_H
#define HWPROF_DATA_SRC_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

/* Bit masks of each field, as the uapi header names them (PERF_MEM_*). */
enum {
	HWP_MEM_OP_NA = 1, HWP_MEM_OP_LOAD = 2, HWP_MEM_OP_STORE = 4, HWP_MEM_OP_PFETCH = 8,
	HWP_MEM_OP_EXEC = 16,
};
enum {
	HWP_MEM_LVL_NA = 1 << 0, HWP_MEM_LVL_HIT = 1 << 1, HWP_MEM_LVL_MISS = 1 << 2,
	HWP_MEM_LVL_L1 = 1 << 3, HWP_MEM_LVL_LFB = 1 << 4, HWP_MEM_LVL_L2 = 1 << 5,
	HWP_MEM_LVL_L3 = 1 << 6, HWP_MEM_LVL_LOC_RAM = 1 << 7, HWP_MEM_LVL_REM_RAM1 = 1 << 8,
	HWP_MEM_LVL_REM_RAM2 = 1 << 9, HWP_MEM_LVL_REM_CCE1 = 1 << 10,
	HWP_MEM_LVL_REM_CCE2 = 1 << 11, HWP_MEM_LVL_IO = 1 << 12, HWP_MEM_LVL_UNC = 1 << 13,
};
enum {
	HWP_MEM_SNOOP_NA = 1, HWP_MEM_SNOOP_NONE = 2, HWP_MEM_SNOOP_HIT = 4,
	HWP_MEM_SNOOP_MISS = 8, HWP_MEM_SNOOP_HITM = 16,
};
enum { HWP_MEM_SNOOPX_FWD = 1, HWP_MEM_SNOOPX_PEER = 2 };
enum { HWP_MEM_LOCK_NA = 1, HWP_MEM_LOCK_LOCKED = 2 };
enum {
	HWP_MEM_TLB_NA = 1, HWP_MEM_TLB_HIT = 2, HWP_MEM_TLB_MISS = 4, HWP_MEM_TLB_L1 = 8,
	HWP_MEM_TLB_L2 = 16, HWP_MEM_TLB_WK = 32, HWP_MEM_TLB_OS = 64,
};
enum { HWP_MEM_BLK_NA = 1, HWP_MEM_BLK_DATA = 2, HWP_MEM_BLK_ADDR = 4 };
/* mem_lvl_num values (not bits). */
enum {
	HWP_MEM_LVLNUM_L1 = 1, HWP_MEM_LVLNUM_L2 = 2, HWP_MEM_LVLNUM_L3 = 3, HWP_MEM_LVLNUM_L4 = 4,
	HWP_MEM_LVLNUM_CXL = 9, HWP_MEM_LVLNUM_IO = 10, HWP_MEM_LVLNUM_ANY_CACHE = 11,
	HWP_MEM_LVLNUM_LFB = 12, HWP_MEM_LVLNUM_RAM = 13, HWP_MEM_LVLNUM_PMEM = 14,
	HWP_MEM_LVLNUM_NA = 15,
};

/* union perf_mem_data_src, field by field (bit positions in data_src.c). */
struct hwp_data_src {
	uint8_t op;      /* 5 bits, HWP_MEM_OP_* */
	uint16_t lvl;    /* 14 bits, HWP_MEM_LVL_* */
	uint8_t snoop;   /* 5 bits, HWP_MEM_SNOOP_* */
	uint8_t lock;    /* 2 bits */
	uint8_t dtlb;    /* 7 bits, HWP_MEM_TLB_* */
	uint8_t lvl_num; /* 4 bits, HWP_MEM_LVLNUM_* (a value) */
	uint8_t remote;  /* 1 bit */
	uint8_t snoopx;  /* 2 bits */
	uint8_t blk;     /* 3 bits */
	uint8_t hops;    /* 3 bits: 0 none, 1 core, 2 node, 3 socket, 4 board */
};

HWP_API void hwp_data_src__decode(uint64_t v, struct hwp_data_src *d);

/* Where a memory access was served from, coarsely, for breakdowns. */
enum hwp_mem_source {
	HWP_MEM_SRC_UNKNOWN,
	HWP_MEM_SRC_L1,
	HWP_MEM_SRC_LFB,        /* fill buffer / miss address buffer hit */
	HWP_MEM_SRC_L2,
	HWP_MEM_SRC_L3,
	HWP_MEM_SRC_L3_HITM,    /* a cache of this socket held the line modified */
	HWP_MEM_SRC_PEER,       /* another core's cache (AMD: another CCX), not modified */
	HWP_MEM_SRC_LOCAL_DRAM,
	HWP_MEM_SRC_REMOTE_DRAM,
	HWP_MEM_SRC_REMOTE_CACHE, /* includes remote HITM */
	HWP_MEM_SRC_PMEM,
	HWP_MEM_SRC_CXL,
	HWP_MEM_SRC_IO,
	HWP_MEM_SRC_UNCACHED,
	HWP_MEM_SRC__COUNT
};
HWP_API enum hwp_mem_source hwp_data_src__source(uint64_t v);
/* "L1", "LFB", "L2", "L3", "L3 HITM", "peer cache", "local DRAM", ... */
HWP_API const char *hwp_mem_source__name(enum hwp_mem_source s);
/* Short keys for JSON/CSV: "l1", "lfb", "l2", "l3", "l3_hitm", ... */
HWP_API const char *hwp_mem_source__key(enum hwp_mem_source s);
/* The access was a snoop hit on a modified line (HitM), local or remote. */
HWP_API bool hwp_data_src__is_hitm(uint64_t v);

/*
 * AMD IBS op sample (AMD64 Architecture Programmer's Manual Vol. 2, 13.3
 * "Instruction-Based Sampling": IbsOpCtl, IbsOpRip, IbsOpData, IbsOpData2,
 * IbsOpData3, IbsDcLinAd, IbsDcPhysAd, IbsBrTarget, IbsOpData4). Linux puts
 * in PERF_SAMPLE_RAW a u32 of IBS capabilities then the MSR values in that
 * order; IbsBrTarget only with HWP_IBS_CAPS_BRNTRGT, IbsOpData4 only with
 * HWP_IBS_CAPS_OPDATA4.
 */
enum { HWP_IBS_CAPS_BRNTRGT = 1 << 5, HWP_IBS_CAPS_OPDATA4 = 1 << 10, HWP_IBS_CAPS_ZEN4 = 1 << 11 };
struct hwp_ibs_op {
	uint32_t caps;
	uint64_t op_ctl, op_rip, op_data, op_data2, op_data3, dc_lin_addr, dc_phys_addr;
	uint64_t br_target, op_data4;
	bool has_br_target, has_op_data4;
	/* IbsOpCtl */
	uint32_t max_cnt;       /* IbsOpMaxCnt, in ops (already shifted by 4) */
	bool op_en, op_val, cnt_ctl;
	uint32_t cur_cnt;
	/* IbsOpData */
	uint16_t comp_to_ret_ctr, tag_to_ret_ctr;
	bool op_return, brn_taken, brn_misp, brn_ret, rip_invalid, brn_fuse, microcode;
	/* IbsOpData2 */
	uint8_t data_src;       /* DataSrc, with DataSrcHi (Zen 4) as bits 4:3 */
	bool rmt_node, cache_hit_st;
	/* IbsOpData3 */
	bool ld_op, st_op, dc_l1tlb_miss, dc_l2tlb_miss, dc_l1tlb_hit_2m, dc_l1tlb_hit_1g,
		dc_l2tlb_hit_2m, dc_miss, dc_mis_acc, dc_st_bnk_con, dc_st_to_ld_fwd,
		dc_st_to_ld_can, dc_uc_mem_acc, dc_wc_mem_acc, dc_locked_op, dc_mab_hit,
		dc_lin_addr_valid, dc_phy_addr_valid, dc_l2tlb_hit_1g, l2_miss, sw_pf;
	uint8_t mem_width;      /* IbsOpMemWidth */
	uint8_t dc_miss_open_mem_reqs;
	uint16_t dc_miss_lat;   /* cycles from DC miss to fill */
	uint16_t tlb_refill_lat;
};

/*
 * Decode RAW bytes (LEN) of an ibs_op sample. Returns 0, or -EINVAL with
 * hwp_errmsg() when LEN is too short for the registers CAPS announces.
 */
HWP_API int hwp_ibs_op__decode(const void *raw, size_t len, struct hwp_ibs_op *o);
/*
 * The op as a perf_mem_data_src value, hwprof's mapping (ibs_op.c): op from
 * IbsLdOp/IbsStOp; level from IbsDcMiss, IbsDcMabHit, IbsL2Miss, then (loads)
 * DataSrc and RmtNode; snoop HitM when CacheHitSt says M state; TLB from the
 * TLB miss bits; lock from IbsDcLockedOp. 0 when neither a load nor a store.
 */
HWP_API uint64_t hwp_ibs_op__data_src(const struct hwp_ibs_op *o);

HWP_END_DECLS

#endif
