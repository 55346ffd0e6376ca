/* SPDX-License-Identifier: MIT */
/*
 * What `hwprof check` says about this machine, from what hwp_probe__run()
 * found (hwprof/probe.h): the CPU and what the kernel log said of its PMU,
 * the PMUs with their capabilities, the permission sysctls with what each
 * level means, the Intel LBR format, and what can be recorded here and why
 * not. As text sections or as the members of one JSON object, whose names
 * are defined here, once. The caller opens and closes the object (and may
 * add members of its own, such as the command line it advises).
 *
 *     hwp_json_writer__begin_object(j);
 *     hwp_probe_info__json_members(j, info);
 *     hwp_json_writer__end_object(j);
 */
#ifndef HWPROF_CHECK_H
#define HWPROF_CHECK_H

#include "hwprof/hwprof.h"
#include "hwprof/json.h"
#include "hwprof/outbuf.h"
#include "hwprof/probe.h"

HWP_BEGIN_DECLS

/* The sections CPU, PMUs, Permissions, Intel LBR format and Can record,
   each line as the text report shows it; ends with a blank line. */
HWP_API void hwp_probe_info__text(struct hwp_outbuf *o, const struct hwp_probe_info *info);
/* The members cpu, kernel_log, pmus, other_pmus, pmus_error, permissions,
   perf_capabilities and can (branch_depth, core_pmu, one verdict
   {yes, why} per capability). */
HWP_API void hwp_probe_info__json_members(struct hwp_json_writer *j, const struct hwp_probe_info *info);

HWP_END_DECLS

#endif
