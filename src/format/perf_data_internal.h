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

/*
 * The next record as hwp_reader__next() gives it, but a sample of a known
 * event is only peeked (hwp__reader_peek_sample()): 2 then. One whose event
 * lays its samples out with fixed lengths is checked too (it parses); one
 * with lengths of its own (call chains, branch stacks) is checked only when
 * parsed, so its errors come from hwp__reader_parse_sample(). For readers
 * that look at few samples' fields and parse the rest later, or elsewhere
 * (perf's order, the parallel pass).
 */
int hwp__reader_next_light(struct hwp_reader *r, struct hwp_event *ev);

/* Parses a sample REC of EVSEL (NULL: of no known event) as
   hwp__reader_parse() does, the evsel known. Safe on several threads at
   once for one reader: it reads the reader only. */
int hwp__reader_parse_sample(const struct hwp_reader *r, const struct hwp_evsel *evsel, const uint8_t *rec,
			     uint32_t size, uint64_t off, uint64_t index, struct hwp_event *ev);

/* EV from a sample REC of EVSEL long enough for hwp__sample_peek(): its
   fields before the sample, and the sample's sample_type, cpumode, ip,
   pid, tid and time only (has_sample_id set; the rest of EV->sample left as it
   was). */
void hwp__reader_peek_sample(const struct hwp_evsel *evsel, const uint8_t *rec, uint32_t size, uint64_t off,
			     uint64_t index, struct hwp_event *ev);

/* The event of sample REC now, THEN when it was read: another only where
   a later attr took its id over (a sample kept for later is parsed as
   the event its id names when it is parsed). */
const struct hwp_evsel *hwp__reader_sample_evsel_now(struct hwp_reader *r, const uint8_t *rec, uint32_t size,
						     const struct hwp_evsel *then);

/* The mapped input's bytes at file offset OFF (a record's: the record
   there), NULL when the input is not mapped or OFF past it. */
const uint8_t *hwp__reader_mapped(const struct hwp_reader *r, uint64_t off);

/* RAW: samples in perf's order come peeked (hwp__reader_peek_sample()),
   the caller parses them (a parallel pass: on its threads); else parsed. */
void hwp__ordered_set_raw(struct hwp_ordered *q, bool raw);

#endif
