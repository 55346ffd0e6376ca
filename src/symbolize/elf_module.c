/* SPDX-License-Identifier: MIT */
/*
 * ELF module: segments, symbols (perf's filter: functions, objects and
 * code labels; PLT entries synthesized as "name@plt" as perf 6.1 does, or
 * every one as objdump does; looked up through perf's own symbol tree,
 * symtree.h), DWARF lines and
 * inline chains through libdw, as eu-addr2line -i finds them -- with the
 * source file named as binutils' addr2line names it (line_file.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/elf_module.h"
#include "util/arena.h"

#ifdef HAVE_LIBDW
#include "symbolize/data_type.h"
#include "symbolize/scope_tree.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>

#include "symbolize/elf_sections.h"
#include "symbolize/line_file.h"

struct seg {
	uint64_t off, filesz, vaddr;
	bool exec;
};

struct cu_range {
	uint64_t start, end;
	size_t cu; /* index into cus */
};

/* A function's code range in a CU: where inline chains are looked for. */
struct fn_range {
	uint64_t start, end;
	Dwarf_Die die;
};

struct cu_fns {
	bool indexed;
	struct fn_range *v;
	size_t n;
	uint64_t *max_end;
};

struct hwp_elf_module {
	Elf *elf;   /* the binary, or NULL */
	Elf *debug; /* separate debug file, or NULL */
	char *elf_path, *debug_path;
	struct seg *segs;
	size_t nsegs;
	struct hwp_symtab syms;
	bool has_symtab;
	struct hwp_arena arena; /* synthesized names */

	Dwarf *dw;
	Dwarf *alt_dw; /* dwz's common file, when we had to find it */
	struct hwp__dtype_globals *dtype_globals; /* data_type.c's */
	Elf *alt_elf;
	bool cus_indexed;
	Dwarf_Die *cus;
	struct cu_fns *fns; /* per CU, built on first use */
	struct hwp__scope_trees *scopes; /* inline chains' index, made on first use */
	struct hwp_line_files *lfs; /* per CU, built on first use */
	size_t ncus;
	struct cu_range *ranges;
	size_t nranges;
	uint64_t *ranges_max_end;
};

/* ---- segments ---- */

static int load_segments(struct hwp_elf_module *m, Elf *e, bool debug_only)
{
	size_t n, i, k = 0;
	uint64_t prev_end = 0;

	if (elf_getphdrnum(e, &n))
		return 0; /* no program headers (ET_REL): offsets are taken as addresses */
	m->segs = calloc(n ? n : 1, sizeof(*m->segs));
	if (!m->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		struct seg *s = &m->segs[k];

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		s->vaddr = ph.p_vaddr;
		s->exec = ph.p_flags & PF_X;
		if (!debug_only) {
			s->off = ph.p_offset;
			s->filesz = ph.p_filesz;
		} else {
			/*
			 * objcopy --only-keep-debug clobbers p_offset/p_filesz. Rebuild
			 * the layout linkers make: each segment at the first offset past
			 * the previous one that is congruent to its address modulo its
			 * alignment (the ELF rule), the first at offset 0.
			 */
			uint64_t align = ph.p_align && !(ph.p_align & (ph.p_align - 1)) &&
							 ph.p_align <= (1u << 21)
						 ? ph.p_align
						 : 4096;
			uint64_t want = ph.p_vaddr & (align - 1);
			uint64_t off = (prev_end & ~(align - 1)) | want;

			if (off < prev_end)
				off += align;
			if (!k)
				off = want;
			s->off = off;
			s->filesz = ph.p_memsz;
			prev_end = off + ph.p_memsz;
		}
		k++;
	}
	m->nsegs = k;
	return 0;
}

bool hwp__elf_module_offset_to_vaddr(const struct hwp_elf_module *m, uint64_t offset,
				     uint64_t *vaddr)
{
	const struct seg *best = NULL;

	for (size_t i = 0; i < m->nsegs; i++) {
		const struct seg *s = &m->segs[i];

		if (offset >= s->off && offset - s->off < s->filesz && (!best || (s->exec && !best->exec)))
			best = s;
	}
	if (!best) {
		*vaddr = offset;
		return false;
	}
	*vaddr = offset - best->off + best->vaddr;
	return true;
}

/* ---- symbols ---- */

/*
 * perf's dso__load_sym filter: functions, objects, and labels (no-type
 * symbols) in sections whose name holds "text"; nothing in a section that
 * is not loaded (SHF_ALLOC clear). The order is the table's: perf inserts
 * symbols into its search tree in that order (symtree.h).
 */
static int add_symbols(struct hwp_elf_module *m, Elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Ehdr eh;
	size_t n, i, shstrndx;
	int err;

	if (!data || !sh->sh_entsize || !gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx))
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Shdr tsh;
		Elf_Scn *tscn;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym) || !sym.st_name || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE)
			continue; /* ABS, COMMON: no section (perf gives up on them) */
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_NOTYPE && type != STT_OBJECT && type != STT_FUNC &&
		    type != STT_GNU_IFUNC)
			continue;
		tscn = elf_getscn(e, sym.st_shndx);
		if (!tscn || !gelf_getshdr(tscn, &tsh) || !(tsh.sh_flags & SHF_ALLOC))
			continue;
		if (type == STT_NOTYPE) {
			const char *sec = elf_strptr(e, shstrndx, tsh.sh_name);

			if (!sec || !strstr(sec, "text"))
				continue;
		}
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (hwp__elf_arm_mapping_symbol(eh.e_machine, name))
			continue;
		if (eh.e_machine == EM_ARM && type == STT_FUNC)
			sym.st_value &= ~(GElf_Addr)1; /* Thumb bit */
		err = hwp__symtab_add(&m->syms, sym.st_value, sym.st_size, name, hwp__elf_sym_bind(&sym), 0);
		if (err)
			return err;
	}
	return 0;
}

/* GOT slot address -> dynamic symbol name, from .rela.plt/.rela.dyn (and .rel.*). */
struct got_slot {
	uint64_t addr;
	const char *name;
};

struct got_map {
	struct got_slot *v;
	size_t n, cap;
};

static int got_add(struct got_map *g, uint64_t addr, const char *name)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 64;
		struct got_slot *v = realloc(g->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		g->v = v;
		g->cap = cap;
	}
	g->v[g->n++] = (struct got_slot){ addr, name };
	return 0;
}

static int cmp_slot(const void *pa, const void *pb)
{
	const struct got_slot *a = pa, *b = pb;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static const char *got_find(const struct got_map *g, uint64_t addr)
{
	struct got_slot key = { addr, NULL };
	const struct got_slot *hit = bsearch(&key, g->v, g->n, sizeof(*g->v), cmp_slot);

	return hit ? hit->name : NULL;
}

static int collect_relocs(Elf *e, struct got_map *g)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh, dsh;
		Elf_Data *data, *dyn;
		Elf_Scn *dscn;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL) ||
		    !sh.sh_entsize)
			continue;
		dscn = elf_getscn(e, sh.sh_link);
		if (!dscn || !gelf_getshdr(dscn, &dsh) || dsh.sh_type != SHT_DYNSYM)
			continue;
		data = elf_getdata(scn, NULL);
		dyn = elf_getdata(dscn, NULL);
		if (!data || !dyn)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n; i++) {
			GElf_Rela r;
			GElf_Rel rl;
			GElf_Sym sym;
			uint64_t off, info;
			const char *name;
			int err;

			if (sh.sh_type == SHT_RELA) {
				if (!gelf_getrela(data, (int)i, &r))
					continue;
				off = r.r_offset;
				info = r.r_info;
			} else {
				if (!gelf_getrel(data, (int)i, &rl))
					continue;
				off = rl.r_offset;
				info = rl.r_info;
			}
			if (!GELF_R_SYM(info) || !gelf_getsym(dyn, (int)GELF_R_SYM(info), &sym))
				continue;
			name = elf_strptr(e, dsh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			err = got_add(g, off, name);
			if (err)
				return err;
		}
	}
	if (g->n)
		qsort(g->v, g->n, sizeof(*g->v), cmp_slot);
	return 0;
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The GOT slot an x86-64 PLT entry jumps through: jmp *disp32(%rip), maybe
   after endbr64 and/or a bnd prefix. 0 when not found. */
static uint64_t x86_plt_slot(const unsigned char *p, size_t len, uint64_t vaddr)
{
	for (size_t i = 0; i + 6 <= len && i <= 6; i++)
		if (p[i] == 0xff && p[i + 1] == 0x25)
			return vaddr + i + 6 + (uint64_t)(int64_t)(int32_t)rd32(p + i + 2);
	return 0;
}

/* AArch64: adrp x16, PAGE; ldr x17, [x16, #OFF] -> PAGE + OFF. */
static uint64_t a64_plt_slot(const unsigned char *p, size_t len, uint64_t vaddr)
{
	for (size_t i = 0; i + 8 <= len; i += 4) {
		uint32_t adrp = rd32(p + i), ldr = rd32(p + i + 4);

		if ((adrp & 0x9f000000u) == 0x90000000u && (ldr & 0xffc00000u) == 0xf9400000u) {
			int64_t imm = (int64_t)(((adrp >> 29) & 3) | ((adrp >> 5) & 0x7ffff) << 2);

			if (imm & (1 << 20))
				imm -= 1 << 21;
			return ((vaddr + i) & ~(uint64_t)0xfff) + (uint64_t)(imm << 12) +
			       ((ldr >> 10) & 0xfff) * 8;
		}
	}
	return 0;
}

static int add_plt_symbol(struct hwp_elf_module *m, uint64_t va, uint64_t size,
			  const char *target)
{
	size_t len = strlen(target);
	char *name = hwp__arena_alloc(&m->arena, len + 5);

	if (!name)
		return -ENOMEM;
	memcpy(name, target, len);
	memcpy(name + len, "@plt", 5);
	return hwp__symtab_add(&m->syms, va, size, name, HWP_SYM_GLOBAL, HWP_SYMF_SYNTH);
}

/*
 * perf 6.1's dso__synthesize_plt_symbols(): the i-th .rela.plt (.rel.plt)
 * entry names the i-th .plt entry after the header (x86: header and entries
 * of .plt's sh_entsize bytes; AArch64: 32 and 16; Arm: 20 and 12) "name@plt",
 * where name is the relocation's .dynsym symbol -- symbol 0, no name, for
 * the IRELATIVE slots of libc, which perf prints "@plt". They are added to
 * the tree after the others whatever covers them already, so that an
 * address in .plt resolves to "name@plt" or to a stretched zero-size _init
 * as perf's tree walk finds one or the other. perf 6.1 names no entry of
 * .plt.sec (IBT) or .plt.got: their addresses fall to whatever covers them
 * in the tree, or to no symbol.
 */
static int synthesize_plt_perf(struct hwp_elf_module *m, Elf *e)
{
	GElf_Ehdr eh;
	GElf_Shdr plt, rel, dsh;
	Elf_Scn *rscn, *dscn;
	Elf_Data *rdata, *dyn;
	uint64_t hdr, ent, n;
	int err = 0;

	if (!gelf_getehdr(e, &eh) || !hwp__elf_section_named(e, ".plt", &plt))
		return 0;
	rscn = hwp__elf_section_named(e, ".rela.plt", &rel);
	if (!rscn)
		rscn = hwp__elf_section_named(e, ".rel.plt", &rel);
	if (!rscn || !rel.sh_entsize || !(dscn = elf_getscn(e, rel.sh_link)) ||
	    !gelf_getshdr(dscn, &dsh) || dsh.sh_type != SHT_DYNSYM ||
	    !(rdata = elf_getdata(rscn, NULL)) || !(dyn = elf_getdata(dscn, NULL)))
		return 0;
	if (eh.e_machine == EM_AARCH64) {
		hdr = 32;
		ent = 16;
	} else if (eh.e_machine == EM_ARM) {
		hdr = 20;
		ent = 12;
	} else {
		hdr = ent = plt.sh_entsize;
	}
	if (!ent)
		return 0;
	n = rel.sh_size / rel.sh_entsize;
	if (n > rdata->d_size / rel.sh_entsize)
		n = rdata->d_size / rel.sh_entsize;
	for (uint64_t i = 0; i < n && !err; i++) {
		uint64_t va = plt.sh_addr + hdr + i * ent, info;
		GElf_Rela ra;
		GElf_Rel rl;
		GElf_Sym sym;
		const char *name;

		if (rel.sh_type == SHT_RELA) {
			if (!gelf_getrela(rdata, (int)i, &ra))
				continue;
			info = ra.r_info;
		} else {
			if (!gelf_getrel(rdata, (int)i, &rl))
				continue;
			info = rl.r_info;
		}
		if (!gelf_getsym(dyn, (int)GELF_R_SYM(info), &sym))
			continue;
		name = sym.st_name ? elf_strptr(e, dsh.sh_link, sym.st_name) : "";
		if (!name)
			continue;
		err = add_plt_symbol(m, va, ent, name);
	}
	return err;
}

/* Every PLT entry (.plt, .plt.sec, .plt.got) named by the GOT slot it jumps
   through, as objdump names them. */
static int synthesize_plt_all(struct hwp_elf_module *m, Elf *e)
{
	static const char *const names[] = { ".plt", ".plt.sec", ".plt.got" };
	struct got_map g = { 0 };
	bool collected = false;
	GElf_Ehdr eh;
	int err = 0;

	if (!gelf_getehdr(e, &eh) || (eh.e_machine != EM_X86_64 && eh.e_machine != EM_AARCH64))
		return 0;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]) && !err; k++) {
		GElf_Shdr sh;
		Elf_Scn *scn = hwp__elf_section_named(e, names[k], &sh);
		Elf_Data *data;
		uint64_t ent;

		if (!scn || sh.sh_type != SHT_PROGBITS || !(data = elf_getdata(scn, NULL)) ||
		    !data->d_buf || data->d_size < sh.sh_size)
			continue;
		if (!collected) {
			collected = true;
			if ((err = collect_relocs(e, &g)))
				break;
		}
		if (!g.n)
			break;
		ent = sh.sh_entsize;
		if (ent < 8 || ent > 32)
			ent = 16;
		if (eh.e_machine == EM_X86_64 && !strcmp(names[k], ".plt.got") && ent == 16 &&
		    sh.sh_size % 16 && !(sh.sh_size % 8))
			ent = 8;
		for (uint64_t o = 0; o + ent <= sh.sh_size && !err; o += ent) {
			const unsigned char *p = (const unsigned char *)data->d_buf + o;
			uint64_t va = sh.sh_addr + o;
			uint64_t slot = eh.e_machine == EM_X86_64 ? x86_plt_slot(p, ent, va)
								  : a64_plt_slot(p, ent, va);
			const char *target = slot ? got_find(&g, slot) : NULL;

			if (target)
				err = add_plt_symbol(m, va, ent, target);
		}
	}
	free(g.v);
	return err;
}

static int load_symbols(struct hwp_elf_module *m, unsigned flags)
{
	Elf *order[2] = { m->elf, m->debug };
	GElf_Shdr sh;
	Elf_Scn *scn;
	int err;

	for (int i = 0; i < 2; i++) { /* .symtab: the binary's, else the debug file's */
		if (order[i] && (scn = hwp__elf_section_of_type(order[i], SHT_SYMTAB, &sh))) {
			if ((err = add_symbols(m, order[i], scn, &sh)))
				return err;
			m->has_symtab = true;
			break;
		}
	}
	if (!m->has_symtab) {
		for (int i = 0; i < 2; i++) {
			if (order[i] && (scn = hwp__elf_section_of_type(order[i], SHT_DYNSYM, &sh))) {
				if ((err = add_symbols(m, order[i], scn, &sh)))
					return err;
				break;
			}
		}
	}
	m->syms.demangle = flags & HWP_ELF_DEMANGLE;
	if (flags & HWP_ELF_ALL_PLT) {
		if (m->elf && (err = synthesize_plt_all(m, m->elf)))
			return err;
		return hwp__symtab_finish(&m->syms, HWP_SYMTAB_SORTED);
	}
	/* perf's order: the table's symbols fixed, then the PLT's added -- and
	   only when the table gave some: a stripped executable whose .dynsym
	   defines nothing keeps bare addresses in .plt, as in perf 6.1 */
	if ((err = hwp__symtab_finish(&m->syms, HWP_SYMTAB_PERF_TREE)))
		return err;
	return m->elf && m->syms.n ? synthesize_plt_perf(m, m->elf) : 0;
}

struct hwp_sym *hwp__elf_module_find_symbol(const struct hwp_elf_module *m, uint64_t vaddr)
{
	return hwp__symtab_find(&m->syms, vaddr);
}

/* ---- DWARF ---- */

static int cmp_range(const void *pa, const void *pb)
{
	const struct cu_range *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/* Address ranges of every CU, our own index: .debug_aranges may be missing
   (clang) or incomplete. */
static int index_cus(struct hwp_elf_module *m)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	uint8_t unit_type;
	size_t cap_cus = 0, cap_r = 0;

	m->cus_indexed = true;
	while (dwarf_get_units(m->dw, cu, &next, NULL, &unit_type, &cudie, NULL) == 0) {
		Dwarf_Addr base, start, end;
		ptrdiff_t off = 0;
		int tag;

		cu = next;
		tag = dwarf_tag(&cudie);
		if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit)
			continue;
		if (m->ncus == cap_cus) {
			size_t nc = cap_cus ? 2 * cap_cus : 64;
			Dwarf_Die *v = realloc(m->cus, nc * sizeof(*v));

			if (!v)
				return -ENOMEM;
			m->cus = v;
			cap_cus = nc;
		}
		m->cus[m->ncus] = cudie;
		while ((off = dwarf_ranges(&cudie, off, &base, &start, &end)) > 0) {
			if (start >= end || start == 0)
				continue; /* empty, or a range of code the linker dropped */
			if (m->nranges == cap_r) {
				size_t nr = cap_r ? 2 * cap_r : 256;
				struct cu_range *v = realloc(m->ranges, nr * sizeof(*v));

				if (!v)
					return -ENOMEM;
				m->ranges = v;
				cap_r = nr;
			}
			m->ranges[m->nranges++] = (struct cu_range){ start, end, m->ncus };
		}
		m->ncus++;
	}
	if (m->ncus && (!(m->fns = calloc(m->ncus, sizeof(*m->fns))) ||
			!(m->lfs = calloc(m->ncus, sizeof(*m->lfs)))))
		return -ENOMEM;
	if (!m->nranges)
		return 0;
	qsort(m->ranges, m->nranges, sizeof(*m->ranges), cmp_range);
	m->ranges_max_end = malloc(m->nranges * sizeof(*m->ranges_max_end));
	if (!m->ranges_max_end)
		return -ENOMEM;
	for (size_t i = 0; i < m->nranges; i++)
		m->ranges_max_end[i] = i && m->ranges_max_end[i - 1] > m->ranges[i].end
					       ? m->ranges_max_end[i - 1]
					       : m->ranges[i].end;
	return 0;
}

static Dwarf_Die *find_cu(struct hwp_elf_module *m, uint64_t addr)
{
	size_t lo = 0, hi = m->nranges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->ranges[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		if (m->ranges_max_end[i] <= addr)
			break;
		if (addr < m->ranges[i].end)
			return &m->cus[m->ranges[i].cu];
	}
	return NULL;
}

static const char *die_function_name(Dwarf_Die *die, bool *linkage)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));

	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	*linkage = n != NULL;
	return n ? n : dwarf_diename(die);
}

static int push_frame(struct hwp_src_result *r, const struct hwp_src_frame *f)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 8;
		struct hwp_src_frame *v = realloc(r->frames, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->frames = v;
		r->cap = cap;
	}
	r->frames[r->n++] = *f;
	return 0;
}

static int cmp_fn(const void *pa, const void *pb)
{
	const struct fn_range *a = pa, *b = pb;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

static int add_fn(struct cu_fns *f, size_t *cap, uint64_t start, uint64_t end, Dwarf_Die *die)
{
	if (f->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		struct fn_range *v = realloc(f->v, nc * sizeof(*v));

		if (!v)
			return -ENOMEM;
		f->v = v;
		*cap = nc;
	}
	f->v[f->n++] = (struct fn_range){ start, end, *die };
	return 0;
}

/* Concrete functions of one CU (also inside namespaces and classes), by code
   range: walked once, so that each address descends one function only. */
static int index_fns_in(struct cu_fns *f, size_t *cap, Dwarf_Die *parent, int depth)
{
	Dwarf_Die child;
	int err;

	if (dwarf_child(parent, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram) {
			Dwarf_Addr base, start, end;
			ptrdiff_t off = 0;

			while ((off = dwarf_ranges(&child, off, &base, &start, &end)) > 0)
				if (start < end && start && (err = add_fn(f, cap, start, end, &child)))
					return err;
		} else if ((tag == DW_TAG_namespace || tag == DW_TAG_class_type ||
			    tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
			    tag == DW_TAG_module) &&
			   depth < 64) {
			if ((err = index_fns_in(f, cap, &child, depth + 1)))
				return err;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static struct cu_fns *cu_functions(struct hwp_elf_module *m, Dwarf_Die *cudie, int *err)
{
	struct cu_fns *f = &m->fns[cudie - m->cus];
	size_t cap = 0;

	*err = 0;
	if (f->indexed)
		return f;
	f->indexed = true;
	if ((*err = index_fns_in(f, &cap, cudie, 0)))
		return NULL;
	if (!f->n)
		return f;
	qsort(f->v, f->n, sizeof(*f->v), cmp_fn);
	f->max_end = malloc(f->n * sizeof(*f->max_end));
	if (!f->max_end) {
		*err = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < f->n; i++)
		f->max_end[i] = i && f->max_end[i - 1] > f->v[i].end ? f->max_end[i - 1] : f->v[i].end;
	return f;
}

/* The innermost function range holding ADDR (the latest start). */
static Dwarf_Die *find_fn(const struct cu_fns *f, uint64_t addr)
{
	size_t lo = 0, hi = f->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		if (f->max_end[i] <= addr)
			break;
		if (addr < f->v[i].end)
			return &f->v[i].die;
	}
	return NULL;
}

/*
 * Inline chain as eu-addr2line -i finds it (dwarf_getscopes + _die): the
 * nesting of scopes holding ADDR inside its function; each
 * DW_TAG_inlined_subroutine is one frame with its call site. The function is
 * found in the CU's index, then only its subtree is descended.
 */
static int inline_chain(struct hwp_elf_module *m, Dwarf_Die *cudie, uint64_t addr,
			struct hwp_src_result *r)
{
	Dwarf_Die scopes[HWP_SCOPE_TREE_MAX_DEPTH], path[64];
	Dwarf_Files *files = NULL;
	size_t nfiles = 0, depth = 0, nscopes;
	struct cu_fns *fns;
	Dwarf_Die *fn;
	int err;

	fns = cu_functions(m, cudie, &err);
	if (!fns)
		return err;
	fn = find_fn(fns, addr);
	if (!fn)
		return 0;
	if (!m->scopes)
		m->scopes = hwp__scope_trees_new(); /* NULL: the DIEs are walked */
	nscopes = hwp__scope_trees_path(m->scopes, fn, addr, scopes, HWP_SCOPE_TREE_MAX_DEPTH);
	for (size_t i = 0; i < nscopes && depth < 64; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
			path[depth++] = scopes[i];
	if (!depth)
		return 0;
	if (dwarf_getsrcfiles(cudie, &files, &nfiles))
		files = NULL;
	while (depth--) { /* innermost first */
		Dwarf_Attribute a;
		Dwarf_Word w;
		struct hwp_src_frame f = { 0 };

		f.function = die_function_name(&path[depth], &f.linkage);
		if (files &&
		    dwarf_formudata(dwarf_attr(&path[depth], DW_AT_call_file, &a), &w) == 0 &&
		    w < nfiles)
			f.file = dwarf_filesrc(files, w, NULL, NULL);
		if (dwarf_formudata(dwarf_attr(&path[depth], DW_AT_call_line, &a), &w) == 0)
			f.line = (unsigned)w;
		if ((err = push_frame(r, &f)))
			return err;
	}
	return 0;
}

int hwp__elf_module_source(struct hwp_elf_module *m, uint64_t vaddr, bool inlines,
			   struct hwp_src_result *r)
{
	Dwarf_Die *cudie;
	Dwarf_Line *line;
	int lineno = 0, err;

	r->file = NULL;
	r->line = 0;
	r->n = 0;
	if (!m->dw)
		return 0;
	if (!m->cus_indexed && (err = index_cus(m)))
		return err;
	cudie = find_cu(m, vaddr);
	if (!cudie)
		return 0;
	line = dwarf_getsrc_die(cudie, vaddr);
	if (!line)
		return 0;
	/* the file as binutils names it (line_file.h): perf's srcline */
	r->file = hwp__line_file_name(&m->lfs[cudie - m->cus], m->dw, cudie, line, &err);
	if (err)
		return err;
	if (dwarf_lineno(line, &lineno) == 0 && lineno > 0)
		r->line = (unsigned)lineno;
	if (inlines && (err = inline_chain(m, cudie, vaddr, r)))
		return err;
	return 1;
}

/* ---- life cycle ---- */

/* .gnu_debugaltlink (dwz): libdw looks in /usr/lib/debug itself; we add the
   debug directories, --symfs, and the debug file's own directory. */
static void attach_alt(struct hwp_elf_module *m, const struct hwp_find_ctx *ctx,
		       const char *dw_path)
{
	const char *name;
	const void *bid;
	char hex[2 * HWP_BUILD_ID_MAX + 1], *cands[16];
	size_t nc = 0;
	ssize_t n = dwelf_dwarf_gnu_debugaltlink(m->dw, &name, &bid);

	if (n <= 0 || n > HWP_BUILD_ID_MAX || dwarf_getalt(m->dw))
		return;
	hwp__build_id_hex(bid, (size_t)n, hex);
	for (size_t d = 0; d < ctx->n_debug_dirs && nc < 14; d++)
		if (asprintf(&cands[nc], "%s/.build-id/%.2s/%s.debug", ctx->debug_dirs[d], hex,
			     hex + 2) >= 0)
			nc++;
	if (name[0] == '/' && ctx->symfs && asprintf(&cands[nc], "%s%s", ctx->symfs, name) >= 0)
		nc++;
	if (name[0] != '/' && dw_path) {
		const char *slash = strrchr(dw_path, '/');
		int dl = slash ? (int)(slash - dw_path) : 1;

		if (asprintf(&cands[nc], "%.*s/%s", dl, slash ? dw_path : ".", name) >= 0)
			nc++;
	}
	for (size_t i = 0; i < nc; i++) {
		uint8_t id[HWP_BUILD_ID_MAX];
		Elf *e = m->alt_dw ? NULL : hwp__elf_open(cands[i]);
		Dwarf *alt;

		free(cands[i]);
		if (!e)
			continue;
		if (hwp__elf_build_id(e, id) != (size_t)n || memcmp(id, bid, (size_t)n) ||
		    !(alt = dwarf_begin_elf(e, DWARF_C_READ, NULL))) {
			elf_end(e);
			continue;
		}
		dwarf_setalt(m->dw, alt);
		m->alt_dw = alt;
		m->alt_elf = e;
	}
}

int hwp__elf_module_new(struct hwp_module_files *files, const struct hwp_find_ctx *ctx,
			unsigned flags, struct hwp_elf_module **out, char *reason, size_t reason_size)
{
	struct hwp_elf_module *m = calloc(1, sizeof(*m));
	GElf_Ehdr eh;
	Elf *dwelf;
	int err;

	*out = NULL;
	if (!m) {
		snprintf(reason, reason_size, "out of memory");
		return -ENOMEM;
	}
	m->elf = files->elf;
	m->debug = files->debug;
	m->elf_path = files->elf_path;
	m->debug_path = files->debug_path;
	files->elf = files->debug = NULL;
	files->elf_path = files->debug_path = NULL;
	if (!m->elf && !m->debug) {
		free(m);
		snprintf(reason, reason_size, "no file");
		return -ENOENT;
	}
	if (gelf_getehdr(m->elf ? m->elf : m->debug, &eh) && eh.e_type == ET_REL) {
		snprintf(reason, reason_size,
			 "%s: a relocatable object (kernel module?): kernel modules are "
			 "symbolized through the kernel's symbols",
			 m->elf_path ? m->elf_path : m->debug_path);
		hwp__elf_module_delete(m);
		return -ENOTSUP;
	}
	err = load_segments(m, m->elf ? m->elf : m->debug, !m->elf);
	if (!err)
		err = load_symbols(m, flags);
	if (err) {
		snprintf(reason, reason_size, "%s: %s", m->elf_path ? m->elf_path : m->debug_path,
			 strerror(-err));
		hwp__elf_module_delete(m);
		return err;
	}
	dwelf = m->debug ? m->debug : files->elf_has_dwarf ? m->elf : NULL;
	if (dwelf)
		m->dw = dwarf_begin_elf(dwelf, DWARF_C_READ, NULL); /* NULL: no usable DWARF */
	if (m->dw && ctx)
		attach_alt(m, ctx, m->debug ? m->debug_path : m->elf_path);
	*out = m;
	return 0;
}

void hwp__elf_module_delete(struct hwp_elf_module *m)
{
	if (!m)
		return;
	hwp__dtype_globals_free(m->dtype_globals);
	if (m->dw)
		dwarf_end(m->dw);
	if (m->alt_dw)
		dwarf_end(m->alt_dw);
	if (m->alt_elf)
		elf_end(m->alt_elf);
	if (m->elf)
		elf_end(m->elf);
	if (m->debug)
		elf_end(m->debug);
	free(m->elf_path);
	free(m->debug_path);
	free(m->segs);
	hwp__symtab_free(&m->syms);
	hwp__arena_free(&m->arena);
	for (size_t i = 0; m->fns && i < m->ncus; i++) {
		free(m->fns[i].v);
		free(m->fns[i].max_end);
	}
	free(m->fns);
	hwp__scope_trees_free(m->scopes);
	for (size_t i = 0; m->lfs && i < m->ncus; i++)
		hwp__line_files_free(&m->lfs[i]);
	free(m->lfs);
	free(m->cus);
	free(m->ranges);
	free(m->ranges_max_end);
	free(m);
}

Dwarf *hwp__elf_module_dwarf(const struct hwp_elf_module *m)
{
	return m->dw;
}

struct hwp__dtype_globals **hwp__elf_module_dtype_globals(struct hwp_elf_module *m)
{
	return &m->dtype_globals;
}

struct Elf *hwp__elf_module_binary(const struct hwp_elf_module *m)
{
	return m->elf;
}

bool hwp__elf_module_has_dwarf(const struct hwp_elf_module *m)
{
	return m->dw != NULL;
}

bool hwp__elf_module_has_symtab(const struct hwp_elf_module *m)
{
	return m->has_symtab;
}

size_t hwp__elf_module_symbol_count(const struct hwp_elf_module *m)
{
	return m->syms.n;
}

const char *hwp__elf_module_path(const struct hwp_elf_module *m)
{
	return m->elf_path;
}

const char *hwp__elf_module_debug_path(const struct hwp_elf_module *m)
{
	return m->debug_path;
}

#else /* !HAVE_LIBDW: modules cannot be loaded (build_id_lookup says why) */

struct Dwarf *hwp__elf_module_dwarf(const struct hwp_elf_module *m)
{
	(void)m;
	return NULL;
}

struct hwp__dtype_globals **hwp__elf_module_dtype_globals(struct hwp_elf_module *m)
{
	(void)m;
	return NULL;
}

struct Elf *hwp__elf_module_binary(const struct hwp_elf_module *m)
{
	(void)m;
	return NULL;
}

int hwp__elf_module_new(struct hwp_module_files *files, const struct hwp_find_ctx *ctx,
			unsigned flags, struct hwp_elf_module **out, char *reason, size_t reason_size)
{
	(void)files;
	(void)ctx;
	(void)flags;
	*out = NULL;
	snprintf(reason, reason_size, "built without elfutils");
	return -ENOTSUP;
}

void hwp__elf_module_delete(struct hwp_elf_module *m)
{
	(void)m;
}

bool hwp__elf_module_has_dwarf(const struct hwp_elf_module *m)
{
	(void)m;
	return false;
}

bool hwp__elf_module_has_symtab(const struct hwp_elf_module *m)
{
	(void)m;
	return false;
}

size_t hwp__elf_module_symbol_count(const struct hwp_elf_module *m)
{
	(void)m;
	return 0;
}

const char *hwp__elf_module_path(const struct hwp_elf_module *m)
{
	(void)m;
	return NULL;
}

const char *hwp__elf_module_debug_path(const struct hwp_elf_module *m)
{
	(void)m;
	return NULL;
}

bool hwp__elf_module_offset_to_vaddr(const struct hwp_elf_module *m, uint64_t offset,
				     uint64_t *vaddr)
{
	(void)m;
	*vaddr = offset;
	return false;
}

struct hwp_sym *hwp__elf_module_find_symbol(const struct hwp_elf_module *m, uint64_t vaddr)
{
	(void)m;
	(void)vaddr;
	return NULL;
}

int hwp__elf_module_source(struct hwp_elf_module *m, uint64_t vaddr, bool inlines,
			   struct hwp_src_result *r)
{
	(void)m;
	(void)vaddr;
	(void)inlines;
	r->file = NULL;
	r->line = 0;
	r->n = 0;
	return 0;
}

#endif
