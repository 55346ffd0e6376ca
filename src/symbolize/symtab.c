/* SPDX-License-Identifier: MIT */
/* Symbol ranges with perf's duplicate and end rules, found as perf finds
   them. See symtab.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/demangle.h"
#include "symbolize/symtab.h"

int hwp__symtab_add(struct hwp_symtab *t, uint64_t start, uint64_t size, const char *name,
		    uint8_t bind, uint8_t flags)
{
	if (t->n >= INT32_MAX)
		return -ENOMEM; /* tree nodes are int32 indices */
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct hwp_sym *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	if (t->tree_mode && hwp__symtree_reserve(&t->tree, t->n + 1))
		return -ENOMEM;
	t->v[t->n] = (struct hwp_sym){ .start = start,
				       .end = start + size < start ? UINT64_MAX : start + size,
				       .name = name,
				       .bind = bind,
				       .flags = flags,
				       .seq = (uint32_t)t->n };
	if (t->tree_mode)
		hwp__symtree_insert(&t->tree, t->v, (int32_t)t->n);
	t->n++;
	return 0;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* The name perf compares: the one it prints, demangled as it loads. NULL:
   NAME itself; else malloc'd. */
static char *compared_name(const char *name, bool demangle)
{
	return demangle && hwp__demangle_is_mangled(name) ? hwp__demangle(name, HWP_DEMANGLE_NAME) : NULL;
}

static int better_by_names(const char *an, const char *bn)
{
	size_t ua = leading_underscores(an), ub = leading_underscores(bn), la, lb;

	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(an);
	lb = strlen(bn);
	if (la != lb)
		return la > lb ? -1 : 1;
	return 0;
}

/* <0 when A is the better of two symbols at one address (perf's
   choose_best_symbol; on a tie perf keeps the one it met first). */
static int better(const struct hwp_sym *a, const struct hwp_sym *b, bool demangle)
{
	bool az = a->end == a->start, bz = b->end == b->start;
	char *ad, *bd;
	int r;

	if (az != bz)
		return az ? 1 : -1;
	if ((a->bind == HWP_SYM_WEAK) != (b->bind == HWP_SYM_WEAK))
		return a->bind == HWP_SYM_WEAK ? 1 : -1;
	if ((a->bind == HWP_SYM_GLOBAL) != (b->bind == HWP_SYM_GLOBAL))
		return a->bind == HWP_SYM_GLOBAL ? -1 : 1;
	ad = compared_name(a->name, demangle);
	bd = compared_name(b->name, demangle);
	r = better_by_names(ad ? ad : a->name, bd ? bd : b->name);
	free(ad);
	free(bd);
	if (r)
		return r;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* By start, then as perf's tree orders equal starts: in insertion order. */
static int cmp_sym(const void *pa, const void *pb)
{
	const struct hwp_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static uint64_t page_roundup(uint64_t x)
{
	return (x + 4095) & ~(uint64_t)4095;
}

/* symbols__fixup_end: a zero-size symbol reaches to the next one's start
   (aliases included, so only the last of a group is stretched). */
static void fixup_ends(struct hwp_sym *v, size_t n, bool kallsyms)
{
	for (size_t i = 0; i + 1 < n; i++) {
		struct hwp_sym *p = &v[i], *c = &v[i + 1];

		if (p->end != p->start)
			continue;
		if (kallsyms && !(p->flags & HWP_SYMF_KMOD) != !(c->flags & HWP_SYMF_KMOD))
			p->end = page_roundup(p->end + 4096);
		else
			p->end = c->start;
	}
	if (n && v[n - 1].end == v[n - 1].start)
		v[n - 1].end = page_roundup(v[n - 1].start) + 4096;
}

/*
 * symbols__fixup_duplicate: walking in address order, of two neighbours
 * with one start the worse is dropped at once and the better meets the
 * next. The losers' positions are appended to LOST (when not NULL) in the
 * order perf erases them; V itself is left in place.
 */
static size_t pick_duplicates(struct hwp_sym *v, size_t n, bool demangle, bool *dead, int32_t *lost)
{
	size_t nl = 0, cur = 0;

	for (size_t i = 1; i < n; i++) {
		if (v[i].start != v[cur].start) {
			cur = i;
			continue;
		}
		size_t loser = better(&v[cur], &v[i], demangle) <= 0 ? i : cur;

		dead[loser] = true;
		if (lost)
			lost[nl] = (int32_t)loser;
		nl++;
		if (loser == cur)
			cur = i;
	}
	return nl;
}

static int build_max_end(struct hwp_symtab *t)
{
	free(t->max_end);
	t->max_end = malloc(t->n * sizeof(*t->max_end));
	if (!t->max_end)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		t->max_end[i] = i && t->max_end[i - 1] > t->v[i].end ? t->max_end[i - 1] : t->v[i].end;
	return 0;
}

/*
 * perf's tree: every symbol inserted in table order, then the losing
 * aliases erased in the order symbols__fixup_duplicate erases them. V is
 * sorted here, so insertion follows seq.
 */
static int build_tree(struct hwp_symtab *t, const int32_t *lost, size_t nlost)
{
	int32_t *by_seq = malloc(t->n * sizeof(*by_seq));
	int err;

	if (!by_seq)
		return -ENOMEM;
	hwp__symtree_init(&t->tree);
	if ((err = hwp__symtree_reserve(&t->tree, t->n))) {
		free(by_seq);
		return err;
	}
	for (size_t i = 0; i < t->n; i++)
		by_seq[t->v[i].seq] = (int32_t)i;
	for (size_t k = 0; k < t->n; k++)
		hwp__symtree_insert(&t->tree, t->v, by_seq[k]);
	for (size_t k = 0; k < nlost; k++)
		hwp__symtree_erase(&t->tree, lost[k]);
	free(by_seq);
	t->tree_mode = true;
	return 0;
}

int hwp__symtab_finish(struct hwp_symtab *t, enum hwp_symtab_mode mode)
{
	bool *dead;
	int32_t *lost = NULL;
	size_t i, n = 0, nlost;
	int err = 0;

	if (!t->n)
		return 0;
	qsort(t->v, t->n, sizeof(*t->v), cmp_sym);
	dead = calloc(t->n, sizeof(*dead));
	if (!dead || (mode == HWP_SYMTAB_PERF_TREE && !(lost = malloc(t->n * sizeof(*lost))))) {
		free(dead);
		return -ENOMEM;
	}
	if (mode == HWP_SYMTAB_KALLSYMS) {
		/* perf (since 5.18) fixes the ends first: of aliases only the
		   last in the file is stretched, and having a size it wins */
		fixup_ends(t->v, t->n, true);
		pick_duplicates(t->v, t->n, t->demangle, dead, NULL);
		for (i = 0; i < t->n; i++)
			if (!dead[i])
				t->v[n++] = t->v[i];
		t->n = n;
		err = build_max_end(t);
	} else {
		fixup_ends(t->v, t->n, false);
		nlost = pick_duplicates(t->v, t->n, t->demangle, dead, lost);
		if (mode == HWP_SYMTAB_PERF_TREE) {
			err = build_tree(t, lost, nlost);
		} else {
			for (i = 0; i < t->n; i++)
				if (!dead[i])
					t->v[n++] = t->v[i];
			t->n = n;
			err = build_max_end(t);
		}
	}
	free(dead);
	free(lost);
	return err;
}

void hwp__symtab_start_tree(struct hwp_symtab *t)
{
	hwp__symtree_init(&t->tree);
	t->tree_mode = true;
}

struct hwp_sym *hwp__symtab_find(const struct hwp_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	if (t->tree_mode) {
		int32_t i = hwp__symtree_find(&t->tree, t->v, addr);

		return i < 0 ? NULL : &t->v[i];
	}

	if (!t->max_end)
		return NULL;
	while (lo < hi) { /* first symbol starting above addr */
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		if (t->max_end[i] <= addr)
			break;
		if (addr < t->v[i].end)
			return &t->v[i];
	}
	return NULL;
}

void hwp__symtab_free(struct hwp_symtab *t)
{
	free(t->v);
	free(t->max_end);
	hwp__symtree_free(&t->tree);
	memset(t, 0, sizeof(*t));
}
