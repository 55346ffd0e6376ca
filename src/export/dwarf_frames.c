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
#include "symbolize/dwarf_scope.h"
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

struct hwp__dwarf_frames {
	int fd;
	Dwarf *dw;
	Dwarf_Die last_cu; /* addresses come sorted: mostly the same CU ... */
	Dwarf_Die last_fn; /* ... and the same function */
	bool have_last, have_fn;
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
	return d;
}

void hwp__dwarf_frames_close(struct hwp__dwarf_frames *d)
{
	if (!d)
		return;
	free(d->fns);
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

/* The subprogram (a direct child of the CU, or inside a namespace/class)
   holding VADDR. */
static bool find_subprogram(Dwarf_Die *parent, Dwarf_Addr vaddr, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;

	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return false;
	do {
		int tag = dwarf_tag(&c);

		if (tag == DW_TAG_subprogram && dwarf_haspc(&c, vaddr) == 1) {
			*out = c;
			return true;
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type) &&
		    find_subprogram(&c, vaddr, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* The CU holding VADDR: .debug_aranges when there is one (clang emits
   none by default, and dwarf_addrdie then finds nothing), else each CU's
   own ranges. */
static bool find_cu(struct hwp__dwarf_frames *d, Dwarf_Addr vaddr, Dwarf_Die *cu)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (d->have_last && dwarf_haspc(&d->last_cu, vaddr) == 1) {
		*cu = d->last_cu;
		return true;
	}
	if (dwarf_addrdie(d->dw, vaddr, cu))
		goto found;
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(d->dw, off + hsize, cu) && dwarf_haspc(cu, vaddr) == 1)
			goto found;
		off = next;
	}
	return false;
found:
	d->last_cu = *cu;
	d->have_last = true;
	return true;
}

/* The CU and subprogram holding VADDR (the last ones first). */
static bool find_function(struct hwp__dwarf_frames *d, Dwarf_Addr vaddr, Dwarf_Die *cu, Dwarf_Die *fn)
{
	if (d->have_fn && dwarf_haspc(&d->last_fn, vaddr) == 1 && dwarf_haspc(&d->last_cu, vaddr) == 1) {
		*cu = d->last_cu;
		*fn = d->last_fn;
		return true;
	}
	if (!find_cu(d, vaddr, cu) || !find_subprogram(cu, vaddr, fn, 0))
		return false;
	d->last_fn = *fn;
	d->have_fn = true;
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
	Dwarf_Die cu, fn, cur, child;
	Dwarf_Line *line;
	unsigned disc = 0;
	int lineno = 0;
	size_t n = 0;

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
	cur = fn;
	while (hwp__dwarf_scope_child(&cur, vaddr, &child)) {
		cur = child;
		if (dwarf_tag(&cur) != DW_TAG_inlined_subroutine || n == max)
			continue;
		out[n - 1].line = udata(&cur, DW_AT_call_line);
		out[n - 1].discriminator = udata(&cur, DW_AT_GNU_discriminator);
		out[n++] = (struct hwp__src_frame){ .name = fn_name(&cur), .decl_line = decl_line(&cur) };
	}
	out[n - 1].line = (unsigned)lineno;
	out[n - 1].discriminator = disc;
	for (size_t i = 0; i < n; i++)
		if (!out[i].name)
			return i; /* a frame without a name ends the chain, as in llvm-profgen */
	return n;
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

size_t hwp__dwarf_frames_named(struct hwp__dwarf_frames *d, const char *name, uint64_t *low, uint64_t *high,
			       size_t max)
{
	size_t n = 0;

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
	for (size_t i = 0; i < d->nfns && n < max; i++)
		if (!strcmp(d->fns[i].name, name)) {
			low[n] = d->fns[i].lo;
			high[n++] = d->fns[i].hi;
		}
	return n;
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
