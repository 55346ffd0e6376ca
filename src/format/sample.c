/* SPDX-License-Identifier: MIT */
/*
 * PERF_RECORD_SAMPLE parsing in the kernel's field order, every length
 * checked against the end of the record, and the sample_id_all trailer of
 * other records.
 */
#include <errno.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "format/reader_internal.h"
#include "util/bytes.h"
#include "util/error.h"

struct cursor {
	const uint8_t *p, *end;
	const char *field; /* for the message: what did not fit */
	uint64_t count;    /* and how many of it, or UINT64_MAX */
};

static bool take(struct cursor *c, uint64_t n, const uint8_t **out)
{
	if ((uint64_t)(c->end - c->p) < n)
		return false;
	if (out)
		*out = c->p;
	c->p += n;
	return true;
}

static bool take64(struct cursor *c, uint64_t *v)
{
	const uint8_t *p;

	if (!take(c, 8, &p))
		return false;
	*v = ld64(p);
	return true;
}

/* Bytes of a read_format block, or -1 when it does not fit. */
static bool take_read(struct cursor *c, uint64_t rf, struct hwp_bytes *out)
{
	const uint8_t *start = c->p;
	uint64_t per = 1 + !!(rf & HWP_FORMAT_ID) + !!(rf & HWP_FORMAT_LOST);
	uint64_t hdr = !!(rf & HWP_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & HWP_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t nr = 1, words;

	if (rf & HWP_FORMAT_GROUP) {
		if (!take64(c, &nr))
			return false;
		if (nr > (UINT64_MAX / 8 - hdr) / per)
			return false;
		words = hdr + nr * per;
	} else {
		words = hdr + per;
	}
	if (words > (uint64_t)(c->end - c->p) / 8)
		return false;
	c->p += words * 8;
	out->data = start;
	out->size = (uint64_t)(c->p - start);
	return true;
}

static bool take_regs(struct cursor *c, uint64_t mask, uint64_t *abi, struct hwp_bytes *out)
{
	uint64_t n = (uint64_t)__builtin_popcountll(mask);

	if (!take64(c, abi))
		return false;
	out->data = c->p;
	out->size = 0;
	if (*abi == 0)
		return true;
	out->size = n * 8;
	return take(c, n * 8, NULL);
}

/*
 * On a check that fails, the helpers below name the field for the message
 * (and how many of it the file claims, when that is the question) and
 * return false; hwp__parse_sample() stops at the first.
 */
#define NEED(cond, what)                \
	do {                            \
		if (!(cond)) {          \
			c->field = what; \
			return false;   \
		}                       \
	} while (0)

#define NEED_N(cond, what, n)           \
	do {                            \
		if (!(cond)) {          \
			c->field = what; \
			c->count = n;   \
			return false;   \
		}                       \
	} while (0)

/* IDENTIFIER through PERIOD: the fixed-size fields before READ. */
static bool parse_ids(struct cursor *c, uint64_t st, struct hwp_sample *s)
{
	const uint8_t *p;

	if (st & HWP_SAMPLE_IDENTIFIER)
		NEED(take64(c, &s->id), "identifier");
	if (st & HWP_SAMPLE_IP)
		NEED(take64(c, &s->ip), "ip");
	if (st & HWP_SAMPLE_TID) {
		NEED(take(c, 8, &p), "pid/tid");
		s->pid = ld32(p);
		s->tid = ld32(p + 4);
	}
	if (st & HWP_SAMPLE_TIME)
		NEED(take64(c, &s->time), "time");
	if (st & HWP_SAMPLE_ADDR)
		NEED(take64(c, &s->addr), "addr");
	if (st & HWP_SAMPLE_ID)
		NEED(take64(c, &s->id), "id");
	if (st & HWP_SAMPLE_STREAM_ID)
		NEED(take64(c, &s->stream_id), "stream_id");
	if (st & HWP_SAMPLE_CPU) {
		NEED(take(c, 8, &p), "cpu");
		s->cpu = ld32(p);
	}
	if (st & HWP_SAMPLE_PERIOD)
		NEED(take64(c, &s->period), "period");
	return true;
}

static bool parse_read(struct cursor *c, const struct hwp_attr *attr, struct hwp_sample *s)
{
	if (attr->sample_type & HWP_SAMPLE_READ)
		NEED(take_read(c, attr->read_format, &s->read), "read values");
	return true;
}

static bool parse_callchain(struct cursor *c, uint64_t st, struct hwp_sample *s)
{
	if (!(st & HWP_SAMPLE_CALLCHAIN))
		return true;
	NEED(take64(c, &s->callchain_nr), "callchain nr");
	NEED_N(s->callchain_nr <= (uint64_t)(c->end - c->p) / 8, "callchain entries",
	       s->callchain_nr);
	s->callchain = c->p;
	c->p += s->callchain_nr * 8;
	return true;
}

static bool parse_raw(struct cursor *c, uint64_t st, struct hwp_sample *s)
{
	const uint8_t *p;

	if (!(st & HWP_SAMPLE_RAW))
		return true;
	NEED(take(c, 4, &p), "raw size");
	s->raw.size = ld32(p);
	NEED_N(take(c, s->raw.size, &s->raw.data), "bytes of raw data", s->raw.size);
	return true;
}

/* nr, [hw_idx], nr entries of 24 bytes, [nr counters of 8 bytes] */
static bool parse_branch_stack(struct cursor *c, const struct hwp_attr *attr,
			       struct hwp_sample *s)
{
	bool counters = attr->branch_sample_type & HWP_BRANCH_COUNTERS;
	uint64_t per = counters ? 24 + 8 : 24;

	if (!(attr->sample_type & HWP_SAMPLE_BRANCH_STACK))
		return true;
	NEED(take64(c, &s->branch_nr), "branch stack nr");
	if (attr->branch_sample_type & HWP_BRANCH_HW_INDEX) {
		NEED(take64(c, &s->branch_hw_idx), "branch hw_idx");
		s->branch_has_hw_idx = true;
	}
	NEED_N(s->branch_nr <= (uint64_t)(c->end - c->p) / per, "branch entries", s->branch_nr);
	s->branch_entries = c->p;
	c->p += s->branch_nr * 24;
	if (counters) {
		s->branch_counters = c->p;
		c->p += s->branch_nr * 8;
	}
	return true;
}

/* REGS_USER and STACK_USER: what DWARF unwinding needs. */
static bool parse_user_regs_stack(struct cursor *c, const struct hwp_attr *attr,
				  struct hwp_sample *s)
{
	uint64_t st = attr->sample_type;

	if (st & HWP_SAMPLE_REGS_USER) {
		s->regs_user_mask = attr->sample_regs_user;
		NEED(take_regs(c, attr->sample_regs_user, &s->regs_user_abi, &s->regs_user),
		     "user registers");
	}
	if (st & HWP_SAMPLE_STACK_USER) {
		NEED(take64(c, &s->stack_user.size), "user stack size");
		if (s->stack_user.size) {
			NEED_N(take(c, s->stack_user.size, &s->stack_user.data), "bytes of user stack",
			       s->stack_user.size);
			NEED(take64(c, &s->stack_user_dyn_size), "user stack dyn_size");
		}
	}
	return true;
}

/* WEIGHT or WEIGHT_STRUCT, DATA_SRC, TRANSACTION, REGS_INTR. */
static bool parse_weights(struct cursor *c, const struct hwp_attr *attr, struct hwp_sample *s)
{
	uint64_t st = attr->sample_type;
	const uint8_t *p;

	if (st & (HWP_SAMPLE_WEIGHT | HWP_SAMPLE_WEIGHT_STRUCT)) {
		NEED(take(c, 8, &p), "weight");
		s->weight = ld64(p);
		if (st & HWP_SAMPLE_WEIGHT_STRUCT) {
			s->weight_var1 = ld32(p);
			s->weight_var2 = ld16(p + 4);
			s->weight_var3 = ld16(p + 6);
		}
	}
	if (st & HWP_SAMPLE_DATA_SRC)
		NEED(take64(c, &s->data_src), "data_src");
	if (st & HWP_SAMPLE_TRANSACTION)
		NEED(take64(c, &s->transaction), "transaction");
	if (st & HWP_SAMPLE_REGS_INTR) {
		s->regs_intr_mask = attr->sample_regs_intr;
		NEED(take_regs(c, attr->sample_regs_intr, &s->regs_intr_abi, &s->regs_intr),
		     "interrupt registers");
	}
	return true;
}

/* PHYS_ADDR through CODE_PAGE_SIZE, then AUX last. */
static bool parse_tail(struct cursor *c, uint64_t st, struct hwp_sample *s)
{
	if (st & HWP_SAMPLE_PHYS_ADDR)
		NEED(take64(c, &s->phys_addr), "phys_addr");
	if (st & HWP_SAMPLE_CGROUP)
		NEED(take64(c, &s->cgroup), "cgroup");
	if (st & HWP_SAMPLE_DATA_PAGE_SIZE)
		NEED(take64(c, &s->data_page_size), "data_page_size");
	if (st & HWP_SAMPLE_CODE_PAGE_SIZE)
		NEED(take64(c, &s->code_page_size), "code_page_size");
	if (st & HWP_SAMPLE_AUX) {
		NEED(take64(c, &s->aux.size), "aux size");
		NEED_N(take(c, s->aux.size, &s->aux.data), "bytes of aux data", s->aux.size);
	}
	return true;
}

#undef NEED
#undef NEED_N

static int short_sample(const struct hwp_reader *r, const struct cursor *c, uint32_t size,
			uint64_t off, uint64_t index)
{
	if (c->count != UINT64_MAX)
		return hwp__set_error(EINVAL, "%s: truncated sample at offset 0x%llx (record %llu): no room for its %llu %s in the record's %u bytes",
				      r ? r->name : "input", (unsigned long long)off,
				      (unsigned long long)index, (unsigned long long)c->count, c->field,
				      size);
	return hwp__set_error(EINVAL, "%s: truncated sample at offset 0x%llx (record %llu): no room for its %s in the record's %u bytes",
			      r ? r->name : "input", (unsigned long long)off,
			      (unsigned long long)index, c->field, size);
}

int hwp__parse_sample(const struct hwp_reader *r, const struct hwp_attr *attr,
		      const uint8_t *rec, uint32_t size, struct hwp_sample *s, uint64_t off,
		      uint64_t index)
{
	/* count: for the message, how many of the field the file claims */
	struct cursor c = { rec + 8, rec + size, "", UINT64_MAX };
	uint64_t st = attr->sample_type;

	memset(s, 0, sizeof(*s));
	s->sample_type = st;
	s->cpumode = ld16(rec + 4) & HWP_MISC_CPUMODE_MASK;
	if (parse_ids(&c, st, s) && parse_read(&c, attr, s) && parse_callchain(&c, st, s) &&
	    parse_raw(&c, st, s) && parse_branch_stack(&c, attr, s) &&
	    parse_user_regs_stack(&c, attr, s) && parse_weights(&c, attr, s) &&
	    parse_tail(&c, st, s))
		return 0;
	return short_sample(r, &c, size, off, index);
}

/* The fields parse_ids() through parse_tail() take as one u64 each
   (WEIGHT and WEIGHT_STRUCT share theirs). */
#define FIXED_U64 (HWP_SAMPLE_IDENTIFIER | HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_TIME | \
		   HWP_SAMPLE_ADDR | HWP_SAMPLE_ID | HWP_SAMPLE_STREAM_ID | HWP_SAMPLE_CPU |   \
		   HWP_SAMPLE_PERIOD | HWP_SAMPLE_DATA_SRC | HWP_SAMPLE_TRANSACTION |          \
		   HWP_SAMPLE_PHYS_ADDR | HWP_SAMPLE_CGROUP | HWP_SAMPLE_DATA_PAGE_SIZE |      \
		   HWP_SAMPLE_CODE_PAGE_SIZE)
/* The fields whose length the record says. */
#define VARIABLE (HWP_SAMPLE_CALLCHAIN | HWP_SAMPLE_RAW | HWP_SAMPLE_BRANCH_STACK | HWP_SAMPLE_REGS_USER | \
		  HWP_SAMPLE_STACK_USER | HWP_SAMPLE_REGS_INTR | HWP_SAMPLE_AUX)

uint64_t hwp__sample_fixed_size(const struct hwp_attr *attr)
{
	uint64_t st = attr->sample_type, rf = attr->read_format;
	uint64_t words = (uint64_t)__builtin_popcountll(st & FIXED_U64) +
			 !!(st & (HWP_SAMPLE_WEIGHT | HWP_SAMPLE_WEIGHT_STRUCT));

	if ((st & VARIABLE) || ((st & HWP_SAMPLE_READ) && (rf & HWP_FORMAT_GROUP)))
		return UINT64_MAX;
	if (st & HWP_SAMPLE_READ) /* take_read() without GROUP */
		words += !!(rf & HWP_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & HWP_FORMAT_TOTAL_TIME_RUNNING) + 1 +
			 !!(rf & HWP_FORMAT_ID) + !!(rf & HWP_FORMAT_LOST);
	return words * 8;
}

uint64_t hwp__sample_peek_size(const struct hwp_attr *attr)
{
	uint64_t st = attr->sample_type;

	return 8 * (uint64_t)(!!(st & HWP_SAMPLE_IDENTIFIER) + !!(st & HWP_SAMPLE_IP) + !!(st & HWP_SAMPLE_TID) +
			      !!(st & HWP_SAMPLE_TIME));
}

void hwp__sample_peek(const struct hwp_attr *attr, const uint8_t *rec, struct hwp_sample *s)
{
	uint64_t st = attr->sample_type;
	/* IDENTIFIER and IP are the only fields before TID and TIME */
	const uint8_t *p = rec + 8 + 8 * (!!(st & HWP_SAMPLE_IDENTIFIER) + !!(st & HWP_SAMPLE_IP));

	s->sample_type = st;
	s->cpumode = ld16(rec + 4) & HWP_MISC_CPUMODE_MASK;
	s->ip = st & HWP_SAMPLE_IP ? ld64(p - 8) : 0;
	s->pid = s->tid = 0;
	s->time = 0;
	if (st & HWP_SAMPLE_TID) {
		s->pid = ld32(p);
		s->tid = ld32(p + 4);
		p += 8;
	}
	if (st & HWP_SAMPLE_TIME)
		s->time = ld64(p);
}

int hwp__sample_id_pos(uint64_t st)
{
	if (st & HWP_SAMPLE_IDENTIFIER)
		return 0;
	if (!(st & HWP_SAMPLE_ID))
		return -1;
	return !!(st & HWP_SAMPLE_IP) + !!(st & HWP_SAMPLE_TID) + !!(st & HWP_SAMPLE_TIME) +
	       !!(st & HWP_SAMPLE_ADDR);
}

int hwp__sample_is_pos(uint64_t st)
{
	if (st & HWP_SAMPLE_IDENTIFIER)
		return 1;
	if (!(st & HWP_SAMPLE_ID))
		return -1;
	return 1 + !!(st & HWP_SAMPLE_CPU) + !!(st & HWP_SAMPLE_STREAM_ID);
}

/* The sample_id_all trailer, read backwards from the end of the record. */
int hwp__parse_sample_id(const struct hwp_attr *attr, const uint8_t *rec, uint32_t size,
			 struct hwp_sample *s)
{
	uint64_t st = attr->sample_type;
	const uint8_t *p = rec + size;
	const uint8_t *min = rec + 8;

	memset(s, 0, sizeof(*s));
	s->sample_type = st & (HWP_SAMPLE_TID | HWP_SAMPLE_TIME | HWP_SAMPLE_ID |
			       HWP_SAMPLE_STREAM_ID | HWP_SAMPLE_CPU | HWP_SAMPLE_IDENTIFIER);
#define BACK(dst)                          \
	do {                               \
		if (p - min < 8)           \
			return -EINVAL;    \
		p -= 8;                    \
		dst;                       \
	} while (0)
	if (st & HWP_SAMPLE_IDENTIFIER)
		BACK(s->id = ld64(p));
	if (st & HWP_SAMPLE_CPU)
		BACK(s->cpu = ld32(p));
	if (st & HWP_SAMPLE_STREAM_ID)
		BACK(s->stream_id = ld64(p));
	if (st & HWP_SAMPLE_ID)
		BACK(s->id = ld64(p));
	if (st & HWP_SAMPLE_TIME)
		BACK(s->time = ld64(p));
	if (st & HWP_SAMPLE_TID)
		BACK((s->pid = ld32(p), s->tid = ld32(p + 4)));
#undef BACK
	return 0;
}

uint64_t hwp_sample__callchain_ip(const struct hwp_sample *s, uint64_t i)
{
	return i < s->callchain_nr ? ld64(s->callchain + i * 8) : 0;
}

void hwp_sample__branch(const struct hwp_sample *s, uint64_t i, struct hwp_branch_entry *e)
{
	if (i >= s->branch_nr) {
		memset(e, 0, sizeof(*e));
		return;
	}
	/* Only in range: past the end the pointer arithmetic itself is UB. */
	const uint8_t *p = s->branch_entries + i * 24;

	hwp_branch_entry__decode(ld64(p), ld64(p + 8), ld64(p + 16), e);
}

/* The two below without a message: sample_json iterates to the end with them. */
int hwp__read_parse(const struct hwp_bytes *b, uint64_t rf, struct hwp_read *r)
{
	const uint8_t *p = b->data, *end = b->data + b->size;

	memset(r, 0, sizeof(*r));
	r->nr = 1;
	/* GROUP: nr first; else the value first. Either way 8 bytes, checked
	   before stepping over them (B may be empty, with a NULL data). */
	if (b->size < 8)
		return -EINVAL;
	if (rf & HWP_FORMAT_GROUP)
		r->nr = ld64(p);
	p += 8;
	if (rf & HWP_FORMAT_TOTAL_TIME_ENABLED) {
		if (end - p < 8)
			return -EINVAL;
		r->time_enabled = ld64(p);
		p += 8;
	}
	if (rf & HWP_FORMAT_TOTAL_TIME_RUNNING) {
		if (end - p < 8)
			return -EINVAL;
		r->time_running = ld64(p);
	}
	return 0;
}

int hwp__read_value(const struct hwp_bytes *b, uint64_t rf, uint64_t i, struct hwp_read_value *v)
{
	uint64_t hdr = !!(rf & HWP_FORMAT_TOTAL_TIME_ENABLED) + !!(rf & HWP_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t per = 1 + !!(rf & HWP_FORMAT_ID) + !!(rf & HWP_FORMAT_LOST);
	uint64_t w = b->size / 8, at;

	memset(v, 0, sizeof(*v));
	if (rf & HWP_FORMAT_GROUP) {
		if (w < 1 + hdr || i >= (w - 1 - hdr) / per)
			return -EINVAL;
		at = 1 + hdr + i * per;
		v->value = ld64(b->data + at * 8);
	} else {
		if (i != 0 || w < 1 + hdr + per - 1)
			return -EINVAL;
		v->value = ld64(b->data);
		at = hdr; /* id/lost follow the time fields */
	}
	if (rf & HWP_FORMAT_ID)
		v->id = ld64(b->data + (++at) * 8);
	if (rf & HWP_FORMAT_LOST)
		v->lost = ld64(b->data + (++at) * 8);
	return 0;
}

int hwp_read__parse(const struct hwp_bytes *b, uint64_t rf, struct hwp_read *r)
{
	int err = hwp__read_parse(b, rf, r);

	if (err)
		return hwp__set_error(-err, "sample read values: %llu bytes do not hold read_format 0x%llx",
				      (unsigned long long)b->size, (unsigned long long)rf);
	return 0;
}

int hwp_read__value(const struct hwp_bytes *b, uint64_t rf, uint64_t i, struct hwp_read_value *v)
{
	int err = hwp__read_value(b, rf, i, v);

	if (err)
		return hwp__set_error(-err, "sample read values: no value %llu in %llu bytes of read_format 0x%llx",
				      (unsigned long long)i, (unsigned long long)b->size,
				      (unsigned long long)rf);
	return 0;
}
