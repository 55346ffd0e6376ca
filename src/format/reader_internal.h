/* SPDX-License-Identifier: MIT */
/* Reader internals shared by reader.c, sample.c, features.c, compressed.c. */
#ifndef HWPROF_READER_INTERNAL_H
#define HWPROF_READER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/perf_data.h"
#include "util/arena.h"
#include "util/hashmap.h"

struct hwp_text_input;
struct hwp_decompressor;

struct hwp_id_ent {
	uint64_t id;
	int32_t evsel_idx;
};

/* Sample id -> evsel: entries in a vector, indexed by the one hash map. */
struct hwp_id_map {
	struct hwp_id_ent *v;
	size_t nr, cap;
	struct hwp_hashmap map;
};

struct hwp_reader {
	char *path;
	const char *name; /* for messages: the path as given */
	struct hwp_reader_opts opts;
	bool said_auxtrace; /* the skipped-AUXTRACE note is logged once */

	/* Input: either a whole mapping (file, memory) or a pipe stream. */
	const uint8_t *map;
	size_t map_len;
	bool map_owned;
	int fd;
	bool streaming;     /* reading a non-seekable fd */
	uint8_t *sbuf;      /* stream window [sbuf_base, sbuf_base+sbuf_len) */
	size_t sbuf_cap, sbuf_len, sbuf_off;
	uint64_t sbuf_base; /* file offset of sbuf[0] */
	bool stream_eof;
	uint64_t dontneed_done; /* mmap prefix already released (keeps RSS flat) */
	uint64_t asked_upto;    /* mapping asked for up to here (reader.c: ask_ahead()) */

	/* Layout */
	bool pipe;
	uint64_t file_size;
	uint64_t file_attr_size;
	uint64_t data_off, data_size_hdr, data_end;
	uint64_t pos; /* next record's file offset */
	uint64_t index;

	/* Events */
	struct hwp_evsel *evsels;
	size_t nr_evsels, cap_evsels;
	struct hwp_id_map ids;
	int id_pos, is_pos; /* from the first evsel, as perf does */
	bool ids_moved;     /* an id was given to another event after it was seen */
#define HWP__READER_IDS_SEEN 4
	struct hwp_id_ent ids_seen[HWP__READER_IDS_SEEN]; /* by id: ids found last (id 0: none) */
	uint64_t *fixed;    /* per evsel: hwp__sample_fixed_size() + 1, 0 unknown */

	struct hwp_header_info hdr;
	size_t cap_pmu_caps; /* room in hdr.pmu_caps */
	struct hwp_arena arena;

	struct hwp_decompressor *dec;
	uint64_t comp_offset; /* file offset of the COMPRESSED record being drained */

	struct hwp_text_input *text;
	bool text_attr_added;
	bool done;
};

/* sample.c */
int hwp__parse_sample(const struct hwp_reader *r, const struct hwp_attr *attr,
		      const uint8_t *rec, uint32_t size, struct hwp_sample *s,
		      uint64_t off, uint64_t index);
int hwp__parse_sample_id(const struct hwp_attr *attr, const uint8_t *rec, uint32_t size,
			 struct hwp_sample *s);
int hwp__sample_id_pos(uint64_t sample_type);
/* The bytes after the header a sample of ATTR takes when no field of it
   has a length of its own (hwp__parse_sample() then succeeds exactly on
   records that long or longer), else UINT64_MAX. */
uint64_t hwp__sample_fixed_size(const struct hwp_attr *attr);
/* The bytes after the header hwp__sample_peek() reads of a sample of ATTR
   (its fields up to TIME, which have fixed lengths in every layout). */
uint64_t hwp__sample_peek_size(const struct hwp_attr *attr);
/* Of a sample of ATTR at least hwp__sample_peek_size() long, only its
   sample_type, cpumode, ip, pid, tid and time into S (the rest of S left as it
   was). */
void hwp__sample_peek(const struct hwp_attr *attr, const uint8_t *rec, struct hwp_sample *s);
int hwp__sample_is_pos(uint64_t sample_type);
/* hwp_read__parse() / hwp_read__value() without a message (-EINVAL), for
   callers that read values until there are no more. */
int hwp__read_parse(const struct hwp_bytes *b, uint64_t read_format, struct hwp_read *r);
int hwp__read_value(const struct hwp_bytes *b, uint64_t read_format, uint64_t i,
		    struct hwp_read_value *v);

/* attr.c */
void hwp__attr_decode(const uint8_t *p, size_t avail, struct hwp_attr *a);
size_t hwp__attr_wire_size(const uint8_t *p, size_t avail);

/* features.c */
int hwp__parse_feature(struct hwp_reader *r, unsigned feat, const uint8_t *p, uint64_t len,
		       uint64_t file_off);
/* simpleperf_files.c: FEAT_FILE2 into hdr.file_vaddrs (a malformed one is
   ignored with a warning) */
#define HWP__FEAT_SIMPLEPERF_FILE2 132
int hwp__parse_simpleperf_files(struct hwp_reader *r, const uint8_t *p, uint64_t len, uint64_t file_off);

/* reader.c */
int hwp__reader_add_evsel(struct hwp_reader *r, const struct hwp_attr *attr,
			  const uint8_t *ids, uint64_t nr_ids, uint64_t off);
int hwp__reader_map_id(struct hwp_reader *r, uint64_t id, int32_t evsel_idx);
void hwp__reader_set_evsel_name(struct hwp_reader *r, size_t idx, const char *name);
struct hwp_evsel *hwp__reader_evsel_by_id(struct hwp_reader *r, uint64_t id);

/* compressed.c: one zstd stream across all COMPRESSED and COMPRESSED2 records. */
struct hwp_decompressor *hwp__decompressor_new(void);
void hwp__decompressor_delete(struct hwp_decompressor *d);
/* Queues one record's compressed payload (not copied: must stay valid until
   drained). Returns 0 or <0 when zstd support is missing. */
int hwp__decompressor_feed(struct hwp_decompressor *d, const uint8_t *p, size_t len);
/* Next complete inner record: 1 when one is ready, 0 when more input is
   needed, <0 on corrupt data (REC and SIZE are set on 1). Inner records straddling payloads are joined. */
int hwp__decompressor_next(struct hwp_decompressor *d, const uint8_t **rec, uint32_t *size,
			   const char *name, uint64_t off);
/* Bytes left over that never formed a whole record (checked at EOF). */
size_t hwp__decompressor_pending(const struct hwp_decompressor *d);

#endif
