/* SPDX-License-Identifier: MIT */
/*
 * What this machine can record, and why not: PMUs and their capabilities
 * from sysfs, perf_event_paranoid / kptr_restrict, virtualization, the CPU,
 * the kernel's PMU line from its log, and on Intel the LBR record format
 * from IA32_PERF_CAPABILITIES.
 *
 * Every probe reads below root directories given in the options, so tests
 * feed fake sysfs/procfs/dev trees; NULL roots mean the running system
 * ("/sys", "/proc", "/dev", and the cpuid instruction on x86).
 */
#ifndef HWPROF_PROBE_H
#define HWPROF_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

#define HWP_PROBE_MAX_CAPS 16   /* caps/ files kept per PMU */
#define HWP_PROBE_UNKNOWN (-99) /* an integer that could not be read */

struct hwp_probe_opts {
	size_t sz;               /* sizeof(struct hwp_probe_opts) */
	const char *sysfs_root;  /* default "/sys" */
	const char *procfs_root; /* default "/proc" */
	const char *dev_root;    /* default "/dev": cpu/N/msr and kmsg */
	/* Use the cpuid instruction (x86). Default: only when procfs_root is
	   NULL, so a fake tree is never mixed with the host's CPU. */
	bool use_cpuid;
	bool no_cpuid;
};

enum hwp_pmu_kind {
	HWP_PMU_OTHER = 0,  /* uncore, power, msr, ... */
	HWP_PMU_SOFTWARE,   /* software, tracepoint, breakpoint, kprobe, uprobe */
	HWP_PMU_CORE,       /* cpu, cpu_core, cpu_atom, armv8_*: cycles, LBR/BRS/BRBE */
	HWP_PMU_IBS_OP,     /* AMD IBS execution sampling */
	HWP_PMU_IBS_FETCH,  /* AMD IBS fetch sampling */
	HWP_PMU_ARM_SPE,    /* Arm Statistical Profiling Extension */
	HWP_PMU_TRACE,      /* intel_pt, intel_bts, cs_etm */
};

struct hwp_probe_cap {
	char name[40];
	char value[72];
};

struct hwp_probe_pmu {
	char name[48];
	int type;            /* sysfs type (attr.type), -1 when unreadable */
	enum hwp_pmu_kind kind;
	int branches;        /* caps/branches: branch-stack depth, 0 when absent */
	int max_precise;     /* caps/max_precise, -1 when absent */
	char pmu_name[40];   /* caps/pmu_name ("skylake"), "" when absent */
	size_t nr_caps;
	struct hwp_probe_cap caps[HWP_PROBE_MAX_CAPS];
};

enum hwp_cpu_vendor {
	HWP_CPU_UNKNOWN = 0,
	HWP_CPU_INTEL,
	HWP_CPU_AMD,
	HWP_CPU_ARM, /* any Arm implementer */
	HWP_CPU_OTHER,
};

enum hwp_probe_state {
	HWP_PROBE_NOT_TRIED = 0, /* not applicable, or not asked */
	HWP_PROBE_READ,          /* read (for kmsg: a PMU line was found) */
	HWP_PROBE_ABSENT,        /* readable, but nothing there */
	HWP_PROBE_UNREADABLE,    /* see the matching *_err */
};

/* One capability with a yes/no and a one-line reason. */
struct hwp_probe_verdict {
	bool yes;
	char why[240];
};

/* The capabilities a verdict is given for. */
enum hwp_capability {
	HWP_CAP_HW_PMU = 0,    /* a hardware (core) PMU is there */
	HWP_CAP_ACCESS,        /* this user may open events */
	HWP_CAP_KERNEL,        /* kernel samples and kernel branches */
	HWP_CAP_KERNEL_SYMS,   /* kernel addresses readable (kptr_restrict) */
	HWP_CAP_BRANCH_STACK,  /* branch stacks (LBR, BRS, BRBE) */
	HWP_CAP_LBR_CALLSTACK, /* LBR call stacks */
	HWP_CAP_PRECISE,       /* precise samples: PEBS / IBS / SPE */
	HWP_CAP_SOFTWARE,      /* cpu-clock, task-clock */
	HWP_CAP_COUNT,
};

/* The CPU. Fields are only ever appended: the library owns the storage. */
struct hwp_probe_cpu {
	char arch[16];          /* "x86_64", "aarch64", ... */
	enum hwp_cpu_vendor vendor;
	char vendor_id[16];     /* "GenuineIntel", "AuthenticAMD", "0x41" (Arm implementer) */
	bool have_fms;
	unsigned family, model, stepping; /* x86 display family/model; Arm: part in model */
	char model_name[96];
	bool hypervisor;        /* cpuinfo flag / CPUID.1:ECX[31] */
	char hypervisor_id[16]; /* CPUID 0x40000000 ("KVMKVMKVM"), "" when unknown */
	bool cpuid_used;
	int perfmon_version;    /* Intel CPUID.0AH:EAX[7:0]; -1 unknown */
	bool flag_pdcm, flag_arch_lbr, flag_arch_perfmon, flag_ibs, flag_perfctr_core,
		flag_amd_lbr_v2;
};

/* Permissions (sysctl kernel.*; HWP_PROBE_UNKNOWN when unread). */
struct hwp_probe_perms {
	int paranoid;           /* perf_event_paranoid */
	int kptr_restrict;
	int max_sample_rate;    /* perf_event_max_sample_rate */
	int mlock_kb;           /* perf_event_mlock_kb */
	int nmi_watchdog;
	bool privileged;        /* euid 0, CAP_PERFMON or CAP_SYS_ADMIN */
	bool cap_syslog;        /* euid 0 or CAP_SYSLOG: sees kernel addresses at kptr_restrict=1 */
	char privilege[32];     /* "root", "CAP_PERFMON", "CAP_SYS_ADMIN", "" */
};

/* The kernel's PMU line from its log. */
struct hwp_probe_kmsg {
	enum hwp_probe_state state; /* READ: a PMU line was found */
	char line[200];         /* "Performance Events: PMU not available due to ..." */
	char err[120];
};

/* Intel: IA32_PERF_CAPABILITIES (MSR 0x345) from <dev>/cpu/0/msr. */
struct hwp_probe_perf_caps {
	enum hwp_probe_state state;
	uint64_t value;
	int lbr_format;         /* bits [5:0], -1 unknown */
	char err[160];
};

/* What the probes found: opaque (it grows with every new probe). */
struct hwp_probe_info;

/* NULL + errno (ENOMEM) and hwp_errmsg(). */
HWP_API struct hwp_probe_info *hwp_probe_info__new(void);
HWP_API void hwp_probe_info__delete(struct hwp_probe_info *info);

HWP_API const struct hwp_probe_cpu *hwp_probe_info__cpu(const struct hwp_probe_info *info);
HWP_API const struct hwp_probe_perms *hwp_probe_info__perms(const struct hwp_probe_info *info);
HWP_API const struct hwp_probe_kmsg *hwp_probe_info__kmsg(const struct hwp_probe_info *info);
HWP_API const struct hwp_probe_perf_caps *
hwp_probe_info__perf_caps(const struct hwp_probe_info *info);
/* The PMUs kept with their details (core, IBS, SPE, trace and software ones
   first); PMUs past the limit are only counted. */
HWP_API size_t hwp_probe_info__nr_pmus(const struct hwp_probe_info *info);
HWP_API const struct hwp_probe_pmu *hwp_probe_info__pmu(const struct hwp_probe_info *info,
							size_t i); /* NULL past the end */
HWP_API size_t hwp_probe_info__nr_other_pmus(const struct hwp_probe_info *info);
/* READ, ABSENT or UNREADABLE; *ERR (may be NULL) says why when not READ. */
HWP_API enum hwp_probe_state hwp_probe_info__pmus_state(const struct hwp_probe_info *info,
							const char **err);
/* The verdict on C (a "no" with "unknown capability" past HWP_CAP_COUNT). */
HWP_API const struct hwp_probe_verdict *hwp_probe_info__verdict(const struct hwp_probe_info *info,
								enum hwp_capability c);
/* Deepest caps/branches (0 when none); name of the first core PMU ("" when none). */
HWP_API int hwp_probe_info__branch_depth(const struct hwp_probe_info *info);
HWP_API const char *hwp_probe_info__core_pmu(const struct hwp_probe_info *info);

/*
 * Runs every probe and the verdicts into INFO (from hwp_probe_info__new(),
 * reset first). INFO is filled whatever fails (a probe that cannot read
 * says so in its err / state); returns 0, or -EINVAL for bad arguments.
 */
HWP_API int hwp_probe__run(const struct hwp_probe_opts *opts, struct hwp_probe_info *info);

HWP_API const char *hwp_pmu_kind__name(enum hwp_pmu_kind k);
HWP_API const char *hwp_cpu_vendor__name(enum hwp_cpu_vendor v);
/* What perf_event_paranoid level L blocks for unprivileged users. */
HWP_API const char *hwp_paranoid__meaning(int level);
/* What kptr_restrict level L means for kernel symbols. */
HWP_API const char *hwp_kptr_restrict__meaning(int level);

HWP_END_DECLS

#endif
