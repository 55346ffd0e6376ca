/* SPDX-License-Identifier: MIT */
/* The modelled cache hierarchy (mem_model.h says what it models). */
#include <string.h>

#include "emu/mem_model.h"

const uint32_t hwp_mm_latency[5] = { 4, 14, 50, 100, 200 };

/* Directory entry: tag (line >> DIR_BITS, 22 bits) << 32 | gen (16) << 16 |
   dirty (1) << 15 | writer (13 bits, 0 none). A different tag: never written. */
#define D_TAG(e) ((e) >> 32)
#define D_GEN(e) (((e) >> 16) & 0xffff)
#define D_DIRTY(e) (((e) >> 15) & 1)
#define D_WRITER(e) ((uint32_t)((e) & 0x1fff))

static uint64_t d_make(uint64_t tag, uint64_t gen, bool dirty, uint32_t writer)
{
	return tag << 32 | (gen & 0xffff) << 16 | (uint64_t)dirty << 15 | (writer & 0x1fff);
}

static uint64_t ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void st(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* A private set lookup: true when LINE is there with a valid generation;
   either way LINE (with GEN) ends up most recently used. */
static bool priv_touch(uint64_t *set, unsigned ways, uint64_t line, uint64_t gen, bool any_gen)
{
	uint64_t want = line << 16 | (gen & 0xffff);
	unsigned i;
	bool hit = false;

	for (i = 0; i < ways; i++)
		if (set[i] >> 16 == line) {
			hit = any_gen || (set[i] & 0xffff) == (gen & 0xffff);
			break;
		}
	if (i == ways)
		i = ways - 1; /* evict the least recently used */
	memmove(set + 1, set, i * sizeof(*set));
	set[0] = want;
	return hit;
}

/* The shared L3: the same with relaxed atomics, no generations. */
static bool l3_touch(uint64_t *set, uint64_t line)
{
	uint64_t want = line + 1;
	unsigned i;
	bool hit = false;

	for (i = 0; i < HWP_MM_L3_WAYS; i++)
		if (ld(&set[i]) == want) {
			hit = true;
			break;
		}
	if (i == HWP_MM_L3_WAYS)
		i = HWP_MM_L3_WAYS - 1;
	for (; i > 0; i--)
		st(&set[i], ld(&set[i - 1]));
	st(&set[0], want);
	return hit;
}

enum hwp_mm_level hwp__mm_access(struct hwp_mm_shared *sh, struct hwp_mm_private *pv, uint32_t me,
				 uint64_t addr, bool store)
{
	uint64_t line = addr >> HWP_MM_LINE_SHIFT;
	uint64_t *dp = &sh->dir[line & ((1u << HWP_MM_DIR_BITS) - 1)];
	uint64_t tag = line >> HWP_MM_DIR_BITS, d = ld(dp), gen;
	uint64_t *l1 = &pv->l1[(line % HWP_MM_L1_SETS) * HWP_MM_L1_WAYS];
	uint64_t *l2 = &pv->l2[(line % HWP_MM_L2_SETS) * HWP_MM_L2_WAYS];
	uint64_t *l3 = &sh->l3[(line % HWP_MM_L3_SETS) * HWP_MM_L3_WAYS];
	bool known = D_TAG(d) == tag, mine;
	enum hwp_mm_level lvl;

	if (!known)
		d = d_make(tag, 0, false, 0);
	gen = D_GEN(d);
	/* my own writes never make my copy stale */
	mine = D_WRITER(d) == me || D_WRITER(d) == 0;
	if (D_DIRTY(d) && !mine) {
		lvl = HWP_MM_HITM;
		(void)l3_touch(l3, line);
	} else if (priv_touch(l1, HWP_MM_L1_WAYS, line, gen, mine)) {
		lvl = HWP_MM_L1;
	} else if (priv_touch(l2, HWP_MM_L2_WAYS, line, gen, mine)) {
		lvl = HWP_MM_L2;
	} else {
		lvl = l3_touch(l3, line) ? HWP_MM_L3 : HWP_MM_DRAM;
	}
	if (store) {
		/* a new writer: every other private copy is stale */
		if (D_WRITER(d) != me)
			gen++;
		d = d_make(tag, gen, true, me);
		st(dp, d);
	} else if (lvl == HWP_MM_HITM) {
		d = d_make(tag, gen, false, D_WRITER(d));
		st(dp, d);
	}
	/* the requester's copies now hold the current generation */
	if (lvl != HWP_MM_L1)
		(void)priv_touch(l1, HWP_MM_L1_WAYS, line, gen, true);
	else
		l1[0] = line << 16 | (gen & 0xffff);
	if (lvl != HWP_MM_L1 && lvl != HWP_MM_L2)
		(void)priv_touch(l2, HWP_MM_L2_WAYS, line, gen, true);
	else if (lvl == HWP_MM_L2)
		l2[0] = line << 16 | (gen & 0xffff);
	return lvl;
}

/* The encodings Intel PEBS uses for these levels (perf_event.h's
   PERF_MEM_* values): op, level bits + lvl_num, snoop; TLB and lock N/A. */
uint64_t hwp__mm_data_src(enum hwp_mm_level level, bool store)
{
	uint64_t op = store ? 4 : 2;            /* PERF_MEM_OP_STORE / LOAD */
	uint64_t lvl, num, snoop;

	switch (level) {
	case HWP_MM_L1: lvl = 0x08 | 0x02; num = 1; snoop = 0x02; break;   /* L1 hit, snoop None */
	case HWP_MM_L2: lvl = 0x20 | 0x02; num = 2; snoop = 0x02; break;   /* L2 hit */
	case HWP_MM_L3: lvl = 0x40 | 0x02; num = 3; snoop = 0x02; break;   /* L3 hit */
	case HWP_MM_HITM: lvl = 0x40 | 0x02; num = 3; snoop = 0x10; break; /* L3 hit, HitM */
	default: lvl = 0x80 | 0x02; num = 13; snoop = 0x08; break;         /* local RAM, snoop Miss */
	}
	/* op 0-4, lvl 5-18, snoop 19-23, lock 24-25 (NA), dtlb 26-32 (NA), lvl_num 33-36 */
	return op | lvl << 5 | snoop << 19 | 1ull << 24 | 1ull << 26 | num << 33;
}
