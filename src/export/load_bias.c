/* SPDX-License-Identifier: MIT */
/*
 * Where a binary was loaded when the recording does not say (no mapping
 * record covers its code): the load bias at which the recorded taken
 * branches land on the binary's own branch instructions, and direct ones
 * on their targets. A wrong bias puts sources on arbitrary bytes, so a
 * bias that explains nearly all of the hottest branches is the one.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "decode/code_cache.h"
#include "hwprof/range_profile.h"
#include "hwprof/symbolize.h"
#include "symbolize/build_id_lookup.h"
#include "util/error.h"

#define KERNEL_START 0xffff800000000000ULL
#define PAGE 4096u
#define TOP_BRANCHES 64 /* the hottest unmapped branches scored */
#define SEEDS 8         /* of which the first few propose biases */
#define MAX_SEGS 8

struct seg {
	uint64_t vaddr, size, offset;
};

struct probe {
	struct hwp__code_cache *cc;
	int module;
	struct seg seg[MAX_SEGS];
	size_t nseg;
};

struct branch {
	uint64_t from, to, count;
};

static int by_count(const void *a, const void *b)
{
	const struct branch *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static bool to_offset(const struct probe *p, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < p->nseg; i++)
		if (vaddr >= p->seg[i].vaddr && vaddr - p->seg[i].vaddr < p->seg[i].size) {
			*off = vaddr - p->seg[i].vaddr + p->seg[i].offset;
			return true;
		}
	return false;
}

/* 1: B agrees with the code at BIAS, 0: it does not, -1: B's source is
   not in the binary at that bias (it says nothing). */
static int agrees(const struct probe *p, const struct branch *b, uint64_t bias)
{
	struct hwp__insn in;
	uint64_t off, to;

	if (!to_offset(p, b->from - bias, &off))
		return -1;
	if (hwp__code_cache_insn(p->cc, p->module, off, &in) || !hwp__insn_is_branch(in.cls))
		return 0;
	if (!in.has_target)
		return 1;
	return to_offset(p, b->to - bias, &to) && to == in.target;
}

static void score(const struct probe *p, const struct branch *b, size_t n, uint64_t bias, uint64_t *matched,
		  uint64_t *tried)
{
	*matched = *tried = 0;
	for (size_t i = 0; i < n; i++) {
		int a = agrees(p, &b[i], bias);

		if (a >= 0)
			*tried += b[i].count;
		if (a > 0)
			*matched += b[i].count;
	}
}

/* The hottest branches whose source no map covers (user space). */
static size_t unmapped_branches(struct hwp_branch_collector *c, struct branch *out, size_t max)
{
	const struct hwp_branch_row *r;
	size_t n, k = 0;
	struct branch *all;

	r = hwp_branch_table__rows(hwp_branch_collector__table(c), &n);
	if (!(all = calloc(n ? n : 1, sizeof(*all))))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (r[i].key.from.module < 0 && r[i].key.from.offset < KERNEL_START && r[i].c.count)
			all[k++] = (struct branch){ r[i].key.from.offset, r[i].key.to.offset, r[i].c.count };
	qsort(all, k, sizeof(*all), by_count);
	if (k > max)
		k = max;
	memcpy(out, all, k * sizeof(*all));
	free(all);
	return k;
}

/* The recording's build-id list (perf's BUILD_ID feature) may name the
   binary although no mapping did: another build of it is refused. */
static int check_recorded_build_id(struct hwp_session *ses, const char *path, const uint8_t *id, size_t idn)
{
	const struct hwp_header_info *h = hwp_session__header(ses);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	for (size_t i = 0; h && i < h->nr_build_ids; i++) {
		const struct hwp_build_id *b = &h->build_ids[i];
		const char *f = b->filename ? b->filename : "";
		const char *fb = strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
		char want[2 * HWP_BUILD_ID_MAX + 1], got[2 * HWP_BUILD_ID_MAX + 1];

		if (strcmp(fb, base) || !idn)
			continue;
		if (b->size >= idn && !memcmp(b->id, id, idn))
			return 0;
		hwp__build_id_hex(id, idn, want);
		hwp__build_id_hex(b->id, b->size > HWP_BUILD_ID_MAX ? HWP_BUILD_ID_MAX : b->size, got);
		return hwp__set_error(ESTALE, "%s: build-id %s differs from the recorded %s's %s", path, want, f, got);
	}
	return 0;
}

/* The binary's executable segments and its module in the code cache. */
static int open_probe(struct hwp_branch_collector *c, const char *path, struct probe *p, bool *pie)
{
	struct hwp_symbolizer *s = hwp__branch_collector_symbolizer(c);
	Elf *e = hwp__elf_open(path);
	uint8_t id[HWP_BUILD_ID_MAX];
	size_t nph = 0, idn;
	GElf_Ehdr eh;
	int err;

	if (!e)
		return hwp__set_error(ENOENT, "%s: cannot read it as an ELF file", path);
	idn = hwp__elf_build_id(e, id);
	if ((err = check_recorded_build_id(hwp__branch_collector_session(c), path, id, idn))) {
		elf_end(e);
		return err;
	}
	if (!gelf_getehdr(e, &eh) || elf_getphdrnum(e, &nph)) {
		elf_end(e);
		return hwp__set_error(EINVAL, "%s: no ELF header or program headers", path);
	}
	*pie = eh.e_type == ET_DYN;
	for (size_t i = 0; i < nph && p->nseg < MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_filesz)
			p->seg[p->nseg++] = (struct seg){ ph.p_vaddr, ph.p_filesz, ph.p_offset };
	}
	elf_end(e);
	if (!s || !(p->cc = hwp__branch_collector_code_cache(c)))
		return hwp__set_error(ENOMEM, "out of memory");
	p->module = hwp_symbolizer__module(s, path, idn ? id : NULL, (uint8_t)idn);
	if (p->module < 0)
		return p->module;
	if (!p->nseg)
		return hwp__set_error(ENOENT, "%s: no executable segment", path);
	return hwp__code_cache_module_ok(p->cc, p->module);
}

int hwp_range_profile__infer_load_bias(struct hwp_branch_collector *c, const char *path, uint64_t *bias,
				       uint64_t *matched, uint64_t *tried)
{
	struct probe p = { 0 };
	struct branch b[TOP_BRANCHES];
	size_t n = unmapped_branches(c, b, TOP_BRANCHES);
	uint64_t best = 0, best_m = 0, best_t = 0, second_m = 0;
	bool pie = false, found = false;
	int err = open_probe(c, path, &p, &pie);

	if (err)
		return err;
	if (!n)
		return hwp__set_error(ENOENT, "%s: no taken branch outside the recorded mappings to place it by",
				      path);
	/* A program linked at fixed addresses runs there; a PIE or a library
	   may sit at any page: each hot source proposes every page-aligned
	   bias that puts it in an executable segment. */
	if (!pie) {
		score(&p, b, n, 0, &best_m, &best_t);
		found = true;
	}
	for (size_t i = 0; pie && i < n && i < SEEDS; i++)
		for (size_t s = 0; s < p.nseg; s++)
			for (uint64_t v = (p.seg[s].vaddr & ~(uint64_t)(PAGE - 1)) + (b[i].from & (PAGE - 1));
			     v < p.seg[s].vaddr + p.seg[s].size; v += PAGE) {
				uint64_t cand = b[i].from - v, m, t;

				if ((found && cand == best) || agrees(&p, &b[i], cand) <= 0)
					continue;
				score(&p, b, n, cand, &m, &t);
				if (m > best_m) {
					second_m = best_m;
					best_m = m, best_t = t, best = cand, found = true;
				} else if (m > second_m) {
					second_m = m;
				}
			}
	/* Nearly every branch must agree, and no other bias come close. */
	if (!found || !best_t || best_m * 10 < best_t * 9 || second_m * 2 > best_m)
		return hwp__set_error(ENOENT,
				      "%s: the recording has no mapping for it, and no load address makes the "
				      "recorded branches land on its branch instructions: another binary ran",
				      path);
	*bias = best;
	*matched = best_m;
	*tried = best_t;
	return 0;
}
