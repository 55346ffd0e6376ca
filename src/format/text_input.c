/* SPDX-License-Identifier: MIT */
/*
 * perf script text -> synthetic perf records.
 *
 * Accepted text (what `perf script` prints, old and new perf versions):
 *
 *   sample, one line:   [prefix fields] IP [ENTRY ...]
 *   sample, callchain:  [prefix fields]            (may be an empty line)
 *                       \tADDR [sym (dso)]         (one per frame, innermost first)
 *                       [ENTRY ...]                (the branch stack line, may be empty)
 *   side band:          [prefix fields] PERF_RECORD_MMAP2 PID/TID: [0xADDR(0xLEN) @ PGOFF MAJ:MIN INO GEN]: r-xp FILE
 *                       [prefix fields] PERF_RECORD_MMAP PID/TID: [0xADDR(0xLEN) @ PGOFF]: x FILE
 *                       [prefix fields] PERF_RECORD_COMM[ exec]: COMM:PID/TID
 *                       [prefix fields] PERF_RECORD_FORK(PID:TID):(PPID:PTID)   (and EXIT)
 *                       other PERF_RECORD_* lines are skipped
 *   ignored:            empty lines, lines starting with '#' (perf script --header) or ';'
 *
 *   ENTRY = 0xFROM/0xTO[/EV[/X[/A[/CYCLES[/NAME...]]]]][/]
 *     EV: M (mispredicted), P (predicted), - ; newer perf appends N (not taken, ignored)
 *     NAME: a branch type (COND, CALL, ..., FAULT_ALGN, ARM64_FIQ, ...) or a
 *     speculation outcome (SPEC_WRONG_PATH, ...); '-', 'N/A' and '' mean none.
 *   prefix fields: anything perf prints before the IP (comm, pid/tid, [cpu],
 *     time:, event:). PID/TID comes from a `N/M` token, else from the first
 *     all-digit token (perf's `-F pid` or `-F tid`); the tokens before it are
 *     the comm.
 *
 * The parser is a line state machine over the caller's buffer (never copied):
 * one memchr per line, then a tokenizer that writes branch entries straight
 * into the output record. Every read is bounded by the line end.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/text_input.h"
#include "hwprof/hwprof.h"
#include "util/bytes.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

#define TI_KERNEL_START 0xffff800000000000ULL
#define TI_REC_MAX 65535u      /* perf_event_header.size is a u16 */
#define TI_BUF_SIZE 65536u
#define TI_MAX_TOK 32          /* prefix fields before the IP / entries */
#define TI_SNIFF_LEN 65536u
#define TI_PRESCAN_LEN (1u << 20)
#define TI_COMM_KEEP 24

#define TI_PROT_READ 1u
#define TI_PROT_WRITE 2u
#define TI_PROT_EXEC 4u
#define TI_MAP_SHARED 1u
#define TI_MAP_PRIVATE 2u
#define TI_MISC_MMAP_DATA (1u << 13)

enum { ST_BETWEEN, ST_FRAMES };
enum { CTX_NONE, CTX_KERNEL, CTX_USER };

struct ti_comm {
	uint32_t tid;
	uint16_t len; /* full length (capped) */
	char s[TI_COMM_KEEP + 1];
};

struct span {
	const char *s, *e;
};

struct hwp_text_input {
	const uint8_t *buf;
	size_t len;
	size_t pos;      /* start of the next unread line */
	uint64_t line;   /* 1-based number of the line at pos */
	char *name;
	struct hwp_attr attr;
	bool callchain;
	int err;         /* sticky error */

	/* pid/tid for samples whose text has none: from the last user MMAP line */
	bool have_default;
	uint32_t def_pid, def_tid;

	/* sample under construction */
	int state;
	bool have_prefix;  /* a prefix line (callchain mode) is pending */
	uint64_t s_off, s_line;
	bool s_has_pid;
	uint32_t s_pid, s_tid;
	const char *s_comm;
	size_t s_comm_len;
	uint64_t s_cnr;    /* callchain u64s written, markers included */
	int s_ctx;
	bool s_has_ip;
	uint64_t s_ip;

	/* output */
	uint8_t *rec;      /* samples */
	uint8_t *aux;      /* side-band records and COMMs */
	const uint8_t *out;
	uint32_t out_size;
	uint64_t out_off;
	bool pending;      /* rec holds a sample to hand out after aux's COMM */
	uint32_t pending_size;
	uint64_t pending_off;

	struct ti_comm *comms;
	size_t comm_nr, comm_cap;
	struct hwp_hashmap comm_map; /* on tid */
};

/* hex digit value + 1; 0 = not a hex digit */
static const uint8_t hexv[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7,
	['7'] = 8, ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14,
	['e'] = 15, ['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15,
	['F'] = 16,
};

static inline bool is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parses bare hex digits at *pp. 1: ok, 0: no digit, -1: overflow (> 64 bits). */
static int scan_hex(const char **pp, const char *e, uint64_t *v)
{
	const char *p = *pp, *s = p;
	uint64_t x = 0;
	unsigned d;

	while (p < e && (d = hexv[(uint8_t)*p]) != 0) {
		if (x >> 60)
			return -1;
		x = x << 4 | (d - 1);
		p++;
	}
	if (p == s)
		return 0;
	*v = x;
	*pp = p;
	return 1;
}

/* ------------------------------------------------------------------------ */
/* errors */

static void snippet(char *dst, size_t cap, const char *s, const char *e)
{
	size_t n = 0;
	size_t max = cap > 4 ? cap - 4 : 0;

	while (s < e && n < max) {
		unsigned char c = (unsigned char)*s++;
		dst[n++] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (s < e && cap >= 4) {
		memcpy(dst + n, "...", 3);
		n += 3;
	}
	dst[n] = 0;
}

/* Token from S to the next white space (bounded by E), for messages. */
static const char *tok_end(const char *s, const char *e)
{
	while (s < e && !is_ws(*s))
		s++;
	return s;
}

__attribute__((format(printf, 5, 6)))
static int ti_error(struct hwp_text_input *t, int code, uint64_t line, uint64_t off,
		    const char *fmt, ...)
{
	char what[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	t->err = hwp__set_error(code, "%s: %s at line %llu (offset 0x%llx)", t->name, what,
				(unsigned long long)line, (unsigned long long)off);
	return t->err;
}

static uint64_t off_of(const struct hwp_text_input *t, const char *p)
{
	return (uint64_t)(p - (const char *)t->buf);
}

/* ------------------------------------------------------------------------ */
/* branch entries */

struct name_val {
	const char *name;
	uint8_t len;
	uint8_t kind; /* 0 type, 1 new_type (type = EXTEND_ABI), 2 spec */
	uint8_t val;
};

#define NV(s, k, v) { s, sizeof(s) - 1, k, v }
static const struct name_val branch_names[] = {
	NV("COND", 0, 1), NV("UNCOND", 0, 2), NV("IND", 0, 3), NV("CALL", 0, 4),
	NV("IND_CALL", 0, 5), NV("RET", 0, 6), NV("SYSCALL", 0, 7), NV("SYSRET", 0, 8),
	NV("COND_CALL", 0, 9), NV("COND_RET", 0, 10), NV("ERET", 0, 11), NV("IRQ", 0, 12),
	NV("SERROR", 0, 13), NV("NO_TX", 0, 14), NV("EXTEND_ABI", 0, 15),
	NV("FAULT_ALGN", 1, 0), NV("FAULT_DATA", 1, 1), NV("FAULT_INST", 1, 2),
	NV("ARCH_1", 1, 3), NV("ARCH_2", 1, 4), NV("ARCH_3", 1, 5), NV("ARCH_4", 1, 6),
	NV("ARCH_5", 1, 7), NV("ARM64_FIQ", 1, 3), NV("ARM64_DEBUG_HALT", 1, 4),
	NV("ARM64_DEBUG_EXIT", 1, 5), NV("ARM64_DEBUG_INST", 1, 6),
	NV("ARM64_DEBUG_DATA", 1, 7),
	NV("SPEC_WRONG_PATH", 2, 1), NV("NON_SPEC_CORRECT_PATH", 2, 2),
	NV("SPEC_CORRECT_PATH", 2, 3),
};
#undef NV

#define TI_TYPE_EXTEND_ABI 15u

static uint64_t name_flags(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || (n == 1 && s[0] == '-') || (n == 3 && memcmp(s, "N/A", 3) == 0))
		return 0;
	for (i = 0; i < sizeof(branch_names) / sizeof(branch_names[0]); i++) {
		const struct name_val *nv = &branch_names[i];

		if (nv->len != n || nv->name[0] != s[0] || memcmp(nv->name, s, n) != 0)
			continue;
		switch (nv->kind) {
		case 0:
			return (uint64_t)nv->val << HWP_BRF_TYPE_SHIFT;
		case 1:
			return (uint64_t)TI_TYPE_EXTEND_ABI << HWP_BRF_TYPE_SHIFT |
			       (uint64_t)nv->val << HWP_BRF_NEW_TYPE_SHIFT;
		default:
			return (uint64_t)nv->val << HWP_BRF_SPEC_SHIFT;
		}
	}
	return 0; /* unknown names are accepted and ignored */
}

/*
 * "0xFROM/0xTO" at P: parse_entry's 1 (*qp after it), 0 or -1, and OUT[0]
 * and OUT[1].
 */
static int entry_from_to(const char *p, const char *e, uint64_t out[3], const char **qp,
			 const char **why, const char **errp)
{
	const char *q = p + 2;
	int r;

	r = scan_hex(&q, e, &out[0]);
	if (r == 0)
		return 0;
	if (r < 0) {
		*why = "FROM address has more than 64 bits";
		*errp = p;
		return -1;
	}
	if (q >= e || *q != '/')
		return 0;
	q++;
	if (e - q < 2 || q[0] != '0' || (q[1] | 0x20) != 'x') {
		*why = "expected 0xTO after FROM/";
		*errp = q;
		return -1;
	}
	q += 2;
	r = scan_hex(&q, e, &out[1]);
	if (r <= 0) {
		*why = r < 0 ? "TO address has more than 64 bits" : "expected hex digits in TO address";
		*errp = q;
		return -1;
	}
	*qp = q;
	return 1;
}

/*
 * The fields after FROM/TO, each of N characters at FS, into *flags: NULL,
 * or why the field is malformed.
 */

/* M / P / - ; newer perf: PN, MN */
static const char *entry_prediction(const char *fs, size_t n, uint64_t *flags)
{
	static const char bad[] = "prediction field must be 'M', 'P' or '-'";

	if (n == 1 && fs[0] == '-')
		return NULL;
	if (n == 0 || n > 2)
		return bad;
	if (fs[0] == 'M')
		*flags |= 1ULL << HWP_BRF_MISPRED_SHIFT;
	else if (fs[0] == 'P')
		*flags |= 1ULL << HWP_BRF_PREDICTED_SHIFT;
	else if (!(n == 1 && fs[0] == 'N'))
		return bad;
	if (n == 2 && fs[1] != 'N')
		return bad;
	return NULL;
}

/* in_tx ('X') and abort ('A'): CH sets the flag at SHIFT, '-' does not */
static bool entry_bit(const char *fs, size_t n, char ch, unsigned shift, uint64_t *flags)
{
	if (n == 1 && fs[0] == ch)
		*flags |= 1ULL << shift;
	else if (!(n == 1 && fs[0] == '-'))
		return false;
	return true;
}

static const char *entry_cycles(const char *fs, size_t n, uint64_t *flags)
{
	static const char bad[] = "cycles field must be a number from 0 to 65535";
	uint64_t v = 0;

	if (n == 1 && fs[0] == '-')
		return NULL;
	if (n == 0 || n > 5)
		return bad;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(fs[i]))
			return bad;
		v = v * 10 + (uint64_t)(fs[i] - '0');
	}
	if (v > 0xffff)
		return bad;
	*flags |= v << HWP_BRF_CYCLES_SHIFT;
	return NULL;
}

/* Field number FIELD (FROM is 0, TO 1). */
static const char *entry_field(unsigned field, const char *fs, size_t n, uint64_t *flags)
{
	switch (field) {
	case 2:
		return entry_prediction(fs, n, flags);
	case 3:
		return entry_bit(fs, n, 'X', HWP_BRF_IN_TX_SHIFT, flags)
			       ? NULL : "in_tx field must be 'X' or '-'";
	case 4:
		return entry_bit(fs, n, 'A', HWP_BRF_ABORT_SHIFT, flags)
			       ? NULL : "abort field must be 'A' or '-'";
	case 5:
		return entry_cycles(fs, n, flags);
	default:
		if (field > 16)
			return "too many '/' fields";
		*flags |= name_flags(fs, n);
		return NULL;
	}
}

/*
 * P is at "0x" (checked by the caller). Returns 1 with the entry parsed and
 * *endp after it, 0 when the token is not an entry (no '/' after the first
 * number: a plain hex token), -1 on a malformed entry (*why, *errp set).
 */
static int parse_entry(const char *p, const char *e, uint64_t out[3], const char **endp,
		       const char **why, const char **errp)
{
	const char *q, *fs, *bad;
	uint64_t flags = 0;
	int r;

	r = entry_from_to(p, e, out, &q, why, errp);
	if (r <= 0)
		return r;
	for (unsigned field = 2; q < e && *q == '/'; field++) {
		fs = ++q;
		while (q < e && *q != '/' && !is_ws(*q))
			q++;
		bad = entry_field(field, fs, (size_t)(q - fs), &flags);
		if (bad) {
			*why = bad;
			*errp = fs;
			return -1;
		}
	}
	if (q < e && !is_ws(*q)) {
		*why = "unexpected character";
		*errp = q;
		return -1;
	}
	out[2] = flags;
	*endp = q;
	return 1;
}

/* ------------------------------------------------------------------------ */
/* comm table: tid -> last comm seen, to emit COMM records only on change */

static struct ti_comm *comm_slot(struct hwp_text_input *t, uint32_t tid)
{
	uint64_t h = hwp__hash64(tid);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&t->comm_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (t->comms[i].tid == tid)
			return &t->comms[i];
	struct ti_comm *c = HWP_VEC_PUSH(t->comms, t->comm_nr, t->comm_cap);
	if (!c)
		return NULL;
	if (hwp__hashmap_add(&t->comm_map, h, t->comm_nr - 1)) {
		t->comm_nr--;
		return NULL;
	}
	c->tid = tid;
	c->len = UINT16_MAX; /* matches no real comm */
	return c;
}

/* true when COMM differs from what TID had (and records it) */
static int comm_changed(struct hwp_text_input *t, uint32_t tid, const char *s, size_t n)
{
	struct ti_comm *c = comm_slot(t, tid);
	size_t keep = n < TI_COMM_KEEP ? n : TI_COMM_KEEP;
	uint16_t len = n < UINT16_MAX - 1 ? (uint16_t)n : UINT16_MAX - 1;

	if (!c)
		return -ENOMEM;
	if (c->len == len && memcmp(c->s, s, keep) == 0)
		return 0;
	c->len = len;
	memcpy(c->s, s, keep);
	c->s[keep] = 0;
	return 1;
}

/* ------------------------------------------------------------------------ */
/* record builders */

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static void put_header(uint8_t *r, uint32_t type, uint16_t misc, size_t size)
{
	st32(r, type);
	st16(r + 4, misc);
	st16(r + 6, (uint16_t)size);
}

static uint16_t cpumode_of(uint64_t ip)
{
	return ip >= TI_KERNEL_START ? HWP_MISC_KERNEL : HWP_MISC_USER;
}

/* Builds a COMM record in aux. Returns its size or <0. */
static int build_comm(struct hwp_text_input *t, uint32_t pid, uint32_t tid, const char *s,
		      size_t n, bool exec, uint64_t line, uint64_t off)
{
	size_t size = 16 + pad8(n + 1);

	if (size > TI_REC_MAX)
		return ti_error(t, E2BIG, line, off, "comm of %zu bytes is too long for a perf record", n);
	memset(t->aux, 0, size);
	put_header(t->aux, HWP_RECORD_COMM, exec ? HWP_MISC_COMM_EXEC : 0, size);
	st32(t->aux + 8, pid);
	st32(t->aux + 12, tid);
	memcpy(t->aux + 16, s, n);
	return (int)size;
}

static void reset_sample(struct hwp_text_input *t)
{
	t->state = ST_BETWEEN;
	t->have_prefix = false;
	t->s_has_pid = false;
	t->s_comm = NULL;
	t->s_comm_len = 0;
	t->s_cnr = 0;
	t->s_ctx = CTX_NONE;
	t->s_has_ip = false;
	t->s_ip = 0;
}

static size_t entries_base(const struct hwp_text_input *t)
{
	if (!t->callchain)
		return 32;
	return 40 + 8 * (size_t)(t->state == ST_FRAMES ? t->s_cnr : 0);
}

/* Finishes the sample in rec with NENT entries; sets out (maybe a COMM first). */
static int emit_sample(struct hwp_text_input *t, uint64_t nent)
{
	uint8_t *r = t->rec;
	size_t size;
	uint32_t pid = 0, tid = 0;
	uint64_t ip = t->s_has_ip ? t->s_ip : 0;
	uint64_t off = t->s_off;
	int c;

	if (t->callchain) {
		st64(r + 24, t->s_cnr);
		st64(r + 32 + 8 * t->s_cnr, nent);
		size = 40 + 8 * (size_t)t->s_cnr + 24 * (size_t)nent;
	} else {
		st64(r + 24, nent);
		size = 32 + 24 * (size_t)nent;
	}
	if (t->s_has_pid) {
		pid = t->s_pid;
		tid = t->s_tid;
	} else if (t->have_default) {
		pid = t->def_pid;
		tid = t->def_tid;
	}
	put_header(r, HWP_RECORD_SAMPLE, cpumode_of(ip), size);
	st64(r + 8, ip);
	st32(r + 16, pid);
	st32(r + 20, tid);

	t->out = r;
	t->out_size = (uint32_t)size;
	t->out_off = off;
	if (t->s_has_pid && t->s_comm_len) {
		c = comm_changed(t, tid, t->s_comm, t->s_comm_len);
		if (c < 0)
			return ti_error(t, ENOMEM, t->s_line, off, "out of memory");
		if (c > 0) {
			int n = build_comm(t, pid, tid, t->s_comm, t->s_comm_len, false, t->s_line, off);

			if (n < 0)
				return n;
			t->pending = true;
			t->pending_size = (uint32_t)size;
			t->pending_off = off;
			t->out = t->aux;
			t->out_size = (uint32_t)n;
		}
	}
	reset_sample(t);
	return 1;
}

/* ------------------------------------------------------------------------ */
/* prefix fields */

static bool parse_i32_span(const char *s, const char *e, uint32_t *v)
{
	bool neg = false;
	uint64_t x = 0;

	if (s < e && *s == '-') {
		neg = true;
		s++;
	}
	if (s == e || e - s > 10)
		return false;
	for (; s < e; s++) {
		if (!is_digit(*s))
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (neg ? x > 0x80000000ULL : x > 0xffffffffULL)
		return false;
	*v = neg ? (uint32_t)(0u - (uint32_t)x) : (uint32_t)x;
	return true;
}

/* "N/M" -> pid, tid */
static bool parse_pidtid(const struct span *sp, uint32_t *pid, uint32_t *tid)
{
	const char *sl = memchr(sp->s, '/', (size_t)(sp->e - sp->s));

	return sl && parse_i32_span(sp->s, sl, pid) && parse_i32_span(sl + 1, sp->e, tid);
}

/* Finds pid/tid and comm among tokens [0, n) and stores them in the sample. */
static void take_prefix(struct hwp_text_input *t, const struct span *tok, size_t n)
{
	size_t i, k = n;
	uint32_t pid, tid;

	for (i = 0; i < n; i++) {
		if (parse_pidtid(&tok[i], &pid, &tid)) {
			k = i;
			break;
		}
	}
	if (k == n) {
		for (i = 0; i < n; i++) {
			if (is_digit(tok[i].s[0]) && parse_i32_span(tok[i].s, tok[i].e, &pid)) {
				tid = pid;
				k = i;
				break;
			}
		}
	}
	if (k == n)
		return;
	t->s_has_pid = true;
	t->s_pid = pid;
	t->s_tid = tid;
	if (k > 0) {
		t->s_comm = tok[0].s;
		t->s_comm_len = (size_t)(tok[k - 1].e - tok[0].s);
	} else {
		t->s_comm = NULL;
		t->s_comm_len = 0;
	}
}

/* ------------------------------------------------------------------------ */
/* PERF_RECORD_* lines */

struct cur {
	const char *p, *e;
};

static void c_sp(struct cur *c)
{
	while (c->p < c->e && is_ws(*c->p))
		c->p++;
}

static bool c_ch(struct cur *c, char ch)
{
	if (c->p < c->e && *c->p == ch) {
		c->p++;
		return true;
	}
	return false;
}

static bool c_i32(struct cur *c, uint32_t *v)
{
	const char *s = c->p;

	if (c->p < c->e && *c->p == '-')
		c->p++;
	while (c->p < c->e && is_digit(*c->p))
		c->p++;
	return parse_i32_span(s, c->p, v);
}

static bool c_dec(struct cur *c, uint64_t *v)
{
	uint64_t x = 0;
	const char *s = c->p;

	while (c->p < c->e && is_digit(*c->p)) {
		unsigned d = (unsigned)(*c->p - '0');

		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
		c->p++;
	}
	*v = x;
	return c->p != s;
}

static bool c_hex(struct cur *c, uint64_t *v)
{
	return scan_hex(&c->p, c->e, v) > 0;
}

/* %#lx: "0x..." or "0" (or plain decimal) */
static bool c_num(struct cur *c, uint64_t *v)
{
	if (c->e - c->p >= 2 && c->p[0] == '0' && (c->p[1] | 0x20) == 'x') {
		c->p += 2;
		return c_hex(c, v);
	}
	return c_dec(c, v);
}

static void default_pid_from(struct hwp_text_input *t, uint32_t pid, uint32_t tid)
{
	if (pid == UINT32_MAX || pid == 0)
		return;
	t->have_default = true;
	t->def_pid = pid;
	t->def_tid = tid;
}

/* Filename: rest of the line, trailing white space trimmed. */
static void rest_of_line(struct cur *c, const char **s, size_t *n)
{
	const char *e = c->e;

	while (e > c->p && is_ws(e[-1]))
		e--;
	*s = c->p;
	*n = (size_t)(e - c->p);
}

/* The fields of a PERF_RECORD_MMAP or PERF_RECORD_MMAP2 line. */
struct ti_mmap {
	bool mmap2;
	uint32_t pid, tid, maj, min, prot, mflags;
	uint64_t addr, len, pgoff, ino, gen;
	uint8_t bid[20];
	size_t bid_len;
	bool has_bid, data;
	const char *fn;
	size_t fn_len;
};

/* The parsers below return NULL, or what they expected where c->p stopped. */

/* "PID/TID: [0xADDR(0xLEN) @ PGOFF" */
static const char *mmap_range(struct cur *c, struct ti_mmap *m)
{
	c_sp(c);
	if (!c_i32(c, &m->pid) || !c_ch(c, '/') || !c_i32(c, &m->tid) || !c_ch(c, ':'))
		return "PID/TID:";
	c_sp(c);
	if (!c_ch(c, '[') || !c_num(c, &m->addr) || !c_ch(c, '(') || !c_num(c, &m->len) ||
	    !c_ch(c, ')'))
		return "[0xADDR(0xLEN)";
	c_sp(c);
	if (!c_ch(c, '@'))
		return "@ PGOFF";
	c_sp(c);
	if (!c_num(c, &m->pgoff))
		return "@ PGOFF";
	c_sp(c);
	return NULL;
}

/* MMAP2 "<BUILD-ID>", after its '<' */
static const char *mmap2_build_id(struct cur *c, struct ti_mmap *m)
{
	const char *s = c->p;

	while (c->p < c->e && hexv[(uint8_t)*c->p])
		c->p++;
	m->bid_len = (size_t)(c->p - s);
	if (m->bid_len % 2 || m->bid_len > 40 || !c_ch(c, '>'))
		return "<BUILD-ID>";
	for (size_t i = 0; i < m->bid_len / 2; i++)
		m->bid[i] = (uint8_t)((hexv[(uint8_t)s[2 * i]] - 1) << 4 |
				      (hexv[(uint8_t)s[2 * i + 1]] - 1));
	m->bid_len /= 2;
	m->has_bid = true;
	return NULL;
}

/* MMAP2 "MAJ:MIN INO INO_GENERATION" */
static const char *mmap2_dev_ino(struct cur *c, struct ti_mmap *m)
{
	static const char exp[] = "MAJ:MIN INO INO_GENERATION";
	uint64_t v;

	if (!c_hex(c, &v) || v > UINT32_MAX)
		return exp;
	m->maj = (uint32_t)v;
	if (!c_ch(c, ':') || !c_hex(c, &v) || v > UINT32_MAX)
		return exp;
	m->min = (uint32_t)v;
	c_sp(c);
	if (!c_dec(c, &m->ino))
		return exp;
	c_sp(c);
	if (!c_dec(c, &m->gen))
		return exp;
	return NULL;
}

/* Protection, optional: MMAP2 "r-xp", MMAP "x" / "r" (data). */
static void mmap_prot(struct cur *c, struct ti_mmap *m)
{
	const char *p = c->p;

	if (m->mmap2) {
		if (c->e - p >= 5 && (p[0] == 'r' || p[0] == '-') && (p[1] == 'w' || p[1] == '-') &&
		    (p[2] == 'x' || p[2] == '-') && (p[3] == 's' || p[3] == 'p') && is_ws(p[4])) {
			m->prot = (p[0] == 'r' ? TI_PROT_READ : 0) | (p[1] == 'w' ? TI_PROT_WRITE : 0) |
				  (p[2] == 'x' ? TI_PROT_EXEC : 0);
			m->mflags = p[3] == 's' ? TI_MAP_SHARED : TI_MAP_PRIVATE;
			c->p += 4;
			c_sp(c);
		}
	} else if (c->e - p >= 2 && (p[0] == 'r' || p[0] == 'x') && is_ws(p[1])) {
		m->data = p[0] == 'r';
		c->p += 1;
		c_sp(c);
	}
}

/* The whole line after the record name. */
static const char *mmap_fields(struct cur *c, struct ti_mmap *m)
{
	const char *exp = mmap_range(c, m);

	if (exp)
		return exp;
	if (m->mmap2) {
		exp = c_ch(c, '<') ? mmap2_build_id(c, m) : mmap2_dev_ino(c, m);
		if (exp)
			return exp;
		c_sp(c);
	}
	if (!c_ch(c, ']') || !c_ch(c, ':'))
		return "]:";
	c_sp(c);
	mmap_prot(c, m);
	rest_of_line(c, &m->fn, &m->fn_len);
	return m->fn_len ? NULL : "a file name";
}

/* The perf record of M, SIZE bytes, into R. */
static void mmap_record(uint8_t *r, const struct ti_mmap *m, size_t size)
{
	uint16_t misc;

	memset(r, 0, size);
	misc = (m->pid == UINT32_MAX || m->addr >= TI_KERNEL_START) ? HWP_MISC_KERNEL : HWP_MISC_USER;
	if (m->has_bid)
		misc |= HWP_MISC_MMAP_BUILD_ID;
	if (m->data)
		misc |= TI_MISC_MMAP_DATA;
	put_header(r, m->mmap2 ? HWP_RECORD_MMAP2 : HWP_RECORD_MMAP, misc, size);
	st32(r + 8, m->pid);
	st32(r + 12, m->tid);
	st64(r + 16, m->addr);
	st64(r + 24, m->len);
	st64(r + 32, m->pgoff);
	if (!m->mmap2) {
		memcpy(r + 40, m->fn, m->fn_len);
		return;
	}
	if (m->has_bid) {
		r[40] = (uint8_t)m->bid_len;
		memcpy(r + 44, m->bid, m->bid_len);
	} else {
		st32(r + 40, m->maj);
		st32(r + 44, m->min);
		st64(r + 48, m->ino);
		st64(r + 56, m->gen);
	}
	st32(r + 64, m->prot);
	st32(r + 68, m->mflags);
	memcpy(r + 72, m->fn, m->fn_len);
}

static int parse_mmap(struct hwp_text_input *t, struct cur *c, bool mmap2, uint64_t line,
		      uint64_t loff)
{
	const char *what = mmap2 ? "PERF_RECORD_MMAP2" : "PERF_RECORD_MMAP";
	struct ti_mmap m = { .mmap2 = mmap2 };
	const char *exp = mmap_fields(c, &m);
	size_t size;

	if (exp) {
		char sn[64];

		snippet(sn, sizeof(sn), c->p, tok_end(c->p, c->e));
		return ti_error(t, EINVAL, line, off_of(t, c->p), "malformed %s line: expected %s, got '%s'",
				what, exp, sn);
	}
	size = (mmap2 ? 72 : 40) + pad8(m.fn_len + 1);
	if (size > TI_REC_MAX)
		return ti_error(t, E2BIG, line, loff, "%s file name of %zu bytes is too long for a perf record",
				what, m.fn_len);
	mmap_record(t->aux, &m, size);
	default_pid_from(t, m.pid, m.tid);
	t->out = t->aux;
	t->out_size = (uint32_t)size;
	t->out_off = loff;
	return 1;
}

static int parse_comm_line(struct hwp_text_input *t, struct cur *c, uint64_t line, uint64_t loff)
{
	bool exec = false;
	const char *s, *colon = NULL, *q;
	size_t n;
	uint32_t pid, tid;
	struct cur pc;
	int size, ch;

	if (c->e - c->p >= 5 && memcmp(c->p, " exec", 5) == 0) {
		exec = true;
		c->p += 5;
	}
	if (!c_ch(c, ':'))
		goto bad;
	c_sp(c);
	rest_of_line(c, &s, &n);
	for (q = s + n; q > s; q--) {
		if (q[-1] == ':') {
			colon = q - 1;
			break;
		}
	}
	if (!colon)
		goto bad;
	pc.p = colon + 1;
	pc.e = s + n;
	if (!c_i32(&pc, &pid) || !c_ch(&pc, '/') || !c_i32(&pc, &tid) || pc.p != pc.e)
		goto bad;
	size = build_comm(t, pid, tid, s, (size_t)(colon - s), exec, line, loff);
	if (size < 0)
		return size;
	ch = comm_changed(t, tid, s, (size_t)(colon - s));
	if (ch < 0)
		return ti_error(t, ENOMEM, line, loff, "out of memory");
	t->out = t->aux;
	t->out_size = (uint32_t)size;
	t->out_off = loff;
	return 1;
bad: {
		char sn[64];

		snippet(sn, sizeof(sn), c->p, c->e);
		return ti_error(t, EINVAL, line, off_of(t, c->p),
				"malformed PERF_RECORD_COMM line: expected '[ exec]: COMM:PID/TID', got '%s'", sn);
	}
}

/* PERF_RECORD_FORK(PID:TID):(PPID:PTID), same for EXIT */
static int parse_task(struct hwp_text_input *t, struct cur *c, uint32_t type, uint64_t line,
		      uint64_t loff)
{
	uint32_t pid, tid, ppid, ptid;
	uint8_t *r = t->aux;

	if (!c_ch(c, '(') || !c_i32(c, &pid) || !c_ch(c, ':') || !c_i32(c, &tid) || !c_ch(c, ')') ||
	    !c_ch(c, ':') || !c_ch(c, '(') || !c_i32(c, &ppid) || !c_ch(c, ':') ||
	    !c_i32(c, &ptid) || !c_ch(c, ')')) {
		char sn[64];

		snippet(sn, sizeof(sn), c->p, tok_end(c->p, c->e));
		return ti_error(t, EINVAL, line, off_of(t, c->p),
				"malformed %s line: expected '(PID:TID):(PPID:PTID)', got '%s'",
				type == HWP_RECORD_FORK ? "PERF_RECORD_FORK" : "PERF_RECORD_EXIT", sn);
	}
	memset(r, 0, 32);
	put_header(r, type, 0, 32);
	st32(r + 8, pid);
	st32(r + 12, ppid);
	st32(r + 16, tid);
	st32(r + 20, ptid);
	st64(r + 24, 0); /* time: not in the text's sample_type */
	t->out = r;
	t->out_size = 32;
	t->out_off = loff;
	return 1;
}

/* TS is at "PERF_RECORD_". 1: record in out, 0: skipped line. */
static int sideband(struct hwp_text_input *t, const char *ts, const char *le, uint64_t line,
		    uint64_t loff)
{
	struct cur c;
	const char *ne = ts + 12;
	size_t n;

	while (ne < le && ((*ne >= 'A' && *ne <= 'Z') || is_digit(*ne) || *ne == '_'))
		ne++;
	n = (size_t)(ne - ts);
	if (t->state == ST_FRAMES) {
		char sn[64];

		snippet(sn, sizeof(sn), ts, ne);
		return ti_error(t, EINVAL, line, off_of(t, ts),
				"%s inside a sample: expected the branch stack line after the callchain of line %llu",
				sn, (unsigned long long)t->s_line);
	}
	c.p = ne;
	c.e = le;
	if (n == 17 && memcmp(ts, "PERF_RECORD_MMAP2", 17) == 0)
		return parse_mmap(t, &c, true, line, loff);
	if (n == 16 && memcmp(ts, "PERF_RECORD_MMAP", 16) == 0)
		return parse_mmap(t, &c, false, line, loff);
	if (n == 16 && memcmp(ts, "PERF_RECORD_COMM", 16) == 0)
		return parse_comm_line(t, &c, line, loff);
	if (n == 16 && memcmp(ts, "PERF_RECORD_FORK", 16) == 0)
		return parse_task(t, &c, HWP_RECORD_FORK, line, loff);
	if (n == 16 && memcmp(ts, "PERF_RECORD_EXIT", 16) == 0)
		return parse_task(t, &c, HWP_RECORD_EXIT, line, loff);
	return 0;
}

/* ------------------------------------------------------------------------ */
/* lines */

static int frame_line(struct hwp_text_input *t, const char *ls, const char *p, const char *le,
		      uint64_t line, uint64_t loff)
{
	const char *q = p;
	uint64_t v;
	int ctx, r;
	size_t need;

	if (!t->callchain)
		return ti_error(t, EINVAL, line, loff,
				"callchain line, but the text before the first sample has none (give hwprof the whole 'perf script' output)");
	r = scan_hex(&q, le, &v);
	if (r <= 0 || (q < le && !is_ws(*q))) {
		char sn[64];

		snippet(sn, sizeof(sn), p, tok_end(p, le));
		return ti_error(t, EINVAL, line, off_of(t, p),
				"bad callchain address '%s' (expected hexadecimal)", sn);
	}
	if (t->state == ST_BETWEEN) {
		if (!t->have_prefix) {
			t->s_off = loff;
			t->s_line = line;
		}
		t->state = ST_FRAMES;
		t->s_cnr = 0;
		t->s_ctx = CTX_NONE;
	}
	(void)ls;
	if (!t->s_has_ip) {
		t->s_has_ip = true;
		t->s_ip = v;
	}
	ctx = v >= TI_KERNEL_START ? CTX_KERNEL : CTX_USER;
	need = 32 + 8 * ((size_t)t->s_cnr + (ctx != t->s_ctx) + 1) + 8;
	if (need > TI_REC_MAX)
		return ti_error(t, E2BIG, line, loff,
				"callchain of the sample at line %llu is too long: a perf record cannot exceed 65535 bytes",
				(unsigned long long)t->s_line);
	if (ctx != t->s_ctx) {
		st64(t->rec + 32 + 8 * t->s_cnr++, ctx == CTX_KERNEL ? HWP_CONTEXT_KERNEL : HWP_CONTEXT_USER);
		t->s_ctx = ctx;
	}
	st64(t->rec + 32 + 8 * t->s_cnr++, v);
	return 0;
}

static int blank_line(struct hwp_text_input *t, uint64_t line, uint64_t loff)
{
	(void)line;
	(void)loff;
	if (t->state == ST_FRAMES)
		return emit_sample(t, 0); /* empty branch stack line */
	/* a pending prefix with neither callchain nor branches: nothing to emit */
	reset_sample(t);
	return 0;
}

/* A fields line, split: the fields before the branch entries, and the entries. */
struct ti_fields {
	struct span tok[TI_MAX_TOK];
	size_t ntok;
	uint64_t nent, cap;
	uint8_t *ent;      /* where the next entry goes in the sample record */
};

/*
 * A branch entry at P, into the sample record: 1 with *endp after it, 0 when
 * P starts no entry, or a negative error.
 */
static int field_entry(struct hwp_text_input *t, const char *p, const char *le, uint64_t line,
		       struct ti_fields *f, const char **endp)
{
	uint64_t v[3];
	const char *why = NULL, *errp = NULL;
	char sn[64];
	int r;

	if (!(p[0] == '0' && le - p >= 2 && (p[1] | 0x20) == 'x'))
		return 0;
	r = parse_entry(p, le, v, endp, &why, &errp);
	if (r < 0) {
		snippet(sn, sizeof(sn), p, tok_end(p, le));
		return ti_error(t, EINVAL, line, off_of(t, errp), "bad branch entry '%s': %s", sn, why);
	}
	if (r == 0)
		return 0;
	if (f->nent >= f->cap)
		return ti_error(t, E2BIG, line, off_of(t, p),
				"sample has more than %llu branch entries: a perf record cannot exceed 65535 bytes",
				(unsigned long long)f->cap);
	st64(f->ent, v[0]);
	st64(f->ent + 8, v[1]);
	st64(f->ent + 16, v[2]);
	f->ent += 24;
	f->nent++;
	return 1;
}

/*
 * Splits the line from P into F. At a PERF_RECORD_* field, stops with
 * *sideband_at there. 0 or a negative error.
 */
static int split_fields(struct hwp_text_input *t, const char *p, const char *le, uint64_t line,
			struct ti_fields *f, const char **sideband_at)
{
	char sn[64];
	int r;

	for (;;) {
		const char *ts;

		while (p < le && is_ws(*p))
			p++;
		if (p >= le)
			return 0;
		ts = p;
		r = field_entry(t, ts, le, line, f, &p);
		if (r < 0)
			return r;
		if (r > 0)
			continue;
		p = tok_end(ts, le);
		if (f->nent) {
			snippet(sn, sizeof(sn), ts, p);
			return ti_error(t, EINVAL, line, off_of(t, ts),
					"unexpected '%s' after the branch entries (expected 0xFROM/0xTO/...)", sn);
		}
		if (p - ts >= 12 && memcmp(ts, "PERF_RECORD_", 12) == 0) {
			*sideband_at = ts;
			return 0;
		}
		if (f->ntok == TI_MAX_TOK) {
			snippet(sn, sizeof(sn), ts, p);
			return ti_error(t, EINVAL, line, off_of(t, ts),
					"too many fields before the branch entries ('%s')", sn);
		}
		f->tok[f->ntok].s = ts;
		f->tok[f->ntok].e = p;
		f->ntok++;
	}
}

/* The branch stack line after a callchain: entries only. */
static int stack_line(struct hwp_text_input *t, const struct ti_fields *f, uint64_t line)
{
	char sn[64];

	if (f->ntok) {
		snippet(sn, sizeof(sn), f->tok[0].s, f->tok[0].e);
		return ti_error(t, EINVAL, line, off_of(t, f->tok[0].s),
				"expected the branch stack line after the callchain of line %llu, got '%s'",
				(unsigned long long)t->s_line, sn);
	}
	return emit_sample(t, f->nent);
}

/* The sample's IP, [0x]HEX. */
static int sample_ip(struct hwp_text_input *t, const struct span *ip, uint64_t line)
{
	const char *q = ip->s;
	uint64_t v;

	if (ip->e - q > 2 && q[0] == '0' && (q[1] | 0x20) == 'x')
		q += 2;
	if (scan_hex(&q, ip->e, &v) <= 0 || q != ip->e) {
		char sn[64];

		snippet(sn, sizeof(sn), ip->s, ip->e);
		return ti_error(t, EINVAL, line, off_of(t, ip->s),
				"expected a hexadecimal sample IP, got '%s' (make the text with 'perf script -F ip,brstack', optionally +comm,pid,tid,cpu,time)",
				sn);
	}
	t->s_has_ip = true;
	t->s_ip = v;
	return 0;
}

/* A one-line sample: [prefix] IP [entries] */
static int one_line_sample(struct hwp_text_input *t, const struct ti_fields *f, uint64_t line,
			   uint64_t loff)
{
	int r;

	if (!t->have_prefix) {
		t->s_off = loff;
		t->s_line = line;
	}
	if (f->ntok == 0) {
		if (!t->callchain)
			return ti_error(t, EINVAL, line, loff,
					"expected the sample IP before the branch entries");
		/* callchain text: a branch stack line after a prefix with no frames */
	} else {
		r = sample_ip(t, &f->tok[f->ntok - 1], line);
		if (r)
			return r;
		if (f->ntok > 1)
			take_prefix(t, f->tok, f->ntok - 1);
	}
	return emit_sample(t, f->nent);
}

static int fields_line(struct hwp_text_input *t, const char *ls, const char *p, const char *le,
		       uint64_t line, uint64_t loff)
{
	size_t base = entries_base(t);
	struct ti_fields f;
	const char *sb = NULL;
	int r;

	(void)ls;
	f.ntok = 0;
	f.nent = 0;
	f.cap = (TI_REC_MAX - base) / 24;
	f.ent = t->rec + base;
	r = split_fields(t, p, le, line, &f, &sb);
	if (r < 0)
		return r;
	if (sb)
		return sideband(t, sb, le, line, loff);
	if (t->state == ST_FRAMES)
		return stack_line(t, &f, line);
	if (t->callchain && f.nent == 0) {
		/* the prefix line of a sample whose callchain follows */
		reset_sample(t);
		t->have_prefix = true;
		t->s_off = loff;
		t->s_line = line;
		take_prefix(t, f.tok, f.ntok);
		return 0;
	}
	return one_line_sample(t, &f, line, loff);
}

static int one_line(struct hwp_text_input *t, const char *ls, const char *le, uint64_t line)
{
	const char *p = ls;
	uint64_t loff = off_of(t, ls);

	while (p < le && is_ws(*p))
		p++;
	if (p == le)
		return blank_line(t, line, loff);
	if (ls[0] == '#' || ls[0] == ';')
		return 0;
	if (ls[0] == '\t')
		return frame_line(t, ls, p, le, line, loff);
	return fields_line(t, ls, p, le, line, loff);
}

int hwp__text_input_next(struct hwp_text_input *t, const uint8_t **rec, uint32_t *size,
			 uint64_t *text_offset)
{
	int r;

	if (t->err)
		return t->err;
	if (t->pending) {
		t->pending = false;
		*rec = t->rec;
		*size = t->pending_size;
		*text_offset = t->pending_off;
		return 1;
	}
	while (t->pos < t->len) {
		const char *ls = (const char *)t->buf + t->pos;
		const char *nl = memchr(ls, '\n', t->len - t->pos);
		const char *le = nl ? nl : (const char *)t->buf + t->len;
		uint64_t line = t->line;

		t->pos = nl ? (size_t)(nl + 1 - (const char *)t->buf) : t->len;
		t->line++;
		r = one_line(t, ls, le, line);
		if (r < 0)
			return r;
		if (r > 0) {
			*rec = t->out;
			*size = t->out_size;
			*text_offset = t->out_off;
			return 1;
		}
	}
	if (t->state == ST_FRAMES)
		return ti_error(t, EINVAL, t->s_line, t->s_off,
				"the callchain of the sample starting here is not followed by a branch stack line (truncated text?)");
	return 0;
}

/* ------------------------------------------------------------------------ */
/* sniffing and setup */

/* "0x<hex>/0x<hex>" at P */
static bool entry_at(const char *p, const char *e)
{
	const char *q = p;
	uint64_t v;

	if (e - q < 2 || q[0] != '0' || (q[1] | 0x20) != 'x')
		return false;
	q += 2;
	if (scan_hex(&q, e, &v) <= 0 || q >= e || *q != '/')
		return false;
	q++;
	if (e - q < 2 || q[0] != '0' || (q[1] | 0x20) != 'x')
		return false;
	q += 2;
	return scan_hex(&q, e, &v) > 0;
}

/* only white space and one hex number (after P) */
static bool lone_hex(const char *p, const char *e)
{
	uint64_t v;

	while (p < e && is_ws(*p))
		p++;
	if (scan_hex(&p, e, &v) <= 0)
		return false;
	while (p < e && is_ws(*p))
		p++;
	return p == e;
}

bool hwp__text_input_looks_like(const uint8_t *buf, size_t len)
{
	const char *s = (const char *)buf;
	const char *end = s + (len < TI_SNIFF_LEN ? len : TI_SNIFF_LEN);
	const char *ls = s;
	int meaningful = 0;

	if (!buf || len == 0 || memchr(s, 0, (size_t)(end - s)))
		return false;
	/* perf.data magics (PERFILE2, its byte swap, version 1) are never text */
	if ((len >= 7 && memcmp(s, "PERFILE", 7) == 0) || (len >= 8 && memcmp(s, "PERFFILE", 8) == 0) ||
	    (len >= 8 && memcmp(s, "2ELIFREP", 8) == 0))
		return false;
	while (ls < end && meaningful < 32) {
		const char *nl = memchr(ls, '\n', (size_t)(end - ls));
		const char *le = nl ? nl : end;
		const char *p = ls;

		while (p < le && is_ws(*p))
			p++;
		if (p < le && ls[0] != '#' && ls[0] != ';') {
			meaningful++;
			if (ls[0] == '\t' && lone_hex(p, tok_end(p, le)))
				return true;
			if (ls[0] == ' ' && lone_hex(p, le))
				return true;
			for (const char *q = p; q < le; q++) {
				if (*q == '0' && (q == ls || is_ws(q[-1])) && entry_at(q, le))
					return true;
				if (*q == 'P' && le - q >= 12 && memcmp(q, "PERF_RECORD_", 12) == 0)
					return true;
			}
		}
		ls = le + 1;
	}
	return false;
}

/* callchain: a line starting with a tab in the first MiB. type_save: the
   first line with branch entries names a branch type. */
static void prescan(struct hwp_text_input *t, bool *callchain, bool *type_save)
{
	const char *s = (const char *)t->buf;
	const char *end = s + (t->len < TI_PRESCAN_LEN ? t->len : TI_PRESCAN_LEN);
	const char *ls = s;
	bool seen_entries = false;

	*callchain = false;
	*type_save = false;
	while (ls < end) {
		const char *nl = memchr(ls, '\n', (size_t)(end - ls));
		const char *le = nl ? nl : end;

		if (ls < le && ls[0] == '\t') {
			*callchain = true;
			if (seen_entries)
				return;
		} else if (!seen_entries && ls < le && ls[0] != '#' && ls[0] != ';') {
			const char *p = ls;

			while (p < le) {
				while (p < le && is_ws(*p))
					p++;
				if (p < le && p[0] == '0') {
					uint64_t v[3];
					const char *ep, *why, *errp;

					if (parse_entry(p, le, v, &ep, &why, &errp) > 0) {
						seen_entries = true;
						if ((v[2] >> HWP_BRF_TYPE_SHIFT) & 0xf)
							*type_save = true;
						p = ep;
						continue;
					}
				}
				p = tok_end(p, le);
			}
			if (seen_entries && *callchain)
				return;
		}
		ls = le + 1;
	}
}

struct hwp_text_input *hwp__text_input_new(const uint8_t *buf, size_t len, const char *name)
{
	struct hwp_text_input *t;
	bool type_save;

	if (!buf && len) {
		hwp__set_error(EINVAL, "%s: no text buffer", name ? name : "text");
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		goto nomem;
	t->buf = buf;
	t->len = len;
	t->line = 1;
	t->name = strdup(name ? name : "text");
	t->rec = malloc(TI_BUF_SIZE);
	t->aux = malloc(TI_BUF_SIZE);
	if (!t->name || !t->rec || !t->aux)
		goto nomem;
	reset_sample(t);
	prescan(t, &t->callchain, &type_save);

	t->attr.type = 0; /* PERF_TYPE_HARDWARE */
	t->attr.config = 0; /* cycles: perf script text does not say */
	t->attr.size = HWP_ATTR_SIZE_VER7;
	t->attr.sample_period = 1;
	t->attr.sample_type = HWP_SAMPLE_IP | HWP_SAMPLE_TID | HWP_SAMPLE_BRANCH_STACK |
			      (t->callchain ? HWP_SAMPLE_CALLCHAIN : 0);
	t->attr.branch_sample_type = HWP_BRANCH_ANY | (type_save ? HWP_BRANCH_TYPE_SAVE : 0);
	t->attr.flags = 0; /* sample_id_all 0: side-band records carry no id trailer */
	return t;

nomem:
	hwp__text_input_delete(t);
	hwp__set_error(ENOMEM, "%s: out of memory for the text reader", name ? name : "text");
	return NULL;
}

void hwp__text_input_delete(struct hwp_text_input *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->rec);
	free(t->aux);
	free(t->comms);
	hwp__hashmap_free(&t->comm_map);
	free(t);
}

const struct hwp_attr *hwp__text_input_attr(const struct hwp_text_input *t)
{
	return &t->attr;
}
