/* SPDX-License-Identifier: MIT */
/* A line-table row's file as binutils names it. See line_file.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <gelf.h>
#include <libelf.h>

#include "symbolize/line_file.h"

/* The addresses of a sequence's rows before its first DW_LNS_set_file. */
struct hwp_addr_span {
	uint64_t lo, hi; /* inclusive */
};

/* A bounds-checked reader over one line program. */
struct rd {
	const unsigned char *p, *end;
	bool msb, bad;
};

static uint64_t rd_fixed(struct rd *r, size_t n)
{
	uint64_t v = 0;

	if ((size_t)(r->end - r->p) < n) {
		r->bad = true;
		r->p = r->end;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)r->p[r->msb ? i : n - 1 - i] << 8 * (n - 1 - i);
	r->p += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (r->p < r->end) {
		unsigned char b = *r->p++;

		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return v;
}

static Elf_Data *section_data(Elf *e, const char *want)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!e || elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(e, shstrndx, sh.sh_name);
		/* libdw has decompressed SHF_COMPRESSED sections in place */
		if (name && !strcmp(name, want))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

static int push_span(struct hwp_line_files *lf, size_t *cap, uint64_t lo, uint64_t hi)
{
	if (lf->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct hwp_addr_span *v = realloc(lf->spans, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		lf->spans = v;
		*cap = nc;
	}
	lf->spans[lf->n++] = (struct hwp_addr_span){ lo, hi };
	return 0;
}

/*
 * Walks a DWARF 5 line program (the header is skipped through its
 * header_length; the file table is libdw's business) and records, per
 * sequence, the span of rows emitted before its first DW_LNS_set_file.
 * Only addresses matter here: lines and columns are read past.
 */
static int walk_program(struct hwp_line_files *lf, struct rd *r, size_t offset_size)
{
	uint64_t header_length, addr = 0, op_index = 0, lo = 0, hi = 0;
	unsigned min_insn, max_ops, line_range, opcode_base, addr_size;
	const unsigned char *lengths;
	bool leading = true, have = false;
	size_t cap = 0;
	int err;

	addr_size = (unsigned)rd_fixed(r, 1);
	rd_fixed(r, 1); /* segment_selector_size */
	header_length = rd_fixed(r, offset_size);
	if (r->bad || header_length > (uint64_t)(r->end - r->p))
		return 0;
	struct rd prog = { r->p + header_length, r->end, r->msb, false };

	min_insn = (unsigned)rd_fixed(r, 1);
	max_ops = (unsigned)rd_fixed(r, 1);
	rd_fixed(r, 1); /* default_is_stmt */
	rd_fixed(r, 1); /* line_base */
	line_range = (unsigned)rd_fixed(r, 1);
	opcode_base = (unsigned)rd_fixed(r, 1);
	lengths = r->p;
	if (r->bad || !line_range || !max_ops || !opcode_base || addr_size > 8 ||
	    (size_t)(prog.p - lengths) < opcode_base - 1)
		return 0;
	*r = prog;

#define ADVANCE(n)                                                                   \
	do {                                                                         \
		uint64_t adv_ = (n);                                                 \
		addr += min_insn * ((op_index + adv_) / max_ops);                    \
		op_index = (op_index + adv_) % max_ops;                              \
	} while (0)
#define ROW()                                                                        \
	do {                                                                         \
		if (leading) {                                                       \
			lo = have && lo < addr ? lo : addr;                          \
			hi = have && hi > addr ? hi : addr;                          \
			have = true;                                                 \
		}                                                                    \
	} while (0)

	while (r->p < r->end && !r->bad) {
		unsigned op = *r->p++;

		if (op >= opcode_base) {
			ADVANCE((op - opcode_base) / line_range);
			ROW();
			continue;
		}
		switch (op) {
		case 0: { /* extended */
			uint64_t len = rd_uleb(r);
			const unsigned char *next;

			if (r->bad || !len || len > (uint64_t)(r->end - r->p))
				return 0;
			next = r->p + len;
			switch (*r->p++) {
			case DW_LNE_end_sequence:
				if (have && (err = push_span(lf, &cap, lo, hi)))
					return err;
				addr = op_index = 0;
				leading = true;
				have = false;
				break;
			case DW_LNE_set_address:
				addr = rd_fixed(r, len - 1 < addr_size ? len - 1 : addr_size);
				op_index = 0;
				break;
			default: /* set_discriminator, vendor ops */
				break;
			}
			r->p = next;
			break;
		}
		case DW_LNS_copy:
			ROW();
			break;
		case DW_LNS_advance_pc:
			ADVANCE(rd_uleb(r));
			break;
		case DW_LNS_set_file:
			rd_uleb(r);
			leading = false; /* from here binutils follows the register */
			break;
		case DW_LNS_const_add_pc:
			ADVANCE((255 - opcode_base) / line_range);
			break;
		case DW_LNS_fixed_advance_pc:
			addr += rd_fixed(r, 2);
			op_index = 0;
			break;
		default: /* advance_line, set_column, set_isa, ...: their operands */
			for (unsigned i = 0; i < lengths[op - 1]; i++)
				rd_uleb(r);
			break;
		}
	}
#undef ADVANCE
#undef ROW
	return 0;
}

static int cmp_span(const void *a, const void *b)
{
	const struct hwp_addr_span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int scan(struct hwp_line_files *lf, Dwarf *dw, Dwarf_Die *cudie)
{
	/* the unit's own file: a dwz partial unit's table is in the alt file */
	Dwarf *own = cudie->cu ? dwarf_cu_getdwarf(cudie->cu) : NULL;
	Elf *e = dwarf_getelf(own ? own : dw);
	Dwarf_Attribute a;
	Dwarf_Word off;
	GElf_Ehdr eh;
	Elf_Data *d;
	struct rd r;
	uint64_t len;
	size_t offset_size = 4;
	int err;

	lf->scanned = true;
	if (dwarf_formudata(dwarf_attr(cudie, DW_AT_stmt_list, &a), &off) || !e ||
	    !gelf_getehdr(e, &eh))
		return 0;
	d = section_data(e, ".debug_line");
	if (!d || !d->d_buf || off >= d->d_size)
		return 0;
	r = (struct rd){ (const unsigned char *)d->d_buf + off,
			 (const unsigned char *)d->d_buf + d->d_size,
			 eh.e_ident[EI_DATA] == ELFDATA2MSB, false };
	len = rd_fixed(&r, 4);
	if (len == 0xffffffffu) {
		len = rd_fixed(&r, 8);
		offset_size = 8;
	}
	if (r.bad || len > (uint64_t)(r.end - r.p))
		return 0;
	r.end = r.p + len;
	if (rd_fixed(&r, 2) < 5)
		return 0; /* before DWARF 5 both readers start at file 1 */
	if ((err = walk_program(lf, &r, offset_size)) || !lf->n)
		return err;
	qsort(lf->spans, lf->n, sizeof(*lf->spans), cmp_span);
	lf->max_hi = malloc(lf->n * sizeof(*lf->max_hi));
	if (!lf->max_hi)
		return -ENOMEM;
	for (size_t i = 0; i < lf->n; i++)
		lf->max_hi[i] = i && lf->max_hi[i - 1] > lf->spans[i].hi ? lf->max_hi[i - 1]
									  : lf->spans[i].hi;
	return 0;
}

static bool in_spans(const struct hwp_line_files *lf, uint64_t addr)
{
	size_t lo = 0, hi = lf->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lf->spans[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && lf->max_hi[i] >= addr;)
		if (addr <= lf->spans[i].hi)
			return true;
	return false;
}

const char *hwp__line_file_name(struct hwp_line_files *lf, Dwarf *dw, Dwarf_Die *cudie,
				Dwarf_Line *line, int *err)
{
	Dwarf_Files *files;
	Dwarf_Addr addr;
	size_t idx;

	*err = 0;
	if (!lf->scanned && (*err = scan(lf, dw, cudie)))
		return NULL;
	/* a file-1 row before its sequence's first set_file: binutils says file 0 */
	if (lf->n && dwarf_line_file(line, &files, &idx) == 0 && idx == 1 &&
	    dwarf_lineaddr(line, &addr) == 0 && in_spans(lf, addr)) {
		const char *name = dwarf_filesrc(files, 0, NULL, NULL);

		if (name)
			return name;
	}
	return dwarf_linesrc(line, NULL, NULL);
}

void hwp__line_files_free(struct hwp_line_files *lf)
{
	free(lf->spans);
	free(lf->max_hi);
	memset(lf, 0, sizeof(*lf));
}
