/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef HAVE_CAPSTONE
#include <capstone/capstone.h>
#endif

#include "decode/disasm.h"
#include "decode/insn_starts.h"
#include "util/vec.h"

struct hwp__code_file {
	int fd;
	Elf *elf;
	const uint8_t *image;
	size_t size;
	uint8_t *owned; /* hwp__code_file_open_mem()'s image */
	unsigned machine;
	GElf_Phdr *load; /* the PT_LOAD headers whose file bytes lie inside the image */
	size_t n_load;
	/* hwp__code_file_a2l_function()'s candidates, sorted on first use */
	struct a2l_sym *a2l;
	size_t n_a2l;
	bool a2l_read;
};

/* A function-like symbol of the symbol table, with the FILE symbol BFD's
   addr2line names for it. */
struct a2l_sym {
	size_t shndx;
	uint64_t value, size;
	size_t index;
	const char *file;
};

/* Keeps the loadable segments (read once: every offset lookup walks them). */
static int read_segments(struct hwp__code_file *f)
{
	size_t n;

	if (elf_getphdrnum(f->elf, &n))
		return -EINVAL;
	f->load = calloc(n ? n : 1, sizeof(*f->load));
	if (!f->load)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    ph.p_offset > f->size || ph.p_filesz > f->size - ph.p_offset)
			continue;
		f->load[f->n_load++] = ph;
	}
	return 0;
}

struct hwp__code_file *hwp__code_file_open(const char *path)
{
	struct hwp__code_file *f = calloc(1, sizeof(*f));
	GElf_Ehdr eh;

	if (!f)
		return NULL;
	elf_version(EV_CURRENT);
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd >= 0)
		f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || !gelf_getehdr(f->elf, &eh) || !(f->image = (const uint8_t *)elf_rawfile(f->elf, &f->size)) ||
	    read_segments(f)) {
		int e = errno ? errno : EINVAL;

		hwp__code_file_close(f);
		errno = e;
		return NULL;
	}
	f->machine = eh.e_machine;
	return f;
}

struct hwp__code_file *hwp__code_file_open_mem(const uint8_t *code, size_t size, uint64_t vaddr,
					       unsigned machine)
{
	struct hwp__code_file *f = calloc(1, sizeof(*f));
	size_t hdr = sizeof(Elf64_Ehdr) + sizeof(Elf64_Phdr);

	if (!f)
		return NULL;
	f->fd = -1;
	if (vaddr < hdr || vaddr - hdr > 4096 || size > SIZE_MAX - vaddr || !(f->owned = calloc(1, vaddr + size))) {
		free(f);
		errno = vaddr < hdr || vaddr - hdr > 4096 ? EINVAL : ENOMEM;
		return NULL;
	}
	/* the image perf inject writes for a jitted function, minus what
	   decoding does not read: a header, one PT_LOAD, the code (host byte
	   order, so libelf converts nothing) */
	Elf64_Ehdr eh = { .e_type = ET_DYN, .e_machine = (Elf64_Half)machine, .e_version = EV_CURRENT,
			  .e_entry = vaddr, .e_phoff = sizeof(Elf64_Ehdr), .e_ehsize = sizeof(Elf64_Ehdr),
			  .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1 };
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = vaddr, .p_vaddr = vaddr,
			  .p_paddr = vaddr, .p_filesz = size, .p_memsz = size, .p_align = 8 };
	const uint16_t one = 1;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = *(const uint8_t *)&one ? ELFDATA2LSB : ELFDATA2MSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	memcpy(f->owned, &eh, sizeof(eh));
	memcpy(f->owned + sizeof(eh), &ph, sizeof(ph));
	if (size)
		memcpy(f->owned + vaddr, code, size);
	elf_version(EV_CURRENT);
	f->elf = elf_memory((char *)f->owned, vaddr + size);
	if (!f->elf || !(f->image = (const uint8_t *)elf_rawfile(f->elf, &f->size)) || read_segments(f)) {
		hwp__code_file_close(f);
		errno = ENOMEM;
		return NULL;
	}
	f->machine = machine;
	return f;
}

void hwp__code_file_close(struct hwp__code_file *f)
{
	if (!f)
		return;
	if (f->elf)
		elf_end(f->elf);
	free(f->owned);
	if (f->fd >= 0)
		close(f->fd);
	free(f->load);
	free(f->a2l);
	free(f);
}

unsigned hwp__code_file_machine(const struct hwp__code_file *f)
{
	return f->machine;
}

const uint8_t *hwp__code_file_at_offset(const struct hwp__code_file *f, uint64_t off, uint64_t *vaddr,
					size_t *left)
{
	for (size_t i = 0; i < f->n_load; i++) {
		const GElf_Phdr *ph = &f->load[i];

		if (!(ph->p_flags & PF_X) || off < ph->p_offset || off - ph->p_offset >= ph->p_filesz)
			continue;
		*vaddr = ph->p_vaddr + (off - ph->p_offset);
		*left = (size_t)(ph->p_filesz - (off - ph->p_offset));
		return f->image + off;
	}
	return NULL;
}

bool hwp__code_file_base(const struct hwp__code_file *f, bool exec, uint64_t *vaddr)
{
	for (size_t i = 0; i < f->n_load; i++)
		if (!exec || (f->load[i].p_flags & PF_X)) {
			*vaddr = f->load[i].p_vaddr;
			return true;
		}
	return false;
}

/* Whether the dynamic section names the file (DT_SONAME): a library. */
static bool has_soname(Elf *e)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !(d = elf_getdata(scn, NULL)) ||
		    !sh.sh_entsize)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;

			if (gelf_getdyn(d, (int)i, &dyn) && dyn.d_tag == DT_SONAME)
				return true;
		}
	}
	return false;
}

bool hwp__code_file_is_program(const struct hwp__code_file *f)
{
	GElf_Ehdr eh;
	size_t n;

	if (!gelf_getehdr(f->elf, &eh))
		return false;
	if (eh.e_type == ET_EXEC)
		return true;
	if (eh.e_type != ET_DYN || elf_getphdrnum(f->elf, &n))
		return false;
	/* a PIE asks for an interpreter and has no soname; a shared library
	   has one, even when it can run too (libc.so.6 asks for ld.so) */
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(f->elf, (int)i, &ph) && ph.p_type == PT_INTERP)
			return !has_soname(f->elf);
	}
	return false;
}

int hwp__code_file_offset_to_vaddr(const struct hwp__code_file *f, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < f->n_load; i++) {
		const GElf_Phdr *ph = &f->load[i];

		if (off >= ph->p_offset && off - ph->p_offset < ph->p_filesz) {
			*vaddr = ph->p_vaddr + (off - ph->p_offset);
			return 0;
		}
	}
	return -ERANGE;
}

int hwp__code_file_vaddr_to_offset(const struct hwp__code_file *f, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < f->n_load; i++) {
		const GElf_Phdr *ph = &f->load[i];

		if (vaddr >= ph->p_vaddr && vaddr - ph->p_vaddr < ph->p_filesz) {
			*off = ph->p_offset + (vaddr - ph->p_vaddr);
			return 0;
		}
	}
	return -ERANGE;
}

/* The file's bytes of [VADDR, VADDR + SIZE), or NULL when no executable
   segment holds them all. */
static const uint8_t *code_bytes(const struct hwp__code_file *f, uint64_t vaddr, uint64_t size)
{
	size_t n;

	if (elf_getphdrnum(f->elf, &n))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr < ph.p_vaddr || vaddr + size > ph.p_vaddr + ph.p_filesz ||
		    ph.p_offset + ph.p_filesz > f->size)
			continue;
		return f->image + ph.p_offset + (vaddr - ph.p_vaddr);
	}
	return NULL;
}

int hwp__code_file_insn_starts(struct hwp__code_file *f, uint64_t vaddr, uint64_t size, uint8_t *bits)
{
	const uint8_t *code = code_bytes(f, vaddr, size);

	if (!code)
		return -ERANGE;
	if (f->machine == EM_AARCH64) {
		for (uint64_t i = 0; i < size; i += 4)
			bits[i / 8] |= (uint8_t)(1u << (i % 8));
		return 0;
	}
#ifdef HAVE_CAPSTONE
	csh cs;
	cs_insn *insn;

	if (f->machine != EM_X86_64 || cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return -ENOTSUP;
	insn = cs_malloc(cs);
	if (!insn) {
		cs_close(&cs);
		return -ENOMEM;
	}
	for (uint64_t at = 0; at < size;) {
		const uint8_t *p = code + at;
		size_t left = size - at;
		uint64_t addr = vaddr + at;

		bits[at / 8] |= (uint8_t)(1u << (at % 8));
		at += cs_disasm_iter(cs, &p, &left, &addr, insn) ? insn->size : 1;
	}
	cs_free(insn, 1);
	cs_close(&cs);
	return 0;
#else
	return -ENOTSUP;
#endif
}

/* The section index holding VADDR (allocated, non-empty), or 0. */
static size_t section_of(Elf *e, uint64_t vaddr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_size &&
		    vaddr >= sh.sh_addr && vaddr - sh.sh_addr < sh.sh_size)
			return elf_ndxscn(scn);
	}
	return 0;
}

/* .symtab when it has symbols, else .dynsym (addr2line's slurp_symtab). */
static Elf_Scn *symbol_table(Elf *e, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dsh;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !sh.sh_entsize || sh.sh_size / sh.sh_entsize < 2)
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			*out = sh;
			return scn;
		}
		if (sh.sh_type == SHT_DYNSYM) {
			dyn = scn;
			dsh = sh;
		}
	}
	if (dyn)
		*out = dsh;
	return dyn;
}

int hwp__code_file_disasm(struct hwp__code_file *f, uint64_t vaddr, uint64_t size, hwp__disasm_fn fn, void *ctx)
{
	const uint8_t *code = code_bytes(f, vaddr, size);

	if (!code)
		return -ERANGE;
#ifdef HAVE_CAPSTONE
	csh cs;
	cs_insn *insn;
	int r = 0;

	if (f->machine == EM_X86_64) {
		if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
			return -ENOTSUP;
		cs_option(cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT); /* objdump's */
	} else if (f->machine == EM_AARCH64) {
		if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK)
			return -ENOTSUP;
	} else {
		return -ENOTSUP;
	}
	if (!(insn = cs_malloc(cs))) {
		cs_close(&cs);
		return -ENOMEM;
	}
	const unsigned bad_len = f->machine == EM_AARCH64 ? 4 : 1;
	uint64_t at = 0;
	while (at < size && !r) {
		const uint8_t *p = code + at;
		size_t left = size - at;
		uint64_t addr = vaddr + at;
		struct hwp__disasm_insn out = { .vaddr = vaddr + at };

		if (cs_disasm_iter(cs, &p, &left, &addr, insn)) {
			out.len = (uint8_t)insn->size;
			snprintf(out.mnemonic, sizeof(out.mnemonic), "%s", insn->mnemonic);
			snprintf(out.operands, sizeof(out.operands), "%s", insn->op_str);
		} else {
			out.len = (uint8_t)(size - at < bad_len ? size - at : bad_len);
			snprintf(out.mnemonic, sizeof(out.mnemonic), "(bad)");
		}
		at += out.len;
		r = fn(ctx, &out);
	}
	cs_free(insn, 1);
	cs_close(&cs);
	return r;
#else
	(void)fn;
	(void)ctx;
	return -ENOTSUP;
#endif
}

/* Section, then start, then the larger first, then symbol table order:
   of equal starts BFD takes the larger, of equal sizes the first. */
static int a2l_cmp(const void *a, const void *b)
{
	const struct a2l_sym *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The candidates of every lookup, read once (a lookup per row used to walk
   the whole symbol table). -ENOMEM. */
static int a2l_read(struct hwp__code_file *f)
{
	GElf_Shdr sh;
	Elf_Scn *scn = symbol_table(f->elf, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL } state = NOTHING_SEEN;
	const char *last_file = NULL;
	size_t cap = 0;

	f->a2l_read = true;
	if (!d)
		return 0;
	for (size_t i = 1; i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym sym;

		if (!gelf_getsym(d, (int)i, &sym))
			break;
		unsigned type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_FILE) {
			last_file = elf_strptr(f->elf, sh.sh_link, sym.st_name);
			if (state == SYMBOL_SEEN)
				state = FILE_AFTER_SYMBOL;
			continue;
		}
		if (state == NOTHING_SEEN)
			state = SYMBOL_SEEN;
		if (type == STT_SECTION || type == STT_OBJECT || type == STT_TLS)
			continue;
		struct a2l_sym *a = HWP_VEC_PUSH(f->a2l, f->n_a2l, cap);
		if (!a)
			return -ENOMEM;
		a->shndx = sym.st_shndx;
		a->value = sym.st_value;
		a->size = sym.st_size ? sym.st_size : 1;
		a->index = i;
		a->file = last_file && (GELF_ST_BIND(sym.st_info) == STB_LOCAL || state != FILE_AFTER_SYMBOL)
				  ? last_file : NULL;
	}
	hwp__sort(f->a2l, f->n_a2l, sizeof(*f->a2l), a2l_cmp);
	return 0;
}

int hwp__code_file_a2l_function(struct hwp__code_file *f, uint64_t vaddr, const char **file)
{
	size_t sec = section_of(f->elf, vaddr);

	*file = NULL;
	if (!sec)
		return 0;
	if (!f->a2l_read && a2l_read(f) < 0)
		return -ENOMEM;
	/* the first candidate after those of SEC at or below VADDR */
	size_t lo = 0, hi = f->n_a2l;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct a2l_sym *a = &f->a2l[mid];

		if (a->shndx < sec || (a->shndx == sec && a->value <= vaddr))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || f->a2l[lo - 1].shndx != sec)
		return 0;
	/* the closest start: the first (the largest) of its starts */
	uint64_t best = f->a2l[lo - 1].value;
	while (lo > 1 && f->a2l[lo - 2].shndx == sec && f->a2l[lo - 2].value == best)
		lo--;
	*file = f->a2l[lo - 1].file;
	return 1;
}
