/* SPDX-License-Identifier: MIT */
/*
 * perf.data writer, file mode (PERFILE2). Written from the layouts in the
 * kernel's include/uapi/linux/perf_event.h and perf's
 * Documentation/perf.data-file-format.txt.
 *
 * File layout produced:
 *
 *   0                 perf_file_header (104 bytes; rewritten at close)
 *   104               ids of attr 0, ids of attr 1, ...   (u64 each)
 *   attrs_off         { attr (128 bytes), perf_file_section ids } x nr_attrs
 *   data_off          records (kernel and perf-tool records)
 *   data_off+size     feature section table: one perf_file_section per
 *                     feature bit set, in bit order
 *   ...               feature contents
 *
 * Records are serialized straight into a large output buffer that is written
 * with plain write(2) calls, so throughput is bounded by the disk, not by
 * per-record overhead.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "hwprof/hwprof.h"
#include "hwprof/perf_writer.h"
#include "format/reader_internal.h"
#include "util/bytes.h"
#include "util/vec.h"
#include "format/perf_data_internal.h"
#include "util/error.h"

#define OUT_BUF_SIZE (8u << 20)
#define ATTR_WIRE_SIZE HWP_ATTR_SIZE_VER7
#define NAME_ALIGN 64
#define MAX_RECORD 0xffffu

#define ALIGN8(x) (((x) + 7) & ~(uint64_t)7)
#define ALIGN_TO(x, a) (((x) + (a)-1) / (a) * (a))

struct wattr {
	struct hwp_attr attr;
	uint64_t *ids;
	size_t nr_ids;
	char *name;
	uint32_t id_trailer_size; /* sample_id_all trailer, 0 when not asked */
};

struct wbuild_id {
	int32_t pid;
	uint16_t cpumode;
	uint8_t size;
	uint8_t id[20];
	char *filename;
};

/* Growable byte vector (features are assembled in memory). */
struct bvec {
	uint8_t *p;
	size_t len, cap;
};

struct hwp_writer {
	int fd;
	char *path;
	int err; /* sticky: first failure */
	char errmsg[256]; /* its message, said again by every later call */

	uint8_t *buf;
	size_t buf_len;
	uint64_t flushed; /* file offset of buf[0] */

	bool started;
	uint64_t attrs_off, attrs_size, data_off;

	struct wattr *attrs;
	size_t nr_attrs, cap_attrs;

	char *strings[HWP_FEAT_BITS];
	bool have_nrcpus;
	uint32_t nr_online, nr_avail;
	bool have_total_mem;
	uint64_t total_mem;
	char **cmdline;
	int nr_cmdline;
	struct wbuild_id *build_ids;
	size_t nr_build_ids, cap_build_ids;
	bool have_time;
	uint64_t first_time, last_time;
	uint64_t flag_features[HWP_FEAT_BITS / 64]; /* hwp_writer__set_flag_feature() */
};

/* The writer fails once: the first error is kept, and every later call
   returns it with its message again (not a stale one from elsewhere). */
static int set_sticky(struct hwp_writer *w, int err)
{
	w->err = err;
	snprintf(w->errmsg, sizeof(w->errmsg), "%s", hwp_errmsg());
	return err;
}

static int sticky(const struct hwp_writer *w)
{
	return hwp__set_error(-w->err, "%s", w->errmsg);
}

/* ---------------------------------------------------------------- output */

static int write_all(struct hwp_writer *w, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = write(w->fd, p, n);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return set_sticky(w, hwp__set_error(errno, "%s: write failed at offset %llu: %s",
							    w->path, (unsigned long long)w->flushed,
							    strerror(errno)));
		}
		p += r;
		n -= (size_t)r;
		w->flushed += (uint64_t)r;
	}
	return 0;
}

static int flush_buf(struct hwp_writer *w)
{
	size_t n = w->buf_len;

	if (w->err)
		return sticky(w);
	w->buf_len = 0;
	return write_all(w, w->buf, n);
}

/* Room for N contiguous bytes in the output buffer (N <= OUT_BUF_SIZE). */
static uint8_t *reserve(struct hwp_writer *w, size_t n)
{
	uint8_t *p;

	if (w->buf_len + n > OUT_BUF_SIZE && flush_buf(w))
		return NULL;
	p = w->buf + w->buf_len;
	w->buf_len += n;
	return p;
}

static int emit(struct hwp_writer *w, const void *p, size_t n)
{
	if (n > OUT_BUF_SIZE / 2) {
		if (flush_buf(w))
			return w->err;
		return write_all(w, p, n);
	}
	uint8_t *dst = reserve(w, n);

	if (!dst)
		return w->err;
	memcpy(dst, p, n);
	return 0;
}

static uint64_t cur_offset(const struct hwp_writer *w)
{
	return w->flushed + w->buf_len;
}

uint64_t hwp_writer__size(const struct hwp_writer *w)
{
	if (!w)
		return 0;
	if (!w->started)
		return HWP_FILE_HEADER_SIZE;
	return cur_offset(w);
}

/* ---------------------------------------------------------------- bvec */

static int bvec_grow(struct bvec *b, size_t n)
{
	if (n > SIZE_MAX - b->len)
		return -ENOMEM;
	return HWP_VEC_RESERVE(b->p, b->cap, b->len + n);
}

static int bvec_put(struct bvec *b, const void *p, size_t n)
{
	if (bvec_grow(b, n))
		return -ENOMEM;
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static int bvec_zero(struct bvec *b, size_t n)
{
	if (bvec_grow(b, n))
		return -ENOMEM;
	memset(b->p + b->len, 0, n);
	b->len += n;
	return 0;
}

static int bvec_u32(struct bvec *b, uint32_t v)
{
	uint8_t t[4];

	st32(t, v);
	return bvec_put(b, t, 4);
}

static int bvec_u64(struct bvec *b, uint64_t v)
{
	uint8_t t[8];

	st64(t, v);
	return bvec_put(b, t, 8);
}

/* perf_header_string: u32 len (NUL included, rounded up to 64), padded string. */
static int bvec_string(struct bvec *b, const char *s)
{
	size_t olen = strlen(s) + 1;
	size_t len = ALIGN_TO(olen, NAME_ALIGN);

	if (bvec_u32(b, (uint32_t)len) || bvec_put(b, s, olen) || bvec_zero(b, len - olen))
		return -ENOMEM;
	return 0;
}

/* ---------------------------------------------------------------- putting fields */

/* Each put_* stores at P (room reserved already) and returns the byte after. */

static void put_header(uint8_t *p, uint32_t type, uint16_t misc, uint16_t size)
{
	st32(p, type);
	st16(p + 4, misc);
	st16(p + 6, size);
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	st32(p, v);
	return p + 4;
}

static uint8_t *put64(uint8_t *p, uint64_t v)
{
	st64(p, v);
	return p + 8;
}

/* Two u32s in one u64 slot: pid and tid, cpu and its reserved half. */
static uint8_t *put32x2(uint8_t *p, uint32_t lo, uint32_t hi)
{
	return put32(put32(p, lo), hi);
}

static uint8_t *put64_if(uint8_t *p, bool want, uint64_t v)
{
	return want ? put64(p, v) : p;
}

/* LEN bytes of DATA (none when NULL), zero-padded to SIZE bytes. */
static uint8_t *put_bytes(uint8_t *p, const void *data, uint64_t len, uint64_t size)
{
	memset(p, 0, size);
	if (data && len)
		memcpy(p, data, len);
	return p + size;
}

/* ---------------------------------------------------------------- attrs */

static uint32_t trailer_size(const struct hwp_attr *a)
{
	uint64_t st = a->sample_type;

	if (!hwp_attr__flag(a, HWP_ATTR_SAMPLE_ID_ALL))
		return 0;
	return 8 * (!!(st & HWP_SAMPLE_TID) + !!(st & HWP_SAMPLE_TIME) + !!(st & HWP_SAMPLE_ID) +
		    !!(st & HWP_SAMPLE_STREAM_ID) + !!(st & HWP_SAMPLE_CPU) +
		    !!(st & HWP_SAMPLE_IDENTIFIER));
}

/* ID, STREAM_ID, CPU: in this order in samples and in sample_id trailers. */
static uint8_t *put_id_stream_cpu(uint8_t *p, const struct hwp_sample *s, uint64_t st)
{
	p = put64_if(p, st & HWP_SAMPLE_ID, s->id);
	p = put64_if(p, st & HWP_SAMPLE_STREAM_ID, s->stream_id);
	return (st & HWP_SAMPLE_CPU) ? put32x2(p, s->cpu, 0) : p;
}

static uint8_t *put_trailer(uint8_t *p, const struct wattr *wa, const struct hwp_sample *id)
{
	static const struct hwp_sample zero;
	uint64_t st = wa->attr.sample_type;

	if (!wa->id_trailer_size)
		return p;
	if (!id)
		id = &zero;
	if (st & HWP_SAMPLE_TID)
		p = put32x2(p, id->pid, id->tid);
	p = put64_if(p, st & HWP_SAMPLE_TIME, id->time);
	p = put_id_stream_cpu(p, id, st);
	return put64_if(p, st & HWP_SAMPLE_IDENTIFIER, id->id);
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		errno = ENOMEM;
	return d;
}

/* An attr a perf.data file can hold: known sample_type bits, at most one
   WEIGHT kind, and READ values with their ids. */
static int check_attr(const struct hwp_writer *w, const struct hwp_attr *attr)
{
	uint64_t st = attr->sample_type;

	if (st >> HWP_SAMPLE_MAX_BIT)
		return hwp__set_error(EINVAL, "%s: attr %zu: unknown sample_type bits 0x%llx",
				      w->path, w->nr_attrs,
				      (unsigned long long)(st >> HWP_SAMPLE_MAX_BIT
							   << HWP_SAMPLE_MAX_BIT));
	if ((st & HWP_SAMPLE_WEIGHT) && (st & HWP_SAMPLE_WEIGHT_STRUCT))
		return hwp__set_error(EINVAL, "%s: attr %zu: WEIGHT and WEIGHT_STRUCT both set",
				      w->path, w->nr_attrs);
	if ((st & HWP_SAMPLE_READ) && !(attr->read_format & HWP_FORMAT_ID))
		return hwp__set_error(EINVAL, "%s: attr %zu: sample_type READ needs read_format ID "
				      "(perf refuses the file otherwise: \"non matching read_format\")",
				      w->path, w->nr_attrs);
	return 0;
}

/* A second or later attr: a reader must find a record's id at the same place
   as in attr 0's records, and the trailers and read values must be alike. */
static int check_attr_like_first(const struct hwp_writer *w, const struct hwp_attr *attr)
{
	const struct hwp_attr *a0 = &w->attrs[0].attr;

	if (hwp__sample_id_pos(a0->sample_type) != hwp__sample_id_pos(attr->sample_type) ||
	    hwp__sample_is_pos(a0->sample_type) != hwp__sample_is_pos(attr->sample_type) ||
	    hwp__sample_id_pos(attr->sample_type) < 0)
		return hwp__set_error(EINVAL,
				      "%s: attr %zu: sample_type 0x%llx cannot be told apart "
				      "from attr 0 (0x%llx): use IDENTIFIER, or ID with the same "
				      "IP/TID/TIME/ADDR and CPU/STREAM_ID bits",
				      w->path, w->nr_attrs, (unsigned long long)attr->sample_type,
				      (unsigned long long)a0->sample_type);
	if (hwp_attr__flag(a0, HWP_ATTR_SAMPLE_ID_ALL) !=
	    hwp_attr__flag(attr, HWP_ATTR_SAMPLE_ID_ALL))
		return hwp__set_error(EINVAL, "%s: attr %zu: sample_id_all differs from attr 0",
				      w->path, w->nr_attrs);
	if (a0->read_format != attr->read_format)
		return hwp__set_error(EINVAL, "%s: attr %zu: read_format differs from attr 0",
				      w->path, w->nr_attrs);
	return 0;
}

int hwp_writer__add_attr(struct hwp_writer *w, const struct hwp_attr *attr,
			 const uint64_t *ids, size_t nr_ids, const char *name)
{
	struct wattr *wa;
	int err;

	if (!w || !attr || (nr_ids && !ids))
		return hwp__set_error(EINVAL, "hwp_writer__add_attr: invalid argument");
	if (w->err)
		return sticky(w);
	if (w->started)
		return hwp__set_error(EBUSY, "%s: attrs must be added before the first record",
				      w->path);
	if ((err = check_attr(w, attr)) || (w->nr_attrs && (err = check_attr_like_first(w, attr))))
		return err;
	if (w->nr_attrs > 0x7fffffff)
		return hwp__set_error(ENOSPC, "%s: too many attrs", w->path);
	if (HWP_VEC_RESERVE(w->attrs, w->cap_attrs, w->nr_attrs + 1))
		return hwp__set_error(ENOMEM, "out of memory");
	wa = &w->attrs[w->nr_attrs];
	memset(wa, 0, sizeof(*wa));
	wa->attr = *attr;
	wa->attr.size = ATTR_WIRE_SIZE;
	if (attr->config3)
		hwp__log(HWP_LOG_WARN, "%s: attr %zu: config3 0x%llx dropped (attrs are written at %u bytes)",
			 w->path, w->nr_attrs, (unsigned long long)attr->config3, ATTR_WIRE_SIZE);
	wa->attr.config3 = 0;
	if (nr_ids) {
		wa->ids = malloc(nr_ids * sizeof(uint64_t));
		if (!wa->ids)
			return hwp__set_error(ENOMEM, "out of memory");
		memcpy(wa->ids, ids, nr_ids * sizeof(uint64_t));
	}
	wa->nr_ids = nr_ids;
	if (name && !(wa->name = xstrdup(name))) {
		free(wa->ids);
		return hwp__set_error(ENOMEM, "out of memory");
	}
	wa->id_trailer_size = trailer_size(attr);
	return (int)w->nr_attrs++;
}

/* Header placeholder, ids and attrs: everything before the data section. */
static int start(struct hwp_writer *w)
{
	uint64_t off = HWP_FILE_HEADER_SIZE;
	uint8_t rec[ATTR_WIRE_SIZE + 16];
	uint8_t hdr[HWP_FILE_HEADER_SIZE];
	size_t i;

	if (w->started)
		return 0;
	if (w->err)
		return sticky(w);
	if (!w->nr_attrs)
		return set_sticky(w, hwp__set_error(EINVAL, "%s: no event attr added before the "
						    "first record", w->path));
	w->started = true;
	memset(hdr, 0, sizeof(hdr));
	if (emit(w, hdr, sizeof(hdr)))
		return w->err;
	for (i = 0; i < w->nr_attrs; i++) {
		struct wattr *wa = &w->attrs[i];
		size_t j;

		for (j = 0; j < wa->nr_ids; j++) {
			uint8_t *p = reserve(w, 8);

			if (!p)
				return w->err;
			st64(p, wa->ids[j]);
		}
	}
	w->attrs_off = cur_offset(w);
	for (i = 0; i < w->nr_attrs; i++) {
		struct wattr *wa = &w->attrs[i];

		hwp__attr_encode(&wa->attr, rec, ATTR_WIRE_SIZE);
		st64(rec + ATTR_WIRE_SIZE, wa->nr_ids ? off : 0);
		st64(rec + ATTR_WIRE_SIZE + 8, wa->nr_ids * 8);
		off += wa->nr_ids * 8;
		if (emit(w, rec, sizeof(rec)))
			return w->err;
	}
	w->attrs_size = w->nr_attrs * sizeof(rec);
	w->data_off = cur_offset(w);
	return 0;
}

static struct wattr *get_attr(struct hwp_writer *w, int idx, const char *what)
{
	if (idx < 0 || (size_t)idx >= w->nr_attrs) {
		hwp__set_error(EINVAL, "%s: %s for attr %d, but %zu attrs were added", w->path, what,
			       idx, w->nr_attrs);
		return NULL;
	}
	return &w->attrs[idx];
}

/* ---------------------------------------------------------------- samples */

/* Bytes of a sample as written: the whole record, and each variable-size
   field's body (padded as the kernel pads it). */
struct sample_sizes {
	uint64_t total;
	uint64_t read, raw, regs_user, stack_user, regs_intr, aux;
};

static uint64_t popcount64(uint64_t v)
{
	return (uint64_t)__builtin_popcountll(v);
}

static int too_big(const struct hwp_writer *w)
{
	return hwp__set_error(E2BIG, "%s: sample too large for a perf record (over %u bytes)",
			      w->path, MAX_RECORD);
}

/* The fields of one u64 each (TID and CPU are two u32s). */
static uint64_t fixed_fields_size(uint64_t st)
{
	return 8 * (!!(st & HWP_SAMPLE_IDENTIFIER) + !!(st & HWP_SAMPLE_IP) +
		    !!(st & HWP_SAMPLE_TID) + !!(st & HWP_SAMPLE_TIME) + !!(st & HWP_SAMPLE_ADDR) +
		    !!(st & HWP_SAMPLE_ID) + !!(st & HWP_SAMPLE_STREAM_ID) +
		    !!(st & HWP_SAMPLE_CPU) + !!(st & HWP_SAMPLE_PERIOD) +
		    !!(st & (HWP_SAMPLE_WEIGHT | HWP_SAMPLE_WEIGHT_STRUCT)) +
		    !!(st & HWP_SAMPLE_DATA_SRC) + !!(st & HWP_SAMPLE_TRANSACTION) +
		    !!(st & HWP_SAMPLE_PHYS_ADDR) + !!(st & HWP_SAMPLE_CGROUP) +
		    !!(st & HWP_SAMPLE_DATA_PAGE_SIZE) + !!(st & HWP_SAMPLE_CODE_PAGE_SIZE));
}

static uint64_t read_size(uint64_t rf, const struct hwp_bytes *b, int *bad)
{
	uint64_t per = 8 + ((rf & HWP_FORMAT_ID) ? 8 : 0) + ((rf & HWP_FORMAT_LOST) ? 8 : 0);
	uint64_t times = ((rf & HWP_FORMAT_TOTAL_TIME_ENABLED) ? 8 : 0) +
			 ((rf & HWP_FORMAT_TOTAL_TIME_RUNNING) ? 8 : 0);
	uint64_t want;

	if (!(rf & HWP_FORMAT_GROUP)) {
		want = per + times;
	} else if (b->data && b->size >= 8) {
		uint64_t nr = ld64(b->data);

		want = nr > (1u << 16) ? UINT64_MAX : 8 + times + nr * per;
	} else {
		want = 8 + times; /* nr = 0 */
	}
	if (b->data && b->size && b->size != want)
		*bad = 1;
	return want;
}

/* READ: the values given must be the size read_format says (or absent). */
static int size_read(const struct hwp_writer *w, uint64_t rf, const struct hwp_sample *s,
		     struct sample_sizes *z)
{
	int bad = 0;

	z->read = read_size(rf, &s->read, &bad);
	if (bad)
		return hwp__set_error(EINVAL, "%s: sample read values are %llu bytes, "
				      "read_format 0x%llx wants %llu", w->path,
				      (unsigned long long)s->read.size, (unsigned long long)rf,
				      (unsigned long long)z->read);
	z->total += z->read;
	return 0;
}

/* CALLCHAIN, BRANCH_STACK: NR entries of EACH bytes from ARRAY, which must
   be given when NR is not 0 and fit in a record. */
static int check_array(const struct hwp_writer *w, uint64_t nr, const void *array, uint64_t each,
		       const char *what)
{
	if (nr && !array)
		return hwp__set_error(EINVAL, "%s: sample has %llu %s but no array", w->path,
				      (unsigned long long)nr, what);
	return nr > MAX_RECORD / each ? too_big(w) : 0;
}

/* CALLCHAIN: nr, then the ips. */
static int size_callchain(const struct hwp_writer *w, const struct hwp_sample_in *in,
			  struct sample_sizes *z)
{
	uint64_t nr = in->s->callchain_nr;
	int err = check_array(w, nr, in->callchain, 8, "callchain ips");

	if (!err)
		z->total += 8 + 8 * nr;
	return err;
}

/* BRANCH_STACK: nr, hw_idx when asked, the entries, then a counter for each
   entry when asked. */
static int size_branch_stack(const struct hwp_writer *w, uint64_t bst,
			     const struct hwp_sample_in *in, struct sample_sizes *z)
{
	uint64_t nr = in->s->branch_nr;
	int err = check_array(w, nr, in->branches, 24, "branch entries");

	if (!err)
		z->total += 8 + ((bst & HWP_BRANCH_HW_INDEX) ? 8 : 0) + 24 * nr +
			    ((bst & HWP_BRANCH_COUNTERS) ? 8 * nr : 0);
	return err;
}

/* A byte field's body, padded so that it ends 8-aligned after HEAD bytes of
   size; refused when it alone is over a record's size. */
static int size_blob(const struct hwp_writer *w, const struct hwp_bytes *b, uint64_t head,
		     uint64_t *padded)
{
	if (b->size > MAX_RECORD)
		return too_big(w);
	*padded = ALIGN8(b->size + head) - head;
	return 0;
}

/* REGS_USER, REGS_INTR: one u64 per register in the attr's mask, none when
   the sample has no ABI (no registers). */
static uint64_t regs_size(uint64_t abi, uint64_t mask)
{
	return abi ? 8 * popcount64(mask) : 0;
}

/* Every field's size, checked in the order the fields come in the record. */
static int sample_sizes(const struct hwp_writer *w, const struct hwp_attr *a,
			const struct hwp_sample_in *in, struct sample_sizes *z)
{
	const struct hwp_sample *s = in->s;
	uint64_t st = a->sample_type;
	int err;

	memset(z, 0, sizeof(*z));
	z->total = 8 + fixed_fields_size(st);
	if ((st & HWP_SAMPLE_READ) && (err = size_read(w, a->read_format, s, z)))
		return err;
	if ((st & HWP_SAMPLE_CALLCHAIN) && (err = size_callchain(w, in, z)))
		return err;
	if (st & HWP_SAMPLE_RAW) {
		if ((err = size_blob(w, &s->raw, 4, &z->raw)))
			return err;
		z->total += 4 + z->raw;
	}
	if ((st & HWP_SAMPLE_BRANCH_STACK) &&
	    (err = size_branch_stack(w, a->branch_sample_type, in, z)))
		return err;
	if (st & HWP_SAMPLE_REGS_USER) {
		z->regs_user = regs_size(s->regs_user_abi, a->sample_regs_user);
		z->total += 8 + z->regs_user;
	}
	if (st & HWP_SAMPLE_STACK_USER) {
		if ((err = size_blob(w, &s->stack_user, 0, &z->stack_user)))
			return err;
		z->total += 8 + (z->stack_user ? z->stack_user + 8 : 0);
	}
	if (st & HWP_SAMPLE_REGS_INTR) {
		z->regs_intr = regs_size(s->regs_intr_abi, a->sample_regs_intr);
		z->total += 8 + z->regs_intr;
	}
	if (st & HWP_SAMPLE_AUX) {
		if ((err = size_blob(w, &s->aux, 0, &z->aux)))
			return err;
		z->total += 8 + z->aux;
	}
	return z->total > MAX_RECORD ? too_big(w) : 0;
}

static void note_time(struct hwp_writer *w, uint64_t t)
{
	if (!w->have_time || t < w->first_time)
		w->first_time = t;
	if (!w->have_time || t > w->last_time)
		w->last_time = t;
	w->have_time = true;
}

/* The fields before READ: which sample, where, when, on which CPU. */
static uint8_t *put_sample_ids(struct hwp_writer *w, uint8_t *p, const struct hwp_sample *s,
			       uint64_t st)
{
	p = put64_if(p, st & HWP_SAMPLE_IDENTIFIER, s->id);
	p = put64_if(p, st & HWP_SAMPLE_IP, s->ip);
	if (st & HWP_SAMPLE_TID)
		p = put32x2(p, s->pid, s->tid);
	if (st & HWP_SAMPLE_TIME) {
		p = put64(p, s->time);
		note_time(w, s->time);
	}
	p = put64_if(p, st & HWP_SAMPLE_ADDR, s->addr);
	p = put_id_stream_cpu(p, s, st);
	return put64_if(p, st & HWP_SAMPLE_PERIOD, s->period);
}

static uint8_t *put_callchain(uint8_t *p, const struct hwp_sample_in *in)
{
	p = put64(p, in->s->callchain_nr);
	for (uint64_t n = 0; n < in->s->callchain_nr; n++)
		p = put64(p, in->callchain[n]);
	return p;
}

static uint8_t *put_branch_stack(uint8_t *p, const struct hwp_sample_in *in, uint64_t bst)
{
	const struct hwp_branch_entry *e = in->branches;
	uint64_t nr = in->s->branch_nr, n;

	p = put64(p, nr);
	p = put64_if(p, bst & HWP_BRANCH_HW_INDEX, in->s->branch_hw_idx);
	for (n = 0; n < nr; n++) {
		p = put64(p, e[n].from);
		p = put64(p, e[n].to);
		p = put64(p, hwp_branch_entry__encode_flags(&e[n]));
	}
	if (bst & HWP_BRANCH_COUNTERS)
		for (n = 0; n < nr; n++)
			p = put64(p, in->branch_counters ? in->branch_counters[n] : 0);
	return p;
}

/* REGS_USER, REGS_INTR: abi, then SIZE bytes of registers (zeros past the
   ones given). */
static uint8_t *put_regs(uint8_t *p, uint64_t abi, const struct hwp_bytes *regs, uint64_t size)
{
	p = put64(p, abi);
	return put_bytes(p, regs->data, regs->size < size ? regs->size : size, size);
}

/* STACK_USER: size, and when not empty the stack and its dynamic size. */
static uint8_t *put_stack_user(uint8_t *p, const struct hwp_sample *s, uint64_t size)
{
	p = put64(p, size);
	if (!size)
		return p;
	p = put_bytes(p, s->stack_user.data, s->stack_user.size, size);
	return put64(p, s->stack_user_dyn_size);
}

/* WEIGHT or WEIGHT_STRUCT (as its u64), DATA_SRC, TRANSACTION. */
static uint8_t *put_sample_costs(uint8_t *p, const struct hwp_sample *s, uint64_t st)
{
	uint64_t weight_struct = s->weight ? s->weight
					   : (uint64_t)s->weight_var1 |
						     (uint64_t)s->weight_var2 << 32 |
						     (uint64_t)s->weight_var3 << 48;

	p = put64_if(p, st & HWP_SAMPLE_WEIGHT, s->weight);
	p = put64_if(p, st & HWP_SAMPLE_WEIGHT_STRUCT, weight_struct);
	p = put64_if(p, st & HWP_SAMPLE_DATA_SRC, s->data_src);
	return put64_if(p, st & HWP_SAMPLE_TRANSACTION, s->transaction);
}

/* PHYS_ADDR, CGROUP, DATA_PAGE_SIZE, CODE_PAGE_SIZE. */
static uint8_t *put_sample_memory(uint8_t *p, const struct hwp_sample *s, uint64_t st)
{
	p = put64_if(p, st & HWP_SAMPLE_PHYS_ADDR, s->phys_addr);
	p = put64_if(p, st & HWP_SAMPLE_CGROUP, s->cgroup);
	p = put64_if(p, st & HWP_SAMPLE_DATA_PAGE_SIZE, s->data_page_size);
	return put64_if(p, st & HWP_SAMPLE_CODE_PAGE_SIZE, s->code_page_size);
}

/* The record at P, z->total bytes, fields in perf_event.h's order. */
static void put_sample(struct hwp_writer *w, uint8_t *p, const struct hwp_attr *a,
		       const struct hwp_sample_in *in, const struct sample_sizes *z)
{
	const struct hwp_sample *s = in->s;
	uint64_t st = a->sample_type;

	put_header(p, HWP_RECORD_SAMPLE, s->cpumode & HWP_MISC_CPUMODE_MASK, (uint16_t)z->total);
	p = put_sample_ids(w, p + 8, s, st);
	if (st & HWP_SAMPLE_READ)
		p = put_bytes(p, s->read.data, s->read.size, z->read);
	if (st & HWP_SAMPLE_CALLCHAIN)
		p = put_callchain(p, in);
	if (st & HWP_SAMPLE_RAW)
		p = put_bytes(put32(p, (uint32_t)z->raw), s->raw.data, s->raw.size, z->raw);
	if (st & HWP_SAMPLE_BRANCH_STACK)
		p = put_branch_stack(p, in, a->branch_sample_type);
	if (st & HWP_SAMPLE_REGS_USER)
		p = put_regs(p, s->regs_user_abi, &s->regs_user, z->regs_user);
	if (st & HWP_SAMPLE_STACK_USER)
		p = put_stack_user(p, s, z->stack_user);
	p = put_sample_costs(p, s, st);
	if (st & HWP_SAMPLE_REGS_INTR)
		p = put_regs(p, s->regs_intr_abi, &s->regs_intr, z->regs_intr);
	p = put_sample_memory(p, s, st);
	if (st & HWP_SAMPLE_AUX)
		put_bytes(put64(p, z->aux), s->aux.data, s->aux.size, z->aux);
}

int hwp_writer__add_sample(struct hwp_writer *w, int attr_idx, const struct hwp_sample_in *in)
{
	struct sample_sizes z;
	struct wattr *wa;
	uint8_t *rec;
	int err;

	if (!w || !in || !in->s)
		return hwp__set_error(EINVAL, "hwp_writer__add_sample: invalid argument");
	if (w->err)
		return sticky(w);
	if (!(wa = get_attr(w, attr_idx, "sample")))
		return -EINVAL;
	if ((err = sample_sizes(w, &wa->attr, in, &z)))
		return err;
	if (!w->started && start(w))
		return w->err;
	if (!(rec = reserve(w, z.total)))
		return w->err;
	put_sample(w, rec, &wa->attr, in, &z);
	return 0;
}

/* ---------------------------------------------------------------- records */

static int begin_record(struct hwp_writer *w, int attr_idx, const char *what, uint64_t body,
			struct wattr **wap, uint8_t **recp, uint16_t *szp)
{
	struct wattr *wa;
	uint64_t sz;

	if (w->err)
		return sticky(w);
	if (!(wa = get_attr(w, attr_idx, what)))
		return -EINVAL;
	sz = 8 + body + wa->id_trailer_size;
	if (sz > MAX_RECORD)
		return hwp__set_error(E2BIG, "%s: %s record too large", w->path, what);
	if (!w->started && start(w))
		return w->err;
	if (!(*recp = reserve(w, sz)))
		return w->err;
	memset(*recp, 0, sz);
	*wap = wa;
	*szp = (uint16_t)sz;
	return 0;
}

int hwp_writer__add_mmap2(struct hwp_writer *w, int attr_idx, uint32_t pid, uint32_t tid,
			  uint64_t addr, uint64_t len, uint64_t pgoff,
			  const uint8_t *build_id, uint8_t build_id_size, uint32_t prot,
			  uint32_t flags, const char *filename, uint16_t cpumode,
			  const struct hwp_sample *id)
{
	struct wattr *wa;
	uint8_t *rec;
	uint16_t sz;
	size_t flen;
	uint16_t misc = cpumode & HWP_MISC_CPUMODE_MASK;
	int err;

	if (!w || !filename || (build_id && build_id_size > 20))
		return hwp__set_error(EINVAL, "hwp_writer__add_mmap2: invalid argument");
	flen = strlen(filename) + 1;
	if (flen > MAX_RECORD)
		return hwp__set_error(E2BIG, "%s: MMAP2 filename too long", w->path);
	err = begin_record(w, attr_idx, "MMAP2", 64 + ALIGN8(flen), &wa, &rec, &sz);
	if (err)
		return err;
	if (build_id)
		misc |= HWP_MISC_MMAP_BUILD_ID;
	put_header(rec, HWP_RECORD_MMAP2, misc, sz);
	st32(rec + 8, pid);
	st32(rec + 12, tid);
	st64(rec + 16, addr);
	st64(rec + 24, len);
	st64(rec + 32, pgoff);
	if (build_id) { /* u8 size, u8 res, u16 res, u8 build_id[20] */
		rec[40] = build_id_size;
		memcpy(rec + 44, build_id, build_id_size);
	} /* else maj, min, ino, ino_generation: all 0 */
	st32(rec + 64, prot);
	st32(rec + 68, flags);
	memcpy(rec + 72, filename, flen);
	put_trailer(rec + 72 + ALIGN8(flen), wa, id);
	return 0;
}

int hwp_writer__add_comm(struct hwp_writer *w, int attr_idx, uint32_t pid, uint32_t tid,
			 const char *comm, bool exec, const struct hwp_sample *id)
{
	struct wattr *wa;
	uint8_t *rec;
	uint16_t sz;
	size_t clen;
	int err;

	if (!w || !comm)
		return hwp__set_error(EINVAL, "hwp_writer__add_comm: invalid argument");
	clen = strlen(comm) + 1;
	if (clen > MAX_RECORD)
		return hwp__set_error(E2BIG, "%s: COMM string too long", w->path);
	err = begin_record(w, attr_idx, "COMM", 8 + ALIGN8(clen), &wa, &rec, &sz);
	if (err)
		return err;
	put_header(rec, HWP_RECORD_COMM, exec ? HWP_MISC_COMM_EXEC : 0, sz);
	st32(rec + 8, pid);
	st32(rec + 12, tid);
	memcpy(rec + 16, comm, clen);
	put_trailer(rec + 16 + ALIGN8(clen), wa, id);
	return 0;
}

int hwp_writer__add_fork_exit(struct hwp_writer *w, int attr_idx, uint32_t type,
			      uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
			      uint64_t time, const struct hwp_sample *id)
{
	struct wattr *wa;
	uint8_t *rec;
	uint16_t sz;
	int err;

	if (!w || (type != HWP_RECORD_FORK && type != HWP_RECORD_EXIT))
		return hwp__set_error(EINVAL, "hwp_writer__add_fork_exit: type %u is not FORK or "
				      "EXIT", type);
	err = begin_record(w, attr_idx, type == HWP_RECORD_FORK ? "FORK" : "EXIT", 24, &wa, &rec,
			   &sz);
	if (err)
		return err;
	put_header(rec, type, 0, sz);
	st32(rec + 8, pid);
	st32(rec + 12, ppid);
	st32(rec + 16, tid);
	st32(rec + 20, ptid);
	st64(rec + 24, time);
	put_trailer(rec + 32, wa, id);
	return 0;
}

int hwp_writer__add_finished_round(struct hwp_writer *w)
{
	uint8_t *rec;

	if (!w)
		return hwp__set_error(EINVAL, "hwp_writer__add_finished_round: invalid argument");
	if (w->err)
		return sticky(w);
	if (!w->started && start(w))
		return w->err;
	if (!(rec = reserve(w, 8)))
		return w->err;
	put_header(rec, HWP_RECORD_FINISHED_ROUND, 0, 8);
	return 0;
}

int hwp_writer__add_raw(struct hwp_writer *w, const void *rec, size_t size)
{
	if (!w || !rec || size < 8 || size > MAX_RECORD || ld16((const uint8_t *)rec + 6) != size)
		return hwp__set_error(EINVAL, "hwp_writer__add_raw: record size %zu does not match "
				      "its header", size);
	if (w->err)
		return sticky(w);
	if (!w->started && start(w))
		return w->err;
	return emit(w, rec, size);
}

/* ---------------------------------------------------------------- features */

static bool is_string_feature(unsigned feat)
{
	switch (feat) {
	case HWP_FEAT_HOSTNAME:
	case HWP_FEAT_OSRELEASE:
	case HWP_FEAT_VERSION:
	case HWP_FEAT_ARCH:
	case HWP_FEAT_CPUDESC:
	case HWP_FEAT_CPUID:
		return true;
	default:
		return false;
	}
}

int hwp_writer__set_string(struct hwp_writer *w, unsigned feat, const char *value)
{
	char *v;

	if (!w || !value || feat >= HWP_FEAT_BITS || !is_string_feature(feat))
		return hwp__set_error(EINVAL, "hwp_writer__set_string: feature %u is not a string "
				      "feature", feat);
	if (!(v = xstrdup(value)))
		return hwp__set_error(ENOMEM, "out of memory");
	free(w->strings[feat]);
	w->strings[feat] = v;
	return 0;
}

int hwp_writer__set_nrcpus(struct hwp_writer *w, uint32_t online, uint32_t avail)
{
	if (!w)
		return hwp__set_error(EINVAL, "hwp_writer__set_nrcpus: invalid argument");
	w->have_nrcpus = true;
	w->nr_online = online;
	w->nr_avail = avail;
	return 0;
}

int hwp_writer__set_total_mem(struct hwp_writer *w, uint64_t kb)
{
	if (!w)
		return hwp__set_error(EINVAL, "hwp_writer__set_total_mem: invalid argument");
	w->have_total_mem = true;
	w->total_mem = kb;
	return 0;
}

static void free_cmdline(struct hwp_writer *w)
{
	for (int i = 0; i < w->nr_cmdline; i++)
		free(w->cmdline[i]);
	free(w->cmdline);
	w->cmdline = NULL;
	w->nr_cmdline = 0;
}

int hwp_writer__set_cmdline(struct hwp_writer *w, int argc, const char *const *argv)
{
	if (!w || argc < 0 || (argc && !argv))
		return hwp__set_error(EINVAL, "hwp_writer__set_cmdline: invalid argument");
	free_cmdline(w);
	w->cmdline = calloc((size_t)argc + 1, sizeof(char *));
	if (!w->cmdline)
		return hwp__set_error(ENOMEM, "out of memory");
	for (int i = 0; i < argc; i++) {
		if (!(w->cmdline[i] = xstrdup(argv[i] ? argv[i] : ""))) {
			w->nr_cmdline = i;
			free_cmdline(w);
			return hwp__set_error(ENOMEM, "out of memory");
		}
	}
	w->nr_cmdline = argc;
	return 0;
}

int hwp_writer__add_build_id(struct hwp_writer *w, int32_t pid, uint16_t cpumode,
			     const uint8_t *id, uint8_t size, const char *filename)
{
	struct wbuild_id *b;

	if (!w || !id || !filename || size > 20)
		return hwp__set_error(EINVAL, "hwp_writer__add_build_id: invalid argument");
	if (strlen(filename) + 1 > MAX_RECORD - 64)
		return hwp__set_error(E2BIG, "%s: build-id filename too long", w->path);
	if (HWP_VEC_RESERVE(w->build_ids, w->cap_build_ids, w->nr_build_ids + 1))
		return hwp__set_error(ENOMEM, "out of memory");
	b = &w->build_ids[w->nr_build_ids];
	memset(b, 0, sizeof(*b));
	if (!(b->filename = xstrdup(filename)))
		return hwp__set_error(ENOMEM, "out of memory");
	b->pid = pid;
	b->cpumode = cpumode & HWP_MISC_CPUMODE_MASK;
	b->size = size;
	memcpy(b->id, id, size);
	w->nr_build_ids++;
	return 0;
}

/* "name : value" from /proc/cpuinfo's first block, or NULL. */
static char *cpuinfo_field(const char *key)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[1024];
	char *out = NULL;
	size_t klen = strlen(key);

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char *c;

		if (strncmp(line, key, klen) || (line[klen] != ' ' && line[klen] != '\t' &&
						  line[klen] != ':'))
			continue;
		c = strchr(line, ':');
		if (!c)
			continue;
		c++;
		while (*c == ' ' || *c == '\t')
			c++;
		c[strcspn(c, "\n")] = 0;
		out = strdup(c);
		break;
	}
	fclose(f);
	return out;
}

/* cpuinfo's model name with runs of blanks squeezed, as perf does; NULL
   when there is none. */
static char *cpu_description(void)
{
	char *d = cpuinfo_field("model name"), *r, *o;

	if (!d)
		return NULL;
	for (r = o = d; *r; r++)
		if (!(*r == ' ' && o > d && o[-1] == ' '))
			*o++ = *r;
	*o = 0;
	return d;
}

/* perf's CPUID feature on x86, "vendor,family,model,stepping" from cpuinfo;
   false when a field is missing. */
static bool cpu_id(char *buf, size_t len)
{
	char *vendor = cpuinfo_field("vendor_id");
	char *family = cpuinfo_field("cpu family");
	char *model = cpuinfo_field("model");
	char *stepping = cpuinfo_field("stepping");
	bool ok = vendor && family && model && stepping;

	if (ok)
		snprintf(buf, len, "%s,%s,%s,%s", vendor, family, model, stepping);
	free(vendor);
	free(family);
	free(model);
	free(stepping);
	return ok;
}

/* MemTotal in /proc/meminfo; false when it is not there. */
static bool mem_total_kb(unsigned long long *kb)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "MemTotal: %llu", kb) == 1;
	if (f)
		fclose(f);
	return found;
}

/* String feature FEAT = VALUE unless the caller set it already; after a
   failure (ERR) nothing more is set, and ERR is what is returned. */
static int default_string(struct hwp_writer *w, int err, unsigned feat, const char *value)
{
	return err || w->strings[feat] ? err : hwp_writer__set_string(w, feat, value);
}

int hwp_writer__set_host_features(struct hwp_writer *w)
{
	struct utsname u;
	unsigned long long kb;
	char cpuid[256], *desc;
	int err = 0;

	if (!w)
		return hwp__set_error(EINVAL, "hwp_writer__set_host_features: invalid argument");
	if (uname(&u) == 0) {
		err = default_string(w, err, HWP_FEAT_HOSTNAME, u.nodename);
		err = default_string(w, err, HWP_FEAT_OSRELEASE, u.release);
		err = default_string(w, err, HWP_FEAT_ARCH, u.machine);
	}
	err = default_string(w, err, HWP_FEAT_VERSION, "hwprof " HWPROF_VERSION);
	if (!w->have_nrcpus) {
		long onln = sysconf(_SC_NPROCESSORS_ONLN);
		long conf = sysconf(_SC_NPROCESSORS_CONF);

		if (onln > 0)
			hwp_writer__set_nrcpus(w, (uint32_t)onln,
					       (uint32_t)(conf > onln ? conf : onln));
	}
	if (!w->strings[HWP_FEAT_CPUDESC] && (desc = cpu_description())) {
		err = default_string(w, err, HWP_FEAT_CPUDESC, desc);
		free(desc);
	}
	if (!w->strings[HWP_FEAT_CPUID] && cpu_id(cpuid, sizeof(cpuid)))
		err = default_string(w, err, HWP_FEAT_CPUID, cpuid);
	if (!w->have_total_mem && mem_total_kb(&kb))
		hwp_writer__set_total_mem(w, kb);
	return err;
}

/* perf-style default name for an attr that was given none. */
static void default_name(const struct hwp_attr *a, char *buf, size_t len)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses", "branches",
		"branch-misses", "bus-cycles", "stalled-cycles-frontend",
		"stalled-cycles-backend", "ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
		"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	};
	uint64_t cfg = a->config & 0xffffffffULL;

	if (a->type == 0 && cfg < sizeof(hw) / sizeof(hw[0]))
		snprintf(buf, len, "%s", hw[cfg]);
	else if (a->type == 1 && cfg < sizeof(sw) / sizeof(sw[0]))
		snprintf(buf, len, "%s", sw[cfg]);
	else if (a->type == 4)
		snprintf(buf, len, "r%llx", (unsigned long long)a->config);
	else
		snprintf(buf, len, "%u:0x%llx", a->type, (unsigned long long)a->config);
}

static int feat_build_ids(struct hwp_writer *w, struct bvec *b)
{
	for (size_t i = 0; i < w->nr_build_ids; i++) {
		const struct wbuild_id *bi = &w->build_ids[i];
		size_t flen = strlen(bi->filename) + 1;
		size_t plen = ALIGN_TO(flen, NAME_ALIGN);
		uint8_t h[36]; /* header, pid, build_id[20], size, res, res16 */

		memset(h, 0, sizeof(h));
		put_header(h, HWP_RECORD_HEADER_BUILD_ID, bi->cpumode | HWP_MISC_BUILD_ID_SIZE,
			   (uint16_t)(sizeof(h) + plen));
		st32(h + 8, (uint32_t)bi->pid);
		memcpy(h + 12, bi->id, bi->size);
		h[32] = bi->size;
		if (bvec_put(b, h, sizeof(h)) || bvec_put(b, bi->filename, flen) ||
		    bvec_zero(b, plen - flen))
			return -ENOMEM;
	}
	return 0;
}

static int feat_event_desc(struct hwp_writer *w, struct bvec *b)
{
	uint8_t attr[ATTR_WIRE_SIZE];

	if (bvec_u32(b, (uint32_t)w->nr_attrs) || bvec_u32(b, ATTR_WIRE_SIZE))
		return -ENOMEM;
	for (size_t i = 0; i < w->nr_attrs; i++) {
		const struct wattr *wa = &w->attrs[i];
		char name[64];

		hwp__attr_encode(&wa->attr, attr, ATTR_WIRE_SIZE);
		if (!wa->name)
			default_name(&wa->attr, name, sizeof(name));
		if (bvec_put(b, attr, sizeof(attr)) || bvec_u32(b, (uint32_t)wa->nr_ids) ||
		    bvec_string(b, wa->name ? wa->name : name))
			return -ENOMEM;
		for (size_t j = 0; j < wa->nr_ids; j++)
			if (bvec_u64(b, wa->ids[j]))
				return -ENOMEM;
	}
	return 0;
}

static bool any_name(const struct hwp_writer *w)
{
	for (size_t i = 0; i < w->nr_attrs; i++)
		if (w->attrs[i].name)
			return true;
	return false;
}

/* Appends feature FEAT's content to B; returns 1 if FEAT is written, 0 if not, <0. */
static int feature_content(struct hwp_writer *w, unsigned feat, struct bvec *b)
{
	if (is_string_feature(feat)) {
		if (!w->strings[feat])
			return 0;
		return bvec_string(b, w->strings[feat]) ? -ENOMEM : 1;
	}
	switch (feat) {
	case HWP_FEAT_BUILD_ID:
		if (!w->nr_build_ids)
			return 0;
		return feat_build_ids(w, b) ? -ENOMEM : 1;
	case HWP_FEAT_NRCPUS:
		if (!w->have_nrcpus)
			return 0;
		/* perf writes the available (max present) count first */
		return bvec_u32(b, w->nr_avail) || bvec_u32(b, w->nr_online) ? -ENOMEM : 1;
	case HWP_FEAT_TOTAL_MEM:
		if (!w->have_total_mem)
			return 0;
		return bvec_u64(b, w->total_mem) ? -ENOMEM : 1;
	case HWP_FEAT_CMDLINE:
		if (!w->cmdline)
			return 0;
		if (bvec_u32(b, (uint32_t)w->nr_cmdline))
			return -ENOMEM;
		for (int i = 0; i < w->nr_cmdline; i++)
			if (bvec_string(b, w->cmdline[i]))
				return -ENOMEM;
		return 1;
	case HWP_FEAT_EVENT_DESC:
		if (!any_name(w))
			return 0;
		return feat_event_desc(w, b) ? -ENOMEM : 1;
	case HWP_FEAT_SAMPLE_TIME:
		if (!w->have_time)
			return 0;
		return bvec_u64(b, w->first_time) || bvec_u64(b, w->last_time) ? -ENOMEM : 1;
	case HWP_FEAT_BRANCH_STACK: /* a flag: present, no content */
		return (int)((w->flag_features[feat / 64] >> (feat % 64)) & 1);
	default:
		return 0;
	}
}

static int write_features(struct hwp_writer *w, uint64_t feat_bits[4])
{
	struct bvec content = { 0 };
	uint64_t start_off[HWP_FEAT_BITS], size[HWP_FEAT_BITS];
	unsigned nr = 0, feat;
	uint64_t table_off = cur_offset(w), base;
	int err = 0;

	for (feat = 1; feat < HWP_FEAT_LAST_KNOWN; feat++) {
		size_t before = content.len;
		int r = feature_content(w, feat, &content);

		if (r < 0) {
			err = hwp__set_error(ENOMEM, "out of memory");
			goto out;
		}
		if (!r)
			continue;
		feat_bits[feat / 64] |= 1ULL << (feat % 64);
		start_off[feat] = before;
		size[feat] = content.len - before;
		nr++;
	}
	base = table_off + nr * 16ULL;
	for (feat = 1; feat < HWP_FEAT_LAST_KNOWN; feat++) {
		uint8_t sec[16];

		if (!((feat_bits[feat / 64] >> (feat % 64)) & 1))
			continue;
		st64(sec, base + start_off[feat]);
		st64(sec + 8, size[feat]);
		if ((err = emit(w, sec, sizeof(sec))))
			goto out;
	}
	err = emit(w, content.p, content.len);
out:
	free(content.p);
	return err;
}

/* ---------------------------------------------------------------- lifetime */

struct hwp_writer *hwp_writer__open(const char *path)
{
	struct hwp_writer *w;

	if (!path) {
		hwp__set_error(EINVAL, "hwp_writer__open: no path");
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		goto nomem;
	w->path = strdup(path);
	w->buf = malloc(OUT_BUF_SIZE);
	if (!w->path || !w->buf)
		goto nomem;
	if (!strcmp(path, "-"))
		w->fd = dup(STDOUT_FILENO);
	else
		w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		int e = errno;

		hwp__set_error(e, "%s: cannot create: %s", path, strerror(e));
		free(w->buf);
		free(w->path);
		free(w);
		errno = e;
		return NULL;
	}
	/* the header is written last, at offset 0 */
	if (lseek(w->fd, 0, SEEK_CUR) < 0 && errno == ESPIPE) {
		hwp__set_error(ESPIPE, "%s: not seekable (a pipe?): perf.data is written in file mode, whose header "
			       "comes last; give a file name", path);
		close(w->fd);
		free(w->buf);
		free(w->path);
		free(w);
		errno = ESPIPE;
		return NULL;
	}
	return w;
nomem:
	if (w) {
		free(w->buf);
		free(w->path);
		free(w);
	}
	hwp__set_error(ENOMEM, "out of memory");
	return NULL;
}

static void writer_free(struct hwp_writer *w)
{
	size_t i;

	if (w->fd >= 0)
		close(w->fd);
	for (i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].ids);
		free(w->attrs[i].name);
	}
	free(w->attrs);
	for (i = 0; i < HWP_FEAT_BITS; i++)
		free(w->strings[i]);
	for (i = 0; i < w->nr_build_ids; i++)
		free(w->build_ids[i].filename);
	free(w->build_ids);
	free_cmdline(w);
	free(w->buf);
	free(w->path);
	free(w);
}

void hwp_writer__abort(struct hwp_writer *w)
{
	if (w)
		writer_free(w);
}

int hwp_writer__close(struct hwp_writer *w)
{
	uint8_t hdr[HWP_FILE_HEADER_SIZE];
	uint64_t feat_bits[4] = { 0 };
	uint64_t data_size;
	int err;

	if (!w)
		return hwp__set_error(EINVAL, "hwp_writer__close: no writer");
	if ((err = w->err) || (err = start(w)))
		goto out;
	data_size = cur_offset(w) - w->data_off;
	if ((err = write_features(w, feat_bits)) || (err = flush_buf(w)))
		goto out;

	memset(hdr, 0, sizeof(hdr));
	st64(hdr + 0, HWP_PERF_MAGIC2);
	st64(hdr + 8, HWP_FILE_HEADER_SIZE);
	st64(hdr + 16, ATTR_WIRE_SIZE + 16);
	st64(hdr + 24, w->attrs_off);
	st64(hdr + 32, w->attrs_size);
	st64(hdr + 40, w->data_off);
	st64(hdr + 48, data_size);
	/* event_types: 0, 0 */
	for (int i = 0; i < 4; i++)
		st64(hdr + 72 + 8 * i, feat_bits[i]);
	if (pwrite(w->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr)) {
		int e = errno;

		err = hwp__set_error(e, "%s: cannot write the file header: %s%s", w->path,
				     strerror(e),
				     e == ESPIPE ? " (file mode needs a seekable output)" : "");
		goto out;
	}
	if (close(w->fd)) {
		int e = errno;

		w->fd = -1;
		err = hwp__set_error(e, "%s: close failed: %s", w->path, strerror(e));
		goto out;
	}
	w->fd = -1;
out:
	writer_free(w);
	return err;
}

/* Added for hwprof record: a feature that is a flag without content.
   BRANCH_STACK is one: perf report's branch mode (and its "Selected -b but
   no branch data" check) looks for it, perf record writes it with size 0. */
int hwp_writer__set_flag_feature(struct hwp_writer *w, unsigned feat)
{
	if (!w || feat != HWP_FEAT_BRANCH_STACK)
		return hwp__set_error(EINVAL, "hwp_writer__set_flag_feature: feature %u is not a "
				      "content-less flag (only BRANCH_STACK is)", feat);
	w->flag_features[feat / 64] |= 1ULL << (feat % 64);
	return 0;
}
