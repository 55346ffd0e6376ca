/* SPDX-License-Identifier: MIT */
/*
 * hwprof/cs_profile.h: the samples with a call chain and a branch stack,
 * read as llvm-profgen reads them from perf script (hybrid samples), each
 * distinct one counted once, then unwound (cs_unwind.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decode/insn_starts.h"
#include "export/cs_binary.h"
#include "export/cs_context.h"
#include "export/cs_unwind.h"
#include "hwprof/cs_profile.h"
#include "hwprof/perf_abi.h"
#include "hwprof/perf_data.h"
#include "hwprof/session.h"
#include "hwprof/symbolize.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

/* perf script prints at most kernel.perf_event_max_stack (127 by default)
   frames of a call chain: llvm-profgen sees no more */
#define MAX_STACK 127

/* A distinct sample: words [off, off + len) of the arena, nstack frames
   then the branch entries' (src, dst) pairs. */
struct agg {
	size_t off, len, nstack;
	uint64_t count;
};

struct reader {
	struct hwp_session *s;
	const struct hwp__cs_binary *bin;
	struct stat st;      /* the binary's, to know its module */
	int8_t *is_bin;      /* per module: 0 not known yet, 1 the binary, -1 another */
	size_t nis;
	uint64_t *arena;     /* the distinct samples' words */
	size_t narena, carena;
	uint64_t *buf;       /* the sample being read */
	size_t cbuf;
	struct agg *aggs;
	size_t naggs, caggs;
	struct hwp_hashmap map;
	uint64_t samples, hybrid, kept;
};

static bool module_is_binary(struct reader *r, int m)
{
	if (m < 0)
		return false;
	if ((size_t)m >= r->nis) {
		size_t n = (size_t)m + 16;
		int8_t *p = realloc(r->is_bin, n);

		if (!p)
			return false;
		memset(p + r->nis, 0, n - r->nis);
		r->is_bin = p;
		r->nis = n;
	}
	if (!r->is_bin[m]) {
		struct hwp_symbolizer *sym = hwp_session__symbolizer(r->s);
		const char *path = sym ? hwp_symbolizer__module_file(sym, m) : NULL;
		struct stat st;

		r->is_bin[m] = path && !stat(path, &st) && st.st_dev == r->st.st_dev && st.st_ino == r->st.st_ino
				       ? 1 : -1;
	}
	return r->is_bin[m] > 0;
}

/* ADDR's link-time address in the binary when an instruction starts
   there, else the external address. */
static uint64_t canonical(struct reader *r, const struct hwp_thread *th, unsigned slot, uint64_t addr)
{
	struct hwp_code_loc loc;
	uint64_t va;

	if (hwp_session__resolve(r->s, th, addr, slot, &loc) < 0 || !module_is_binary(r, loc.module) ||
	    hwp__code_file_offset_to_vaddr(r->bin->file, loc.offset, &va) ||
	    !hwp__cs_binary_is_code(r->bin, va))
		return HWP__CS_EXTERNAL;
	return va;
}

static int room(struct reader *r, size_t n)
{
	return HWP_VEC_RESERVE(r->buf, r->cbuf, n) ? -ENOMEM : 0;
}

/* The call stack as llvm-profgen's extractCallstack() reads it into
   R->buf; its length, or 0 when the sample is dropped. */
static size_t read_stack(struct reader *r, const struct hwp_sample *s, const struct hwp_thread *th, int *err)
{
	size_t n = 0, seen = 0;

	for (uint64_t i = 0; i < s->callchain_nr && seen < MAX_STACK; i++) {
		uint64_t ip = hwp_sample__callchain_ip(s, i), a;

		if (ip >= HWP_CONTEXT_MAX)
			continue; /* a context marker: perf script prints none */
		seen++;
		a = canonical(r, th, 0, ip);
		if ((*err = room(r, n + 1)))
			return 0;
		if (a == HWP__CS_EXTERNAL) {
			if (!n || r->buf[n - 1] != HWP__CS_EXTERNAL)
				r->buf[n++] = HWP__CS_EXTERNAL;
			continue;
		}
		if (n && !(a = hwp__cs_binary_call_before(r->bin, a)))
			break; /* not after a call: the stack stops there */
		r->buf[n++] = a;
	}
	if (n > 1 && r->buf[n - 1] == HWP__CS_EXTERNAL)
		n--;
	/* a sample in a prolog or an epilog may miss its caller's frame */
	if (!n || hwp__cs_binary_in_prolog_epilog(r->bin, r->buf[0]))
		return 0;
	return n;
}

static int add_sample(void *ctx, const struct hwp_event *ev, const struct hwp_thread *th)
{
	struct reader *r = ctx;
	const struct hwp_sample *s = &ev->sample;
	size_t n, len;
	int err = 0;

	r->samples++;
	if (!(s->sample_type & HWP_SAMPLE_CALLCHAIN) || !(s->sample_type & HWP_SAMPLE_BRANCH_STACK) ||
	    !s->callchain_nr || !s->branch_nr)
		return 0;
	if (ev->evsel && (ev->evsel->attr.branch_sample_type & HWP_BRANCH_CALL_STACK))
		return hwp__set_error(EINVAL, "%s: branch stacks recorded in LBR call-stack mode are call chains, "
				      "not sequences of branches", hwp_session__path(r->s));
	r->hybrid++;
	if (!(n = read_stack(r, s, th, &err)))
		return err ? hwp__set_error(ENOMEM, "out of memory reading samples") : 0;
	len = n;
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		struct hwp_branch_entry e;
		uint64_t src, dst;

		hwp_sample__branch(s, i, &e);
		src = canonical(r, th, 1, e.from);
		dst = canonical(r, th, 2, e.to);
		if (src == HWP__CS_EXTERNAL && dst == HWP__CS_EXTERNAL)
			continue;
		if (room(r, len + 2))
			return hwp__set_error(ENOMEM, "out of memory reading samples");
		r->buf[len++] = src;
		r->buf[len++] = dst;
	}
	if (len == n)
		return 0; /* no branch of the binary */
	r->buf[0] = r->buf[n + 1]; /* the leaf: the newest branch's target */
	r->kept++;
	uint64_t h = hwp__hash_bytes(r->buf, len * sizeof(*r->buf)) ^ n;
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&r->map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (r->aggs[i].len == len && r->aggs[i].nstack == n &&
		    !memcmp(r->arena + r->aggs[i].off, r->buf, len * sizeof(*r->buf))) {
			r->aggs[i].count++;
			return 0;
		}
	struct agg *a = HWP_VEC_PUSH(r->aggs, r->naggs, r->caggs);
	if (!a || HWP_VEC_RESERVE(r->arena, r->carena, r->narena + len) ||
	    hwp__hashmap_add(&r->map, h, r->naggs - 1) < 0)
		return hwp__set_error(ENOMEM, "out of memory reading samples");
	*a = (struct agg){ r->narena, len, n, 1 };
	memcpy(r->arena + r->narena, r->buf, len * sizeof(*r->buf));
	r->narena += len;
	return 0;
}

static int unwind_all(struct reader *r, struct hwp__cs_contexts *cs)
{
	struct hwp__cs_unwinder *u = hwp__cs_unwinder_new(r->bin, cs);
	int err = 0;

	if (!u)
		return -ENOMEM;
	for (size_t i = 0; i < r->naggs && !err; i++) {
		const struct agg *a = &r->aggs[i];
		const uint64_t *w = r->arena + a->off;

		err = hwp__cs_unwind(u, w, a->nstack, (const struct hwp__cs_lbr *)(const void *)(w + a->nstack),
				     (a->len - a->nstack) / 2, a->count);
	}
	hwp__cs_unwinder_free(u);
	if (!err)
		hwp__cs_contexts_finish(cs);
	return err;
}

int hwp_cs_profile__write(const char *const *inputs, size_t n, const char *binary, const struct hwp_cs_opts *o,
			  FILE *fp)
{
	struct hwp_session_opts so = { .sz = sizeof(so), .symfs = o ? o->symfs : NULL };
	struct reader r = { 0 };
	struct hwp__cs_binary *bin = NULL;
	struct hwp__cs_contexts cs = { 0 };
	int err;

	if (o && o->format != HWP_CS_FORMAT_UNSYMBOLIZED && o->format != HWP_CS_FORMAT_PROBES_FLAT &&
	    o->format != HWP_CS_FORMAT_PROBES_NESTED && o->format != HWP_CS_FORMAT_PROBES)
		return hwp__set_error(EINVAL, "hwp_cs_profile__write: unknown format %d", (int)o->format);
	if (stat(binary, &r.st))
		return hwp__set_error(ENOENT, "%s: %s", binary, strerror(errno));
	if ((err = hwp__cs_binary_load(binary, &bin)))
		return err;
	r.bin = bin;
	if (!(r.s = hwp_session__open_inputs(inputs, n, &so))) {
		err = -errno;
		goto out;
	}
	struct hwp_session_handler h = { .sz = sizeof(h), .ctx = &r, .sample = add_sample };
	if ((err = hwp_session__process(r.s, &h)) < 0)
		goto out;
	if (!r.hybrid) {
		err = hwp__set_error(EINVAL, "%s: no sample carries both a call chain and a branch stack "
				     "(a context-sensitive profile needs the two recorded together)", hwp_session__path(r.s));
		goto out;
	}
	if ((err = unwind_all(&r, &cs)))
		goto out;
	if (o && o->format == HWP_CS_FORMAT_PROBES_FLAT)
		err = hwp__cs_write_probe_profile(&cs, bin, binary, HWP__CS_FLAT, fp);
	else if (o && o->format == HWP_CS_FORMAT_PROBES_NESTED)
		err = hwp__cs_write_probe_profile(&cs, bin, binary, HWP__CS_NESTED_MERGED, fp);
	else if (o && o->format == HWP_CS_FORMAT_PROBES)
		err = hwp__cs_write_probe_profile(&cs, bin, binary, HWP__CS_PREINLINED, fp);
	else
		err = hwp__cs_contexts_write(&cs, bin->base, fp);
	if (err)
		goto out;
	if (fflush(fp) || ferror(fp))
		err = hwp__set_error(EIO, "writing the profile: %s", strerror(errno ? errno : EIO));
out:
	hwp__cs_contexts_free(&cs);
	hwp_session__delete(r.s);
	hwp__cs_binary_free(bin);
	free(r.is_bin);
	free(r.arena);
	free(r.buf);
	free(r.aggs);
	hwp__hashmap_free(&r.map);
	return err;
}
