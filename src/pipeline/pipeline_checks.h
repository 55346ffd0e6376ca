/* SPDX-License-Identifier: MIT */
/* What the pipeline checks after its pass (hwp_pipeline__check_*() in
   pipeline.h), and the inputs' name its messages use. */
#ifndef HWPROF_PIPELINE_CHECKS_H
#define HWPROF_PIPELINE_CHECKS_H

#include <stddef.h>

#include "hwprof/pipeline.h"

/* "a.data", or "a.data, b.data" for several inputs, in BUF. */
const char *hwp__session_name(const struct hwp_session *s, char *buf, size_t len);
/* Some fall-through range could be used; else why none. */
int hwp__pipeline_check_ranges(const struct hwp_branch_collector *c, const char *name);

#endif
