/* SPDX-License-Identifier: MIT */
/* Internal helpers of the capability probe, shared with the capture code. */
#ifndef HWPROF_CAPTURE_PROBE_INTERNAL_H
#define HWPROF_CAPTURE_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "hwprof/probe.h"

#define HWP_PROBE_MAX_PMUS 32 /* PMUs kept with their details */

struct hwp_probe_info {
	struct hwp_probe_cpu cpu;
	struct hwp_probe_perms perms;
	struct hwp_probe_kmsg kmsg;

	enum hwp_probe_state pmus_state;
	char pmus_err[120];
	size_t nr_pmus;
	struct hwp_probe_pmu pmus[HWP_PROBE_MAX_PMUS];
	size_t nr_other_pmus; /* left out of pmus[] (past the limit; uncore ones first) */

	struct hwp_probe_perf_caps perf_caps;

	struct hwp_probe_verdict verdict[HWP_CAP_COUNT];
	int branch_depth;
	char core_pmu[48];
};

/* ROOT + "/" + REL into BUF (ROOT NULL or "" means "/"). */
void hwp__root_path(char *buf, size_t len, const char *root, const char *rel);
/* First line of ROOT/REL into BUF, without the newline: 0 or -errno. */
int hwp__read_line(const char *root, const char *rel, char *buf, size_t len);
/* An integer file (sysctl): 0 or -errno. */
int hwp__read_int(const char *root, const char *rel, int *out);

/* The individual probes (each sets only its part of INFO): 0 or -EINVAL. */
int hwp__probe_cpu(const char *procfs_root, bool use_cpuid, struct hwp_probe_info *info);
int hwp__probe_perms(const char *procfs_root, struct hwp_probe_info *info);
int hwp__probe_pmus(const char *sysfs_root, struct hwp_probe_info *info);

/* Finds the kernel's PMU line in <dev_root>/kmsg (a device, or a text file
   holding the log); USE_SYSLOG falls back to klogctl() when it is unreadable. */
int hwp__probe_kmsg(const char *dev_root, bool use_syslog, struct hwp_probe_info *info);

/* Intel only: IA32_PERF_CAPABILITIES from <dev_root>/cpu/0/msr. */
int hwp__probe_perf_caps(const char *dev_root, struct hwp_probe_info *info);

/* Fills the verdicts from what the probes found. */
void hwp__probe_verdicts(struct hwp_probe_info *info);

#endif
