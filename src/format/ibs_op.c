/* SPDX-License-Identifier: MIT */
/*
 * AMD IBS op samples. Register layouts: AMD64 Architecture Programmer's
 * Manual Vol. 2, section 13.3 "Instruction-Based Sampling" (IbsOpCtl
 * MSRC001_1033, IbsOpRip _1034, IbsOpData _1035, IbsOpData2 _1036,
 * IbsOpData3 _1037, IbsDcLinAd _1038, IbsDcPhysAd _1039, IbsBrTarget
 * _103B, IbsOpData4 _103D).
 */
#include <errno.h>
#include <string.h>

#include "format/data_src_internal.h"
#include "hwprof/data_src.h"
#include "hwprof/hwprof.h"
#include "util/bytes.h"
#include "util/error.h"

#define BIT(v, n) (((v) >> (n)) & 1)
#define BITS(v, lo, w) (((v) >> (lo)) & ((1ull << (w)) - 1))

/* IbsOpData2 DataSrc values (DataSrcHi:DataSrc on Zen 4). */
enum {
	IBS_SRC_LOC_CACHE = 2, IBS_SRC_DRAM = 3, IBS_SRC_REM_CACHE = 4, IBS_SRC_IO = 7,
	/* Zen 4 (IBS_CAPS_ZEN4): the extended encoding */
	IBS_EXT_LOC_CACHE = 1, IBS_EXT_NEAR_CCX = 2, IBS_EXT_DRAM = 3, IBS_EXT_FAR_CCX = 5,
	IBS_EXT_PMEM = 6, IBS_EXT_IO = 7, IBS_EXT_EXT_MEM = 8, IBS_EXT_PEER_AGENT_MEM = 12,
};

int hwp_ibs_op__decode(const void *raw, size_t len, struct hwp_ibs_op *o)
{
	const uint8_t *p = raw;
	size_t need;

	memset(o, 0, sizeof(*o));
	if (len < 4)
		return hwp__set_error(EINVAL, "IBS op sample: %zu raw bytes, too short for its capabilities word", len);
	o->caps = ld32(p);
	o->has_br_target = o->caps & HWP_IBS_CAPS_BRNTRGT;
	o->has_op_data4 = o->caps & HWP_IBS_CAPS_OPDATA4;
	need = 4 + 8 * (7 + o->has_br_target + o->has_op_data4);
	if (len < need)
		return hwp__set_error(EINVAL, "IBS op sample: %zu raw bytes, its capabilities need %zu", len, need);
	p += 4;
	o->op_ctl = ld64(p);
	o->op_rip = ld64(p + 8);
	o->op_data = ld64(p + 16);
	o->op_data2 = ld64(p + 24);
	o->op_data3 = ld64(p + 32);
	o->dc_lin_addr = ld64(p + 40);
	o->dc_phys_addr = ld64(p + 48);
	p += 56;
	/* Linux reads IbsBrTarget before IbsOpData4 (arch/x86/events/amd/ibs.c). */
	if (o->has_br_target) {
		o->br_target = ld64(p);
		p += 8;
	}
	if (o->has_op_data4)
		o->op_data4 = ld64(p);

	/* IbsOpCtl: IbsOpMaxCnt[19:4] in 15:0, [26:20] in 26:20 */
	o->max_cnt = (uint32_t)((BITS(o->op_ctl, 0, 16) << 4) | (BITS(o->op_ctl, 20, 7) << 20));
	o->op_en = BIT(o->op_ctl, 17);
	o->op_val = BIT(o->op_ctl, 18);
	o->cnt_ctl = BIT(o->op_ctl, 19);
	o->cur_cnt = (uint32_t)BITS(o->op_ctl, 32, 27);
	/* IbsOpData */
	o->comp_to_ret_ctr = (uint16_t)BITS(o->op_data, 0, 16);
	o->tag_to_ret_ctr = (uint16_t)BITS(o->op_data, 16, 16);
	o->op_return = BIT(o->op_data, 34);
	o->brn_taken = BIT(o->op_data, 35);
	o->brn_misp = BIT(o->op_data, 36);
	o->brn_ret = BIT(o->op_data, 37);
	o->rip_invalid = BIT(o->op_data, 38);
	o->brn_fuse = BIT(o->op_data, 39);
	o->microcode = BIT(o->op_data, 40);
	/* IbsOpData2: DataSrc 2:0, RmtNode 4, CacheHitSt 5, DataSrcHi 7:6 */
	o->data_src = (uint8_t)(BITS(o->op_data2, 0, 3) |
				((o->caps & HWP_IBS_CAPS_ZEN4) ? BITS(o->op_data2, 6, 2) << 3 : 0));
	o->rmt_node = BIT(o->op_data2, 4);
	o->cache_hit_st = BIT(o->op_data2, 5);
	/* IbsOpData3 */
	o->ld_op = BIT(o->op_data3, 0);
	o->st_op = BIT(o->op_data3, 1);
	o->dc_l1tlb_miss = BIT(o->op_data3, 2);
	o->dc_l2tlb_miss = BIT(o->op_data3, 3);
	o->dc_l1tlb_hit_2m = BIT(o->op_data3, 4);
	o->dc_l1tlb_hit_1g = BIT(o->op_data3, 5);
	o->dc_l2tlb_hit_2m = BIT(o->op_data3, 6);
	o->dc_miss = BIT(o->op_data3, 7);
	o->dc_mis_acc = BIT(o->op_data3, 8);
	o->dc_st_bnk_con = BIT(o->op_data3, 10);
	o->dc_st_to_ld_fwd = BIT(o->op_data3, 11);
	o->dc_st_to_ld_can = BIT(o->op_data3, 12);
	o->dc_uc_mem_acc = BIT(o->op_data3, 13);
	o->dc_wc_mem_acc = BIT(o->op_data3, 14);
	o->dc_locked_op = BIT(o->op_data3, 15);
	o->dc_mab_hit = BIT(o->op_data3, 16);
	o->dc_lin_addr_valid = BIT(o->op_data3, 17);
	o->dc_phy_addr_valid = BIT(o->op_data3, 18);
	o->dc_l2tlb_hit_1g = BIT(o->op_data3, 19);
	o->l2_miss = BIT(o->op_data3, 20);
	o->sw_pf = BIT(o->op_data3, 21);
	o->mem_width = (uint8_t)BITS(o->op_data3, 22, 4);
	o->dc_miss_open_mem_reqs = (uint8_t)BITS(o->op_data3, 26, 6);
	o->dc_miss_lat = (uint16_t)BITS(o->op_data3, 32, 16);
	o->tlb_refill_lat = (uint16_t)BITS(o->op_data3, 48, 16);
	return 0;
}

/* Where an L2 miss was served from, by DataSrc (loads only: the manual
   defines DataSrc for load ops). */
static void miss_source(const struct hwp_ibs_op *o, struct hwp_data_src *d)
{
	bool zen4 = o->caps & HWP_IBS_CAPS_ZEN4;
	/* CacheHitSt: 0 = the line was in M state, 1 = O state (cache sources). */
	uint8_t cache_snoop = o->cache_hit_st ? HWP_MEM_SNOOP_HIT : HWP_MEM_SNOOP_HITM;

	d->snoop = HWP_MEM_SNOOP_NA;
	switch (o->data_src) {
	case IBS_EXT_LOC_CACHE: /* == IBS_SRC reserved value 1 before Zen 4 */
		if (!zen4)
			break;
		d->lvl = HWP_MEM_LVL_L3 | HWP_MEM_LVL_HIT;
		d->lvl_num = HWP_MEM_LVLNUM_L3;
		d->snoop = cache_snoop;
		return;
	case IBS_SRC_LOC_CACHE: /* == IBS_EXT_NEAR_CCX */
		if (zen4) {
			d->lvl = HWP_MEM_LVL_HIT;
			d->lvl_num = HWP_MEM_LVLNUM_ANY_CACHE;
			d->snoopx = HWP_MEM_SNOOPX_PEER;
		} else {
			d->lvl = HWP_MEM_LVL_L3 | HWP_MEM_LVL_HIT;
			d->lvl_num = HWP_MEM_LVLNUM_L3;
		}
		d->snoop = cache_snoop;
		return;
	case IBS_SRC_DRAM:
		d->lvl = (o->rmt_node ? HWP_MEM_LVL_REM_RAM1 : HWP_MEM_LVL_LOC_RAM) | HWP_MEM_LVL_HIT;
		d->lvl_num = HWP_MEM_LVLNUM_RAM;
		d->remote = o->rmt_node;
		return;
	case IBS_SRC_REM_CACHE: /* reserved on Zen 4 */
		if (zen4)
			break;
		d->lvl = HWP_MEM_LVL_REM_CCE1 | HWP_MEM_LVL_HIT;
		d->lvl_num = HWP_MEM_LVLNUM_ANY_CACHE;
		d->remote = 1;
		d->snoop = cache_snoop;
		return;
	case IBS_EXT_FAR_CCX:
		if (!zen4)
			break;
		d->lvl = HWP_MEM_LVL_HIT | (o->rmt_node ? HWP_MEM_LVL_REM_CCE1 : 0);
		d->lvl_num = HWP_MEM_LVLNUM_ANY_CACHE;
		d->remote = o->rmt_node;
		d->snoop = cache_snoop;
		return;
	case IBS_EXT_PMEM:
		if (!zen4)
			break;
		d->lvl = HWP_MEM_LVL_HIT;
		d->lvl_num = HWP_MEM_LVLNUM_PMEM;
		d->remote = o->rmt_node;
		return;
	case IBS_SRC_IO:
		d->lvl = HWP_MEM_LVL_IO | HWP_MEM_LVL_HIT;
		d->lvl_num = HWP_MEM_LVLNUM_IO;
		return;
	case IBS_EXT_EXT_MEM:
		d->lvl = HWP_MEM_LVL_HIT;
		d->lvl_num = HWP_MEM_LVLNUM_CXL;
		d->remote = o->rmt_node;
		return;
	case IBS_EXT_PEER_AGENT_MEM:
		d->lvl = HWP_MEM_LVL_HIT;
		d->lvl_num = HWP_MEM_LVLNUM_RAM;
		d->remote = o->rmt_node;
		return;
	default:
		break;
	}
	d->lvl = HWP_MEM_LVL_L2 | HWP_MEM_LVL_MISS;
	d->lvl_num = HWP_MEM_LVLNUM_L2;
}

uint64_t hwp_ibs_op__data_src(const struct hwp_ibs_op *o)
{
	struct hwp_data_src d = { 0 };

	if (!o->ld_op && !o->st_op)
		return 0;
	d.op = o->ld_op ? HWP_MEM_OP_LOAD : HWP_MEM_OP_STORE;
	if (!o->dc_miss) {
		d.lvl = HWP_MEM_LVL_L1 | HWP_MEM_LVL_HIT;
		d.lvl_num = HWP_MEM_LVLNUM_L1;
		d.snoop = HWP_MEM_SNOOP_NA;
	} else if (o->dc_mab_hit) {
		d.lvl = HWP_MEM_LVL_LFB | HWP_MEM_LVL_HIT;
		d.lvl_num = HWP_MEM_LVLNUM_LFB;
		d.snoop = HWP_MEM_SNOOP_NA;
	} else if (!o->l2_miss) {
		d.lvl = HWP_MEM_LVL_L2 | HWP_MEM_LVL_HIT;
		d.lvl_num = HWP_MEM_LVLNUM_L2;
		d.snoop = HWP_MEM_SNOOP_NA;
	} else if (o->ld_op) {
		miss_source(o, &d);
	} else {
		d.lvl = HWP_MEM_LVL_L2 | HWP_MEM_LVL_MISS;
		d.lvl_num = HWP_MEM_LVLNUM_L2;
		d.snoop = HWP_MEM_SNOOP_NA;
	}
	if (!o->dc_l1tlb_miss)
		d.dtlb = HWP_MEM_TLB_L1 | HWP_MEM_TLB_HIT;
	else if (!o->dc_l2tlb_miss)
		d.dtlb = HWP_MEM_TLB_L2 | HWP_MEM_TLB_HIT;
	else
		d.dtlb = HWP_MEM_TLB_L2 | HWP_MEM_TLB_MISS;
	d.lock = o->dc_locked_op ? HWP_MEM_LOCK_LOCKED : 0;
	return hwp__data_src_encode(&d);
}
