/* SPDX-License-Identifier: MIT */
/* A kernel module's .ko symbols, placed as perf 6.1 places them (kmod_file.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/build_id_lookup.h"
#include "symbolize/kmod_file.h"
#include "symbolize/kmod_image.h"

struct hwp__kmod_file {
	struct Elf *elf; /* holds the names */
	void *image;     /* a compressed file's bytes, under ELF */
	struct hwp_symtab syms;
	uint64_t text_offset;
};

#ifdef HAVE_LIBDW

#include <gelf.h>
#include <libelf.h>

#include "symbolize/elf_sections.h"

/* perf's filter (dso__load_sym): functions, objects and labels with a name,
   ARM mapping symbols left out; here only those of section TEXT. */
static int add_text_symbols(struct hwp__kmod_file *k, Elf_Scn *scn, const GElf_Shdr *sh, size_t text,
			    uint64_t base, uint64_t text_offset, unsigned machine)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = data && sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;

	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		int type;

		if (!gelf_getsym(data, (int)i, &sym) || !sym.st_name || sym.st_shndx != text)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_NOTYPE && type != STT_OBJECT && type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (type == STT_NOTYPE && (GELF_ST_VISIBILITY(sym.st_other) == STV_HIDDEN ||
					   GELF_ST_VISIBILITY(sym.st_other) == STV_INTERNAL))
			continue;
		if (!(name = elf_strptr(k->elf, sh->sh_link, sym.st_name)) || !*name)
			continue;
		if (hwp__elf_arm_mapping_symbol(machine, name))
			continue;
		if (base + sym.st_value < base || text_offset + sym.st_value < text_offset)
			continue; /* past the address space: no sample lands there */
		int err = hwp__symtab_add(&k->syms, text_offset + sym.st_value, sym.st_size, name,
					  hwp__elf_sym_bind(&sym), 0);

		if (err)
			return err;
	}
	return 0;
}

int hwp__kmod_file_new(struct Elf *e, void *image, uint64_t base, struct hwp__kmod_file **out, char *reason,
		       size_t reason_size)
{
	struct hwp__kmod_file *k = calloc(1, sizeof(*k));
	GElf_Ehdr eh;
	GElf_Shdr sh, text_sh;
	Elf_Scn *scn;
	int err = -EINVAL;

	*out = NULL;
	if (!k) {
		elf_end(e);
		free(image);
		snprintf(reason, reason_size, "out of memory");
		return -ENOMEM;
	}
	k->elf = e;
	k->image = image;
	Elf_Scn *text_scn = hwp__elf_section_named(e, ".text", &text_sh);
	size_t text = text_scn ? elf_ndxscn(text_scn) : 0;

	if (!gelf_getehdr(e, &eh) || eh.e_type != ET_REL)
		snprintf(reason, reason_size, "not a relocatable ELF file (a .ko)");
	else if (!text)
		snprintf(reason, reason_size, "no .text section");
	else if (!(scn = hwp__elf_section_of_type(e, SHT_SYMTAB, &sh)))
		snprintf(reason, reason_size, "no symbol table (stripped)");
	else if ((err = add_text_symbols(k, scn, &sh, text, base, text_sh.sh_offset, eh.e_machine)) ||
		 (err = hwp__symtab_finish(&k->syms, HWP_SYMTAB_PERF_TREE)))
		snprintf(reason, reason_size, "out of memory reading its symbols");
	if (err) {
		hwp__kmod_file_delete(k);
		return err;
	}
	/*
	 * perf keeps the symbols at their file offsets (value + .text's
	 * offset) and gives the last zero-size one the end
	 * roundup(start, 4096) + 4096 there: fixed in those coordinates (above),
	 * then moved to the load address, so that end lies where perf's does
	 * (.text's offset is not page-aligned, the load address is).
	 */
	for (size_t i = 0; i < k->syms.n; i++) {
		struct hwp_sym *y = &k->syms.v[i];

		y->start = y->start - text_sh.sh_offset + base;
		y->end = y->end - text_sh.sh_offset + base < y->start ? UINT64_MAX
								       : y->end - text_sh.sh_offset + base;
	}
	k->text_offset = text_sh.sh_offset;
	*out = k;
	return 0;
}

int hwp__kmod_file_from_image(const char *name, void *image, size_t size, const uint8_t *build_id,
			      size_t build_id_size, uint64_t base, struct hwp__kmod_file **out, char *reason,
			      size_t reason_size)
{
	int err;

	*out = NULL;
	elf_version(EV_CURRENT);
	Elf *e = elf_memory(image, size);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		free(image);
		snprintf(reason, reason_size, "%s: not an ELF file once decompressed", name);
		return -EINVAL;
	}
	uint8_t id[HWP_BUILD_ID_MAX];
	size_t n = hwp__elf_build_id(e, id);

	if (build_id && build_id_size && !hwp__build_id_equal(id, n, build_id, build_id_size)) {
		char have[2 * HWP_BUILD_ID_MAX + 1] = "", want[2 * HWP_BUILD_ID_MAX + 1];

		hwp__build_id_hex(id, n, have);
		hwp__build_id_hex(build_id, build_id_size, want);
		snprintf(reason, reason_size, "%s has build-id %s, recorded %s", name, n ? have : "(none)", want);
		elf_end(e);
		free(image);
		return -ESTALE;
	}
	if ((err = hwp__kmod_file_new(e, image, base, out, reason, reason_size)) < 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s", reason);
		snprintf(reason, reason_size, "%s: %s", name, why);
	}
	return err;
}

int hwp__kmod_file_open_compressed(const char *file, const uint8_t *build_id, size_t build_id_size, uint64_t base,
				   struct hwp__kmod_file **out, char *reason, size_t reason_size)
{
	void *image;
	size_t size;
	int err;

	*out = NULL;
	if ((err = hwp__kmod_image_read(file, &image, &size, reason, reason_size)) < 0)
		return err;
	return hwp__kmod_file_from_image(file, image, size, build_id, build_id_size, base, out, reason, reason_size);
}

void hwp__kmod_file_delete(struct hwp__kmod_file *k)
{
	if (!k)
		return;
	hwp__symtab_free(&k->syms);
	elf_end(k->elf);
	free(k->image);
	free(k);
}

#else /* !HAVE_LIBDW */

int hwp__kmod_file_from_image(const char *name, void *image, size_t size, const uint8_t *build_id,
			      size_t build_id_size, uint64_t base, struct hwp__kmod_file **out, char *reason,
			      size_t reason_size)
{
	(void)size;
	(void)build_id;
	(void)build_id_size;
	(void)base;
	free(image);
	*out = NULL;
	snprintf(reason, reason_size, "%s: built without elfutils", name);
	return -ENOTSUP;
}

int hwp__kmod_file_open_compressed(const char *file, const uint8_t *build_id, size_t build_id_size, uint64_t base,
				   struct hwp__kmod_file **out, char *reason, size_t reason_size)
{
	(void)build_id;
	(void)build_id_size;
	(void)base;
	*out = NULL;
	snprintf(reason, reason_size, "%s: built without elfutils", file);
	return -ENOTSUP;
}

int hwp__kmod_file_new(struct Elf *e, void *image, uint64_t base, struct hwp__kmod_file **out, char *reason,
		       size_t reason_size)
{
	(void)e;
	(void)base;
	free(image);
	*out = NULL;
	snprintf(reason, reason_size, "built without elfutils");
	return -ENOTSUP;
}

void hwp__kmod_file_delete(struct hwp__kmod_file *k)
{
	free(k);
}

#endif

struct hwp_sym *hwp__kmod_file_find(const struct hwp__kmod_file *k, uint64_t addr)
{
	return hwp__symtab_find(&k->syms, addr);
}

size_t hwp__kmod_file_count(const struct hwp__kmod_file *k)
{
	return k->syms.n;
}

uint64_t hwp__kmod_file_text_offset(const struct hwp__kmod_file *k)
{
	return k->text_offset;
}
