/* SPDX-License-Identifier: MIT */
/* Options of `hwprof record`, shared by the hardware and the emulated paths. */
#ifndef HWPROF_CLI_RECORD_OPTS_H
#define HWPROF_CLI_RECORD_OPTS_H

#include <stdbool.h>
#include <stdint.h>

struct record_opts {
	const char *output;      /* -o, default perf.data */
	const char *event;       /* -e, default cycles */
	uint64_t period;         /* -c (0: unset) */
	uint64_t freq;           /* -F (0: unset) */
	bool branch_any;         /* -b */
	uint64_t branch_filter;  /* -j, HWP_BRANCH_* bits (0: unset) */
	bool callgraph_lbr;      /* --call-graph lbr */
	bool data_addr;          /* -d */
	bool per_thread;         /* --per-thread */
	bool no_inherit;         /* -i, --no-inherit */
	bool emulate;            /* --emulate */
	int depth;               /* --depth (emulated stack depth: 8/16/32/64) */
	unsigned jitter;         /* --jitter (emulated period jitter, percent) */
	uint64_t seed;           /* --seed (the jitter's draws; 0: from the clock) */
	const char *exact;       /* --exact FILE (emulated ground truth) */
	int argc;                /* PROG ARGS after -- */
	char **argv;
	/* Added with the hardware path (cli/cmd_record.c): */
	const char *branch_filter_str; /* -j as given */
	uint64_t branch_levels;  /* HWP_BRANCH_USER/KERNEL/HV named in -j, also those
				    perf's rule dropped (a list of levels alone means any) */
	const char *call_graph;  /* -g ("fp") / --call-graph fp|dwarf[,SIZE]|lbr, as given */
	bool freq_max;           /* -F max (freq then holds the maximum rate it stands for) */
	unsigned mmap_pages;     /* -m N: ring-buffer data pages (0: default) */
	bool print_attr;         /* --print-attr: print the perf_event_attr, record nothing */
	bool weight;             /* -W, --weight */
	bool phys_data;          /* --phys-data */
	bool data_page_size;     /* --data-page-size */
	bool mem;                /* --mem: precise memory samples (loads and stores) */
	unsigned ldlat;          /* --ldlat N: load-latency threshold, cycles (0: 30) */
};

/* Before writing PATH: an existing non-empty PATH becomes PATH.old (an old
   PATH.old is removed), as perf record does; "-" is left alone. Prints the
   error and returns the exit code (1) when it cannot (cli/record_output.c). */
int record_keep_old_output(const char *path);

/* A recording with no sample: the event counts of the period or frequency. */
struct record_no_samples {
	bool emulated;     /* EVENTS is then the number of taken branches */
	const char *event; /* its name */
	uint64_t events;   /* counted while the program ran (emulated only) */
	uint64_t period;   /* -c, or the default period */
	uint64_t freq;     /* -F (0: a period was used) */
};
/* Warns that OUT has no samples: PROG ran fewer events than the period,
   and what to lower (cli/record_output.c). */
void record_warn_no_samples(const char *prog, const char *out, const struct record_no_samples *ns);

/* Emulated capture (cli/record_emulate.c). */
int record_emulate(const struct record_opts *o);

#endif
