/* SPDX-License-Identifier: MIT */
/*
 * perf.data reader: file mode (mmap'd, zero-copy), pipe mode (from a file or
 * a real pipe), zstd-compressed records, and perf-script text (converted to
 * records by text_input.c). Every length read from the input is checked
 * before use; errors name the input, the offset and the problem.
 */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hwprof/hwprof.h"
#include "format/reader_internal.h"
#include "format/text_input.h"
#include "util/bytes.h"
#include "util/hash.h"
#include "util/opts.h"
#include "util/vec.h"
#include "format/perf_data_internal.h"
#include "util/error.h"

#define RELEASE_STEP (8u << 20) /* drop consumed mmap pages every 8 MiB */
#define STREAM_CHUNK (1u << 20)

/* ---- id -> evsel map ---- */

static struct hwp_id_ent *id_find(const struct hwp_id_map *m, uint64_t id, uint64_t h)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&m->map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (m->v[i].id == id)
			return &m->v[i];
	return NULL;
}

static const struct hwp_evsel *sample_evsel(struct hwp_reader *r, const uint8_t *rec, uint32_t size, uint64_t off,
					    uint64_t index, int *err);

int hwp__reader_map_id(struct hwp_reader *r, uint64_t id, int32_t evsel_idx)
{
	struct hwp_id_map *m = &r->ids;
	uint64_t h = hwp__hash64(id);
	struct hwp_id_ent *e = id_find(m, id, h);

	if (!e) {
		e = HWP_VEC_PUSH(m->v, m->nr, m->cap);
		if (!e)
			return -ENOMEM;
		if (hwp__hashmap_add(&m->map, h, m->nr - 1) < 0) {
			m->nr--;
			return -ENOMEM;
		}
		e->id = id;
	} else if (e->evsel_idx != evsel_idx) {
		r->ids_moved = true;
		memset(r->ids_seen, 0, sizeof(r->ids_seen));
	}
	e->evsel_idx = evsel_idx;
	return 0;
}

const struct hwp_evsel *hwp__reader_sample_evsel_now(struct hwp_reader *r, const uint8_t *rec, uint32_t size,
						     const struct hwp_evsel *then)
{
	int err;

	if (!r->ids_moved)
		return then;
	const struct hwp_evsel *e = sample_evsel(r, rec, size, 0, 0, &err);
	return err ? NULL : e;
}

struct hwp_evsel *hwp__reader_evsel_by_id(struct hwp_reader *r, uint64_t id)
{
	struct hwp_id_ent *e = id_find(&r->ids, id, hwp__hash64(id));

	return e ? &r->evsels[e->evsel_idx] : NULL;
}

/* ---- evsels ---- */

static int evsel_oom(const struct hwp_reader *r, uint64_t nr_ids, uint64_t off)
{
	return hwp__set_error(ENOMEM, "%s: out of memory reading the event attr at offset 0x%llx (%llu ids)",
			      r->name, (unsigned long long)off, (unsigned long long)nr_ids);
}

int hwp__reader_add_evsel(struct hwp_reader *r, const struct hwp_attr *attr, const uint8_t *ids,
			  uint64_t nr_ids, uint64_t off)
{
	if (r->nr_evsels == r->cap_evsels) {
		/* Evsels are handed out by pointer: allocate them up front in blocks
		   that never move (pipe mode adds them while events are live). */
		return hwp__set_error(E2BIG, "%s: more than %zu events (attrs) at offset 0x%llx",
				      r->name, r->cap_evsels, (unsigned long long)off);
	}
	struct hwp_evsel *e = &r->evsels[r->nr_evsels];
	uint64_t *idv = hwp__arena_alloc(&r->arena, (nr_ids ? nr_ids : 1) * 8);

	if (!idv)
		return evsel_oom(r, nr_ids, off);
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->idx = (int)r->nr_evsels;
	e->ids = idv;
	e->nr_ids = nr_ids;
	for (uint64_t i = 0; i < nr_ids; i++) {
		idv[i] = ld64(ids + i * 8);
		if (hwp__reader_map_id(r, idv[i], e->idx))
			return evsel_oom(r, nr_ids, off);
	}
	if (r->nr_evsels == 0) {
		r->id_pos = hwp__sample_id_pos(attr->sample_type);
		r->is_pos = hwp__sample_is_pos(attr->sample_type);
	}
	r->nr_evsels++;
	return 0;
}

void hwp__reader_set_evsel_name(struct hwp_reader *r, size_t idx, const char *name)
{
	if (idx < r->nr_evsels)
		r->evsels[idx].name = name;
}

/* ---- input access ---- */

/* Bytes [off, off+n) of the input, or NULL past its end. Streams move forward only. */
static const uint8_t *input_at(struct hwp_reader *r, uint64_t off, uint64_t n)
{
	if (!r->streaming) {
		if (off > r->map_len || n > r->map_len - off)
			return NULL;
		return r->map + off;
	}
	if (off < r->sbuf_base)
		return NULL;
	/* Drop what lies before OFF, then read until the range is there. */
	uint64_t drop = off - r->sbuf_base;
	if (drop > r->sbuf_len)
		drop = r->sbuf_len;
	if (drop) { /* sbuf is NULL until the first read: no arithmetic on it */
		memmove(r->sbuf, r->sbuf + drop, r->sbuf_len - drop);
		r->sbuf_len -= drop;
		r->sbuf_base += drop;
	}
	while (r->sbuf_base + r->sbuf_len < off + n) {
		if (r->stream_eof)
			return NULL;
		if (r->sbuf_base + r->sbuf_len < off) {
			/* Skipping a payload: nothing read so far is wanted. */
			r->sbuf_base += r->sbuf_len;
			r->sbuf_len = 0;
		}
		size_t want = off + n - (r->sbuf_base + r->sbuf_len);
		if (want > STREAM_CHUNK && r->sbuf_base + r->sbuf_len < off)
			want = STREAM_CHUNK;
		if (r->sbuf_len + want > r->sbuf_cap || r->sbuf_cap - r->sbuf_len < STREAM_CHUNK / 4) {
			size_t ncap = r->sbuf_len + (want > STREAM_CHUNK ? want : STREAM_CHUNK);
			uint8_t *nb = realloc(r->sbuf, ncap);
			if (!nb)
				return NULL;
			r->sbuf = nb;
			r->sbuf_cap = ncap;
		}
		ssize_t got = read(r->fd, r->sbuf + r->sbuf_len, r->sbuf_cap - r->sbuf_len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			r->stream_eof = true;
			continue;
		}
		r->sbuf_len += (size_t)got;
		r->file_size = r->sbuf_base + r->sbuf_len;
	}
	if (!r->sbuf)
		return NULL; /* an empty stream */
	return r->sbuf + (off - r->sbuf_base);
}

/* Keeps RSS flat on huge files: consumed pages go back to the page cache. */
static void release_consumed(struct hwp_reader *r)
{
	if (!r->map_owned || r->pos < r->dontneed_done + 2 * RELEASE_STEP)
		return;
	uint64_t upto = (r->pos - RELEASE_STEP) & ~(uint64_t)(RELEASE_STEP - 1);
	/* Never past the mapping: MADV_DONTNEED there would zero whatever else
	   is mapped (a pos past the end once came from an AUXTRACE size). */
	if (upto > r->map_len)
		upto = r->map_len & ~(uint64_t)(RELEASE_STEP - 1);
	if (upto > r->dontneed_done) {
		madvise((void *)(r->map + r->dontneed_done), upto - r->dontneed_done, MADV_DONTNEED);
		r->dontneed_done = upto;
	}
}

/* ---- header ---- */

/* The header's sizes and offsets, checked against the file; sets data_end. */
static int check_layout(struct hwp_reader *r, uint64_t hsize, uint64_t attrs_off,
			uint64_t attrs_size)
{
	uint64_t stride = r->file_attr_size;

	if (hsize < HWP_FILE_HEADER_SIZE)
		return hwp__set_error(EINVAL, "%s: file header size %llu at offset 0x8 is smaller than %d",
				      r->name, (unsigned long long)hsize, HWP_FILE_HEADER_SIZE);
	if (stride < HWP_ATTR_SIZE_VER0 + 16 || stride > (1u << 20))
		return hwp__set_error(EINVAL, "%s: attr size %llu at offset 0x10 is not a perf_event_attr size",
				      r->name, (unsigned long long)stride);
	if (attrs_off > r->file_size || attrs_size > r->file_size - attrs_off)
		return hwp__set_error(EINVAL, "%s: attrs section [0x%llx, +%llu) at offset 0x18 lies beyond the end of the file (%llu bytes)",
				      r->name, (unsigned long long)attrs_off, (unsigned long long)attrs_size,
				      (unsigned long long)r->file_size);
	if (attrs_size % stride)
		return hwp__set_error(EINVAL, "%s: attrs section size %llu at offset 0x20 is not a multiple of the attr size %llu",
				      r->name, (unsigned long long)attrs_size, (unsigned long long)stride);
	if (r->data_off > r->file_size)
		return hwp__set_error(EINVAL, "%s: data section offset 0x%llx at offset 0x28 lies beyond the end of the file (%llu bytes)",
				      r->name, (unsigned long long)r->data_off, (unsigned long long)r->file_size);
	if (r->data_size_hdr == 0) {
		/* perf record was killed before it wrote the sizes: read to EOF. */
		r->data_end = r->file_size;
	} else if (r->data_size_hdr > r->file_size - r->data_off) {
		return hwp__set_error(EINVAL, "%s: data section [0x%llx, +%llu) at offset 0x28 runs past the end of the file (%llu bytes): truncated file",
				      r->name, (unsigned long long)r->data_off,
				      (unsigned long long)r->data_size_hdr, (unsigned long long)r->file_size);
	} else {
		r->data_end = r->data_off + r->data_size_hdr;
	}
	return 0;
}

/* Attr I of the attrs section, at AOFF, and its ids; IDS_TOTAL: their bytes so far. */
static int read_attr(struct hwp_reader *r, uint64_t i, uint64_t aoff, uint64_t *ids_total)
{
	uint64_t stride = r->file_attr_size;
	const uint8_t *a = input_at(r, aoff, stride);
	struct hwp_attr attr;
	size_t wire = hwp__attr_wire_size(a, stride - 16);

	hwp__attr_decode(a, wire < stride - 16 ? wire : stride - 16, &attr);
	uint64_t ids_off = ld64(a + stride - 16), ids_size = ld64(a + stride - 8);
	if (ids_off > r->file_size || ids_size > r->file_size - ids_off || ids_size % 8)
		return hwp__set_error(EINVAL, "%s: attr %llu at offset 0x%llx: ids section [0x%llx, +%llu) is outside the file (%llu bytes)%s",
				      r->name, (unsigned long long)i, (unsigned long long)aoff,
				      (unsigned long long)ids_off, (unsigned long long)ids_size,
				      (unsigned long long)r->file_size, ids_size % 8 ? " or not a multiple of 8" : "");
	/* perf writes each attr's ids once; attrs that all point at the
	   whole file would cost nr_attrs x file size in id-map work. */
	*ids_total += ids_size;
	if (*ids_total > r->file_size)
		return hwp__set_error(EINVAL, "%s: attr %llu at offset 0x%llx: ids sections add up to more than the file (%llu bytes)",
				      r->name, (unsigned long long)i, (unsigned long long)aoff,
				      (unsigned long long)r->file_size);
	return hwp__reader_add_evsel(r, &attr, input_at(r, ids_off, ids_size), ids_size / 8, aoff);
}

static int read_attrs(struct hwp_reader *r, uint64_t attrs_off, uint64_t attrs_size)
{
	uint64_t stride = r->file_attr_size;
	uint64_t nr_attrs = attrs_size / stride, ids_total = 0;

	r->cap_evsels = nr_attrs;
	r->evsels = calloc(nr_attrs ? nr_attrs : 1, sizeof(*r->evsels));
	if (!r->evsels)
		return hwp__set_error(ENOMEM, "%s: out of memory for %llu event attrs", r->name,
				      (unsigned long long)nr_attrs);
	for (uint64_t i = 0; i < nr_attrs; i++) {
		int err = read_attr(r, i, attrs_off + i * stride, &ids_total);
		if (err)
			return err;
	}
	return 0;
}

/* The feature sections the header's bits announce, from the table after the data. */
static int read_features(struct hwp_reader *r, const uint64_t feat_bits[4])
{
	/* A killed recording has none. */
	if (r->data_size_hdr == 0)
		return 0;
	uint64_t sec = r->data_end;
	for (unsigned feat = 0; feat < HWP_FEAT_BITS; feat++) {
		if (!((feat_bits[feat / 64] >> (feat % 64)) & 1))
			continue;
		const uint8_t *s = input_at(r, sec, 16);
		if (!s)
			return hwp__set_error(EINVAL, "%s: feature table entry for %s at offset 0x%llx lies beyond the end of the file (%llu bytes)",
					      r->name, hwp_feature__name(feat), (unsigned long long)sec,
					      (unsigned long long)r->file_size);
		uint64_t foff = ld64(s), fsize = ld64(s + 8);
		if (foff > r->file_size || fsize > r->file_size - foff)
			return hwp__set_error(EINVAL, "%s: feature %s section [0x%llx, +%llu) named at offset 0x%llx lies outside the file (%llu bytes)",
					      r->name, hwp_feature__name(feat), (unsigned long long)foff,
					      (unsigned long long)fsize, (unsigned long long)sec,
					      (unsigned long long)r->file_size);
		int err = hwp__parse_feature(r, feat, input_at(r, foff, fsize), fsize, foff);
		if (err)
			return err;
		sec += 16;
	}
	return 0;
}

static int parse_file_header(struct hwp_reader *r)
{
	const uint8_t *h = input_at(r, 0, HWP_FILE_HEADER_SIZE);
	uint64_t hsize, attrs_off, attrs_size, feat_bits[4];
	int err;

	if (!h)
		return hwp__set_error(EINVAL, "%s: truncated file header: the input ends at offset 0x%llx, the header needs %d bytes",
				      r->name, (unsigned long long)r->file_size, HWP_FILE_HEADER_SIZE);
	hsize = ld64(h + 8);
	r->file_attr_size = ld64(h + 16);
	attrs_off = ld64(h + 24);
	attrs_size = ld64(h + 32);
	r->data_off = ld64(h + 40);
	r->data_size_hdr = ld64(h + 48);
	for (int i = 0; i < 4; i++)
		feat_bits[i] = ld64(h + 72 + i * 8);
	if ((err = check_layout(r, hsize, attrs_off, attrs_size)) ||
	    (err = read_attrs(r, attrs_off, attrs_size)))
		return err;
	/* Feature sections follow the data. */
	return read_features(r, feat_bits);
}

static int detect_format(struct hwp_reader *r)
{
	const uint8_t *h = input_at(r, 0, 16);
	uint64_t magic = h ? ld64(h) : 0;

	if (h && magic == HWP_PERF_MAGIC2) {
		uint64_t hsize = ld64(h + 8);
		if (hsize == HWP_PIPE_HEADER_SIZE) {
			r->pipe = true;
			r->data_off = HWP_PIPE_HEADER_SIZE;
			r->data_end = UINT64_MAX;
			r->cap_evsels = 4096;
			r->evsels = calloc(r->cap_evsels, sizeof(*r->evsels));
			return r->evsels ? 0
					 : hwp__set_error(ENOMEM, "%s: out of memory for %zu event attrs", r->name,
							  r->cap_evsels);
		}
		if (r->streaming)
			return hwp__set_error(ENOTSUP, "%s: file-mode perf.data header at offset 0x0 on a pipe: open it by its path instead, or record with 'perf record -o -'",
					      r->name);
		return parse_file_header(r);
	}
	if (h && (magic == HWP_PERF_MAGIC2_SWAPPED))
		return hwp__set_error(ENOTSUP, "%s: big-endian (foreign-endian) perf.data at offset 0x0 is not supported: convert it on the recording machine with 'perf script' or 'perf inject'",
				      r->name);
	if (h && memcmp(h, "PERFFILE", 8) == 0)
		return hwp__set_error(ENOTSUP, "%s: perf.data version 1 ('PERFFILE' magic at offset 0x0) is not supported",
				      r->name);

	/* Not binary: perhaps perf script text. Streams are read whole for it. */
	if (r->streaming) {
		while (input_at(r, 0, r->sbuf_len + STREAM_CHUNK))
			;
	}
	const uint8_t *all = r->streaming ? r->sbuf : r->map;
	size_t len = r->streaming ? r->sbuf_len : r->map_len;
	if (len == 0)
		return hwp__set_error(EINVAL, "%s: empty input: no perf.data header at offset 0x0", r->name);
	/* A file cut inside its 16-byte magic+size prefix: say so, not "bad magic". */
	if (len < 16 && memcmp(all, "PERFILE2", len < 8 ? len : 8) == 0)
		return hwp__set_error(EINVAL, "%s: truncated perf.data header: the input ends at offset 0x%zx, the header needs 16 bytes",
				      r->name, len);
	if (!hwp__text_input_looks_like(all, len))
		return hwp__set_error(EINVAL, "%s: not a perf.data file (bad magic at offset 0x0) nor 'perf script -F ip,brstack' text",
				      r->name);
	r->text = hwp__text_input_new(all, len, r->name);
	if (!r->text)
		return -errno; /* message set */
	r->cap_evsels = 1;
	r->evsels = calloc(1, sizeof(*r->evsels));
	if (!r->evsels)
		return hwp__set_error(ENOMEM, "%s: out of memory for the text input's event", r->name);
	int err = hwp__reader_add_evsel(r, hwp__text_input_attr(r->text), NULL, 0, 0);
	if (err)
		return err;
	r->evsels[0].name = "branches";
	r->data_off = 0;
	r->data_end = len;
	return 0;
}

static struct hwp_reader *reader_new(const char *name, const struct hwp_reader_opts *opts)
{
	struct hwp_reader *r = calloc(1, sizeof(*r));

	if (!r) {
		hwp__set_error(ENOMEM, "%s: out of memory opening the input", name);
		return NULL;
	}
	r->fd = -1;
	r->path = strdup(name);
	r->name = r->path;
	r->id_pos = r->is_pos = -1;
	if (!r->path) {
		free(r);
		hwp__set_error(ENOMEM, "%s: out of memory opening the input", name);
		return NULL;
	}
	if (HWP_OPTS_LOAD(opts, &r->opts, struct hwp_reader_opts)) {
		free(r->path);
		free(r);
		errno = EINVAL;
		return NULL;
	}
	return r;
}

static struct hwp_reader *finish_open(struct hwp_reader *r)
{
	int err = detect_format(r);

	if (err) {
		int e = err < 0 ? -err : EINVAL;
		hwp_reader__delete(r);
		errno = e;
		return NULL;
	}
	r->pos = r->data_off;
	return r;
}

struct hwp_reader *hwp_reader__open(const char *path, const struct hwp_reader_opts *opts)
{
	struct hwp_reader *r;
	struct stat st;

	if (!path) {
		hwp__set_error(EINVAL, "reader: no input path given");
		return NULL;
	}
	r = reader_new(path, opts);
	if (!r)
		return NULL;
	hwp__clear_error();
	r->fd = strcmp(path, "-") == 0 ? dup(0) : open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st) < 0) {
		int e = errno;
		hwp__set_error(e, "%s: %s", path, strerror(e));
		hwp_reader__delete(r);
		errno = e;
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		hwp__set_error(EISDIR, "%s: is a directory (perf record --threads directories are not supported)", path);
		hwp_reader__delete(r);
		errno = EISDIR;
		return NULL;
	}
	if (S_ISREG(st.st_mode)) {
		r->file_size = r->map_len = (size_t)st.st_size;
		if (r->map_len) {
			void *m = mmap(NULL, r->map_len, PROT_READ, MAP_PRIVATE, r->fd, 0);
			if (m == MAP_FAILED) {
				int e = errno;
				hwp__set_error(e, "%s: mmap: %s", path, strerror(e));
				hwp_reader__delete(r);
				errno = e;
				return NULL;
			}
			madvise(m, r->map_len, MADV_SEQUENTIAL);
			r->map = m;
			r->map_owned = true;
		}
	} else {
		r->streaming = true;
	}
	return finish_open(r);
}

struct hwp_reader *hwp_reader__open_mem(const void *buf, size_t len, const char *name,
					const struct hwp_reader_opts *opts)
{
	struct hwp_reader *r;

	if (!buf && len) {
		hwp__set_error(EINVAL, "%s: no buffer given for %zu bytes", name ? name : "memory", len);
		return NULL;
	}
	r = reader_new(name ? name : "memory", opts);
	if (!r)
		return NULL;
	hwp__clear_error();
	r->map = buf;
	r->map_len = len;
	r->file_size = len;
	return finish_open(r);
}

void hwp_reader__delete(struct hwp_reader *r)
{
	if (!r)
		return;
	if (r->map_owned)
		munmap((void *)r->map, r->map_len);
	if (r->fd >= 0)
		close(r->fd);
	hwp__decompressor_delete(r->dec);
	hwp__text_input_delete(r->text);
	free(r->sbuf);
	free(r->evsels);
	free(r->fixed);
	free(r->ids.v);
	hwp__hashmap_free(&r->ids.map);
	hwp__arena_free(&r->arena);
	free(r->path);
	free(r);
}

/* ---- records ---- */

static const struct hwp_evsel *sample_evsel(struct hwp_reader *r, const uint8_t *rec,
					    uint32_t size, uint64_t off, uint64_t index, int *err)
{
	*err = 0;
	if (r->nr_evsels == 0) {
		*err = hwp__set_error(EINVAL, "%s: sample at offset 0x%llx (record %llu) comes before any event attr",
				      r->name, (unsigned long long)off, (unsigned long long)index);
		return NULL;
	}
	if (r->nr_evsels == 1 || r->id_pos < 0)
		return &r->evsels[0];
	if ((uint64_t)size < 8 + (uint64_t)(r->id_pos + 1) * 8) {
		*err = hwp__set_error(EINVAL, "%s: truncated sample at offset 0x%llx (record %llu): no room for its id",
				      r->name, (unsigned long long)off, (unsigned long long)index);
		return NULL;
	}
	uint64_t id = ld64(rec + 8 + r->id_pos * 8);
	if (id == 0)
		return &r->evsels[0]; /* synthesized */
	/* a few ids seen last: the samples of a few events interleave */
	struct hwp_id_ent *seen = &r->ids_seen[id % HWP__READER_IDS_SEEN];
	if (seen->id == id && seen->evsel_idx >= 0)
		return &r->evsels[seen->evsel_idx];
	struct hwp_evsel *e = hwp__reader_evsel_by_id(r, id);
	if (e) {
		seen->id = id;
		seen->evsel_idx = e->idx;
	}
	return e;
}

static const struct hwp_evsel *other_evsel(struct hwp_reader *r, const uint8_t *rec, uint32_t size)
{
	if (r->nr_evsels == 0)
		return NULL;
	const struct hwp_evsel *first = &r->evsels[0];
	if (r->nr_evsels == 1 || !hwp_attr__flag(&first->attr, HWP_ATTR_SAMPLE_ID_ALL) || r->is_pos < 0)
		return first;
	uint32_t n = (size - 8) / 8;
	if ((uint32_t)r->is_pos > n)
		return NULL;
	uint64_t id = ld64(rec + 8 + (uint64_t)(n - (uint32_t)r->is_pos) * 8);
	if (id == 0)
		return first;
	return hwp__reader_evsel_by_id(r, id);
}

/* EV's fields before its sample: the record REC's. */
static void event_head(const uint8_t *rec, uint32_t size, uint64_t off, uint64_t index, struct hwp_event *ev)
{
	memset(ev, 0, offsetof(struct hwp_event, sample));
	ev->type = ld32(rec);
	ev->misc = ld16(rec + 4);
	ev->size = size;
	ev->data = rec;
	ev->file_offset = off;
	ev->index = index;
}

int hwp__reader_parse_sample(const struct hwp_reader *r, const struct hwp_evsel *evsel, const uint8_t *rec,
			     uint32_t size, uint64_t off, uint64_t index, struct hwp_event *ev)
{
	int err = 0;

	event_head(rec, size, off, index, ev);
	ev->evsel = evsel;
	if (evsel) {
		err = hwp__parse_sample(r, &evsel->attr, rec, size, &ev->sample, off, index);
		ev->has_sample_id = err == 0;
	} else {
		memset(&ev->sample, 0, sizeof(ev->sample));
	}
	return err;
}

void hwp__reader_peek_sample(const struct hwp_evsel *evsel, const uint8_t *rec, uint32_t size, uint64_t off,
			     uint64_t index, struct hwp_event *ev)
{
	event_head(rec, size, off, index, ev);
	ev->evsel = evsel;
	if (evsel) {
		ev->has_sample_id = true;
		hwp__sample_peek(&evsel->attr, rec, &ev->sample);
	} else {
		memset(&ev->sample, 0, sizeof(ev->sample));
	}
}

/* hwp__sample_fixed_size() of EVSEL's samples, remembered (UINT64_MAX
   too when out of memory). */
static uint64_t fixed_size(struct hwp_reader *r, const struct hwp_evsel *evsel)
{
	size_t i = (size_t)evsel->idx;

	if (!r->fixed && !(r->fixed = calloc(r->cap_evsels, sizeof(*r->fixed))))
		return UINT64_MAX;
	if (!r->fixed[i]) { /* a size kept plus one: 0 is not known yet */
		uint64_t n = hwp__sample_fixed_size(&evsel->attr);

		r->fixed[i] = n == UINT64_MAX ? n : n + 1;
	}
	return r->fixed[i] == UINT64_MAX ? UINT64_MAX : r->fixed[i] - 1;
}

/* hwp__reader_parse(), where a sample is only peeked
   (hwp__reader_peek_sample()): 1 then, 0 when EV is parsed in full, <0 on
   an error. A sample of fixed layout is checked by its length (it parses
   exactly when that long); one whose fields have lengths of their own
   (call chains, branch stacks) only to hold what the peek reads, and is
   checked when parsed: parsing it twice, here and where it is counted,
   was a tenth of a call graph's instructions, and on the parallel pass's
   reading thread. */
static int parse_light(struct hwp_reader *r, const uint8_t *rec, uint32_t size, uint64_t off, uint64_t index,
		       struct hwp_event *ev)
{
	const struct hwp_evsel *evsel;
	int err;

	if (ld32(rec) != HWP_RECORD_SAMPLE)
		return hwp__reader_parse(r, rec, size, off, index, ev);
	if (!(evsel = sample_evsel(r, rec, size, off, index, &err)))
		return err ? err : hwp__reader_parse_sample(r, NULL, rec, size, off, index, ev);
	uint64_t fixed = fixed_size(r, evsel);
	if (size < 8 || size - 8 < (fixed == UINT64_MAX ? hwp__sample_peek_size(&evsel->attr) : fixed))
		return hwp__reader_parse_sample(r, evsel, rec, size, off, index, ev);
	hwp__reader_peek_sample(evsel, rec, size, off, index, ev);
	return 1;
}

int hwp__reader_parse(struct hwp_reader *r, const uint8_t *rec, uint32_t size, uint64_t off,
		      uint64_t index, struct hwp_event *ev)
{
	int err = 0;

	if (ld32(rec) == HWP_RECORD_SAMPLE) {
		const struct hwp_evsel *evsel = sample_evsel(r, rec, size, off, index, &err);

		if (err) {
			event_head(rec, size, off, index, ev);
			memset(&ev->sample, 0, sizeof(ev->sample));
			return err;
		}
		return hwp__reader_parse_sample(r, evsel, rec, size, off, index, ev);
	}
	event_head(rec, size, off, index, ev);
	memset(&ev->sample, 0, sizeof(*ev) - offsetof(struct hwp_event, sample));
	if (ev->type < HWP_RECORD_KERNEL_MAX) {
		ev->evsel = other_evsel(r, rec, size);
		if (ev->evsel && hwp_attr__flag(&ev->evsel->attr, HWP_ATTR_SAMPLE_ID_ALL))
			ev->has_sample_id = hwp__parse_sample_id(&ev->evsel->attr, rec, size, &ev->sample) == 0;
	}
	return 0;
}

/* Records that change the reader's own state (attrs, ids, names, features). */
static int absorb_user_record(struct hwp_reader *r, const uint8_t *rec, uint32_t size, uint64_t off)
{
	uint32_t type = ld32(rec);

	switch (type) {
	case HWP_RECORD_HEADER_ATTR: {
		if (size < 8 + HWP_ATTR_SIZE_VER0)
			return hwp__set_error(EINVAL, "%s: HEADER_ATTR record at offset 0x%llx (record %llu) is too small (%u bytes)",
					      r->name, (unsigned long long)off, (unsigned long long)r->index, size);
		size_t wire = hwp__attr_wire_size(rec + 8, size - 8);
		if (wire > size - 8 || wire < HWP_ATTR_SIZE_VER0)
			return hwp__set_error(EINVAL, "%s: HEADER_ATTR record at offset 0x%llx (record %llu): attr size %zu does not fit in the record (%u bytes)",
					      r->name, (unsigned long long)off, (unsigned long long)r->index, wire, size);
		struct hwp_attr attr;
		hwp__attr_decode(rec + 8, wire, &attr);
		uint64_t nr_ids = (size - 8 - wire) / 8;
		return hwp__reader_add_evsel(r, &attr, rec + 8 + wire, nr_ids, off);
	}
	case HWP_RECORD_HEADER_FEATURE:
		if (size < 16)
			return hwp__set_error(EINVAL, "%s: HEADER_FEATURE record at offset 0x%llx (record %llu) is too small (%u bytes)",
					      r->name, (unsigned long long)off, (unsigned long long)r->index, size);
		return hwp__parse_feature(r, (unsigned)ld64(rec + 8), rec + 16, size - 16, off + 16);
	case HWP_RECORD_ID_INDEX: {
		/* {id, idx, cpu, tid}: idx is the ring-buffer index, not the event,
		   so ids stay routed by the attrs that listed them. Only checked. */
		uint64_t nr = size >= 16 ? ld64(rec + 8) : 0;
		if (size < 16 || nr > (size - 16) / 32)
			return hwp__set_error(EINVAL, "%s: ID_INDEX record at offset 0x%llx (record %llu): %llu entries do not fit in %u bytes",
					      r->name, (unsigned long long)off, (unsigned long long)r->index,
					      (unsigned long long)nr, size);
		return 0;
	}
	case HWP_RECORD_EVENT_UPDATE:
		/* {type, id, data}: type 2 = name */
		if (size > 24 && ld64(rec + 8) == 2) {
			struct hwp_evsel *e = hwp__reader_evsel_by_id(r, ld64(rec + 16));
			if (e)
				e->name = hwp__arena_strndup(&r->arena, rec + 24, size - 24);
		}
		return 0;
	default:
		return 0;
	}
}

/* Bytes that follow a record without being counted in its size. */
static int trailing_payload(struct hwp_reader *r, const uint8_t *rec, uint32_t size, uint64_t off,
			    uint64_t *extra)
{
	uint32_t type = ld32(rec);

	*extra = 0;
	if (type == HWP_RECORD_AUXTRACE) {
		if (size < 16)
			return hwp__set_error(EINVAL, "%s: AUXTRACE record at offset 0x%llx (record %llu) is too small",
					      r->name, (unsigned long long)off, (unsigned long long)r->index);
		*extra = ld64(rec + 8);
		if (!r->said_auxtrace) {
			r->said_auxtrace = true;
			hwp__log(HWP_LOG_WARN, "%s: AUXTRACE data skipped (hardware trace decoding is not supported)", r->name);
		}
	} else if (type == HWP_RECORD_HEADER_TRACING_DATA && r->pipe) {
		if (size < 12)
			return hwp__set_error(EINVAL, "%s: TRACING_DATA record at offset 0x%llx (record %llu) is too small",
					      r->name, (unsigned long long)off, (unsigned long long)r->index);
		*extra = ((uint64_t)ld32(rec + 8) + 7) & ~7ULL;
	}
	return 0;
}

/* REC parsed in full, or checked and peeked when LIGHT (parse_light()):
   0, 1 when peeked, <0. */
static int parse_as(struct hwp_reader *r, const uint8_t *rec, uint32_t size, uint64_t off, uint64_t index,
		    struct hwp_event *ev, bool light)
{
	return light ? parse_light(r, rec, size, off, index, ev) : hwp__reader_parse(r, rec, size, off, index, ev);
}

static int next_text(struct hwp_reader *r, struct hwp_event *ev, bool light)
{
	const uint8_t *rec;
	uint32_t size;
	uint64_t off;
	int rc = hwp__text_input_next(r->text, &rec, &size, &off);

	if (rc <= 0)
		return rc;
	rc = parse_as(r, rec, size, off, r->index++, ev, light);
	return rc < 0 ? rc : 1 + rc;
}

/* The next record of the compressed stream being drained: 1, 0 when it has
   none ready, or <0. */
static int next_decompressed(struct hwp_reader *r, struct hwp_event *ev, bool light)
{
	const uint8_t *rec;
	uint32_t size;
	int rc = hwp__decompressor_next(r->dec, &rec, &size, r->name, r->comp_offset);

	if (rc <= 0)
		return rc;
	int err = absorb_user_record(r, rec, size, r->comp_offset);
	if (!err)
		err = parse_as(r, rec, size, r->comp_offset, r->index++, ev, light);
	if (err < 0)
		return err;
	ev->compressed = true;
	return 1 + err;
}

/* No record header at OFF: the end, fine exactly at a record boundary, else truncated. */
static int end_of_input(struct hwp_reader *r, uint64_t off)
{
	uint64_t end = r->streaming ? r->sbuf_base + r->sbuf_len
				    : (r->data_end < r->map_len ? r->data_end : r->map_len);

	if (off < end)
		return hwp__set_error(EINVAL, "%s: truncated record header at offset 0x%llx (record %llu): %llu bytes left",
				      r->name, (unsigned long long)off, (unsigned long long)r->index,
				      (unsigned long long)(end - off));
	if (r->dec && hwp__decompressor_pending(r->dec))
		return hwp__set_error(EINVAL, "%s: compressed data ends inside an event: %zu bytes left over from the compressed record at offset 0x%llx",
				      r->name, hwp__decompressor_pending(r->dec),
				      (unsigned long long)r->comp_offset);
	r->done = true;
	return 0;
}

/* The whole record at OFF (*REC), checked against END, where the data ends. */
static int record_at(struct hwp_reader *r, uint64_t off, uint32_t type, uint16_t size,
		     const uint8_t **rec, uint64_t *end)
{
	if (size < 8)
		return hwp__set_error(EINVAL, "%s: record at offset 0x%llx (record %llu, type %u) has size %u, less than its header",
				      r->name, (unsigned long long)off, (unsigned long long)r->index, type, size);
	/* Pipe mode over a file or memory has no data size (data_end is
	   UINT64_MAX), so the input's end bounds it. */
	*end = r->streaming ? UINT64_MAX : r->data_end < r->map_len ? r->data_end : r->map_len;
	*rec = input_at(r, off, size);
	if (!*rec || size > *end - off) {
		char tname[32];
		const char *tn = hwp_record_type__name(type);
		if (!tn) {
			snprintf(tname, sizeof(tname), "type-%u", type);
			tn = tname;
		}
		return hwp__set_error(EINVAL, "%s: truncated %s record at offset 0x%llx (record %llu): %u bytes, %llu left",
				      r->name, tn, (unsigned long long)off, (unsigned long long)r->index, size,
				      (unsigned long long)((r->streaming ? r->sbuf_base + r->sbuf_len : *end) - off));
	}
	return 0;
}

/* Moves pos past the record and the payload that follows it uncounted; on
   a stream that payload is read and dropped, and *REC with it (NULL). */
static int step_over_record(struct hwp_reader *r, uint64_t off, uint32_t type, uint16_t size,
			    uint64_t end, const uint8_t **rec)
{
	uint64_t extra;
	int err = trailing_payload(r, *rec, size, off, &extra);

	if (err)
		return err;
	if (extra > end - off - size)
		return hwp__set_error(EINVAL, "%s: %s record at offset 0x%llx (record %llu) announces %llu bytes of payload past the end of the data",
				      r->name, hwp_record_type__name(type), (unsigned long long)off,
				      (unsigned long long)r->index, (unsigned long long)extra);
	if (extra && r->streaming) {
		if (!input_at(r, off + size + extra, 0))
			return hwp__set_error(EINVAL, "%s: %s payload of the record at offset 0x%llx (record %llu) is truncated",
					      r->name, hwp_record_type__name(type), (unsigned long long)off,
					      (unsigned long long)r->index);
		*rec = NULL;
	}
	r->pos = off + size + extra;
	return 0;
}

/* A COMPRESSED or COMPRESSED2 record: its payload queued for decompression. */
static int feed_compressed(struct hwp_reader *r, const uint8_t *rec, uint32_t type, uint16_t size,
			   uint64_t off)
{
	uint64_t hdr = type == HWP_RECORD_COMPRESSED2 ? 16 : 8;
	uint64_t len = size - hdr;

	if (size < hdr || (type == HWP_RECORD_COMPRESSED2 && (len = ld64(rec + 8)) > size - hdr))
		return hwp__set_error(EINVAL, "%s: COMPRESSED2 record at offset 0x%llx (record %llu): data size does not fit in the record (%u bytes)",
				      r->name, (unsigned long long)off, (unsigned long long)r->index, size);
	if (!r->dec && !(r->dec = hwp__decompressor_new()))
		return hwp__set_error(ENOMEM, "%s: out of memory for the decompressor at offset 0x%llx (record %llu)",
				      r->name, (unsigned long long)off, (unsigned long long)r->index);
	if (hwp__decompressor_feed(r->dec, rec + hdr, len) < 0)
		return hwp__set_error(ENOTSUP, "%s: compressed record at offset 0x%llx: hwprof was built without zstd (install libzstd-dev and rebuild)",
				      r->name, (unsigned long long)off);
	r->comp_offset = off;
	return 0;
}

/* A record whose payload was skipped on a stream: its header only. */
static int header_only_event(struct hwp_reader *r, struct hwp_event *ev, uint32_t type,
			     uint16_t size, uint64_t off)
{
	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->size = size;
	ev->file_offset = off;
	ev->index = r->index++;
	return 1;
}

/* How far ahead of the record read the mapping is asked for. */
#define ASK_AHEAD 2048

/* The mapping's lines ASK_AHEAD past OFF asked for, each once: a record's
   first byte otherwise waits for memory (the hardware's own prefetch stops
   at every page), the most expensive load of a light pass. */
static void ask_ahead(struct hwp_reader *r, uint64_t off)
{
	uint64_t to = off + ASK_AHEAD, p = r->asked_upto > off ? r->asked_upto : off;

	if (to > r->map_len)
		to = r->map_len;
	for (; p < to; p += 64)
		__builtin_prefetch(r->map + p);
	r->asked_upto = p;
}

/* The next record: 1, 2 when LIGHT and only peeked, 0 at the end, <0. */
static int next_record(struct hwp_reader *r, struct hwp_event *ev, bool light)
{
	const uint8_t *h, *rec = NULL;
	uint64_t off, end = 0;
	int err;

	if (r->done)
		return 0;
	if (r->text)
		return next_text(r, ev, light);
	/* Drain the current compressed record first. */
	if (r->dec && (err = next_decompressed(r, ev, light)) != 0)
		return err;

	off = r->pos;
	if (off >= r->data_end || !(h = input_at(r, off, 8)))
		return end_of_input(r, off);
	if (!r->streaming)
		ask_ahead(r, off);
	/* Both read before input_at() moves a stream's window under H. */
	uint32_t type = ld32(h);
	uint16_t size = ld16(h + 6);
	if ((err = record_at(r, off, type, size, &rec, &end)) ||
	    (err = step_over_record(r, off, type, size, end, &rec)))
		return err;
	if (type == HWP_RECORD_COMPRESSED || type == HWP_RECORD_COMPRESSED2)
		err = feed_compressed(r, rec, type, size, off);
	else if (rec)
		err = absorb_user_record(r, rec, size, off);
	if (err)
		return err;
	if (!rec)
		return header_only_event(r, ev, type, size, off);
	err = parse_as(r, rec, size, off, r->index++, ev, light);
	if (err < 0)
		return err;
	ev->stable = !r->streaming;
	release_consumed(r);
	return 1 + err;
}

int hwp_reader__next(struct hwp_reader *r, struct hwp_event *ev)
{
	return next_record(r, ev, false);
}

int hwp__reader_next_light(struct hwp_reader *r, struct hwp_event *ev)
{
	return next_record(r, ev, true);
}

/* ---- accessors ---- */

const uint8_t *hwp__reader_mapped(const struct hwp_reader *r, uint64_t off)
{
	return r->streaming || off >= r->map_len ? NULL : r->map + off;
}

bool hwp_reader__is_pipe(const struct hwp_reader *r)
{
	return r->pipe;
}

const char *hwp_reader__path(const struct hwp_reader *r)
{
	return r->name;
}

uint64_t hwp_reader__file_size(const struct hwp_reader *r)
{
	return r->file_size;
}

uint64_t hwp_reader__data_offset(const struct hwp_reader *r)
{
	return r->data_off;
}

uint64_t hwp_reader__data_size(const struct hwp_reader *r)
{
	return r->data_size_hdr;
}

size_t hwp_reader__nr_evsels(const struct hwp_reader *r)
{
	return r->nr_evsels;
}

const struct hwp_evsel *hwp_reader__evsel(const struct hwp_reader *r, size_t i)
{
	return i < r->nr_evsels ? &r->evsels[i] : NULL;
}

const struct hwp_header_info *hwp_reader__header(const struct hwp_reader *r)
{
	return &r->hdr;
}

uint64_t hwp_reader__file_attr_size(const struct hwp_reader *r)
{
	return r->file_attr_size;
}

uint64_t hwp_event__time(const struct hwp_event *ev)
{
	if (ev->has_sample_id && (ev->sample.sample_type & HWP_SAMPLE_TIME))
		return ev->sample.time;
	return UINT64_MAX;
}

void hwp__reader_drop_released_pages(struct hwp_reader *r)
{
	if (r->map_owned && r->dontneed_done)
		madvise((void *)r->map, r->dontneed_done, MADV_DONTNEED);
}

bool hwp_reader__is_text(const struct hwp_reader *r)
{
	return r->text != NULL;
}
