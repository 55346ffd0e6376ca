/* SPDX-License-Identifier: MIT */
/*
 * What `hwprof check` says about this machine, from what hwp_probe__run()
 * found (hwprof/probe.h): the CPU and what the kernel log said of its PMU,
 * the PMUs with their capabilities, the permission sysctls with what each
 * level means, the Intel LBR format, and what can be recorded here and why
 * not. As text sections or as one JSON object, whose member names are
 * defined here, once.
 */
#ifndef HWPROF_CHECK_H
#define HWPROF_CHECK_H

#include <stdio.h>

#include "hwprof/hwprof.h"
#include "hwprof/probe.h"
#include "hwprof/table.h"

HWP_BEGIN_DECLS

/*
 * Writes INFO to FP: with HWP_TABLE_TEXT the sections CPU, PMUs,
 * Permissions, Intel LBR format and Can record, each ending with a blank
 * line, then ADVICE_TEXT (may be NULL); with HWP_TABLE_JSON one object with
 * the members cpu, kernel_log, pmus, other_pmus, pmus_error, permissions,
 * perf_capabilities and can (branch_depth, core_pmu, one verdict {yes, why}
 * per capability), then "advice": ADVICE_JSON when not NULL. The advice is
 * the caller's (what to run here). 0 or <0 (hwp_errmsg()).
 */
HWP_API int hwp_probe_info__write(const struct hwp_probe_info *info, enum hwp_table_format fmt,
				  const char *advice_text, const char *advice_json, FILE *fp);

HWP_END_DECLS

#endif
