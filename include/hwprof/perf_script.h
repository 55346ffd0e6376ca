/* SPDX-License-Identifier: MIT */
/* Samples printed exactly as `perf script -F ip,brstack` (perf 6.1) prints them. */
#ifndef HWPROF_PERF_SCRIPT_H
#define HWPROF_PERF_SCRIPT_H

#include <stdbool.h>

#include "hwprof/perf_data.h"
#include "hwprof/outbuf.h"
#include "hwprof/maps.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

/* perf's sysctl default for kernel.perf_event_max_stack, used by perf script. */
#define HWP_SCRIPT_MAX_STACK 127

/*
 * One sample. USE_CALLCHAIN is perf's symbol_conf.use_callchain: some event
 * in the file has CALLCHAIN and -G was not given.
 */
HWP_API void hwp_perf_script__sample(struct hwp_outbuf *o, const struct hwp_event *ev, bool use_callchain);

/*
 * The same, with the sample's thread (hwp_machine__sample_thread() on a
 * machine fed every record so far): callchain addresses in user-space maps
 * are printed relative to their map, as perf does. TH NULL prints them as
 * they are, like hwp_perf_script__sample().
 */
HWP_API void hwp_perf_script__sample_in(struct hwp_outbuf *o, const struct hwp_event *ev,
				bool use_callchain, const struct hwp_thread *th);

HWP_END_DECLS

#endif
