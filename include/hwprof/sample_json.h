/* SPDX-License-Identifier: MIT */
/* One JSON object per sample, every decoded field (addresses as "0x..." strings). */
#ifndef HWPROF_SAMPLE_JSON_H
#define HWPROF_SAMPLE_JSON_H

#include "hwprof/perf_data.h"
#include "hwprof/outbuf.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

HWP_API void hwp_sample_json__print(struct hwp_outbuf *o, const struct hwp_event *ev);
/* A JSON string literal (quotes, escapes). */
HWP_API void hwp_json__string(struct hwp_outbuf *o, const char *s);

HWP_END_DECLS

#endif
