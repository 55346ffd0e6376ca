/* SPDX-License-Identifier: MIT */
/*
 * Frames of an address for sample profiles (dwarf_frames.h). The function
 * is found as the CU's subprogram holding the address, then its scopes are
 * descended as eu-addr2line -i does (dwarf_getscopes would continue an
 * inlined instance with its abstract origin's parents, not its caller).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/dwarf_frames.h"
#include "hwprof/hwprof.h"
#include "symbolize/scope_tree.h"
#include "util/error.h"
#include "util/vec.h"

/* A call site's discriminator (GCC and clang; elfutils' dwarf.h lacks it). */
#ifndef DW_AT_GNU_discriminator
#define DW_AT_GNU_discriminator 0x2136
#endif

struct fn_range {
	const char *name;
	uint64_t lo, hi;
};

/* One address range of a CU's subprogram (or of the CU itself: die and
   order unused), for the lookups by address. */
struct sub_range {
	uint64_t lo, hi;
	uint64_t max_hi; /* the largest hi of this entry and every one sorted before it */
	Dwarf_Off die;
	uint32_t order;  /* the subprogram's place in the CU's DIE order */
};

/* A CU's subprograms by address, made on the CU's first lookup: a CU of
   thousands of functions (an amalgamation) is searched in log time instead
   of a walk over its DIEs per address. */
struct cu_subs {
	Dwarf_Off cu;
	Dwarf_Die die;
	struct sub_range *r;
	size_t n, cap;
	struct sub_range *ranges; /* the CU's own: dwarf_haspc() on the CU without libdw */
	size_t nranges, cranges;
};

struct hwp__dwarf_frames {
	int fd;
	Dwarf *dw;
	struct cu_subs *cus; /* indexed CUs, most recent last */
	size_t ncus, ccus;
	struct cu_subs *last; /* addresses come sorted: mostly the same CU */
	struct hwp__scope_trees *scopes; /* NULL when out of memory: libdw's DIEs walked */
	struct fn_range *fns; /* hwp__dwarf_frames_named()'s index */
	size_t nfns, cfns;
	bool indexed;
};

struct hwp__dwarf_frames *hwp__dwarf_frames_open(const char *path)
{
	struct hwp__dwarf_frames *d = calloc(1, sizeof(*d));

	if (!d) {
		hwp__set_error(ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	d->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (d->fd < 0) {
		hwp__set_error(errno, "%s: %s", path, strerror(errno));
		free(d);
		return NULL;
	}
	d->dw = dwarf_begin(d->fd, DWARF_C_READ);
	if (!d->dw) {
		hwp__set_error(ENODATA, "%s: no DWARF debug info (the binary must carry its debug info; separate debug files are not read here)",
			       path);
		close(d->fd);
		free(d);
		errno = ENODATA;
		return NULL;
	}
	d->scopes = hwp__scope_trees_new();
	return d;
}

void hwp__dwarf_frames_close(struct hwp__dwarf_frames *d)
{
	if (!d)
		return;
	free(d->fns);
	for (size_t i = 0; i < d->ncus; i++) {
		free(d->cus[i].r);
		free(d->cus[i].ranges);
	}
	free(d->cus);
	hwp__scope_trees_free(d->scopes);
	dwarf_end(d->dw);
	close(d->fd);
	free(d);
}

/* The linkage name is what a compiler matches a profile against (C++);
   DW_AT_name for C. Both through abstract origins and specifications. */
static const char *fn_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return n;
}

static unsigned decl_line(Dwarf_Die *die)
{
	int l = 0;

	return dwarf_decl_line(die, &l) == 0 && l > 0 ? (unsigned)l : 0;
}

static unsigned udata(Dwarf_Die *die, unsigned name)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	return dwarf_formudata(dwarf_attr(die, name, &a), &w) == 0 ? (unsigned)w : 0;
}

/* Indexes PARENT's subprograms (direct children, or inside a namespace or
   class, in DIE order: the first holding an address is the one found). */
static int index_subs(struct cu_subs *cs, Dwarf_Die *parent, int depth, uint32_t *order)
{
	Dwarf_Die c;
	int err;

	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, start, end;
			ptrdiff_t off = 0;
			uint32_t o = (*order)++;

			/* dwarf_haspc()'s ranges */
			while ((off = dwarf_ranges(&c, off, &base, &start, &end)) > 0) {
				struct sub_range *r = HWP_VEC_PUSH(cs->r, cs->n, cs->cap);

				if (!r)
					return -ENOMEM;
				*r = (struct sub_range){ .lo = start, .hi = end, .die = dwarf_dieoffset(&c), .order = o };
			}
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type) &&
		    (err = index_subs(cs, &c, depth + 1, order)))
			return err;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static int by_lo(const void *a, const void *b)
{
	const struct sub_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts R[0..N) by start and sets each max_hi, for ranges_after(). */
static void sort_ranges(struct sub_range *r, size_t n)
{
	qsort(r, n, sizeof(*r), by_lo);
	for (size_t i = 0; i < n; i++)
		r[i].max_hi = i && r[i - 1].max_hi > r[i].hi ? r[i - 1].max_hi : r[i].hi;
}

/* The first of the sorted R[0..N) starting after VADDR: the ranges that can
   hold it are before, back to the first whose max_hi does not pass it. */
static size_t ranges_after(const struct sub_range *r, size_t n, uint64_t vaddr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether CS's CU holds VADDR (dwarf_haspc() on the CU DIE). */
static bool cu_has(const struct cu_subs *cs, uint64_t vaddr)
{
	for (size_t i = ranges_after(cs->ranges, cs->nranges, vaddr); i-- > 0 && cs->ranges[i].max_hi > vaddr;)
		if (vaddr < cs->ranges[i].hi)
			return true;
	return false;
}

/* CU's index, made on first use (and made the last one used); NULL when
   out of memory. */
static struct cu_subs *cu_subs(struct hwp__dwarf_frames *d, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	Dwarf_Addr base, start, end;
	ptrdiff_t roff = 0;
	uint32_t order = 0;

	for (size_t i = d->ncus; i-- > 0;)
		if (d->cus[i].cu == off)
			return d->last = &d->cus[i];
	d->last = NULL; /* (the vector may move) */
	struct cu_subs *cs = HWP_VEC_PUSH(d->cus, d->ncus, d->ccus);
	if (!cs)
		return NULL;
	*cs = (struct cu_subs){ .cu = off, .die = *cu };
	while ((roff = dwarf_ranges(cu, roff, &base, &start, &end)) > 0) {
		struct sub_range *r = HWP_VEC_PUSH(cs->ranges, cs->nranges, cs->cranges);

		if (!r)
			goto oom;
		*r = (struct sub_range){ .lo = start, .hi = end };
	}
	if (index_subs(cs, cu, 0, &order) < 0)
		goto oom;
	sort_ranges(cs->r, cs->n);
	sort_ranges(cs->ranges, cs->nranges);
	return d->last = cs;
oom:
	free(cs->r);
	free(cs->ranges);
	d->ncus--;
	return NULL;
}

/* The subprogram of CS's CU holding VADDR: of those whose ranges hold it,
   the first in DIE order. */
static bool find_subprogram(struct hwp__dwarf_frames *d, const struct cu_subs *cs, Dwarf_Addr vaddr, Dwarf_Die *out)
{
	const struct sub_range *best = NULL;

	for (size_t i = ranges_after(cs->r, cs->n, vaddr); i-- > 0 && cs->r[i].max_hi > vaddr;)
		if (vaddr < cs->r[i].hi && (!best || cs->r[i].order < best->order))
			best = &cs->r[i];
	return best && dwarf_offdie(d->dw, best->die, out) != NULL;
}

/* The CU holding VADDR, indexed: the last one when it holds it, else
   .debug_aranges when there is one (clang emits none by default, and
   dwarf_addrdie then finds nothing), else each CU's own ranges. */
static struct cu_subs *find_cu(struct hwp__dwarf_frames *d, Dwarf_Addr vaddr)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;

	if (d->last && cu_has(d->last, vaddr))
		return d->last;
	if (dwarf_addrdie(d->dw, vaddr, &cu))
		return cu_subs(d, &cu);
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(d->dw, off + hsize, &cu) && dwarf_haspc(&cu, vaddr) == 1)
			return cu_subs(d, &cu);
		off = next;
	}
	return NULL;
}

/* The CU and subprogram holding VADDR. */
static bool find_function(struct hwp__dwarf_frames *d, Dwarf_Addr vaddr, Dwarf_Die *cu, Dwarf_Die *fn)
{
	struct cu_subs *cs = find_cu(d, vaddr);

	if (!cs || !find_subprogram(d, cs, vaddr, fn))
		return false;
	*cu = cs->die;
	return true;
}

/* Where a call enters the function: its low_pc, else (hot and cold parts
   in DW_AT_ranges) the first range's start, as llvm-profgen takes it. */
static uint64_t entry_of(Dwarf_Die *fn)
{
	Dwarf_Addr lowpc, base, start, end;

	if (dwarf_lowpc(fn, &lowpc) == 0)
		return lowpc;
	return dwarf_ranges(fn, 0, &base, &start, &end) > 0 ? start : 0;
}

size_t hwp__dwarf_frames_at(struct hwp__dwarf_frames *d, uint64_t vaddr, struct hwp__src_frame *out,
			    size_t max)
{
	Dwarf_Die cu, fn, scopes[HWP_SCOPE_TREE_MAX_DEPTH];
	Dwarf_Line *line;
	unsigned disc = 0;
	int lineno = 0;
	size_t n = 0, nscopes;

	if (!max || !find_function(d, vaddr, &cu, &fn))
		return 0;
	line = dwarf_getsrc_die(&cu, vaddr);
	if (!line || dwarf_lineno(line, &lineno) != 0 || lineno < 0)
		lineno = 0;
	if (line)
		dwarf_linediscriminator(line, &disc);
	out[n++] = (struct hwp__src_frame){ .name = fn_name(&fn), .decl_line = decl_line(&fn),
					    .entry = entry_of(&fn) };
	/* Each inlined instance: the frame above takes its call site, the new
	   frame is the inlined function. */
	nscopes = hwp__scope_trees_path(d->scopes, &fn, vaddr, scopes, HWP_SCOPE_TREE_MAX_DEPTH);
	for (size_t i = 0; i < nscopes && n < max; i++) {
		Dwarf_Die *cur = &scopes[i];

		if (dwarf_tag(cur) != DW_TAG_inlined_subroutine)
			continue;
		out[n - 1].line = udata(cur, DW_AT_call_line);
		out[n - 1].discriminator = udata(cur, DW_AT_GNU_discriminator);
		out[n++] = (struct hwp__src_frame){ .name = fn_name(cur), .decl_line = decl_line(cur) };
	}
	out[n - 1].line = (unsigned)lineno;
	out[n - 1].discriminator = disc;
	for (size_t i = 0; i < n; i++)
		if (!out[i].name)
			return i; /* a frame without a name ends the chain, as in llvm-profgen */
	return n;
}

const char *hwp__dwarf_frames_function(struct hwp__dwarf_frames *d, uint64_t vaddr)
{
	Dwarf_Die cu, fn;

	return find_function(d, vaddr, &cu, &fn) ? fn_name(&fn) : NULL;
}

/* Every subprogram with code, by name, made on first use. */
static int index_add(struct hwp__dwarf_frames *d, Dwarf_Die *fn)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	const char *name = fn_name(fn);

	if (!name)
		return 0;
	while ((off = dwarf_ranges(fn, off, &base, &start, &end)) > 0) {
		struct fn_range *r = HWP_VEC_PUSH(d->fns, d->nfns, d->cfns);

		if (!r)
			return -ENOMEM;
		*r = (struct fn_range){ name, start, end };
	}
	return 0;
}

static int index_scope(struct hwp__dwarf_frames *d, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;
	int err;

	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_subprogram && (err = index_add(d, &c)))
			return err;
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type) &&
		    (err = index_scope(d, &c, depth + 1)))
			return err;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static void ensure_index(struct hwp__dwarf_frames *d)
{
	if (!d->indexed) {
		Dwarf_Off off = 0, next;
		size_t hsize;
		Dwarf_Die cu;

		d->indexed = true;
		while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			if (dwarf_offdie(d->dw, off + hsize, &cu) && index_scope(d, &cu, 0))
				break; /* out of memory: what was indexed is used */
			off = next;
		}
	}
}

size_t hwp__dwarf_frames_named(struct hwp__dwarf_frames *d, const char *name, uint64_t *low, uint64_t *high,
			       size_t max)
{
	size_t n = 0;

	ensure_index(d);
	for (size_t i = 0; i < d->nfns && n < max; i++)
		if (!strcmp(d->fns[i].name, name)) {
			low[n] = d->fns[i].lo;
			high[n++] = d->fns[i].hi;
		}
	return n;
}

size_t hwp__dwarf_frames_nranges(struct hwp__dwarf_frames *d)
{
	ensure_index(d);
	return d->nfns;
}

void hwp__dwarf_frames_range(const struct hwp__dwarf_frames *d, size_t i, uint64_t *low, uint64_t *high,
			     const char **name)
{
	*low = d->fns[i].lo;
	*high = d->fns[i].hi;
	*name = d->fns[i].name;
}

bool hwp__dwarf_frames_has_discriminators(struct hwp__dwarf_frames *d)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;

		if (dwarf_offdie(d->dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0)
			for (size_t i = 0; i < n; i++) {
				unsigned disc;

				if (!dwarf_linediscriminator(dwarf_onesrcline(lines, i), &disc) && disc)
					return true;
			}
		off = next;
	}
	return false;
}
