/* SPDX-License-Identifier: MIT */
#include "symbolize/elf_functions.h"

#include <stddef.h>

int hwp__elf_each_function(Elf *e, int (*fn)(void *ctx, const GElf_Sym *sym, const char *name), void *ctx)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize ||
		    !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			int r;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE ||
			    !(name = elf_strptr(e, sh.sh_link, sym.st_name)) || !*name)
				continue;
			if ((r = fn(ctx, &sym, name)))
				return r;
		}
	}
	return 0;
}
