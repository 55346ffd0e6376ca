/* SPDX-License-Identifier: MIT */
/*
 * The emulator's modelled cache hierarchy (src/emu/mem_model.h): the level
 * each access is served from for working sets just inside and just outside
 * each documented size, the cross-thread protocol (a store makes other
 * copies stale; a line modified by another thread is a HITM that leaves it
 * shared), and the data_src each level is encoded as, decoded back by the
 * library's decoder.
 */
#include <stdlib.h>
#include <string.h>

#include "emu/mem_model.c"
#include "testlib.h"
#include "hwprof/data_src.h"

static struct hwp_mm_shared *sh;
static struct hwp_mm_private *p1, *p2;

static void reset(void)
{
	memset(sh, 0, sizeof(*sh));
	memset(p1, 0, sizeof(*p1));
	memset(p2, 0, sizeof(*p2));
}

/* Walks SIZE bytes a line at a time, twice; returns the level all accesses
   of the second pass got, or -1 when they differ. */
static int second_pass(uint64_t size)
{
	int lvl = -2;

	reset();
	for (int pass = 0; pass < 2; pass++)
		for (uint64_t a = 0x10000000; a < 0x10000000 + size; a += 64) {
			int l = hwp__mm_access(sh, p1, 1, a, false);
			if (pass == 1)
				lvl = lvl == -2 || lvl == l ? l : -1;
		}
	return lvl;
}

static void test_capacities(void)
{
	/* L1D 32 KiB, L2 1 MiB, L3 32 MiB (mem_model.h) */
	CHECK_EQ_U64(second_pass(32 << 10), HWP_MM_L1);
	CHECK_EQ_U64(second_pass(64 << 10), HWP_MM_L2);
	CHECK_EQ_U64(second_pass(1 << 20), HWP_MM_L2);
	CHECK_EQ_U64(second_pass(2 << 20), HWP_MM_L3);
	CHECK_EQ_U64(second_pass(32 << 20), HWP_MM_L3);
	CHECK_EQ_U64(second_pass(64 << 20), HWP_MM_DRAM);
}

static void test_sharing(void)
{
	uint64_t x = 0x20000040;

	reset();
	CHECK_EQ_U64(hwp__mm_access(sh, p1, 1, x, false), HWP_MM_DRAM);
	CHECK_EQ_U64(hwp__mm_access(sh, p1, 1, x + 8, false), HWP_MM_L1);
	/* thread 2 writes the line: it finds it in the shared L3 */
	CHECK_EQ_U64(hwp__mm_access(sh, p2, 2, x + 8, true), HWP_MM_L3);
	CHECK_EQ_U64(hwp__mm_access(sh, p2, 2, x + 8, true), HWP_MM_L1);
	/* thread 1's copy is modified elsewhere: HITM, then shared */
	CHECK_EQ_U64(hwp__mm_access(sh, p1, 1, x, false), HWP_MM_HITM);
	CHECK_EQ_U64(hwp__mm_access(sh, p1, 1, x, false), HWP_MM_L1);
	CHECK_EQ_U64(hwp__mm_access(sh, p2, 2, x, false), HWP_MM_L1);
	/* thread 1 writes its (current) copy; thread 2's is then stale and modified */
	CHECK_EQ_U64(hwp__mm_access(sh, p1, 1, x, true), HWP_MM_L1);
	CHECK_EQ_U64(hwp__mm_access(sh, p2, 2, x + 8, true), HWP_MM_HITM);
	CHECK_EQ_U64(hwp__mm_access(sh, p1, 1, x, true), HWP_MM_HITM);
	/* another line of the same set is unaffected */
	CHECK_EQ_U64(hwp__mm_access(sh, p2, 2, x + 64 * HWP_MM_L1_SETS, false), HWP_MM_DRAM);
	/* a thread re-reading only its own writes never sees a HITM */
	for (int i = 0; i < 100; i++)
		CHECK(hwp__mm_access(sh, p2, 2, 0x30000000, i & 1) != HWP_MM_HITM);
}

static void test_encoding(void)
{
	static const struct { enum hwp_mm_level l; enum hwp_mem_source src; uint32_t lat; } want[] = {
		{ HWP_MM_L1, HWP_MEM_SRC_L1, 4 }, { HWP_MM_L2, HWP_MEM_SRC_L2, 14 },
		{ HWP_MM_L3, HWP_MEM_SRC_L3, 50 }, { HWP_MM_HITM, HWP_MEM_SRC_L3_HITM, 100 },
		{ HWP_MM_DRAM, HWP_MEM_SRC_LOCAL_DRAM, 200 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct hwp_data_src d;
		uint64_t ld = hwp__mm_data_src(want[i].l, false), stv = hwp__mm_data_src(want[i].l, true);

		CHECK_EQ_U64(hwp_data_src__source(ld), want[i].src);
		CHECK_EQ_U64(hwp_data_src__source(stv), want[i].src);
		hwp_data_src__decode(ld, &d);
		CHECK_EQ_U64(d.op, HWP_MEM_OP_LOAD);
		hwp_data_src__decode(stv, &d);
		CHECK_EQ_U64(d.op, HWP_MEM_OP_STORE);
		CHECK_EQ_U64(hwp_data_src__is_hitm(ld), want[i].l == HWP_MM_HITM);
		CHECK_EQ_U64(hwp_mm_latency[want[i].l], want[i].lat);
	}
}

int main(void)
{
	sh = calloc(1, sizeof(*sh));
	p1 = calloc(1, sizeof(*p1));
	p2 = calloc(1, sizeof(*p2));
	if (!sh || !p1 || !p2)
		return 1;
	RUN(test_capacities);
	RUN(test_sharing);
	RUN(test_encoding);
	free(sh);
	free(p1);
	free(p2);
	TL_EXIT();
}
