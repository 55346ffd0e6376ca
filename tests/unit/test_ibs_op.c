/* SPDX-License-Identifier: MIT */
/*
 * IBS op decoding, field by field, against the register layouts of the AMD64
 * Architecture Programmer's Manual, Volume 2, section 13.3 "Instruction-Based
 * Sampling" (figures "IbsOpCtl Register", "IbsOpData Register",
 * "IbsOpData2 Register", "IbsOpData3 Register"). Each register value below is
 * built by setting the manual's bit positions by hand, one field at a time.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "testlib.h"
#include "hwprof/data_src.h"

static size_t pack(uint8_t *buf, uint32_t caps, const uint64_t *regs, int n)
{
	memcpy(buf, &caps, 4);
	memcpy(buf + 4, regs, 8 * (size_t)n);
	return 4 + 8 * (size_t)n;
}

static void test_ctl_and_data(void)
{
	uint8_t buf[128];
	uint64_t r[7] = { 0 };
	struct hwp_ibs_op o;

	/* IbsOpCtl: IbsOpMaxCnt[19:4] = bits 15:0, IbsOpEn 17, IbsOpVal 18,
	   IbsOpCntCtl 19, IbsOpMaxCnt[26:20] = bits 26:20, IbsOpCurCnt 58:32 */
	r[0] = 0x1234ull | 1ull << 17 | 1ull << 18 | 1ull << 19 | 0x5ull << 20 | 0x7654321ull << 32;
	r[1] = 0x401234; /* IbsOpRip */
	/* IbsOpData: IbsCompToRetCtr 15:0, IbsTagToRetCtr 31:16, IbsOpReturn 34,
	   IbsOpBrnTaken 35, IbsOpBrnMisp 36, IbsOpBrnRet 37, IbsRipInvalid 38,
	   IbsOpBrnFuse 39, IbsOpMicrocode 40 */
	r[2] = 17 | 230ull << 16 | 1ull << 35 | 1ull << 37 | 1ull << 40;
	CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
	CHECK_EQ_U64(o.max_cnt, (0x1234u << 4) | (0x5u << 20));
	CHECK(o.op_en && o.op_val && o.cnt_ctl);
	CHECK_EQ_U64(o.cur_cnt, 0x7654321);
	CHECK_EQ_U64(o.op_rip, 0x401234);
	CHECK_EQ_U64(o.comp_to_ret_ctr, 17);
	CHECK_EQ_U64(o.tag_to_ret_ctr, 230);
	CHECK(o.brn_taken && o.brn_ret && o.microcode);
	CHECK(!o.op_return && !o.brn_misp && !o.rip_invalid && !o.brn_fuse);
	CHECK(!o.has_br_target && !o.has_op_data4);
}

static void test_data3_bits(void)
{
	static const struct { int bit; size_t off; } one[] = {
#define B(n, f) { n, offsetof(struct hwp_ibs_op, f) }
		B(0, ld_op), B(1, st_op), B(2, dc_l1tlb_miss), B(3, dc_l2tlb_miss),
		B(4, dc_l1tlb_hit_2m), B(5, dc_l1tlb_hit_1g), B(6, dc_l2tlb_hit_2m),
		B(7, dc_miss), B(8, dc_mis_acc), B(10, dc_st_bnk_con), B(11, dc_st_to_ld_fwd),
		B(12, dc_st_to_ld_can), B(13, dc_uc_mem_acc), B(14, dc_wc_mem_acc),
		B(15, dc_locked_op), B(16, dc_mab_hit), B(17, dc_lin_addr_valid),
		B(18, dc_phy_addr_valid), B(19, dc_l2tlb_hit_1g), B(20, l2_miss), B(21, sw_pf),
#undef B
	};
	uint8_t buf[128];
	uint64_t r[7] = { 0 };
	struct hwp_ibs_op o;

	/* IbsOpData3: each single-bit field alone sets exactly its flag */
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		r[4] = 1ull << one[i].bit;
		CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
		for (size_t j = 0; j < sizeof(one) / sizeof(one[0]); j++) {
			bool v;
			memcpy(&v, (const char *)&o + one[j].off, sizeof(v));
			CHECK(v == (i == j));
		}
	}
	/* IbsOpMemWidth 25:22, IbsOpDcMissOpenMemReqs 31:26, IbsDcMissLat 47:32,
	   IbsTlbRefillLat 63:48 */
	r[4] = 0x9ull << 22 | 0x2aull << 26 | 0x1f3ull << 32 | 0xbeefull << 48;
	r[5] = 0x7ffc12345678; /* IbsDcLinAd */
	r[6] = 0x12345678;     /* IbsDcPhysAd */
	CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
	CHECK_EQ_U64(o.mem_width, 9);
	CHECK_EQ_U64(o.dc_miss_open_mem_reqs, 0x2a);
	CHECK_EQ_U64(o.dc_miss_lat, 0x1f3);
	CHECK_EQ_U64(o.tlb_refill_lat, 0xbeef);
	CHECK_EQ_U64(o.dc_lin_addr, 0x7ffc12345678);
	CHECK_EQ_U64(o.dc_phys_addr, 0x12345678);
}

static void test_data2_and_sources(void)
{
	uint8_t buf[128];
	uint64_t r[9] = { 0 };
	struct hwp_ibs_op o;
	struct hwp_data_src d;

	/* IbsOpData2: DataSrc 2:0, RmtNode 4, CacheHitSt 5, DataSrcHi 7:6 (Zen 4) */
	r[3] = 3 | 1ull << 4;       /* DRAM, remote node */
	r[4] = 1 | 1ull << 7 | 1ull << 20; /* load, DC miss, L2 miss */
	CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
	CHECK_EQ_U64(o.data_src, 3);
	CHECK(o.rmt_node && !o.cache_hit_st);
	CHECK_EQ_U64(hwp_data_src__source(hwp_ibs_op__data_src(&o)), HWP_MEM_SRC_REMOTE_DRAM);
	hwp_data_src__decode(hwp_ibs_op__data_src(&o), &d);
	CHECK_EQ_U64(d.op, HWP_MEM_OP_LOAD);
	CHECK_EQ_U64(d.lvl_num, HWP_MEM_LVLNUM_RAM);
	CHECK_EQ_U64(d.remote, 1);

	/* DataSrcHi only counts with the Zen 4 capability: 0b01:000 = 8,
	   "extension memory" (CXL) */
	r[3] = 1ull << 6;
	CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
	CHECK_EQ_U64(o.data_src, 0);
	CHECK(hwp_ibs_op__decode(buf, pack(buf, HWP_IBS_CAPS_ZEN4, r, 7), &o) == 0);
	CHECK_EQ_U64(o.data_src, 8);
	CHECK_EQ_U64(hwp_data_src__source(hwp_ibs_op__data_src(&o)), HWP_MEM_SRC_CXL);

	/* local cache, line in M state (CacheHitSt 0): an L3 HITM */
	r[3] = 2;
	CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
	CHECK_EQ_U64(hwp_data_src__source(hwp_ibs_op__data_src(&o)), HWP_MEM_SRC_L3_HITM);
	r[3] = 2 | 1ull << 5; /* O state */
	CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
	CHECK_EQ_U64(hwp_data_src__source(hwp_ibs_op__data_src(&o)), HWP_MEM_SRC_L3);

	/* no DC miss: L1; DC miss with MAB hit: fill buffer; no L2 miss: L2 */
	r[4] = 1;
	CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
	CHECK_EQ_U64(hwp_data_src__source(hwp_ibs_op__data_src(&o)), HWP_MEM_SRC_L1);
	r[4] = 1 | 1ull << 7 | 1ull << 16;
	CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
	CHECK_EQ_U64(hwp_data_src__source(hwp_ibs_op__data_src(&o)), HWP_MEM_SRC_LFB);
	r[4] = 1 | 1ull << 7;
	CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
	CHECK_EQ_U64(hwp_data_src__source(hwp_ibs_op__data_src(&o)), HWP_MEM_SRC_L2);
	/* neither load nor store: no data source */
	r[4] = 0;
	CHECK(hwp_ibs_op__decode(buf, pack(buf, 0, r, 7), &o) == 0);
	CHECK_EQ_U64(hwp_ibs_op__data_src(&o), 0);

	/* IbsBrTarget then IbsOpData4 follow when the capabilities say so */
	r[7] = 0x401999;
	r[8] = 1;
	CHECK(hwp_ibs_op__decode(buf, pack(buf, HWP_IBS_CAPS_BRNTRGT | HWP_IBS_CAPS_OPDATA4, r, 9), &o) == 0);
	CHECK(o.has_br_target && o.has_op_data4);
	CHECK_EQ_U64(o.br_target, 0x401999);
	CHECK_EQ_U64(o.op_data4, 1);
}

static void test_short(void)
{
	uint8_t buf[128] = { 0 };
	struct hwp_ibs_op o;
	uint32_t caps = HWP_IBS_CAPS_BRNTRGT;

	CHECK(hwp_ibs_op__decode(buf, 3, &o) == -EINVAL);
	memcpy(buf, &caps, 4);
	/* seven registers are not enough once IbsBrTarget is announced */
	CHECK(hwp_ibs_op__decode(buf, 4 + 56, &o) == -EINVAL);
	CHECK(strstr(hwp_errmsg(), "need 68") != NULL);
	CHECK(hwp_ibs_op__decode(buf, 4 + 64, &o) == 0);
}

int main(void)
{
	RUN(test_ctl_and_data);
	RUN(test_data3_bits);
	RUN(test_data2_and_sources);
	RUN(test_short);
	TL_EXIT();
}
