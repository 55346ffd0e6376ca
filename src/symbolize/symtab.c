/* SPDX-License-Identifier: MIT */
/* Sorted symbol ranges with perf's duplicate and end rules. See symtab.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/symtab.h"

int hwp_symtab__add(struct hwp_symtab *t, uint64_t start, uint64_t size, const char *name,
		    uint8_t bind, uint8_t flags)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct hwp_sym *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = (struct hwp_sym){ .start = start,
					  .end = start + size < start ? UINT64_MAX : start + size,
					  .name = name,
					  .bind = bind,
					  .flags = flags };
	return 0;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* <0 when A is the better of two symbols at one address (perf's choose_best_symbol). */
static int better(const struct hwp_sym *a, const struct hwp_sym *b)
{
	bool az = a->end == a->start, bz = b->end == b->start;
	size_t ua, ub, la, lb;

	if (az != bz)
		return az ? 1 : -1;
	if ((a->bind == HWP_SYM_WEAK) != (b->bind == HWP_SYM_WEAK))
		return a->bind == HWP_SYM_WEAK ? 1 : -1;
	if ((a->bind == HWP_SYM_GLOBAL) != (b->bind == HWP_SYM_GLOBAL))
		return a->bind == HWP_SYM_GLOBAL ? -1 : 1;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int cmp_sym(const void *pa, const void *pb)
{
	const struct hwp_sym *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return better(a, b);
}

static uint64_t page_roundup(uint64_t x)
{
	return (x + 4095) & ~(uint64_t)4095;
}

int hwp_symtab__finish(struct hwp_symtab *t, bool kallsyms)
{
	size_t i, n = 0;

	if (!t->n)
		return 0;
	qsort(t->v, t->n, sizeof(*t->v), cmp_sym);
	for (i = 0; i < t->n; i++)
		if (!n || t->v[i].start != t->v[n - 1].start)
			t->v[n++] = t->v[i];
	t->n = n;
	for (i = 0; i + 1 < n; i++) {
		struct hwp_sym *p = &t->v[i], *c = &t->v[i + 1];

		if (p->end != p->start)
			continue;
		if (kallsyms && !(p->flags & HWP_SYMF_KMOD) != !(c->flags & HWP_SYMF_KMOD))
			p->end = page_roundup(p->end + 4096);
		else
			p->end = c->start;
	}
	if (t->v[n - 1].end == t->v[n - 1].start)
		t->v[n - 1].end = page_roundup(t->v[n - 1].start) + 4096;
	free(t->max_end);
	t->max_end = malloc(n * sizeof(*t->max_end));
	if (!t->max_end)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		t->max_end[i] = i && t->max_end[i - 1] > t->v[i].end ? t->max_end[i - 1] : t->v[i].end;
	return 0;
}

struct hwp_sym *hwp_symtab__find(const struct hwp_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

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

void hwp_symtab__free(struct hwp_symtab *t)
{
	free(t->v);
	free(t->max_end);
	memset(t, 0, sizeof(*t));
}
