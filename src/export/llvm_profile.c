/* SPDX-License-Identifier: MIT */
/*
 * LLVM sample profile text (llvm_profile.h). Three steps:
 *  1. instruction counts: every accepted range of the module is walked
 *     (the collector's decode cache) and its count added to each of its
 *     instructions -- what llvm-profgen's disjoint ranges amount to;
 *  2. each counted instruction's frames (dwarf_frames.h) place it in a
 *     tree: top-level function -> inlined call sites -> ...; totals add
 *     count x bytes on every level (llvm-profgen counts bytes, not
 *     instructions), the leaf's location keeps the largest count;
 *  3. taken calls inside the module add head samples to the callee (when
 *     the target is its entry) and a call target at the call's location.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "decode/code_cache.h"
#include "decode/insn_starts.h"
#include "export/dwarf_frames.h"
#include "export/pseudo_probe.h"
#include "export/profile_sum.h"
#include "hwprof/llvm_profile.h"
#include "hwprof/symbolize.h"
#include "util/error.h"
#include "util/md5.h"
#include "util/vec.h"

#define MAX_FRAMES 64

struct target {
	const char *callee;
	uint64_t count;
};

struct body {
	uint32_t off, disc;
	uint64_t count;
	struct target *t;
	size_t nt, ct;
};

struct node {
	const char *name;
	uint64_t checksum; /* probe profiles: the function's CFG hash */
	uint32_t off, disc; /* call site in the parent (inlined nodes) */
	uint64_t total, head;
	uint64_t samples; /* top-level, IP samples: the samples in it (no duplication factor) */
	struct body *b;
	size_t nb, cb;
	struct node **kids;
	size_t nk, ck;
};

struct insn_count {
	uint64_t offset, count;
	uint8_t len;
};

struct ctx {
	struct hwp_symbolizer *s;
	struct hwp__code_cache *cc;
	struct hwp__dwarf_frames *df;
	int module;
	uint64_t count; /* of the range being walked */
	uint64_t limit; /* instructions at or after this offset are not the walk's */
	const char **fn_seen; /* names of the functions given zero counts */
	struct hwp__code_file *file; /* the binary's segments: addresses to offsets */
	size_t nfn, cfn;
	struct insn_count *ic;
	size_t nic, cic;
	struct node **top;
	size_t ntop, ctop;
	struct node *last; /* top-level lookups come in address order: mostly the same function */
	uint64_t weight, no_lines; /* sampled instruction counts: all, without debug info */
	bool ips; /* from IP samples: counts are samples, not executions */
	uint64_t *seen; /* IP samples: starts of the function parts given zero counts */
	size_t nseen, cseen;
	uint64_t samples; /* IP samples in the module */
	struct hwp__pseudo_probes *pp; /* probe profiles: the binary's probes */
	char **probe_names; /* NUL-terminated copies of the descriptors' names */
	struct ctx *owner; /* keeps callees for the trees merged into it (NULL: itself) */
	char **callees; /* canonical callee names made here */
	size_t ncallees, ccallees;
	int probe_err; /* why probe_node() failed when not for memory */
	uint64_t *profiled; /* GUIDs of the functions a range or branch touches, sorted */
	size_t nprofiled, cprofiled;
};

static int nomem(void)
{
	return hwp__set_error(ENOMEM, "out of memory writing an LLVM sample profile");
}

/*
 * LLVM's discriminator (DILocation) packs three fields, lowest first: the
 * base discriminator, a duplication factor (how many copies unrolling or
 * vectorizing made of the block) and a copy id. Each is prefix-coded:
 * bit 0 set means "0" and the field takes that one bit; else the next 6
 * bits hold it (5 bits of value), or 13 (12 bits: bit 5 of the first six
 * says "long form", and bit 6 of those 13 is skipped).
 */
static uint32_t field_value(uint32_t d)
{
	if (d & 1)
		return 0;
	d >>= 1;
	if (d & 0x20)
		return ((d >> 1) & 0xfe0) | (d & 0x1f);
	return d & 0x1f;
}

static uint32_t next_field(uint32_t d)
{
	if (d & 1)
		return d >> 1;
	return d >> ((d & 0x40) ? 14 : 7);
}

/* What the profile keys a location by: the base discriminator only. */
static uint32_t base_discriminator(uint32_t d)
{
	return field_value(d);
}

/* The copies of one source block each count only their own executions:
   llvm-profgen multiplies an instruction's count by its duplication factor
   before taking the largest count of the location (so an unrolled loop
   body's line gets its iterations, not a copy's). */
static uint32_t duplication_factor(uint32_t d)
{
	uint32_t f = field_value(next_field(d));

	return f ? f : 1;
}

static struct node *node_new(const char *name, uint32_t off, uint32_t disc)
{
	struct node *n = calloc(1, sizeof(*n));

	if (n)
		*n = (struct node){ .name = name, .off = off, .disc = disc };
	return n;
}

static void node_free(struct node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nb; i++)
		free(n->b[i].t);
	free(n->b);
	for (size_t i = 0; i < n->nk; i++)
		node_free(n->kids[i]);
	free(n->kids);
	free(n);
}

static struct node *top_get(struct ctx *x, const char *name)
{
	struct node *n, **p;

	if (x->last && !strcmp(x->last->name, name))
		return x->last;
	for (size_t i = 0; i < x->ntop; i++)
		if (!strcmp(x->top[i]->name, name))
			return x->last = x->top[i];
	if (!(n = node_new(name, 0, 0)) || !(p = HWP_VEC_PUSH(x->top, x->ntop, x->ctop))) {
		free(n);
		return NULL;
	}
	return x->last = *p = n;
}

static struct node *kid_get(struct node *parent, uint32_t off, uint32_t disc, const char *name)
{
	struct node *n, **p;

	for (size_t i = 0; i < parent->nk; i++) {
		n = parent->kids[i];
		if (n->off == off && n->disc == disc && !strcmp(n->name, name))
			return n;
	}
	if (!(n = node_new(name, off, disc)) || !(p = HWP_VEC_PUSH(parent->kids, parent->nk, parent->ck))) {
		free(n);
		return NULL;
	}
	return *p = n;
}

static struct body *body_get(struct node *n, uint32_t off, uint32_t disc)
{
	struct body *b;

	for (size_t i = 0; i < n->nb; i++)
		if (n->b[i].off == off && n->b[i].disc == disc)
			return &n->b[i];
	if (!(b = HWP_VEC_PUSH(n->b, n->nb, n->cb)))
		return NULL;
	*b = (struct body){ .off = off, .disc = disc };
	return b;
}

/* LLVM keeps line offsets in 16 bits (clang matches "line - start line"
   masked so): a line before the function's start (line 0 of compiler-made
   code) wraps to 65536 - n, as in llvm-profgen's output. */
static uint32_t line_offset(const struct hwp__src_frame *f)
{
	return (uint32_t)(f->line - f->decl_line) & 0xffff;
}

/* The node of the leaf frame of FR[0..N), made on the way; each level's
   total gets ADD_TOTAL. */
static struct node *leaf_node(struct ctx *x, const struct hwp__src_frame *fr, size_t n, uint64_t add_total)
{
	struct node *nd = top_get(x, fr[0].name);

	for (size_t i = 0; nd; i++) {
		nd->total += add_total;
		if (i + 1 == n)
			return nd;
		nd = kid_get(nd, line_offset(&fr[i]), base_discriminator(fr[i].discriminator), fr[i + 1].name);
	}
	return NULL;
}

static int on_insn(void *ctx, const struct hwp__insn *in)
{
	struct ctx *x = ctx;
	struct insn_count *p;

	if (in->offset >= x->limit)
		return 0; /* walking a function to its end steps over it once */
	if (!(p = HWP_VEC_PUSH(x->ic, x->nic, x->cic)))
		return -ENOMEM;
	*p = (struct insn_count){ in->offset, x->count, in->len };
	return 0;
}

static int by_offset(const void *a, const void *b)
{
	const struct insn_count *p = a, *q = b;

	return p->offset < q->offset ? -1 : p->offset > q->offset;
}

static size_t frames_at(struct ctx *x, uint64_t offset, struct hwp__src_frame *fr, uint64_t *vaddr)
{
	uint64_t va;

	if (hwp_symbolizer__module_vaddr(x->s, x->module, offset, &va) != 0)
		return 0;
	if (vaddr)
		*vaddr = va;
	return hwp__dwarf_frames_at(x->df, va, fr, MAX_FRAMES);
}

/*
 * llvm-profgen also walks every function a range starts in with count 0,
 * so that the lines of a sampled function that never ran say 0 (the
 * compiler reads 0 as cold, a missing line as unknown). It knows functions
 * by name: every part of every function of that name is walked.
 */
static int zero_fill(struct ctx *x, uint64_t offset)
{
	struct hwp__src_frame fr[MAX_FRAMES];
	uint64_t va, lo[16], hi[16];
	const char **p;
	size_t n;
	int err;

	if (!frames_at(x, offset, fr, &va))
		return 0;
	for (size_t i = 0; i < x->nfn; i++)
		if (!strcmp(x->fn_seen[i], fr[0].name))
			return 0;
	if (!(p = HWP_VEC_PUSH(x->fn_seen, x->nfn, x->cfn)))
		return nomem();
	*p = fr[0].name;
	n = hwp__dwarf_frames_named(x->df, fr[0].name, lo, hi, 16);
	x->count = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t start, end;

		/* the code segment: offsets and addresses differ by one constant */
		if (hi[i] <= lo[i] || hwp__code_file_vaddr_to_offset(x->file, lo[i], &start) ||
		    hwp__code_file_vaddr_to_offset(x->file, hi[i] - 1, &end))
			continue;
		x->limit = end + 1;
		err = hwp__code_cache_range(x->cc, x->module, start, end, on_insn, x);
		if (err == -ENOMEM)
			return nomem();
	}
	x->limit = UINT64_MAX;
	return 0;
}

/* Step 1: instruction counts, sorted by offset, equal offsets summed. */
static int count_insns(struct ctx *x, struct hwp_branch_collector *c)
{
	const struct hwp_branch_row *r;
	size_t n, k = 0;
	int err;

	r = hwp_branch_table__rows(hwp_branch_collector__ranges(c), &n);
	for (size_t i = 0; i < n; i++) {
		if (r[i].key.from.module != x->module)
			continue;
		if (!r[i].c.count)
			continue; /* a row whose count moved to a rejection reason */
		if ((err = zero_fill(x, r[i].key.from.offset)))
			return err;
		x->count = r[i].c.count;
		err = hwp__code_cache_range(x->cc, x->module, r[i].key.from.offset, r[i].key.to.offset, on_insn, x);
		if (err == -ENOMEM)
			return nomem();
		/* other failures: the range was accepted undecoded; it adds nothing */
	}
	if (!x->nic)
		return 0;
	qsort(x->ic, x->nic, sizeof(*x->ic), by_offset);
	for (size_t i = 1; i < x->nic; i++) {
		if (x->ic[i].offset == x->ic[k].offset)
			x->ic[k].count += x->ic[i].count;
		else
			x->ic[++k] = x->ic[i];
	}
	x->nic = k + 1;
	return 0;
}

/*
 * AutoFDO fills only the part of a function a sample fell in (a symbol:
 * the hot or the cold part of a split function), not every function of
 * its name: the range of the subprogram NAME that holds VA, walked with
 * count 0 once.
 */
static int zero_fill_part(struct ctx *x, uint64_t offset)
{
	struct hwp__src_frame fr[MAX_FRAMES];
	uint64_t va, lo[16], hi[16], start, end, *p;
	size_t n;
	int err;

	if (!frames_at(x, offset, fr, &va))
		return 0;
	n = hwp__dwarf_frames_named(x->df, fr[0].name, lo, hi, 16);
	for (size_t i = 0; i < n; i++) {
		if (va < lo[i] || va >= hi[i])
			continue;
		for (size_t j = 0; j < x->nseen; j++)
			if (x->seen[j] == lo[i])
				return 0;
		if (!(p = HWP_VEC_PUSH(x->seen, x->nseen, x->cseen)))
			return nomem();
		*p = lo[i];
		if (hwp__code_file_vaddr_to_offset(x->file, lo[i], &start) ||
		    hwp__code_file_vaddr_to_offset(x->file, hi[i] - 1, &end))
			return 0;
		x->count = 0;
		x->limit = end + 1;
		err = hwp__code_cache_range(x->cc, x->module, start, end, on_insn, x);
		x->limit = UINT64_MAX;
		return err == -ENOMEM ? nomem() : 0;
	}
	return 0;
}

/*
 * Step 1 from IP samples, as AutoFDO's create_llvm_prof --use_lbr=false
 * counts them: an instruction's count is the number of samples at it; the
 * function parts sampled are walked with count 0 first (AutoFDO looks
 * every byte of a sampled function up), so their unsampled lines say 0.
 */
static int count_ips(struct ctx *x, struct hwp_branch_collector *c)
{
	const struct hwp_branch_row *r;
	struct insn_count *p;
	size_t n, k = 0;
	int err;

	r = hwp_branch_table__rows(hwp__branch_collector_ip_samples(c), &n);
	for (size_t i = 0; i < n; i++) {
		if (r[i].key.from.module != x->module || !r[i].c.count)
			continue;
		if ((err = zero_fill_part(x, r[i].key.from.offset)))
			return err;
		if (!(p = HWP_VEC_PUSH(x->ic, x->nic, x->cic)))
			return nomem();
		*p = (struct insn_count){ r[i].key.from.offset, r[i].c.count, 1 };
		x->samples += r[i].c.count;
	}
	if (!x->nic)
		return 0;
	qsort(x->ic, x->nic, sizeof(*x->ic), by_offset);
	for (size_t i = 1; i < x->nic; i++) {
		if (x->ic[i].offset == x->ic[k].offset)
			x->ic[k].count += x->ic[i].count;
		else
			x->ic[++k] = x->ic[i];
	}
	x->nic = k + 1;
	return 0;
}

/* AutoFDO leaves out a function with too few samples to tell anything:
   at most 10, or 5e-6 of the binary's samples (its kMinSamples and
   --sample_threshold_frac). */
static bool too_few(const struct ctx *x, const struct node *n)
{
	double frac = 5e-6 * (double)x->samples;

	return (double)n->samples <= (frac > 10 ? frac : 10);
}

/* Step 2. */
static int body_samples(struct ctx *x)
{
	struct hwp__src_frame fr[MAX_FRAMES];

	for (size_t i = 0; i < x->nic; i++) {
		const struct insn_count *ic = &x->ic[i];
		size_t n = frames_at(x, ic->offset, fr, NULL);
		struct node *leaf;
		struct body *b;
		uint64_t count;

		x->weight += ic->count;
		if (!n) {
			x->no_lines += ic->count;
			continue; /* no debug info: llvm-profgen skips it too */
		}
		count = ic->count * duplication_factor(fr[n - 1].discriminator);
		/* llvm-profgen counts a range's instruction once per byte;
		   AutoFDO an IP sample once, times its duplication factor */
		leaf = leaf_node(x, fr, n, x->ips ? count : ic->count * ic->len);
		if (x->last)
			x->last->samples += ic->count; /* leaf_node() began at top_get() */
		if (!leaf || !(b = body_get(leaf, line_offset(&fr[n - 1]), base_discriminator(fr[n - 1].discriminator))))
			return nomem();
		if (count > b->count)
			b->count = count;
	}
	return 0;
}

static int add_target(struct body *b, const char *callee, uint64_t count)
{
	struct target *t;

	for (size_t i = 0; i < b->nt; i++)
		if (!strcmp(b->t[i].callee, callee)) {
			b->t[i].count += count;
			return 0;
		}
	if (!(t = HWP_VEC_PUSH(b->t, b->nt, b->ct)))
		return nomem();
	*t = (struct target){ callee, count };
	return 0;
}

/*
 * Step 3, as llvm-profgen does it: every taken branch whose target is a
 * function's entry in the module is a call into it, whatever the branch
 * (a call, a tail call's jump) and wherever it comes from (a callback
 * called by the C library counts too): head samples of the callee, and a
 * call target at the source's location when the source is in the module.
 */
static int call_samples(struct ctx *x, struct hwp_branch_collector *c)
{
	struct hwp__src_frame fr[MAX_FRAMES], to[MAX_FRAMES];
	const struct hwp_branch_row *r;
	size_t n;

	r = hwp_branch_table__rows(hwp_branch_collector__table(c), &n);
	for (size_t i = 0; i < n; i++) {
		const struct hwp_branch_key *k = &r[i].key;
		struct node *callee, *leaf;
		struct body *b;
		uint64_t tva;
		size_t nf, nt;

		if (k->to.module != x->module || !r[i].c.count)
			continue;
		nt = frames_at(x, k->to.offset, to, &tva);
		if (!nt || to[0].entry != tva)
			continue; /* not a function's entry (a PLT stub, code without DWARF) */
		if (!(callee = top_get(x, to[0].name)))
			return nomem();
		callee->head += r[i].c.count;
		if (k->from.module != x->module || !(nf = frames_at(x, k->from.offset, fr, NULL)))
			continue;
		if (!(leaf = leaf_node(x, fr, nf, 0)) ||
		    !(b = body_get(leaf, line_offset(&fr[nf - 1]), base_discriminator(fr[nf - 1].discriminator))))
			return nomem();
		if (add_target(b, to[0].name, r[i].c.count))
			return -ENOMEM;
	}
	return 0;
}

/* ---- probe profiles (pseudo probes instead of lines) ---- */

/* The name of GUID's function: the descriptor's, NUL-terminated once. */
static const char *probe_name(struct ctx *x, uint64_t guid)
{
	const struct hwp__probe_desc *d = hwp__pseudo_probes_desc(x->pp, guid);
	size_t i;

	if (!d)
		return NULL;
	i = (size_t)(d - x->pp->descs);
	if (!x->probe_names[i]) {
		if (!(x->probe_names[i] = malloc(d->name_len + 1)))
			return NULL;
		memcpy(x->probe_names[i], d->name, d->name_len);
		x->probe_names[i][d->name_len] = 0;
	}
	return x->probe_names[i];
}

/* The probes at VADDR: [*first, return). */
static size_t probes_at(const struct hwp__pseudo_probes *pp, uint64_t vaddr, size_t *first)
{
	size_t lo = 0, hi = pp->nprobes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pp->probes[mid].addr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = lo;
	while (hi < pp->nprobes && pp->probes[hi].addr == vaddr)
		hi++;
	return hi;
}

/*
 * The node of probe P's function in its inline tree, made on the way from
 * the top-level function (llvm-profgen's getLeafProfileAndAddTotalSamples
 * over the probe's inline context): each level's total gets ADD_TOTAL, an
 * inlined function hangs at its call site's probe index.
 */
static struct node *probe_node(struct ctx *x, const struct hwp__probe *p, uint64_t add_total)
{
	uint32_t chain[64];
	size_t n = 0;
	struct node *nd = NULL;

	/* llvm-profgen drops the context above an inline site of probe index
	   0 (an unknown call site): that inlinee is a top-level function */
	for (uint32_t k = p->node; n < 64; k = x->pp->nodes[k].parent) {
		chain[n++] = k;
		if (x->pp->nodes[k].parent == UINT32_MAX || x->pp->nodes[k].site == 0)
			break;
	}
	if (n == 64) {
		x->probe_err = hwp__set_error(EINVAL, "pseudo probes: an inline context deeper than 64 functions "
					      "(llvm-profgen's profiles have none)");
		return NULL;
	}
	while (n--) {
		const struct hwp__probe_node *pn = &x->pp->nodes[chain[n]];
		const char *name = probe_name(x, pn->guid);

		if (!name) {
			x->probe_err = hwp__set_error(EINVAL, "pseudo probes: no descriptor for function GUID %" PRIu64,
						      pn->guid);
			return NULL;
		}
		nd = nd ? kid_get(nd, pn->site, 0, name) : top_get(x, name);
		if (!nd)
			return NULL;
		nd->total += add_total;
		nd->checksum = hwp__pseudo_probes_desc(x->pp, pn->guid)->hash;
	}
	return nd;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t p = *(const uint64_t *)a, q = *(const uint64_t *)b;

	return p < q ? -1 : p > q;
}

/* Notes the function (its DWARF name's GUID) that holds OFFSET. */
static int note_profiled(struct ctx *x, uint64_t offset)
{
	const char *name;
	uint64_t va, *p;

	if (hwp_symbolizer__module_vaddr(x->s, x->module, offset, &va) != 0 ||
	    !(name = hwp__dwarf_frames_function(x->df, va)))
		return 0;
	if (!(p = HWP_VEC_PUSH(x->profiled, x->nprofiled, x->cprofiled)))
		return nomem();
	*p = hwp__md5_guid(name, strlen(name));
	return 0;
}

/*
 * llvm-profgen decodes the probes of "profiled" functions only: those a
 * range starts in, or a branch leaves or enters. A top-level function's
 * probes count only when it is one, even where a range of another
 * function runs over them.
 */
static int profiled_functions(struct ctx *x, struct hwp_branch_collector *c)
{
	const struct hwp_branch_row *r;
	size_t n, k = 0;
	int err;

	r = hwp_branch_table__rows(hwp_branch_collector__ranges(c), &n);
	for (size_t i = 0; i < n; i++)
		if (r[i].key.from.module == x->module && r[i].c.count && (err = note_profiled(x, r[i].key.from.offset)))
			return err;
	r = hwp_branch_table__rows(hwp_branch_collector__table(c), &n);
	for (size_t i = 0; i < n; i++) {
		if (!r[i].c.count)
			continue;
		if (r[i].key.from.module == x->module && (err = note_profiled(x, r[i].key.from.offset)))
			return err;
		if (r[i].key.to.module == x->module && (err = note_profiled(x, r[i].key.to.offset)))
			return err;
	}
	if (!x->nprofiled)
		return 0;
	qsort(x->profiled, x->nprofiled, sizeof(*x->profiled), by_u64);
	for (size_t i = 1; i < x->nprofiled; i++)
		if (x->profiled[i] != x->profiled[k])
			x->profiled[++k] = x->profiled[i];
	x->nprofiled = k + 1;
	return 0;
}

/* Whether probe P's top-level function is a profiled one. */
static bool probe_profiled(const struct ctx *x, const struct hwp__probe *p)
{
	uint32_t k = p->node;

	while (x->pp->nodes[k].parent != UINT32_MAX)
		k = x->pp->nodes[k].parent;
	return x->nprofiled &&
	       bsearch(&x->pp->nodes[k].guid, x->profiled, x->nprofiled, sizeof(*x->profiled), by_u64);
}

/* Step 2 with probes: each probe at a counted instruction gets its count;
   the entry probe (index 1) makes the function's head samples. */
static int probe_body_samples(struct ctx *x)
{
	for (size_t i = 0; i < x->nic; i++) {
		uint64_t va;
		size_t k, end;

		x->weight += x->ic[i].count;
		if (hwp_symbolizer__module_vaddr(x->s, x->module, x->ic[i].offset, &va) != 0)
			continue;
		end = probes_at(x->pp, va, &k);
		for (; k < end; k++) {
			const struct hwp__probe *p = &x->pp->probes[k];
			struct node *nd;
			struct body *b;

			if (!probe_profiled(x, p))
				continue;
			nd = probe_node(x, p, x->ic[i].count);
			if (!nd || !(b = body_get(nd, p->index, p->discriminator)))
				return x->probe_err ? x->probe_err : nomem();
			b->count += x->ic[i].count;
			if (p->index == 1)
				nd->head += x->ic[i].count;
		}
	}
	return 0;
}

/* llvm-profgen's FunctionSamples::getCanonicalFnName(): a ".llvm.N" or
   ".part.N" suffix (the last dot's) is not part of the name. */
static void canonical_name(const char *name, char *out, size_t size)
{
	static const char *const sufs[] = { ".llvm.", ".part." };

	snprintf(out, size, "%s", name);
	for (size_t i = 0; i < 2; i++) {
		const char *at = NULL, *q = out;

		while ((q = strstr(q, sufs[i])))
			at = q++;
		if (at && strrchr(out, '.') == at + strlen(sufs[i]) - 1)
			out[at - out] = 0;
	}
}

/* Step 3 with probes: a taken branch to a function's entry from an
   address with a call probe is a call target of that probe. */
static int probe_call_samples(struct ctx *x, struct hwp_branch_collector *c)
{
	struct hwp__src_frame to[MAX_FRAMES];
	const struct hwp_branch_row *r;
	size_t n;

	r = hwp_branch_table__rows(hwp_branch_collector__table(c), &n);
	for (size_t i = 0; i < n; i++) {
		const struct hwp_branch_key *k = &r[i].key;
		const struct hwp__probe *call = NULL;
		uint64_t tva, fva;
		size_t nt, j, end;
		struct node *nd;
		struct body *b;
		char name[1024];

		if (k->to.module != x->module || k->from.module != x->module || !r[i].c.count)
			continue;
		nt = frames_at(x, k->to.offset, to, &tva);
		if (!nt || to[0].entry != tva)
			continue;
		if (hwp_symbolizer__module_vaddr(x->s, x->module, k->from.offset, &fva) != 0)
			continue;
		for (end = probes_at(x->pp, fva, &j); j < end && !call; j++)
			if (x->pp->probes[j].type != HWP__PROBE_BLOCK && probe_profiled(x, &x->pp->probes[j]))
				call = &x->pp->probes[j];
		if (!call)
			continue;
		if (!(nd = probe_node(x, call, 0)) || !(b = body_get(nd, call->index, call->discriminator)))
			return x->probe_err ? x->probe_err : nomem();
		canonical_name(to[0].name, name, sizeof(name));
		const char *callee = to[0].name; /* the DWARF frames keep it */
		if (strcmp(name, callee)) {
			struct ctx *o = x->owner ? x->owner : x;
			char **slot = HWP_VEC_PUSH(o->callees, o->ncallees, o->ccallees);

			if (!slot || !(*slot = strdup(name)))
				return nomem();
			callee = *slot;
		}
		if (add_target(b, callee, r[i].c.count))
			return -ENOMEM;
	}
	return 0;
}

/* A call's line counts at least its calls: llvm-profgen raises a line's
   count to the sum of its call targets, in the top-level functions' own
   bodies only (not inside inlined call sites). */
static void calls_floor(struct node *n)
{
	for (size_t i = 0; i < n->nb; i++) {
		uint64_t sum = 0;

		for (size_t j = 0; j < n->b[i].nt; j++)
			sum += n->b[i].t[j].count;
		if (sum > n->b[i].count)
			n->b[i].count = sum;
	}
}

/* ---- writing, in the order llvm-profgen's text writer uses ---- */

static int by_total(const void *a, const void *b)
{
	const struct node *p = *(struct node *const *)a, *q = *(struct node *const *)b;

	if (p->total != q->total)
		return p->total > q->total ? -1 : 1;
	return strcmp(p->name, q->name);
}

static int by_site(const void *a, const void *b)
{
	const struct node *p = *(struct node *const *)a, *q = *(struct node *const *)b;

	if (p->off != q->off)
		return p->off < q->off ? -1 : 1;
	if (p->disc != q->disc)
		return p->disc < q->disc ? -1 : 1;
	return strcmp(p->name, q->name);
}

static int by_loc(const void *a, const void *b)
{
	const struct body *p = a, *q = b;

	if (p->off != q->off)
		return p->off < q->off ? -1 : 1;
	return p->disc < q->disc ? -1 : p->disc > q->disc;
}

static int by_count(const void *a, const void *b)
{
	const struct target *p = a, *q = b;

	if (p->count != q->count)
		return p->count > q->count ? -1 : 1;
	return strcmp(p->callee, q->callee);
}

static void write_loc(FILE *fp, unsigned depth, uint32_t off, uint32_t disc)
{
	fprintf(fp, "%*s%" PRIu32, (int)depth, "", off);
	if (disc)
		fprintf(fp, ".%" PRIu32, disc);
	fputs(": ", fp);
}

/* qsort() with nothing to sort: the array may be NULL, which qsort may not get. */
static void sort(void *v, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(v, n, size, cmp);
}

static void write_node(FILE *fp, struct node *n, unsigned depth, bool probes)
{
	sort(n->b, n->nb, sizeof(*n->b), by_loc);
	for (size_t i = 0; i < n->nb; i++) {
		struct body *b = &n->b[i];

		write_loc(fp, depth, b->off, b->disc);
		fprintf(fp, "%" PRIu64, b->count);
		sort(b->t, b->nt, sizeof(*b->t), by_count);
		for (size_t j = 0; j < b->nt; j++)
			fprintf(fp, " %s:%" PRIu64, b->t[j].callee, b->t[j].count);
		fputc('\n', fp);
	}
	sort(n->kids, n->nk, sizeof(*n->kids), by_site);
	for (size_t i = 0; i < n->nk; i++) {
		write_loc(fp, depth, n->kids[i]->off, n->kids[i]->disc);
		fprintf(fp, "%s:%" PRIu64 "\n", n->kids[i]->name, n->kids[i]->total);
		write_node(fp, n->kids[i], depth + 1, probes);
	}
	if (probes)
		fprintf(fp, "%*s!CFGChecksum: %" PRIu64 "\n", (int)depth, "", n->checksum);
}

/* What the binary's debug info leaves out of the profile, said once. */
static void warn_debug_gaps(struct ctx *x, const char *path)
{
	if (x->no_lines && x->no_lines * 100 >= x->weight)
		hwp__log(HWP_LOG_WARN,
			 "%s: %.1f%% of the sampled instructions have no debug info (code compiled without it, "
			 "e.g. from a static library): they are not in the profile",
			 path, 100.0 * (double)x->no_lines / (double)x->weight);
	if (x->weight > x->no_lines && !hwp__dwarf_frames_has_discriminators(x->df))
		hwp__log(HWP_LOG_WARN,
			 "%s: no discriminators in its line table (clang writes them with "
			 "-fdebug-info-for-profiling): the blocks of one source line share one count, "
			 "so the compiler cannot tell a loop's body from its exit on that line",
			 path);
}

/* Adds the counts of SRC's tree into DST's (a node of the same function
   or call site): what llvm-profdata merge does with two profiles. */
static int merge_node(struct node *dst, const struct node *src)
{
	dst->total += src->total;
	dst->head += src->head;
	if (!dst->checksum)
		dst->checksum = src->checksum;
	dst->samples += src->samples;
	for (size_t i = 0; i < src->nb; i++) {
		struct body *b = body_get(dst, src->b[i].off, src->b[i].disc);

		if (!b)
			return nomem();
		b->count += src->b[i].count;
		for (size_t j = 0; j < src->b[i].nt; j++)
			if (add_target(b, src->b[i].t[j].callee, src->b[i].t[j].count))
				return -ENOMEM;
	}
	for (size_t i = 0; i < src->nk; i++) {
		struct node *k = kid_get(dst, src->kids[i]->off, src->kids[i]->disc, src->kids[i]->name);

		if (!k || merge_node(k, src->kids[i]))
			return k ? -ENOMEM : nomem();
	}
	return 0;
}

/* Steps 1-3 for collector C into Y (whose tree is empty). */
static int build_tree(struct ctx *y, struct hwp_branch_collector *c)
{
	int err;

	if (!(y->cc = hwp__branch_collector_code_cache(c)))
		return nomem();
	if (y->pp) {
		if ((err = profiled_functions(y, c)) || (err = count_insns(y, c)) || (err = probe_body_samples(y)) ||
		    (err = probe_call_samples(y, c)))
			return err;
	} else if (y->ips) {
		if ((err = count_ips(y, c)) || (err = body_samples(y)))
			return err;
	} else if ((err = count_insns(y, c)) || (err = body_samples(y)) || (err = call_samples(y, c))) {
		return err;
	}
	for (size_t i = 0; i < y->ntop; i++)
		calls_floor(y->top[i]);
	return 0;
}

static void free_tree(struct ctx *x)
{
	for (size_t i = 0; i < x->ntop; i++)
		node_free(x->top[i]);
	free(x->top);
	free(x->ic);
	free(x->fn_seen);
	free(x->seen);
	free(x->profiled);
	x->top = NULL, x->ic = NULL, x->fn_seen = NULL, x->seen = NULL, x->profiled = NULL;
	x->nprofiled = x->cprofiled = 0;
	x->ntop = x->nic = x->nfn = x->nseen = 0;
	x->ctop = x->cic = x->cfn = x->cseen = 0;
	x->last = NULL;
}

/*
 * The profile of each collector of CS[0..N) (one symbolizer), summed: each
 * one's tree is built as its own profile would be (a location keeps the
 * largest count of its instructions within one collector), then the trees
 * are added, so the sum is the sum of their profiles (llvm-profdata merge),
 * whatever the order or the grouping of the collectors.
 */
static int write_profile(struct hwp_branch_collector *const *cs, size_t n, int module, bool ips, bool probes,
			 FILE *fp)
{
	struct ctx x = { .module = module, .limit = UINT64_MAX, .ips = ips };
	const char *path;
	int err = 0;

	x.s = hwp__branch_collector_symbolizer(cs[0]);
	for (size_t i = 0; i < n; i++) {
		if (!ips && !hwp_branch_collector__ranges(cs[i]))
			return hwp__set_error(EINVAL, "LLVM sample profile: the branch collector counted no ranges");
		if (ips && !hwp__branch_collector_ip_samples(cs[i]))
			return hwp__set_error(EINVAL, "LLVM sample profile: the branch collector counted no sample addresses");
	}
	if (!x.s || !(path = hwp_symbolizer__module_file(x.s, module)))
		return -ENOENT; /* the symbolizer said why */
	if (!(x.file = hwp__code_file_open(path)))
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
	if (!(x.df = hwp__dwarf_frames_open(path))) {
		hwp__code_file_close(x.file);
		return -errno;
	}
	if (probes) {
		if ((err = hwp__pseudo_probes_load(path, &x.pp)))
			goto out;
		if (!(x.probe_names = calloc(x.pp->ndescs ? x.pp->ndescs : 1, sizeof(*x.probe_names)))) {
			err = nomem();
			goto out;
		}
	}
	if ((err = build_tree(&x, cs[0])))
		goto out;
	for (size_t i = 1; i < n && !err; i++) {
		struct ctx y = { .s = x.s, .df = x.df, .file = x.file, .module = module, .limit = UINT64_MAX, .ips = ips,
				 .pp = x.pp, .probe_names = x.probe_names, .owner = &x };

		if (!(err = build_tree(&y, cs[i]))) {
			for (size_t k = 0; k < y.ntop && !err; k++) {
				struct node *t = top_get(&x, y.top[k]->name);

				err = t ? merge_node(t, y.top[k]) : nomem();
			}
			x.weight += y.weight;
			x.no_lines += y.no_lines;
			x.samples += y.samples;
		}
		free_tree(&y);
	}
	if (err)
		goto out;
	if (ips)
		fputs("# hwprof: from IP samples without branch stacks: line counts are sample densities; "
		      "no call targets, no fall-through or taken-branch counts\n", fp);
	if (!probes)
		warn_debug_gaps(&x, path);
	sort(x.top, x.ntop, sizeof(*x.top), by_total);
	for (size_t i = 0; i < x.ntop; i++) {
		if (ips && too_few(&x, x.top[i]))
			continue;
		fprintf(fp, "%s:%" PRIu64 ":%" PRIu64 "\n", x.top[i]->name, x.top[i]->total, x.top[i]->head);
		write_node(fp, x.top[i], 1, probes);
	}
	if (fflush(fp) || ferror(fp))
		err = hwp__set_error(EIO, "writing the profile: %s", strerror(errno ? errno : EIO));
out:
	free_tree(&x);
	hwp__dwarf_frames_close(x.df);
	hwp__code_file_close(x.file);
	for (size_t i = 0; x.pp && x.probe_names && i < x.pp->ndescs; i++)
		free(x.probe_names[i]);
	free(x.probe_names);
	for (size_t i = 0; i < x.ncallees; i++)
		free(x.callees[i]);
	free(x.callees);
	hwp__pseudo_probes_free(x.pp);
	return err;
}

int hwp__llvm_profile_write_sum(struct hwp_branch_collector *const *cs, size_t n, int module, FILE *fp)
{
	if (!n)
		return hwp__set_error(EINVAL, "LLVM sample profile: no collector");
	return write_profile(cs, n, module, false, false, fp);
}

int hwp_llvm_profile__write(struct hwp_branch_collector *c, int module, FILE *fp)
{
	return write_profile(&c, 1, module, false, false, fp);
}

int hwp_llvm_profile__write_probes(struct hwp_branch_collector *c, int module, FILE *fp)
{
	return write_profile(&c, 1, module, false, true, fp);
}

int hwp_llvm_profile__write_ip_samples(struct hwp_branch_collector *c, int module, FILE *fp)
{
	return write_profile(&c, 1, module, true, false, fp);
}
