/* SPDX-License-Identifier: MIT */
/* Internal: the branch collector's fields, for its own files (the collector
   and the merge of a parallel pass's parts) and the inline range
   classification of branch_collect_internal.h, which reads two options. */
#ifndef HWPROF_ANALYSIS_BRANCH_COLLECT_STRUCT_H
#define HWPROF_ANALYSIS_BRANCH_COLLECT_STRUCT_H

#include "hwprof/branch_collect.h"
#include "session/parallel_pass.h"

struct hwp__resolver;

/* The collector's tables, for the places of their rows' first adds. */
enum hwp__collector_table {
	HWP__CT_TABLE, HWP__CT_BLOCKS, HWP__CT_RANGES, HWP__CT_ADDRS, HWP__CT_IPS, HWP__CT_IPS_EV, HWP__CT_NR
};

struct hwp_branch_collector {
	struct hwp_session *session;
	struct hwp_branch_table *table;
	struct hwp_branch_table *blocks; /* with opts.blocks */
	struct hwp_branch_table *ranges; /* with opts.ranges */
	struct hwp_branch_table *addrs;  /* with opts.ranges: sample IPs */
	struct hwp_branch_table *ips;    /* with opts.ip_samples */
	/* with opts.ip_samples BY_EVENT: the same per event, the event's index in
	   ip_ev in the key's type field (ip_ev has room for 16: the field's) */
	struct hwp_branch_table *ips_ev;
	const struct hwp_evsel *ip_ev[16]; /* the events ips counted */
	size_t n_ip_ev;
	struct hwp__code_cache *code;    /* made by the first range check */
	size_t ranges_checked;           /* rows [0, this) of ranges were decoded */
	struct hwp_branch_collect_stats st;
	struct hwp_range_stats rst;
	struct hwp_branch_collect_opts o;
	/* made from tables (hwp_branch_collector__from_tables): no session */
	struct hwp_symbolizer *sym;
	char *name;
	/* how addresses are resolved: the session's resolver, or a part's */
	struct hwp__resolver *res;
	/* A part of a parallel pass: where in the sequential order each row
	   of each table was first added (sample number << 20 | entry), and
	   each of ip_ev first seen; the sample being added is number SEQ. */
	bool part;
	uint64_t seq;
	struct {
		uint64_t *v;
		size_t nr, cap;
	} first[HWP__CT_NR];
	uint64_t ip_ev_first[16];
	/* The last sample's entries resolved (with keep_locs: the paths and
	   the timing take them instead of resolving again), and which sample
	   they are: its entries' bytes and number. */
	bool keep_locs;
	struct hwp_code_loc *lfrom, *lto;
	uint32_t *lrange; /* each entry's range row (UINT32_MAX: none) */
	bool l_ranges;    /* lrange is the last sample's */
	uint32_t ranges_moved; /* times a check of the ranges moved their rows */
	size_t lcap;
	const uint8_t *l_entries;
	uint64_t l_nr;
};


#endif
