/* SPDX-License-Identifier: MIT */
/* Samples printed exactly as `perf script -F ip,brstack` (perf 6.1) prints them. */
#ifndef HWPROF_PERF_SCRIPT_H
#define HWPROF_PERF_SCRIPT_H

#include <stdbool.h>

#include "hwprof/perf_data.h"
#include "outbuf.h"
#include "hwprof/maps.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

/* perf's sysctl default for kernel.perf_event_max_stack, used by perf script. */
#define HWP_SCRIPT_MAX_STACK 127

/*
 * One sample. USE_CALLCHAIN is perf's symbol_conf.use_callchain: some event
 * in the file has CALLCHAIN and -G was not given.
 */
void hwp__perf_script_sample(struct hwp_outbuf *o, const struct hwp_event *ev, bool use_callchain);

/*
 * The same, with the sample's thread (hwp_machine__sample_thread() on a
 * machine fed every record so far): callchain addresses in user-space maps
 * are printed relative to their map, as perf does. TH NULL prints them as
 * they are, like hwp__perf_script_sample().
 */
void hwp__perf_script_sample_in(struct hwp_outbuf *o, const struct hwp_event *ev,
				bool use_callchain, const struct hwp_thread *th);

/*
 * `perf script -F` with memory fields: any of these flags, printed in perf
 * 6.1's order "[CPU] EVENT: ADDR DATA_SRC+decoding WEIGHT IP PHYS_ADDR" (weight is
 * WEIGHT_STRUCT's latency). NAME_WIDTH pads the event name as perf does (the
 * longest event name of the file). *DATA_SRC_WIDTH carries perf's running
 * maximum of the data_src column's width from sample to sample: start at 0.
 */
enum {
	HWP_SCRIPT_F_CPU = 1 << 0,
	HWP_SCRIPT_F_EVENT = 1 << 1,
	HWP_SCRIPT_F_ADDR = 1 << 2,
	HWP_SCRIPT_F_DATA_SRC = 1 << 3,
	HWP_SCRIPT_F_WEIGHT = 1 << 4,
	HWP_SCRIPT_F_IP = 1 << 5,
	HWP_SCRIPT_F_PHYS_ADDR = 1 << 6,
};
void hwp__perf_script_mem_sample(struct hwp_outbuf *o, const struct hwp_event *ev, unsigned fields,
				 int name_width, int *data_src_width);

HWP_END_DECLS

#endif
