/* SPDX-License-Identifier: MIT */
/* Sections and symbol entries of an ELF file (elf_sections.h). */
#ifdef HAVE_LIBDW

#include <string.h>

#include "symbolize/elf_sections.h"
#include "symbolize/symtab.h"

Elf_Scn *hwp__elf_section_of_type(Elf *e, GElf_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

Elf_Scn *hwp__elf_section_named(Elf *e, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

bool hwp__elf_arm_mapping_symbol(unsigned machine, const char *n)
{
	return (machine == EM_ARM || machine == EM_AARCH64) && n[0] == '$' && strchr("adtx", n[1]) &&
	       (n[2] == 0 || n[2] == '.');
}

uint8_t hwp__elf_sym_bind(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return HWP_SYM_GLOBAL;
	case STB_WEAK:
		return HWP_SYM_WEAK;
	default:
		return HWP_SYM_LOCAL;
	}
}

#endif
