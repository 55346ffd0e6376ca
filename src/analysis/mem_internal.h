/* SPDX-License-Identifier: MIT */
/* Library-private declarations (not exported): the public side is include/hwprof/mem.h. */
#ifndef HWPROF_ANALYSIS_MEM_INTERNAL_H
#define HWPROF_ANALYSIS_MEM_INTERNAL_H

#include "hwprof/mem.h"

/* True when EVSEL is an AMD IBS op event (by its name "ibs_op..." or its PMU
   type in the recording's PMU mappings). */
bool hwp__mem_evsel_is_ibs_op(struct hwp_session *s, const struct hwp_evsel *evsel);
unsigned hwp__mem_hist_bucket(uint32_t latency);

/*
 * Decodes sample EV when it carries memory information: DATA_SRC (with
 * ADDR, WEIGHT or WEIGHT_STRUCT, PHYS_ADDR, DATA_PAGE_SIZE when present), or
 * the RAW registers of an AMD ibs_op event (IBS_RAW true: the caller knows
 * the event is ibs_op; the IBS data source becomes a data_src value, see
 * hwp_ibs_op__data_src()). Returns 1 (A filled), 0 when EV is not a memory
 * sample (an IBS op that neither loads nor stores), <0 on malformed raw data
 * (hwp_errmsg()).
 */
int hwp__mem_access_decode(const struct hwp_event *ev, bool ibs_raw, struct hwp_mem_access *a);
unsigned hwp__mem_report_cache_line(const struct hwp_mem_report *r);

/* Samples that named no memory access (other events, IBS non-memory ops). */
uint64_t hwp__mem_report_skipped(const struct hwp_mem_report *r);

#endif
