/* SPDX-License-Identifier: MIT */
/*
 * Small questions every ELF reader of the symbolize layer asks of a file
 * (libelf): a section by type or by name, and how perf 6.1 reads a symbol
 * table entry (its binding, the ARM mapping symbols it leaves out).
 */
#ifndef HWPROF_SYMBOLIZE_ELF_SECTIONS_H
#define HWPROF_SYMBOLIZE_ELF_SECTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include <gelf.h>

/* E's first section of TYPE (SHT_SYMTAB, ...), its header into *SH; NULL
   when none. */
Elf_Scn *hwp__elf_section_of_type(Elf *e, GElf_Word type, GElf_Shdr *sh);
/* E's section NAME, its header into *SH; NULL when none. */
Elf_Scn *hwp__elf_section_named(Elf *e, const char *name, GElf_Shdr *sh);

/* An ARM or AArch64 mapping symbol ($a, $d, $t, $x, and $d.N ...), which
   perf does not keep: it marks code or data, not a function. */
bool hwp__elf_arm_mapping_symbol(unsigned machine, const char *name);
/* SYM's binding as symtab.h keeps it (HWP_SYM_GLOBAL, _WEAK, else _LOCAL). */
uint8_t hwp__elf_sym_bind(const GElf_Sym *sym);

#endif
