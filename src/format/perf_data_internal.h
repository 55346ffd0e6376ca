/* SPDX-License-Identifier: MIT */
/* Library-private declarations (not exported): the public side is include/hwprof/perf_data.h. */
#ifndef HWPROF_FORMAT_PERF_DATA_INTERNAL_H
#define HWPROF_FORMAT_PERF_DATA_INTERNAL_H

#include "hwprof/perf_data.h"

/* Writes A as a perf_event_attr of SIZE bytes (its size field = SIZE; fields
   beyond SIZE, i.e. a newer ABI's, are dropped). */
void hwp__attr_encode(const struct hwp_attr *a, uint8_t *out, size_t size);

/* perf's name for a branch type (COND, CALL, RET, ...; EXTEND_ABI types are
   named by new_type): "" for type 0, "(null)" for new_type values perf has no
   name for, as perf 6.1 prints them. */
const char *hwp__branch_entry_type_name(const struct hwp_branch_entry *e);

/*
 * Mapped input pages behind the read position go back to the page cache as
 * reading goes on (RSS stays flat on huge files). Views of earlier records stay
 * valid: touching one faults its page in again. A caller that keeps many such
 * views (hwp_ordered) calls this now and then to drop those pages once more.
 */
void hwp__reader_drop_released_pages(struct hwp_reader *r);

/* Re-parses a record (e.g. one kept from earlier) into EV. */
int hwp__reader_parse(struct hwp_reader *r, const uint8_t *data, uint32_t size,
		      uint64_t file_offset, uint64_t index, struct hwp_event *ev);

#endif
