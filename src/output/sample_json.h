/* SPDX-License-Identifier: MIT */
/* One JSON object per sample, every decoded field (addresses as "0x..." strings). */
#ifndef HWPROF_SAMPLE_JSON_H
#define HWPROF_SAMPLE_JSON_H

#include "hwprof/hwprof.h"
#include "hwprof/perf_data.h"
#include "json.h"

HWP_BEGIN_DECLS

/* EV (a sample) as one JSON object: a top-level one is a JSON Lines line. */
void hwp__sample_json_write(struct hwp_json_writer *j, const struct hwp_event *ev);

HWP_END_DECLS

#endif
