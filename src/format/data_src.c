/* SPDX-License-Identifier: MIT */
/*
 * union perf_mem_data_src (Linux uapi perf_event.h) field by field, perf
 * 6.1's text for it, and a coarse source per access for reports.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "format/data_src_internal.h"
#include "hwprof/data_src.h"

/* Bit offset and width of each field in the u64. */
#define F_OP 0, 5
#define F_LVL 5, 14
#define F_SNOOP 19, 5
#define F_LOCK 24, 2
#define F_DTLB 26, 7
#define F_LVLNUM 33, 4
#define F_REMOTE 37, 1
#define F_SNOOPX 38, 2
#define F_BLK 40, 3
#define F_HOPS 43, 3

static uint64_t get(uint64_t v, int shift, int width)
{
	return (v >> shift) & ((1ull << width) - 1);
}

static uint64_t put(uint64_t x, int shift, int width)
{
	return (x & ((1ull << width) - 1)) << shift;
}

void hwp_data_src__decode(uint64_t v, struct hwp_data_src *d)
{
	d->op = (uint8_t)get(v, F_OP);
	d->lvl = (uint16_t)get(v, F_LVL);
	d->snoop = (uint8_t)get(v, F_SNOOP);
	d->lock = (uint8_t)get(v, F_LOCK);
	d->dtlb = (uint8_t)get(v, F_DTLB);
	d->lvl_num = (uint8_t)get(v, F_LVLNUM);
	d->remote = (uint8_t)get(v, F_REMOTE);
	d->snoopx = (uint8_t)get(v, F_SNOOPX);
	d->blk = (uint8_t)get(v, F_BLK);
	d->hops = (uint8_t)get(v, F_HOPS);
}

uint64_t hwp__data_src_encode(const struct hwp_data_src *d)
{
	return put(d->op, F_OP) | put(d->lvl, F_LVL) | put(d->snoop, F_SNOOP) |
	       put(d->lock, F_LOCK) | put(d->dtlb, F_DTLB) | put(d->lvl_num, F_LVLNUM) |
	       put(d->remote, F_REMOTE) | put(d->snoopx, F_SNOOPX) | put(d->blk, F_BLK) |
	       put(d->hops, F_HOPS);
}

/* A bounded string builder: keeps counting past the end, like snprintf. */
struct sbuf {
	char *p;
	size_t sz, len;
};

static void add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->len < b->sz ? b->p + b->len : NULL, b->len < b->sz ? b->sz - b->len : 0,
		      fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n;
}

/* Names of the level bits from bit 0 (HIT and MISS are printed after). */
static const char *const lvl_names[14] = {
	"N/A", "HIT", "MISS", "L1", "LFB/MAB", "L2", "L3", "Local RAM", "Remote RAM (1 hop)",
	"Remote RAM (2 hops)", "Remote Cache (1 hop)", "Remote Cache (2 hops)", "I/O", "Uncached",
};
/* lvl_num values perf 6.1 names; the others print as "L<n>". */
static const char *lvlnum_name(unsigned n)
{
	switch (n) {
	case HWP_MEM_LVLNUM_CXL: return "CXL";
	case HWP_MEM_LVLNUM_IO: return "I/O";
	case HWP_MEM_LVLNUM_ANY_CACHE: return "Any cache";
	case HWP_MEM_LVLNUM_LFB: return "LFB/MAB";
	case HWP_MEM_LVLNUM_RAM: return "RAM";
	case HWP_MEM_LVLNUM_PMEM: return "PMEM";
	case HWP_MEM_LVLNUM_NA: return "N/A";
	default: return NULL;
	}
}
static const char *const snoop_names[5] = { "N/A", "None", "Hit", "Miss", "HitM" };
static const char *const hops_names[5] = { "", "core, same node", "node, same socket",
					   "socket, same board", "board" };
static const char *const tlb_names[7] = { "N/A", "HIT", "MISS", "L1", "L2", "Walker", "Fault" };

static void fmt_op(struct sbuf *b, const struct hwp_data_src *d)
{
	if (d->op & HWP_MEM_OP_NA)
		add(b, "N/A");
	else if (d->op & HWP_MEM_OP_LOAD)
		add(b, "LOAD");
	else if (d->op & HWP_MEM_OP_STORE)
		add(b, "STORE");
	else if (d->op & HWP_MEM_OP_PFETCH)
		add(b, "PFETCH");
	else if (d->op & HWP_MEM_OP_EXEC)
		add(b, "EXEC");
	else
		add(b, "No");
}

/* perf 6.1: "Remote " and the hops name, else (no hops) every level bit's
   name joined by " or "; then the lvl_num name; "N/A" when nothing was
   printed; then " hit" and/or " miss" from the HIT/MISS bits. */
static void fmt_lvl(struct sbuf *b, const struct hwp_data_src *d)
{
	size_t start = b->len;
	unsigned m = d->lvl & ~(unsigned)(HWP_MEM_LVL_HIT | HWP_MEM_LVL_MISS);
	int printed = 0;

	if (d->remote)
		add(b, "Remote ");
	if (d->hops) {
		/* hops 5-7 are undefined: perf prints "(null)" */
		add(b, "%s ", d->hops <= 4 ? hops_names[d->hops] : "(null)");
	} else {
		for (unsigned i = 0; m && i < 14; i++, m >>= 1)
			if (m & 1)
				add(b, "%s%s", printed++ ? " or " : "", lvl_names[i]);
	}
	if (d->lvl_num) {
		const char *n = lvlnum_name(d->lvl_num);
		if (printed++)
			add(b, " or ");
		if (n)
			add(b, "%s", n);
		else
			add(b, "L%u", d->lvl_num);
	}
	if (b->len == start)
		add(b, "N/A");
	if (d->lvl & HWP_MEM_LVL_HIT)
		add(b, " hit");
	if (d->lvl & HWP_MEM_LVL_MISS)
		add(b, " miss");
}

static void fmt_snoop(struct sbuf *b, const struct hwp_data_src *d)
{
	size_t start = b->len;
	unsigned m = d->snoop;
	int printed = 0;

	for (unsigned i = 0; m && i < 5; i++, m >>= 1)
		if (m & 1)
			add(b, "%s%s", printed++ ? " or " : "", snoop_names[i]);
	if (d->snoopx & HWP_MEM_SNOOPX_FWD)
		add(b, "%sFwd", printed++ ? " or " : "");
	if (d->snoopx & HWP_MEM_SNOOPX_PEER)
		add(b, "%sPeer", printed++ ? " or " : "");
	if (b->len == start)
		add(b, "N/A");
}

static void fmt_tlb(struct sbuf *b, const struct hwp_data_src *d)
{
	size_t start = b->len;
	unsigned m = d->dtlb & ~(unsigned)(HWP_MEM_TLB_HIT | HWP_MEM_TLB_MISS);
	int printed = 0;

	for (unsigned i = 0; m && i < 7; i++, m >>= 1)
		if (m & 1)
			add(b, "%s%s", printed++ ? " or " : "", tlb_names[i]);
	if (b->len == start)
		add(b, "N/A");
	if (d->dtlb & HWP_MEM_TLB_HIT)
		add(b, " hit");
	if (d->dtlb & HWP_MEM_TLB_MISS)
		add(b, " miss");
}

size_t hwp__data_src_format(uint64_t v, char *buf, size_t sz)
{
	struct sbuf b = { buf, sz, 0 };
	struct hwp_data_src d;

	hwp_data_src__decode(v, &d);
	if (sz)
		buf[0] = '\0';
	add(&b, "|OP ");
	fmt_op(&b, &d);
	add(&b, "|LVL ");
	fmt_lvl(&b, &d);
	add(&b, "|SNP ");
	fmt_snoop(&b, &d);
	add(&b, "|TLB ");
	fmt_tlb(&b, &d);
	add(&b, "|LCK %s", d.lock & HWP_MEM_LOCK_NA ? "N/A" : d.lock & HWP_MEM_LOCK_LOCKED ? "Yes" : "No");
	add(&b, "|BLK ");
	if (!d.blk || (d.blk & HWP_MEM_BLK_NA)) {
		add(&b, " N/A");
	} else {
		if (d.blk & HWP_MEM_BLK_DATA)
			add(&b, " Data");
		if (d.blk & HWP_MEM_BLK_ADDR)
			add(&b, " Addr");
	}
	return b.len;
}

bool hwp_data_src__is_hitm(uint64_t v)
{
	return get(v, F_SNOOP) & HWP_MEM_SNOOP_HITM;
}

/* The level a hit was served from; the lvl_num encoding (Linux 5.1+) wins
   over the older level bits when both are present. */
enum hwp_mem_source hwp_data_src__source(uint64_t v)
{
	struct hwp_data_src d;
	bool hitm;

	hwp_data_src__decode(v, &d);
	hitm = d.snoop & HWP_MEM_SNOOP_HITM;
	/* A miss names the level that missed, not where the data came from. */
	if ((d.lvl & HWP_MEM_LVL_MISS) && !(d.lvl & HWP_MEM_LVL_HIT))
		return HWP_MEM_SRC_UNKNOWN;
	if (d.lvl_num && d.lvl_num != HWP_MEM_LVLNUM_NA) {
		switch (d.lvl_num) {
		case HWP_MEM_LVLNUM_L1: return HWP_MEM_SRC_L1;
		case HWP_MEM_LVLNUM_LFB: return HWP_MEM_SRC_LFB;
		case HWP_MEM_LVLNUM_L2: return d.remote ? HWP_MEM_SRC_REMOTE_CACHE : HWP_MEM_SRC_L2;
		case HWP_MEM_LVLNUM_L3:
		case HWP_MEM_LVLNUM_L4:
			if (d.remote)
				return HWP_MEM_SRC_REMOTE_CACHE;
			return hitm ? HWP_MEM_SRC_L3_HITM : HWP_MEM_SRC_L3;
		case HWP_MEM_LVLNUM_ANY_CACHE:
			if (d.remote)
				return HWP_MEM_SRC_REMOTE_CACHE;
			return hitm ? HWP_MEM_SRC_L3_HITM : HWP_MEM_SRC_PEER;
		case HWP_MEM_LVLNUM_RAM:
			return d.remote ? HWP_MEM_SRC_REMOTE_DRAM : HWP_MEM_SRC_LOCAL_DRAM;
		case HWP_MEM_LVLNUM_PMEM: return HWP_MEM_SRC_PMEM;
		case HWP_MEM_LVLNUM_CXL: return HWP_MEM_SRC_CXL;
		case HWP_MEM_LVLNUM_IO: return HWP_MEM_SRC_IO;
		default: break;
		}
	}
	if (d.lvl & HWP_MEM_LVL_L1)
		return HWP_MEM_SRC_L1;
	if (d.lvl & HWP_MEM_LVL_LFB)
		return HWP_MEM_SRC_LFB;
	if (d.lvl & HWP_MEM_LVL_L2)
		return HWP_MEM_SRC_L2;
	if (d.lvl & HWP_MEM_LVL_L3)
		return hitm ? HWP_MEM_SRC_L3_HITM : HWP_MEM_SRC_L3;
	if (d.lvl & HWP_MEM_LVL_LOC_RAM)
		return HWP_MEM_SRC_LOCAL_DRAM;
	if (d.lvl & (HWP_MEM_LVL_REM_RAM1 | HWP_MEM_LVL_REM_RAM2))
		return HWP_MEM_SRC_REMOTE_DRAM;
	if (d.lvl & (HWP_MEM_LVL_REM_CCE1 | HWP_MEM_LVL_REM_CCE2))
		return HWP_MEM_SRC_REMOTE_CACHE;
	if (d.lvl & HWP_MEM_LVL_IO)
		return HWP_MEM_SRC_IO;
	if (d.lvl & HWP_MEM_LVL_UNC)
		return HWP_MEM_SRC_UNCACHED;
	return HWP_MEM_SRC_UNKNOWN;
}

static const char *const src_names[HWP_MEM_SRC__COUNT][2] = {
	[HWP_MEM_SRC_UNKNOWN] = { "unknown", "unknown" },
	[HWP_MEM_SRC_L1] = { "L1", "l1" },
	[HWP_MEM_SRC_LFB] = { "fill buffer", "lfb" },
	[HWP_MEM_SRC_L2] = { "L2", "l2" },
	[HWP_MEM_SRC_L3] = { "L3", "l3" },
	[HWP_MEM_SRC_L3_HITM] = { "L3 HITM", "l3_hitm" },
	[HWP_MEM_SRC_PEER] = { "peer cache", "peer" },
	[HWP_MEM_SRC_LOCAL_DRAM] = { "local DRAM", "local_dram" },
	[HWP_MEM_SRC_REMOTE_DRAM] = { "remote DRAM", "remote_dram" },
	[HWP_MEM_SRC_REMOTE_CACHE] = { "remote cache", "remote_cache" },
	[HWP_MEM_SRC_PMEM] = { "PMEM", "pmem" },
	[HWP_MEM_SRC_CXL] = { "CXL", "cxl" },
	[HWP_MEM_SRC_IO] = { "I/O", "io" },
	[HWP_MEM_SRC_UNCACHED] = { "uncached", "uncached" },
};

const char *hwp_mem_source__name(enum hwp_mem_source s)
{
	return (unsigned)s < HWP_MEM_SRC__COUNT ? src_names[s][0] : "unknown";
}

const char *hwp_mem_source__key(enum hwp_mem_source s)
{
	return (unsigned)s < HWP_MEM_SRC__COUNT ? src_names[s][1] : "unknown";
}
