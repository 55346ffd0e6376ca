/* SPDX-License-Identifier: MIT */
/*
 * One ELF module as elfutils sees it: load segments (file offset -> link-time
 * address), its symbol table, and its DWARF (source lines, inline chains).
 */
#ifndef HWPROF_SYMBOLIZE_ELF_MODULE_H
#define HWPROF_SYMBOLIZE_ELF_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize/build_id_lookup.h"
#include "symbolize/symtab.h"

struct hwp_elf_module;

/* One inlined call: the inlined function and where it was inlined (its
   call site, in the caller). Strings live as long as the module. */
struct hwp_src_frame {
	const char *function; /* DW_AT_linkage_name (mangled) or DW_AT_name */
	bool linkage;         /* FUNCTION is a linkage name: demangle it */
	const char *file;
	unsigned line;
};

struct hwp_src_result {
	const char *file; /* innermost location */
	unsigned line;
	struct hwp_src_frame *frames; /* innermost first; owned by the caller, grown here */
	size_t n, cap;
};

/* hwp__elf_module_new's FLAGS */
#define HWP_ELF_ALL_PLT 1u  /* name every PLT entry (.plt, .plt.sec, .plt.got) by
			       its GOT slot, as objdump; else as perf 6.1 (see
			       synthesize_plt_perf) */
#define HWP_ELF_DEMANGLE 2u /* names are shown demangled: aliases compare by
			       their demangled names, as perf's (symtab.h) */

/*
 * Takes over the ELF handles of FILES (they are released with the module,
 * and cleared in FILES). CTX is where a dwz file (.gnu_debugaltlink) is
 * looked for when libdw's own search (/usr/lib/debug) misses. FLAGS:
 * HWP_ELF_*. Returns 0 or -errno with REASON filled.
 */
int hwp__elf_module_new(struct hwp_module_files *files, const struct hwp_find_ctx *ctx,
			unsigned flags, struct hwp_elf_module **out, char *reason,
			size_t reason_size);
void hwp__elf_module_delete(struct hwp_elf_module *m);

bool hwp__elf_module_has_dwarf(const struct hwp_elf_module *m);
/* Symbols came from .symtab (false: only .dynsym, or none). */
bool hwp__elf_module_has_symtab(const struct hwp_elf_module *m);
size_t hwp__elf_module_symbol_count(const struct hwp_elf_module *m);
const char *hwp__elf_module_path(const struct hwp_elf_module *m);
const char *hwp__elf_module_debug_path(const struct hwp_elf_module *m);

/* File offset -> ELF virtual address through PT_LOAD; false when outside every
   segment (VADDR is then OFFSET). */
bool hwp__elf_module_offset_to_vaddr(const struct hwp_elf_module *m, uint64_t offset,
				     uint64_t *vaddr);
struct hwp_sym *hwp__elf_module_find_symbol(const struct hwp_elf_module *m, uint64_t vaddr);

/*
 * Source line of VADDR and, with INLINES, the chain of inlined calls around
 * it. Returns 1 when a line was found, 0 when not (no DWARF covers VADDR),
 * -ENOMEM.
 */
int hwp__elf_module_source(struct hwp_elf_module *m, uint64_t vaddr, bool inlines,
			   struct hwp_src_result *r);

/* The module's DWARF (NULL: none), and the slot of its index of variables
   by address (data_type.c builds it on first use, the module frees it). */
struct Dwarf;
struct hwp__dtype_globals;
struct Dwarf *hwp__elf_module_dwarf(const struct hwp_elf_module *m);
struct hwp__dtype_globals **hwp__elf_module_dtype_globals(struct hwp_elf_module *m);
/* The binary's own ELF (its .eh_frame), NULL when only a debug file was found. */
struct Elf;
struct Elf *hwp__elf_module_binary(const struct hwp_elf_module *m);

#endif
