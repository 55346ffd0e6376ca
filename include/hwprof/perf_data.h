/* SPDX-License-Identifier: MIT */
/*
 * Streaming perf.data reader (file and pipe mode, zstd-compressed records).
 *
 * Records are handed out one at a time as views into the mmap'd file (or into
 * a decompression/pipe buffer): nothing is copied. A view stays valid until the
 * next call to hwp_reader__next() unless hwp_event.stable is set, in which
 * case it lives as long as the reader.
 */
#ifndef HWPROF_PERF_DATA_H
#define HWPROF_PERF_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/perf_abi.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

/* A perf_event_attr, decoded from any ABI size; unknown tail bytes ignored. */
struct hwp_attr {
	uint32_t type;
	uint32_t size; /* as written in the file (0 means VER0) */
	uint64_t config;
	uint64_t sample_period; /* or sample_freq when HWP_ATTR_FREQ */
	uint64_t sample_type;
	uint64_t read_format;
	uint64_t flags; /* bit n = enum hwp_attr_flag n */
	uint32_t wakeup_events;
	uint32_t bp_type;
	uint64_t config1;
	uint64_t config2;
	uint64_t branch_sample_type;
	uint64_t sample_regs_user;
	uint32_t sample_stack_user;
	int32_t clockid;
	uint64_t sample_regs_intr;
	uint32_t aux_watermark;
	uint16_t sample_max_stack;
	uint32_t aux_sample_size;
	uint64_t sig_data;
	uint64_t config3;
};

static inline bool hwp_attr__flag(const struct hwp_attr *a, enum hwp_attr_flag f)
{
	return (a->flags >> f) & 1;
}

static inline unsigned hwp_attr__precise_ip(const struct hwp_attr *a)
{
	return (unsigned)(a->flags >> HWP_ATTR_PRECISE_IP) & 3;
}

/* One event (attr + its sample ids + name when the file names it). */
struct hwp_evsel {
	struct hwp_attr attr;
	int idx;
	const char *name; /* from EVENT_DESC / EVENT_UPDATE, or NULL */
	const uint64_t *ids;
	size_t nr_ids;
};

/* perf_branch_entry, decoded. */
struct hwp_branch_entry {
	uint64_t from;
	uint64_t to;
	uint16_t cycles;
	uint8_t mispred;
	uint8_t predicted;
	uint8_t in_tx;
	uint8_t abort;
	uint8_t type;
	uint8_t spec;
	uint8_t new_type;
	uint8_t priv;
};

HWP_API void hwp_branch_entry__decode(uint64_t from, uint64_t to, uint64_t flags,
			      struct hwp_branch_entry *e);
HWP_API uint64_t hwp_branch_entry__encode_flags(const struct hwp_branch_entry *e);

/* A byte range inside the current record. */
struct hwp_bytes {
	const uint8_t *data;
	uint64_t size;
};

/*
 * A parsed PERF_RECORD_SAMPLE. Only the fields named in sample_type are
 * meaningful. Arrays are left in place in the record (unaligned-safe
 * accessors below), so parsing costs no copy.
 */
struct hwp_sample {
	uint64_t sample_type;
	uint16_t cpumode; /* header.misc & HWP_MISC_CPUMODE_MASK */
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	struct hwp_bytes read;   /* raw read_format values */
	uint64_t callchain_nr;
	const uint8_t *callchain; /* callchain_nr u64s */
	struct hwp_bytes raw;
	uint64_t branch_nr;
	bool branch_has_hw_idx;
	uint64_t branch_hw_idx;
	const uint8_t *branch_entries; /* branch_nr x {from, to, flags} */
	const uint8_t *branch_counters; /* branch_nr u64s or NULL */
	uint64_t regs_user_abi;
	uint64_t regs_user_mask;
	struct hwp_bytes regs_user;
	struct hwp_bytes stack_user;
	uint64_t stack_user_dyn_size;
	uint64_t weight; /* WEIGHT, or WEIGHT_STRUCT as its full u64 */
	uint32_t weight_var1; /* WEIGHT_STRUCT: latency */
	uint16_t weight_var2; /* instruction retire latency */
	uint16_t weight_var3;
	uint64_t data_src;
	uint64_t transaction;
	uint64_t regs_intr_abi;
	uint64_t regs_intr_mask;
	struct hwp_bytes regs_intr;
	uint64_t phys_addr;
	uint64_t cgroup;
	uint64_t data_page_size;
	uint64_t code_page_size;
	struct hwp_bytes aux;
};

HWP_API uint64_t hwp_sample__callchain_ip(const struct hwp_sample *s, uint64_t i);
HWP_API void hwp_sample__branch(const struct hwp_sample *s, uint64_t i, struct hwp_branch_entry *e);

/* Decoded read_format values (PERF_SAMPLE_READ). */
struct hwp_read_value {
	uint64_t value, id, lost;
};
struct hwp_read {
	uint64_t nr; /* 1 unless GROUP */
	uint64_t time_enabled, time_running;
};
/* Returns 0, or -EINVAL (hwp_errmsg()) when the bytes do not match
   read_format; hwp_read__value() also when there is no value I. */
HWP_API int hwp_read__parse(const struct hwp_bytes *b, uint64_t read_format, struct hwp_read *r);
HWP_API int hwp_read__value(const struct hwp_bytes *b, uint64_t read_format, uint64_t i,
		    struct hwp_read_value *v);

/* One record. */
struct hwp_event {
	uint32_t type;
	uint16_t misc;
	uint32_t size;          /* whole record, header included */
	const uint8_t *data;    /* whole record, header included */
	uint64_t file_offset;   /* of the record; for records inside a
				   COMPRESSED record, of that record */
	uint64_t index;         /* 0-based record number, in file order */
	bool compressed;        /* came out of a COMPRESSED(2) record */
	bool stable;            /* data stays valid as long as the reader */
	const struct hwp_evsel *evsel; /* NULL when not known */
	/* samples: every field; other records: sample_id_all trailer fields
	   (pid, tid, time, id, stream_id, cpu) when has_sample_id */
	bool has_sample_id;
	struct hwp_sample sample;
};

/* Timestamp used for ordering, or UINT64_MAX when the event has none. */
HWP_API uint64_t hwp_event__time(const struct hwp_event *ev);

/* Header facts (features), filled progressively in pipe mode. */
struct hwp_build_id {
	int32_t pid;
	uint16_t misc;
	uint8_t size;     /* bytes of id that are meaningful */
	uint8_t id[20];
	const char *filename;
};

struct hwp_pmu_mapping {
	uint32_t type;
	const char *name;
};

struct hwp_pmu_caps {
	const char *pmu_name;  /* "cpu" for CPU_PMU_CAPS */
	size_t nr_caps;
	const char **caps;     /* "name=value" */
};

/* simpleperf's record of a binary (its file feature): the lowest
   executable address and, when recorded, that address's file offset */
struct hwp_file_vaddr {
	const char *path;
	uint64_t min_vaddr, file_offset;
	bool has_file_offset;
};

struct hwp_header_info {
	uint64_t features[HWP_FEAT_BITS / 64]; /* which features were present */
	const char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nr_cpus_online, nr_cpus_avail;
	uint64_t total_mem_kb;
	size_t nr_cmdline;
	const char **cmdline;
	size_t nr_build_ids;
	struct hwp_build_id *build_ids;
	size_t nr_pmu_mappings;
	struct hwp_pmu_mapping *pmu_mappings;
	size_t nr_pmu_caps;
	struct hwp_pmu_caps *pmu_caps;
	bool has_compressed;
	uint32_t comp_version, comp_type, comp_level, comp_ratio, comp_mmap_len;
	uint64_t sample_time_start, sample_time_end;
	size_t nr_unknown_features;
	size_t nr_file_vaddrs; /* simpleperf recordings only */
	const struct hwp_file_vaddr *file_vaddrs;
};

static inline bool hwp_header_info__has(const struct hwp_header_info *h, unsigned feat)
{
	return feat < HWP_FEAT_BITS && ((h->features[feat / 64] >> (feat % 64)) & 1);
}

HWP_API const char *hwp_feature__name(unsigned feat);
HWP_API const char *hwp_record_type__name(uint32_t type);
/* Whether E's values (cycles, data sources, latencies) are hwprof's
   emulator's model, not the hardware's: the events of emulated recordings
   ("branches:emulated", "mem:modelled"). */
HWP_API bool hwp_evsel__modelled(const struct hwp_evsel *e);

struct hwp_reader;

struct hwp_reader_opts {
	size_t sz; /* sizeof(struct hwp_reader_opts), for forward compatibility */
	/* Things worth a note (skipped AUXTRACE data) go to hwp_set_log()'s
	   callback at HWP_LOG_WARN, once per reader. */
};

/*
 * Opens PATH ("-" for standard input). Returns NULL on failure with errno set
 * and hwp_errmsg() describing what, where and why.
 */
HWP_API struct hwp_reader *hwp_reader__open(const char *path, const struct hwp_reader_opts *opts);
/* Reads from an in-memory image (not copied; must outlive the reader). */
HWP_API struct hwp_reader *hwp_reader__open_mem(const void *buf, size_t len, const char *name,
					const struct hwp_reader_opts *opts);
HWP_API void hwp_reader__delete(struct hwp_reader *r);

/* 1: EV holds the next record; 0: end of data; <0: error (hwp_errmsg()). */
HWP_API int hwp_reader__next(struct hwp_reader *r, struct hwp_event *ev);

HWP_API bool hwp_reader__is_pipe(const struct hwp_reader *r);
HWP_API const char *hwp_reader__path(const struct hwp_reader *r);
HWP_API uint64_t hwp_reader__file_size(const struct hwp_reader *r);
HWP_API uint64_t hwp_reader__data_offset(const struct hwp_reader *r);
HWP_API uint64_t hwp_reader__data_size(const struct hwp_reader *r); /* as in header */
HWP_API size_t hwp_reader__nr_evsels(const struct hwp_reader *r);
HWP_API const struct hwp_evsel *hwp_reader__evsel(const struct hwp_reader *r, size_t i);
HWP_API const struct hwp_header_info *hwp_reader__header(const struct hwp_reader *r);
/* attr size stored in the file header (attr + 16), 0 in pipe mode */
HWP_API uint64_t hwp_reader__file_attr_size(const struct hwp_reader *r);
/* true when the input was perf script text, not perf.data */
HWP_API bool hwp_reader__is_text(const struct hwp_reader *r);

/*
 * Time-ordered delivery, as perf's ordered_events does it: events with a
 * timestamp are queued and released at each FINISHED_ROUND up to the largest
 * timestamp seen in the round before; events without one pass straight through.
 */
struct hwp_ordered;
HWP_API struct hwp_ordered *hwp_ordered__new(struct hwp_reader *r);
HWP_API void hwp_ordered__delete(struct hwp_ordered *q);
HWP_API int hwp_ordered__next(struct hwp_ordered *q, struct hwp_event *ev);

HWP_END_DECLS

#endif
