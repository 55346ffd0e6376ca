/* SPDX-License-Identifier: MIT */
/* The function symbols of an ELF file's symbol tables: what the PGO writers
   (BOLT's fdata, Propeller, stale matching) and the pseudo-probe reader
   each walk to name code. */
#ifndef HWPROF_SYMBOLIZE_ELF_FUNCTIONS_H
#define HWPROF_SYMBOLIZE_ELF_FUNCTIONS_H

#include <gelf.h>

/* Calls FN for every defined function symbol of E's SHT_SYMTAB sections (of
   type STT_FUNC, in a real section, with a name), in table order; stops at
   FN's first non-zero return and returns it, else 0. */
int hwp__elf_each_function(Elf *e, int (*fn)(void *ctx, const GElf_Sym *sym, const char *name), void *ctx);

#endif
