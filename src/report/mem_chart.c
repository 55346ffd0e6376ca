/* SPDX-License-Identifier: MIT */
/* hwprof mem's chart: the latency histogram, stacked by data source. */
#include <inttypes.h>
#include <stdio.h>

#include "output/chart.h"
#include "report/report_internal.h"

/* Sources bottom to top: nearest first. */
static const enum hwp_mem_source order[] = {
	HWP_MEM_SRC_L1, HWP_MEM_SRC_LFB, HWP_MEM_SRC_L2, HWP_MEM_SRC_L3, HWP_MEM_SRC_L3_HITM,
	HWP_MEM_SRC_PEER, HWP_MEM_SRC_LOCAL_DRAM, HWP_MEM_SRC_REMOTE_CACHE, HWP_MEM_SRC_REMOTE_DRAM,
	HWP_MEM_SRC_PMEM, HWP_MEM_SRC_CXL, HWP_MEM_SRC_IO, HWP_MEM_SRC_UNCACHED, HWP_MEM_SRC_UNKNOWN,
};
#define NORDER (sizeof(order) / sizeof(order[0]))

static int draw(struct hwp_chart *c, const struct hwp_mem_report *r)
{
	const struct hwp_mem_stats *t = hwp_mem_report__totals(r);
	const uint64_t (*hs)[HWP_MEM_SRC__COUNT] = hwp_mem_report__hist_by_source(r);
	unsigned lo = HWP_MEM_HIST_BUCKETS, hi = 0, nleg = 0;
	uint64_t peak = 0;
	double px, py, pw, ph;
	char tip[160];
	int err;

	for (unsigned b = 0; b < HWP_MEM_HIST_BUCKETS; b++)
		if (t->hist[b]) {
			lo = b < lo ? b : lo;
			hi = b;
			peak = t->hist[b] > peak ? t->hist[b] : peak;
		}
	/* room above the tallest bar for the legend (one line per source present) */
	hwp__chart_plot_area(c, &px, &py, &pw, &ph);
	for (size_t i = 0; i < NORDER; i++)
		nleg += t->by_source[order[i]] != 0;
	double room = ph > 0 ? (18.0 * nleg + 16) / ph : 0.3;
	if (room > 0.8)
		room = 0.8;
	nleg = 0;
	/* x: latency on a log axis, bucket b spanning [2^b, 2^(b+1)) (bucket 0 from 1) */
	err = hwp__chart_axis(c, HWP_CHART_X, hwp_mem_report__modelled(r) ? "latency, cycles (modelled)"
									  : "latency, cycles",
			      (double)(1ull << lo), (double)(1ull << (hi + 1)), HWP_AXIS_LOG);
	if (!err)
		err = hwp__chart_axis(c, HWP_CHART_Y, "samples", 0, (double)peak / (1 - room), HWP_AXIS_INTEGER);
	/* stacked: each bucket's cumulative counts drawn tallest first, so each
	   source's part shows between its cumulative sum and the one below */
	for (unsigned b = lo; b <= hi && !err; b++) {
		uint64_t cum[NORDER];
		uint64_t sum = 0;

		for (size_t i = 0; i < NORDER; i++) {
			sum += hs[b][order[i]];
			cum[i] = sum;
		}
		for (size_t i = NORDER; i-- > 0 && !err;) {
			if (!hs[b][order[i]])
				continue;
			snprintf(tip, sizeof(tip), "%s, %llu-%llu cycles: %" PRIu64 " samples",
				 hwp_mem_source__name(order[i]), b ? 1ull << b : 0ull, (1ull << (b + 1)) - 1,
				 hs[b][order[i]]);
			err = hwp__chart_bar(c, (double)(1ull << b), (double)(1ull << (b + 1)), (double)cum[i],
					     (unsigned)i, tip);
		}
	}
	/* the legend: one coloured box per source present, top right */
	for (size_t i = NORDER; i-- > 0 && !err;)
		if (t->by_source[order[i]]) {
			snprintf(tip, sizeof(tip), "%s: %" PRIu64 " samples", hwp_mem_source__name(order[i]),
				 t->by_source[order[i]]);
			err = hwp__chart_rect_px(c, px + pw - 130, py + 6 + 18.0 * nleg++, 124, 15, (unsigned)i,
						 hwp_mem_source__name(order[i]), tip);
		}
	if (!err)
		err = hwp__chart_note(c, hwp_mem_report__modelled(r)
			? "Latency and data source are modelled by hwprof's emulator (src/emu/mem_model.h), not measured."
			: "Latency: each sample's weight (core cycles) as the PMU reported it; log2 buckets.");
	return err;
}

struct hwp_chart *hwp_report__mem_chart(const struct hwp_mem_report *r, const char *input)
{
	const struct hwp_mem_stats *t = hwp_mem_report__totals(r);
	char title[512], sub[256];
	struct hwp_chart_opts co = { .sz = sizeof(co), .title = title, .subtitle = sub };
	struct hwp_chart *c;

	snprintf(title, sizeof(title), "Memory access latency by data source: %s", input);
	snprintf(sub, sizeof(sub), "%" PRIu64 " samples (%" PRIu64 " loads, %" PRIu64 " stores), mean %.1f "
		 "cycles, %" PRIu64 " HITM", t->samples, t->loads, t->stores,
		 t->samples ? (double)t->lat_sum / (double)t->samples : 0.0, t->hitm);
	if (!(c = hwp__chart_new(&co)))
		return NULL;
	if (draw(c, r)) {
		hwp__chart_delete(c);
		return NULL;
	}
	return c;
}
