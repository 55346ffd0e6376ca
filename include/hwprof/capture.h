/* SPDX-License-Identifier: MIT */
/*
 * Hardware capture: perf_event_attr construction (the attr perf record 6.1
 * builds for the same command line) and the recorder that opens the events,
 * runs a workload and writes perf.data.
 */
#ifndef HWPROF_CAPTURE_H
#define HWPROF_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/perf_data.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

/* ------------------------------------------------------------ host facts */

/* What perf's attr construction reads from the running system. */
struct hwp_capture_host {
	/* perf_event_can_profile_kernel(): euid 0, CAP_PERFMON/CAP_SYS_ADMIN,
	   or perf_event_paranoid <= 1. The default event gets exclude_kernel
	   when false. */
	bool can_profile_kernel;
	/* AuthenticAMD/HygonGenuine: perf clears exclude_guest on the default
	   cycles event there (precise cycles go through IBS, which cannot filter). */
	bool amd;
	/* kernel.perf_event_max_sample_rate; 0 when unknown (no capping). */
	unsigned max_sample_rate;
	/* kernel.perf_event_paranoid (perf's EACCES fallback needs it); -99 unknown */
	int paranoid;
	/* uname machine: selects the DWARF register mask. */
	char arch[16];
};

/* Reads the facts of this machine (from /proc; ROOT NULL means "/proc"). */
HWP_API int hwp_capture_host__detect(const char *procfs_root, struct hwp_capture_host *h);

/* ------------------------------------------------------------ events */

/* One -e event, parsed as perf 6.1 parses it. */
struct hwp_event_desc {
	char name[160];   /* as given (perf's evsel name), or "cycles" / "cycles:u" */
	uint32_t type;    /* PERF_TYPE_*: 0 hardware, 1 software, 4 raw, ... */
	uint64_t config, config1, config2;
	bool is_default;  /* no -e: perf's evsel__new_cycles() */
	bool from_pfm;    /* encoded by libpfm4 */
	bool precise_max; /* :P or the default event: opened with precise_ip 3 and lowered */
	unsigned precise; /* number of p modifiers */
	/* attr bits decided by the event and its modifiers */
	bool exclude_user, exclude_kernel, exclude_hv, exclude_host, exclude_guest, exclude_idle;
	char pfm_fstr[160]; /* libpfm4's fully qualified name, when from_pfm */
};

/*
 * Parses "NAME[:MODIFIERS]": generic names (cycles, instructions, branches,
 * cache-misses, ref-cycles, cpu-clock, task-clock, page-faults, ...), raw
 * codes rNNNN, and with libpfm4 named PMU events of this CPU
 * (br_inst_retired.near_taken, BR_INST_RETIRED:NEAR_TAKEN, ...; the
 * LIBPFM_FORCE_PMU environment variable picks another PMU model). Modifiers
 * are perf's: u k h G H I p pp ppp P. NULL or "" is perf's default event.
 * Returns 0, -ENOENT (unknown event), -EINVAL (bad modifier) or
 * -EOPNOTSUPP (named event without libpfm4); hwp_errmsg() says which.
 */
HWP_API int hwp_event__parse(const char *str, const struct hwp_capture_host *h,
		     struct hwp_event_desc *ev);

/* -j FILTERS (comma-separated, as perf 6.1 spells them: u k hv any any_call
   any_ret ind_call ind_jmp call cond abort_tx in_tx no_tx save_type stack
   priv; hwprof also takes the kernel's names call_stack, no_flags,
   no_cycles, hw_index, counter) into HWP_BRANCH_* bits, with perf's rule
   that a filter naming only privilege levels means "any". 0 or -EINVAL. */
HWP_API int hwp_branch_filter__parse(const char *s, uint64_t *mask);
/* The same, and *LEVELS (may be NULL) gets the privilege levels
   (HWP_BRANCH_USER, _KERNEL, _HV) the list named, also those the rule then
   dropped: a caller can say that "-j k" records at the event's levels. */
HWP_API int hwp_branch_filter__parse_levels(const char *s, uint64_t *mask, uint64_t *levels);

/* ------------------------------------------------------------ attrs */

enum hwp_callgraph {
	HWP_CALLGRAPH_NONE = 0,
	HWP_CALLGRAPH_FP,
	HWP_CALLGRAPH_DWARF,
	HWP_CALLGRAPH_LBR,
};

struct hwp_attr_opts {
	size_t sz;                   /* sizeof(struct hwp_attr_opts) */
	const char *event;           /* -e; NULL: perf's default cycles event */
	uint64_t period;             /* -c N (0: unset) */
	uint64_t freq;               /* -F N (0: unset) */
	bool freq_max;               /* -F max */
	uint64_t branch_sample_type; /* -b (HWP_BRANCH_ANY) or -j; 0: no branch stack */
	enum hwp_callgraph callgraph; /* -g / --call-graph */
	uint32_t dwarf_stack_size;   /* --call-graph dwarf,SIZE (0: 8192) */
	bool data_addr;              /* -d */
	bool per_thread;             /* --per-thread (implies no inherit, as in perf) */
	bool no_inherit;             /* -i, --no-inherit */
	bool weight;                 /* -W: WEIGHT_STRUCT on x86_64 (as perf's x86
					arch_evsel__set_sample_weight), else WEIGHT */
	bool phys_data;              /* --phys-data: PHYS_ADDR */
	bool data_page_size;         /* --data-page-size: DATA_PAGE_SIZE */
};

/* The attr and what comes with it. */
struct hwp_attr_result {
	size_t sz; /* sizeof(struct hwp_attr_result): set by the caller */
	struct hwp_attr attr;
	struct hwp_event_desc event;
	/* perf's warnings for this combination ("Cannot use LBR callstack with
	   branch stack. Falling back to framepointers."), one per line */
	unsigned nr_warnings;
	char warnings[4][160];
};

/*
 * Builds the perf_event_attr perf record 6.1 opens first for this command
 * line (before any fallback), on a host with facts H. Returns 0 or <0 with
 * hwp_errmsg() set (unknown event, -c with -F, zero period, ...).
 */
HWP_API int hwp_attr__build(const struct hwp_attr_opts *o, const struct hwp_capture_host *h,
		    struct hwp_attr_result *out);

/* The attr as `perf record -vv` prints it: the "perf_event_attr:" block
   between two dashed lines, non-zero fields in perf's order. Returns the
   length written (snprintf-like: may exceed LEN). */
HWP_API size_t hwp_attr__format_perf(const struct hwp_attr *a, char *buf, size_t len);

/* ------------------------------------------------------------ memory events */

/* Which precise memory sampling this machine offers (record --mem). */
enum hwp_mem_pmu {
	HWP_MEM_PMU_NONE = 0,
	HWP_MEM_PMU_INTEL,   /* PEBS load latency: PMU "cpu" (or "cpu_core") event mem-loads */
	HWP_MEM_PMU_AMD_IBS, /* PMU "ibs_op" */
	HWP_MEM_PMU_ARM_SPE, /* PMU "arm_spe_0" */
};

struct hwp_mem_events {
	size_t sz; /* sizeof(struct hwp_mem_events): set by the caller */
	enum hwp_mem_pmu kind;
	char pmu[32];          /* the PMU's sysfs name */
	uint32_t type;         /* its perf_event_attr.type */
	uint64_t config, config1; /* loads: the event's encoding, ldlat in config1 (Intel) */
	uint64_t store_config; /* Intel mem-stores' config (0: none) */
	char loads[96];        /* as perf names them: "cpu/mem-loads,ldlat=30/P" */
	char stores[96];       /* "cpu/mem-stores/P", or "" */
	char why[256];         /* HWP_MEM_PMU_NONE: what was looked for and not found */
};

/*
 * Chooses the events of `perf mem record` for this machine from sysfs
 * (SYSFS NULL: "/sys"): Intel's mem-loads (with LDLAT, cycles; 0: perf's
 * 30) and mem-stores, encoded through the PMU's format files; AMD's
 * ibs_op; Arm's arm_spe_0. Returns 0 (E filled, kind NONE when none is
 * there) or <0 when a sysfs file is malformed (hwp_errmsg()).
 */
HWP_API int hwp_mem_events__choose(const char *sysfs, unsigned ldlat, struct hwp_mem_events *e);

/*
 * The sample-period arithmetic: the samples to expect from EVENTS events at
 * one sample every PERIOD.
 */
HWP_API double hwp_mem_events__expected(uint64_t events, uint64_t period);

/* ------------------------------------------------------------ recorder */

struct hwp_record_opts {
	size_t sz;                   /* sizeof(struct hwp_record_opts) */
	const struct hwp_attr *attr; /* from hwp_attr__build() */
	const char *event_name;
	bool precise_max;            /* lower precise_ip on failure, silently in perf */
	bool allow_sw_fallback;      /* cycles without a PMU -> cpu-clock, as perf */
	int paranoid;                /* for perf's exclude-kernel fallback (-99: unknown) */
	bool per_thread;             /* one ring buffer for the task, not one per CPU */
	unsigned mmap_pages;         /* data pages per ring buffer, power of 2 (0: 128) */
	const char *output;          /* perf.data path (written to PATH.tmp, renamed at the end) */
	char *const *argv;           /* the workload, NULL-terminated; argv[0] looked up in PATH */
	int cmdline_argc;            /* for the CMDLINE header feature */
	const char *const *cmdline_argv;
	volatile int *stop;          /* set (from a signal handler) to stop the workload */
};

enum hwp_record_phase {
	HWP_RECORD_PHASE_SETUP = 0,  /* arguments, output file */
	HWP_RECORD_PHASE_EXEC,       /* the workload could not be started */
	HWP_RECORD_PHASE_OPEN,       /* perf_event_open failed (open_errno) */
	HWP_RECORD_PHASE_MMAP,       /* ring buffer mmap failed */
	HWP_RECORD_PHASE_RUN,        /* while recording / writing */
};

struct hwp_record_result {
	size_t sz; /* sizeof(struct hwp_record_result): set by the caller */
	enum hwp_record_phase phase; /* where a failure happened */
	int open_errno;              /* errno of the failing perf_event_open */
	struct hwp_attr attr;        /* the attr finally opened (after fallbacks) */
	char event_name[160];        /* its name (changed by fallbacks) */
	uint64_t samples, records, lost_records, lost_samples, bytes;
	unsigned nr_buffers;
	int wait_status;             /* of the workload, from waitpid() */
	bool workload_ran;
	unsigned nr_notes;           /* fallbacks taken, said once each */
	char notes[6][200];
};

/* Runs the workload under the event and writes OUTPUT. 0 or <0 (hwp_errmsg(),
   R->phase, R->open_errno). */
HWP_API int hwp_record__run(const struct hwp_record_opts *o, struct hwp_record_result *r);

HWP_END_DECLS

#endif
