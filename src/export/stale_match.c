/* SPDX-License-Identifier: MIT */
/*
 * hwp_pgo__matched_collector(): a recording of one build applied to the
 * next (see hwprof/pgo.h).
 *
 * Functions are matched by name (ELF function symbols of both files). A
 * function whose instruction sequence hashes the same in both (each
 * instruction's class and length, a direct branch's target relative to the
 * function, a direct call's callee by name) maps offset for offset.
 * Otherwise its basic blocks (split after every branch and at every direct
 * target inside it) are hashed the same way without the targets, and the
 * longest common subsequence of the two hash sequences pairs them in order:
 * a paired block maps instruction for instruction. A paired call or jump
 * to code outside every function symbol (a PLT stub) pairs the stubs it
 * reaches when they decode alike. Everything else is unmatched: its counts
 * are dropped and counted.
 */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/branch_collect_internal.h"
#include "decode/code_cache.h"
#include "hwprof/branch_table.h"
#include "hwprof/pgo.h"
#include "hwprof/symbolize.h"
#include "symbolize/build_id_lookup.h"
#include "util/error.h"
#include "util/vec.h"

struct fsym {
	char *name;
	uint64_t off, size; /* file offsets */
};

struct pair {
	uint64_t from, to;
};

struct side {
	int module;
	struct fsym *f;
	size_t n, cap;
	struct fsym **by_off; /* f by offset */
};

static int cmp_fsym_off(const void *a, const void *b)
{
	const struct fsym *x = *(const struct fsym *const *)a, *y = *(const struct fsym *const *)b;

	return x->off < y->off ? -1 : x->off > y->off;
}

static bool in_any_function(const struct side *s, uint64_t off)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) { /* the last function starting at or before OFF */
		size_t mid = lo + (hi - lo) / 2;

		if (s->by_off[mid]->off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && off - s->by_off[lo - 1]->off < s->by_off[lo - 1]->size;
}

static int cmp_fsym_name(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->off < y->off ? -1 : x->off > y->off);
}

/* The function symbols of PATH with their file offsets, by name. */
static int read_fsyms(const char *path, struct side *s)
{
	Elf *e = hwp__elf_open(path);
	Elf_Scn *scn = NULL;
	size_t nph;
	int err = 0;

	if (!e)
		return hwp__set_error(ENOENT, "%s: not an ELF file", path);
	if (elf_getphdrnum(e, &nph) < 0)
		nph = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
			    sym.st_shndx == SHN_UNDEF || !(name = elf_strptr(e, sh.sh_link, sym.st_name)) || !*name)
				continue;
			for (size_t k = 0; k < nph; k++) {
				GElf_Phdr ph;

				if (!gelf_getphdr(e, (int)k, &ph) || ph.p_type != PT_LOAD || sym.st_value < ph.p_vaddr ||
				    sym.st_value >= ph.p_vaddr + ph.p_filesz)
					continue;
				struct fsym *f = HWP_VEC_PUSH(s->f, s->n, s->cap);
				if (!f || !(f->name = strdup(name))) {
					err = -ENOMEM;
					goto out;
				}
				f->off = sym.st_value - ph.p_vaddr + ph.p_offset;
				f->size = sym.st_size;
				break;
			}
		}
	}
	if (s->n)
		qsort(s->f, s->n, sizeof(*s->f), cmp_fsym_name);
	if (!(s->by_off = malloc((s->n ? s->n : 1) * sizeof(*s->by_off)))) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s->n; i++)
		s->by_off[i] = &s->f[i];
	if (s->n)
		qsort(s->by_off, s->n, sizeof(*s->by_off), cmp_fsym_off);
out:
	elf_end(e);
	return err;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0x100000001b3ull;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

struct fn_code {
	struct hwp__insn *in;
	size_t n, cap;
	uint64_t *key;   /* per instruction: class, callee (what pairs blocks) */
	uint64_t hash;   /* of the whole function, targets relative */
};

/* Decodes F of side S into C. */
static int decode_fn(struct hwp__code_cache *cc, struct hwp_symbolizer *sym, const struct side *s,
		     const struct fsym *f, struct fn_code *c)
{
	c->n = 0;
	for (uint64_t off = f->off; off < f->off + f->size;) {
		struct hwp__insn in;

		if (hwp__code_cache_insn(cc, s->module, off, &in) < 0 || !in.len)
			break;
		struct hwp__insn *d = HWP_VEC_PUSH(c->in, c->n, c->cap);
		if (!d)
			return -ENOMEM;
		*d = in;
		off += in.len;
	}
	free(c->key);
	if (!(c->key = calloc(c->n ? c->n : 1, sizeof(*c->key))))
		return -ENOMEM;
	c->hash = 7;
	for (size_t i = 0; i < c->n; i++) {
		const struct hwp__insn *in = &c->in[i];
		uint64_t k = in->cls + 1, t = 0;

		if (in->has_target && in->target >= f->off && in->target < f->off + f->size) {
			t = in->target - f->off + 1;
		} else if (in->has_target && (in->cls == HWP_INSN_CALL || in->cls == HWP_INSN_JUMP)) {
			struct hwp_symbol_info si;

			if (hwp_symbolizer__lookup(sym, s->module, in->target, &si) == 0 && si.symbol)
				k = mix(k, name_hash(si.symbol));
		}
		c->key[i] = k;
		c->hash = mix(mix(mix(c->hash, k), in->len), t);
	}
	return 0;
}

/* Block starts of C (function F): indices into c->in. */
static int blocks_of(const struct fn_code *c, const struct fsym *f, size_t **starts, size_t *nb)
{
	uint8_t *lead = calloc(c->n + 1, 1);
	size_t k = 0;

	if (!lead)
		return -ENOMEM;
	lead[0] = 1;
	for (size_t i = 0; i < c->n; i++) {
		if (c->in[i].cls != HWP_INSN_OTHER)
			lead[i + 1] = 1;
		if (c->in[i].has_target && c->in[i].target >= f->off && c->in[i].target < f->off + f->size) {
			size_t lo = 0, hi = c->n;

			while (lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (c->in[mid].offset < c->in[i].target)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < c->n && c->in[lo].offset == c->in[i].target)
				lead[lo] = 1;
		}
	}
	if (!(*starts = malloc((c->n + 1) * sizeof(**starts)))) {
		free(lead);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n; i++)
		if (lead[i])
			(*starts)[k++] = i;
	(*starts)[k] = c->n;
	*nb = k;
	free(lead);
	return 0;
}

static int push_pair(struct pair **p, size_t *n, size_t *cap, uint64_t from, uint64_t to)
{
	struct pair *x = HWP_VEC_PUSH(*p, *n, *cap);

	if (!x)
		return -ENOMEM;
	*x = (struct pair){ from, to };
	return 0;
}

struct pairs {
	struct pair *p;
	size_t n, cap;
	struct hwp__code_cache *cc;
	const struct side *a, *b;
};

/* X (old) and Y (new) are paired; so are the stubs outside every function
   their direct targets reach, up to the stub's jump, when they decode
   alike. */
static int pair_insns(struct pairs *ps, const struct hwp__insn *x, const struct hwp__insn *y)
{
	if (push_pair(&ps->p, &ps->n, &ps->cap, x->offset, y->offset) < 0)
		return -ENOMEM;
	if (!x->has_target || !y->has_target || (x->cls != HWP_INSN_CALL && x->cls != HWP_INSN_JUMP) ||
	    in_any_function(ps->a, x->target) || in_any_function(ps->b, y->target))
		return 0;
	uint64_t u = x->target, v = y->target;
	for (int k = 0; k < 4; k++) {
		struct hwp__insn s, t;

		if (hwp__code_cache_insn(ps->cc, ps->a->module, u, &s) < 0 ||
		    hwp__code_cache_insn(ps->cc, ps->b->module, v, &t) < 0 || s.cls != t.cls || s.len != t.len)
			break;
		if (push_pair(&ps->p, &ps->n, &ps->cap, u, v) < 0)
			return -ENOMEM;
		if (s.cls != HWP_INSN_OTHER)
			break;
		u += s.len;
		v += t.len;
	}
	return 0;
}

/* Pairs the blocks of A and B by the longest common subsequence of their
   hashes; appends the instruction pairs of paired blocks. */
static int match_blocks(const struct fn_code *a, const struct fsym *fa, const struct fn_code *b,
			const struct fsym *fb, struct pairs *ps)
{
	size_t *sa = NULL, *sb = NULL, na = 0, nb = 0;
	uint64_t *ha = NULL, *hb = NULL;
	uint32_t *dp = NULL;
	int err = -ENOMEM;

	if (blocks_of(a, fa, &sa, &na) < 0 || blocks_of(b, fb, &sb, &nb) < 0)
		goto out;
	if (na > 20000 || nb > 20000 || (uint64_t)(na + 1) * (nb + 1) > 64u << 20) {
		err = 0; /* too big to pair: unmatched */
		goto out;
	}
	ha = calloc(na + 1, sizeof(*ha));
	hb = calloc(nb + 1, sizeof(*hb));
	dp = calloc((na + 1) * (nb + 1), sizeof(*dp));
	if (!ha || !hb || !dp)
		goto out;
	for (size_t i = 0; i < na; i++)
		for (size_t k = sa[i]; k < sa[i + 1]; k++)
			ha[i] = mix(ha[i] ? ha[i] : 3, a->key[k]);
	for (size_t j = 0; j < nb; j++)
		for (size_t k = sb[j]; k < sb[j + 1]; k++)
			hb[j] = mix(hb[j] ? hb[j] : 3, b->key[k]);
#define DP(i, j) dp[(size_t)(i) * (nb + 1) + (j)]
	for (size_t i = na; i-- > 0;)
		for (size_t j = nb; j-- > 0;)
			DP(i, j) = ha[i] == hb[j] ? DP(i + 1, j + 1) + 1
				 : DP(i + 1, j) > DP(i, j + 1) ? DP(i + 1, j) : DP(i, j + 1);
	for (size_t i = 0, j = 0; i < na && j < nb;) {
		if (ha[i] == hb[j]) {
			for (size_t k = 0; k < sa[i + 1] - sa[i]; k++)
				if (pair_insns(ps, &a->in[sa[i] + k], &b->in[sb[j] + k]) < 0)
					goto out;
			i++;
			j++;
		} else if (DP(i + 1, j) >= DP(i, j + 1)) {
			i++;
		} else {
			j++;
		}
	}
#undef DP
	err = 0;
out:
	free(sa);
	free(sb);
	free(ha);
	free(hb);
	free(dp);
	return err;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static bool map_off(const struct pair *p, size_t n, uint64_t from, uint64_t *to)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p[mid].from < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n && p[lo].from == from) {
		*to = p[lo].to;
		return true;
	}
	return false;
}

/* LOC, in OLD's module, as NEW's; false when unmatched. Others stay. */
static bool remap(struct hwp_code_loc *l, int old, int new_module, const struct pair *p, size_t n)
{
	uint64_t to;

	if (l->module != old)
		return true;
	if (!map_off(p, n, l->offset, &to))
		return false;
	l->addr += to - l->offset;
	l->offset = to;
	l->module = new_module;
	return true;
}

static void free_side(struct side *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->f[i].name);
	free(s->f);
	free(s->by_off);
}

struct hwp_branch_collector *hwp_pgo__matched_collector(struct hwp_branch_collector *c, int old_module,
							const char *old_path, const char *new_path, int *new_module,
							struct hwp_pgo_match_stats *st)
{
	struct hwp_symbolizer *sym = hwp__branch_collector_symbolizer(c);
	struct hwp__code_cache *cc = hwp__branch_collector_code_cache(c);
	struct side a = { .module = old_module }, b = { 0 };
	struct fn_code ca = { 0 }, cb = { 0 };
	struct pairs ps = { .cc = cc, .a = &a, .b = &b };
	struct hwp_branch_table *ranges = NULL, *branches = NULL;
	uint8_t id[HWP_BUILD_ID_MAX];
	size_t idn = 0;
	int err = -ENOMEM;

	memset(st, 0, sizeof(*st));
	Elf *e = hwp__elf_open(new_path);
	if (e) {
		idn = hwp__elf_build_id(e, id);
		elf_end(e);
	}
	if (!e) {
		hwp__set_error(ENOENT, "%s: not an ELF file", new_path);
		errno = ENOENT;
		return NULL;
	}
	if ((b.module = hwp_symbolizer__module(sym, new_path, idn ? id : NULL, (uint8_t)idn)) < 0) {
		err = b.module;
		goto out;
	}
	if ((err = read_fsyms(old_path, &a)) < 0 || (err = read_fsyms(new_path, &b)) < 0)
		goto out;
	err = -ENOMEM;
	st->functions = a.n;
	for (size_t i = 0, j = 0; i < a.n; i++) {
		/* the NEW symbol of the same name (both sorted by name) */
		while (j < b.n && strcmp(b.f[j].name, a.f[i].name) < 0)
			j++;
		if (j >= b.n || strcmp(b.f[j].name, a.f[i].name))
			continue;
		if (decode_fn(cc, sym, &a, &a.f[i], &ca) < 0 || decode_fn(cc, sym, &b, &b.f[j], &cb) < 0)
			goto out;
		if (!ca.n || !cb.n)
			continue;
		if (ca.hash == cb.hash && ca.n == cb.n) {
			st->functions_same++;
			for (size_t k = 0; k < ca.n; k++)
				if (pair_insns(&ps, &ca.in[k], &cb.in[k]) < 0)
					goto out;
			continue;
		}
		size_t before = ps.n;
		if (match_blocks(&ca, &a.f[i], &cb, &b.f[j], &ps) < 0)
			goto out;
		st->functions_blocks += ps.n > before;
	}
	/* one pair per old offset (a stub reached from many calls: the first) */
	if (ps.n)
		qsort(ps.p, ps.n, sizeof(*ps.p), cmp_pair);
	size_t np = 0;
	for (size_t i = 0; i < ps.n; i++)
		if (!np || ps.p[np - 1].from != ps.p[i].from)
			ps.p[np++] = ps.p[i];
	const struct pair *p = ps.p;
	if (!(ranges = hwp_branch_table__new(0)) || !(branches = hwp_branch_table__new(0)))
		goto out;
	size_t nr;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(hwp_branch_collector__ranges(c), &nr);
	for (size_t i = 0; i < nr; i++) {
		struct hwp_branch_row r = rows[i];
		bool mine = r.key.from.module == old_module;

		st->range_runs += mine ? r.c.count : 0;
		if (!remap(&r.key.from, old_module, b.module, p, np) || !remap(&r.key.to, old_module, b.module, p, np) ||
		    r.key.from.offset > r.key.to.offset)
			continue;
		st->range_runs_matched += mine ? r.c.count : 0;
		if (hwp_branch_table__add_row(ranges, &r) < 0)
			goto out;
	}
	rows = hwp_branch_table__rows(hwp_branch_collector__table(c), &nr);
	for (size_t i = 0; i < nr; i++) {
		struct hwp_branch_row r = rows[i];
		bool mine = r.key.from.module == old_module || r.key.to.module == old_module;

		st->branches += mine ? r.c.count : 0;
		if (!remap(&r.key.from, old_module, b.module, p, np) || !remap(&r.key.to, old_module, b.module, p, np))
			continue;
		st->branches_matched += mine ? r.c.count : 0;
		if (hwp_branch_table__add_row(branches, &r) < 0)
			goto out;
	}
	err = 0;
out:
	free_side(&a);
	free_side(&b);
	free(ca.in);
	free(ca.key);
	free(cb.in);
	free(cb.key);
	free(ps.p);
	if (err < 0) {
		hwp_branch_table__delete(ranges);
		hwp_branch_table__delete(branches);
		if (err == -ENOMEM)
			hwp__set_error(ENOMEM, "out of memory matching %s to %s", old_path, new_path);
		errno = -err;
		return NULL;
	}
	*new_module = b.module;
	return hwp_branch_collector__from_tables(sym, hwp__branch_collector_name(c), branches, ranges);
}
