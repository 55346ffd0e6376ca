/* SPDX-License-Identifier: MIT */
/*
 * perf.data writer (file mode). Produces files perf 6.1 reads: header,
 * attrs with their sample ids, a data section of records, and the features
 * perf expects (ARCH, CPUID, NRCPUS, BUILD_ID, ...).
 *
 * Usage: hwp_writer__open(); add attrs; add records (samples, MMAP2, COMM,
 * ...); set features; hwp_writer__close() writes the header and features.
 */
#ifndef HWPROF_PERF_WRITER_H
#define HWPROF_PERF_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/perf_data.h"
#include "hwprof/hwprof.h"

HWP_BEGIN_DECLS

struct hwp_writer;

HWP_API struct hwp_writer *hwp_writer__open(const char *path); /* NULL + errno, hwp_errmsg() */
/* Adds an event; returns its index or <0. IDS are its sample ids (may be 0). */
HWP_API int hwp_writer__add_attr(struct hwp_writer *w, const struct hwp_attr *attr,
			 const uint64_t *ids, size_t nr_ids, const char *name);

/* Sample: fields taken from S per the attr's sample_type; entries/callchain
   from the arrays given (S's pointer fields are ignored). Variable-size byte
   fields (read, raw, regs_user, stack_user, regs_intr, aux) come from S's
   struct hwp_bytes; a NULL/empty one is written as its empty or zero form.
   RAW is padded as the kernel does (u32 size + data ends 8-aligned), so a
   reader sees the padded size. header.misc = S->cpumode. */
struct hwp_sample_in {
	const struct hwp_sample *s;
	const struct hwp_branch_entry *branches; /* s->branch_nr entries */
	const uint64_t *callchain;               /* s->callchain_nr ips */
	/* Added: s->branch_nr counters when branch_sample_type has
	   HWP_BRANCH_COUNTERS; NULL writes zeros. */
	const uint64_t *branch_counters;
};
HWP_API int hwp_writer__add_sample(struct hwp_writer *w, int attr_idx, const struct hwp_sample_in *in);

/* Non-sample records; the sample_id_all trailer is written from ID when the
   attr asks for it (ID may be NULL: zeros). */
HWP_API int hwp_writer__add_mmap2(struct hwp_writer *w, int attr_idx, uint32_t pid, uint32_t tid,
			  uint64_t addr, uint64_t len, uint64_t pgoff,
			  const uint8_t *build_id, uint8_t build_id_size, uint32_t prot,
			  uint32_t flags, const char *filename, uint16_t cpumode,
			  const struct hwp_sample *id);
HWP_API int hwp_writer__add_comm(struct hwp_writer *w, int attr_idx, uint32_t pid, uint32_t tid,
			 const char *comm, bool exec, const struct hwp_sample *id);
HWP_API int hwp_writer__add_fork_exit(struct hwp_writer *w, int attr_idx, uint32_t type,
			      uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
			      uint64_t time, const struct hwp_sample *id);
HWP_API int hwp_writer__add_finished_round(struct hwp_writer *w);
/* Any other record, written as given (header included). */
HWP_API int hwp_writer__add_raw(struct hwp_writer *w, const void *rec, size_t size);

/* Header features. Strings are copied. */
HWP_API int hwp_writer__set_string(struct hwp_writer *w, unsigned feat, const char *value);
HWP_API int hwp_writer__set_nrcpus(struct hwp_writer *w, uint32_t online, uint32_t avail);
HWP_API int hwp_writer__add_build_id(struct hwp_writer *w, int32_t pid, uint16_t cpumode,
			     const uint8_t *id, uint8_t size, const char *filename);
/* TOTAL_MEM, in kB as /proc/meminfo and perf give it. */
HWP_API int hwp_writer__set_total_mem(struct hwp_writer *w, uint64_t kb);
/* CMDLINE: ARGC strings (copied). */
HWP_API int hwp_writer__set_cmdline(struct hwp_writer *w, int argc, const char *const *argv);
/* HOSTNAME, OSRELEASE, ARCH (uname), NRCPUS, CPUDESC, CPUID (x86 "Vendor,family,
   model,stepping" as perf writes it), TOTAL_MEM and VERSION, from this host,
   for each one not set already. Missing host facts are skipped, not errors. */
HWP_API int hwp_writer__set_host_features(struct hwp_writer *w);

/*
 * Notes on what gets written:
 * - attrs are written at 128 bytes (PERF_ATTR_SIZE_VER7) so perf 6.1 reads
 *   them; config3 (VER8) is dropped, with a hwp__log() note when non-zero.
 * - all attrs must be added before the first record (-EBUSY after).
 * - with several attrs, their sample_types must let perf route samples (all
 *   IDENTIFIER, or all ID at the same position from the start and from the
 *   end, and the same sample_id_all): -EINVAL otherwise, as perf 6.1 would
 *   refuse the file ("non matching sample_type").
 * - EVENT_DESC is written when any attr has a name (unnamed ones get a
 *   perf-style default); SAMPLE_TIME when samples carry TIME.
 * - a record's header.size is a u16: bigger samples fail with -E2BIG.
 */

/* Bytes of the output so far (header, attrs and data written or buffered). */
HWP_API uint64_t hwp_writer__size(const struct hwp_writer *w);

/* Writes header, attrs, ids and features; frees W. Returns 0 or <0. */
HWP_API int hwp_writer__close(struct hwp_writer *w);
/* Frees without finishing (the output is left incomplete). */
HWP_API void hwp_writer__abort(struct hwp_writer *w);

/* Added for hwprof record: sets a header feature that has no content
   (HWP_FEAT_BRANCH_STACK, which perf report needs for branch mode). */
HWP_API int hwp_writer__set_flag_feature(struct hwp_writer *w, unsigned feat);

HWP_END_DECLS

#endif
