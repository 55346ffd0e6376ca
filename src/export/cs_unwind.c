/* SPDX-License-Identifier: MIT */
/* llvm-profgen's virtual unwinder (cs_unwind.h), for probe-based profiles. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/cs_binary.h"
#include "export/cs_unwind.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/vec.h"

#define NONE UINT32_MAX

/* A node of one sample's frame trie: frame 0 is the root (no frame). */
struct frame {
	uint64_t addr;
	uint32_t parent, kid, next;
	int64_t ctx; /* its context's index, -1 until needed */
};

/* A range or a branch counted on a frame. */
struct rec {
	uint32_t frame;
	bool branch;
	uint64_t a, b;
};

struct hwp__cs_unwinder {
	const struct hwp__cs_binary *bin;
	struct hwp__cs_contexts *out;
	struct frame *f;
	size_t nf, cf;
	struct rec *r;
	size_t nr, cr;
	uint64_t *path;
	size_t cpath;
	/* the state: the leaf frame, the instruction it is at, whether the
	   branch stack stopped agreeing with the call stack */
	uint32_t cur;
	uint64_t ip;
	bool invalid;
};

struct hwp__cs_unwinder *hwp__cs_unwinder_new(const struct hwp__cs_binary *b, struct hwp__cs_contexts *out)
{
	struct hwp__cs_unwinder *u = calloc(1, sizeof(*u));

	if (!u) {
		hwp__set_error(ENOMEM, "out of memory unwinding samples");
		return NULL;
	}
	u->bin = b;
	u->out = out;
	return u;
}

void hwp__cs_unwinder_free(struct hwp__cs_unwinder *u)
{
	if (!u)
		return;
	free(u->f);
	free(u->r);
	free(u->path);
	free(u);
}

/* The child of PARENT at ADDR, made when new; NONE when out of memory. */
static uint32_t child(struct hwp__cs_unwinder *u, uint32_t parent, uint64_t addr)
{
	struct frame *f;

	for (uint32_t k = u->f[parent].kid; k != NONE; k = u->f[k].next)
		if (u->f[k].addr == addr)
			return k;
	if (u->nf >= NONE - 1 || !(f = HWP_VEC_PUSH(u->f, u->nf, u->cf)))
		return NONE;
	*f = (struct frame){ addr, parent, NONE, u->f[parent].kid, -1 };
	u->f[parent].kid = (uint32_t)(u->nf - 1);
	return (uint32_t)(u->nf - 1);
}

static uint32_t parent_of(const struct hwp__cs_unwinder *u, uint32_t k)
{
	return k ? u->f[k].parent : 0;
}

static int push_frame(struct hwp__cs_unwinder *u, uint64_t addr)
{
	uint32_t k = child(u, u->cur, addr);

	if (k == NONE)
		return -ENOMEM;
	u->cur = k;
	return 0;
}

/* The leaf becomes a sibling frame at ADDR (the same frame when it is at ADDR). */
static int switch_frame(struct hwp__cs_unwinder *u, uint64_t addr)
{
	if (u->f[u->cur].addr == addr)
		return 0;
	uint32_t k = child(u, parent_of(u, u->cur), addr);

	if (k == NONE)
		return -ENOMEM;
	u->cur = k;
	return 0;
}

static int record(struct hwp__cs_unwinder *u, uint32_t frame, bool branch, uint64_t a, uint64_t b)
{
	struct rec *r;

	if (!branch && a > b)
		return 0;
	if (!(r = HWP_VEC_PUSH(u->r, u->nr, u->cr)))
		return -ENOMEM;
	*r = (struct rec){ frame, branch, a, b };
	return 0;
}

/* The fall-through range from entry I's target to the leaf's instruction,
   counted on the leaf's parent; a range that cannot have run straight
   (backwards, across a call, return or jump, one end outside the binary)
   makes the rest of the stack invalid. */
static int linear(struct hwp__cs_unwinder *u, const struct hwp__cs_lbr *e)
{
	uint64_t target = e->dst, end = u->ip;

	if (end == HWP__CS_EXTERNAL && target == HWP__CS_EXTERNAL)
		return 0; /* it ran outside and came back: nothing of ours ran */
	if (end == HWP__CS_EXTERNAL || target == HWP__CS_EXTERNAL || target > end ||
	    (target < end && hwp__cs_binary_crosses(u->bin, target, end))) {
		u->invalid = true;
		return 0;
	}
	return record(u, parent_of(u, u->cur), false, target, end);
}

static int unwind_entry(struct hwp__cs_unwinder *u, const struct hwp__cs_lbr *e)
{
	const struct hwp__cs_binary *b = u->bin;
	uint64_t call_of_target = e->src == HWP__CS_EXTERNAL ? hwp__cs_binary_call_before(b, e->dst) : 0;
	int err = 0;

	if (u->invalid) {
		/* the rest counts without the stack */
		u->cur = 0;
		u->ip = e->src;
		return push_frame(u, e->src);
	}
	if (hwp__cs_binary_is_call(b, e->src) || (e->src == HWP__CS_EXTERNAL && !call_of_target)) {
		/* a call: back in the caller, whose frame is the parent, else
		   (a sample in a prolog or epilog, an external caller) the leaf
		   moves to the call */
		uint32_t p = parent_of(u, u->cur);

		if (!p || u->f[p].addr != e->src)
			err = switch_frame(u, e->src);
		else
			u->cur = p;
		u->ip = e->src;
		return err;
	}
	if (hwp__cs_binary_is_return(b, e->src) || (e->src == HWP__CS_EXTERNAL && call_of_target)) {
		/* a return: the returning function's frame comes back under the call */
		uint64_t call = hwp__cs_binary_call_before(b, e->dst);

		if ((err = switch_frame(u, call)) || (err = push_frame(u, e->src)))
			return err;
		u->ip = e->src;
		return 0;
	}
	err = switch_frame(u, e->src); /* a branch within the function */
	u->ip = e->src;
	return err;
}

static int by_pair(const void *x, const void *y)
{
	const struct hwp__cs_count *p = x, *q = y;

	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return p->b < q->b ? -1 : p->b > q->b;
}

/* llvm-profgen's compressRecursionContext() without a size limit: for each
   length from 1 up, adjacent repeats of a sequence of that length are kept
   once, scanning left to right with its sliding window (the same window,
   so that the same sequences go). Returns the new length. */
size_t hwp__cs_compress(uint64_t *c, size_t n)
{
	size_t max = n / 2;

	for (size_t len = 1; len <= max; len++) {
		ptrdiff_t right = (ptrdiff_t)len - 1, lb = 0, l = (ptrdiff_t)len;
		size_t end = len;

		while ((size_t)(right + l) < n) {
			ptrdiff_t left = right;

			while (left >= lb && c[left] == c[left + l])
				left--;
			bool dup = left < lb;

			lb = right + 1;
			if (dup) {
				right += l;
			} else {
				memmove(c + end, c + right + 1, (size_t)(left + l - right) * sizeof(*c));
				end += (size_t)(left + l - right);
				right = left + l;
			}
		}
		memmove(c + end, c + right + 1, (n - (size_t)right - 1) * sizeof(*c));
		end += n - (size_t)right - 1;
		n = end;
		if (max > n / 2)
			max = n / 2;
	}
	return n;
}

static uint64_t sites_hash(const uint64_t *s, size_t n)
{
	return hwp__hash_bytes(s, n * sizeof(*s)) ^ n;
}

/* The context of frame K: the call sites from the root (or from below the
   nearest external frame) down to K; none for an external frame. */
static int64_t context_of(struct hwp__cs_unwinder *u, uint32_t k)
{
	struct hwp__cs_contexts *cs = u->out;
	size_t n = 0;

	if (u->f[k].ctx >= 0)
		return u->f[k].ctx;
	for (uint32_t j = k; j && u->f[j].addr != HWP__CS_EXTERNAL; j = u->f[j].parent) {
		if (!u->f[j].addr)
			continue; /* a return to no call's address: no frame */
		if (HWP_VEC_RESERVE(u->path, u->cpath, n + 1))
			return -ENOMEM;
		u->path[n++] = u->f[j].addr;
	}
	for (size_t i = 0; i < n / 2; i++) {
		uint64_t t = u->path[i];

		u->path[i] = u->path[n - 1 - i];
		u->path[n - 1 - i] = t;
	}
	n = hwp__cs_compress(u->path, n);
	uint64_t h = sites_hash(u->path, n);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&cs->map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (cs->v[i].nsites == n && (!n || !memcmp(cs->v[i].sites, u->path, n * sizeof(*u->path))))
			return u->f[k].ctx = i;
	struct hwp__cs_context *c = HWP_VEC_PUSH(cs->v, cs->n, cs->cap);
	if (!c)
		return -ENOMEM;
	if ((n && !(c->sites = malloc(n * sizeof(*c->sites)))) || hwp__hashmap_add(&cs->map, h, cs->n - 1) < 0) {
		free(c->sites);
		cs->n--;
		return -ENOMEM;
	}
	if (n)
		memcpy(c->sites, u->path, n * sizeof(*c->sites));
	c->nsites = n;
	return u->f[k].ctx = (int64_t)(cs->n - 1);
}

/* Every record of the sample into its frame's context. */
static int collect(struct hwp__cs_unwinder *u, uint64_t count)
{
	for (size_t i = 0; i < u->nr; i++) {
		const struct rec *r = &u->r[i];
		int64_t ci = context_of(u, r->frame);
		struct hwp__cs_count *p;

		if (ci < 0)
			return (int)ci;
		struct hwp__cs_context *c = &u->out->v[ci];
		p = r->branch ? HWP_VEC_PUSH(c->branches, c->nbranches, c->cbranches)
			      : HWP_VEC_PUSH(c->ranges, c->nranges, c->cranges);
		if (!p)
			return -ENOMEM;
		*p = (struct hwp__cs_count){ r->a, r->b, count };
	}
	return 0;
}

/* Sorts and merges C's counts once they grow past a bound, so that memory
   follows the distinct ranges, not the samples. */
static void merge(struct hwp__cs_count *v, size_t *n)
{
	size_t m = 0;

	hwp__sort(v, *n, sizeof(*v), by_pair);
	for (size_t i = 0; i < *n; i++) {
		if (m && v[i].a == v[m - 1].a && v[i].b == v[m - 1].b)
			v[m - 1].count += v[i].count;
		else
			v[m++] = v[i];
	}
	*n = m;
}

static int unwind(struct hwp__cs_unwinder *u, const uint64_t *stack, size_t nstack, const struct hwp__cs_lbr *lbr,
		  size_t nlbr, uint64_t count)
{
	int err;

	u->nr = 0;
	u->nf = 0;
	if (!HWP_VEC_PUSH(u->f, u->nf, u->cf))
		return -ENOMEM;
	u->f[0] = (struct frame){ 0, 0, NONE, NONE, -1 };
	u->cur = 0;
	u->invalid = false;
	for (size_t i = nstack; i-- > 0;)
		if ((err = push_frame(u, stack[i])))
			return err;
	u->ip = stack[0];
	for (size_t i = 0; i < nlbr; i++) {
		const struct hwp__cs_lbr *e = &lbr[i];

		/* the newest range (to the sample) is incomplete: not counted */
		if ((i && (err = linear(u, e))) || (err = unwind_entry(u, e)))
			return err;
		if (e->dst == HWP__CS_EXTERNAL)
			continue;
		/* a branch from outside: at the root, for head samples */
		if ((err = record(u, e->src == HWP__CS_EXTERNAL ? 0 : parent_of(u, u->cur), true, e->src, e->dst)))
			return err;
	}
	return collect(u, count);
}

int hwp__cs_unwind(struct hwp__cs_unwinder *u, const uint64_t *stack, size_t nstack, const struct hwp__cs_lbr *lbr,
		   size_t nlbr, uint64_t count)
{
	int err;

	if (!nstack || !nlbr)
		return 0;
	if ((err = unwind(u, stack, nstack, lbr, nlbr, count)))
		return hwp__set_error(ENOMEM, "out of memory unwinding samples");
	/* keep each context's counts merged as they grow */
	for (size_t i = 0; i < u->nr; i++) {
		struct hwp__cs_context *c = &u->out->v[u->f[u->r[i].frame].ctx];

		if (c->nranges >= 1024 && c->nranges >= 2 * c->rmerged) {
			merge(c->ranges, &c->nranges);
			c->rmerged = c->nranges;
		}
		if (c->nbranches >= 1024 && c->nbranches >= 2 * c->bmerged) {
			merge(c->branches, &c->nbranches);
			c->bmerged = c->nbranches;
		}
	}
	return 0;
}

void hwp__cs_contexts_finish(struct hwp__cs_contexts *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		merge(cs->v[i].ranges, &cs->v[i].nranges);
		merge(cs->v[i].branches, &cs->v[i].nbranches);
	}
}

void hwp__cs_contexts_free(struct hwp__cs_contexts *cs)
{
	for (size_t i = 0; i < cs->n; i++) {
		free(cs->v[i].sites);
		free(cs->v[i].ranges);
		free(cs->v[i].branches);
	}
	free(cs->v);
	hwp__hashmap_free(&cs->map);
	memset(cs, 0, sizeof(*cs));
}

struct keyed {
	char *text;
	size_t i;
};

static int by_text(const void *x, const void *y)
{
	return strcmp(((const struct keyed *)x)->text, ((const struct keyed *)y)->text);
}

/* "0x250 @ 0x1da": the context's sites less BASE. */
static char *context_text(const struct hwp__cs_context *c, uint64_t base)
{
	size_t size = c->nsites * 22 + 1;
	char *s = malloc(size), *p = s;

	if (!s)
		return NULL;
	*s = 0;
	for (size_t i = 0; i < c->nsites; i++)
		p += snprintf(p, size - (size_t)(p - s), "%s0x%" PRIx64, i ? " @ " : "", c->sites[i] - base);
	return s;
}

static void write_counts(FILE *fp, const struct hwp__cs_count *v, size_t n, const char *sep, uint64_t base)
{
	fprintf(fp, "  %zu\n", n);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "  %" PRIx64 "%s%" PRIx64 ":%" PRIu64 "\n", v[i].a - base, sep, v[i].b - base, v[i].count);
}

int hwp__cs_contexts_write(struct hwp__cs_contexts *cs, uint64_t base, FILE *fp)
{
	struct keyed *k = calloc(cs->n ? cs->n : 1, sizeof(*k));
	int err = 0;

	if (!k)
		return hwp__set_error(ENOMEM, "out of memory writing the profile");
	for (size_t i = 0; i < cs->n && !err; i++) {
		k[i].i = i;
		if (!(k[i].text = context_text(&cs->v[i], base)))
			err = hwp__set_error(ENOMEM, "out of memory writing the profile");
	}
	if (!err) {
		hwp__sort(k, cs->n, sizeof(*k), by_text);
		for (size_t i = 0; i < cs->n; i++) {
			const struct hwp__cs_context *c = &cs->v[k[i].i];

			fprintf(fp, "[%s]\n", k[i].text);
			write_counts(fp, c->ranges, c->nranges, "-", base);
			write_counts(fp, c->branches, c->nbranches, "->", base);
		}
	}
	for (size_t i = 0; i < cs->n; i++)
		free(k[i].text);
	free(k);
	return err;
}
