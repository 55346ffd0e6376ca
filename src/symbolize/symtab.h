/* SPDX-License-Identifier: MIT */
/*
 * A sorted table of address ranges -> names with perf's rules (util/symbol.c
 * in perf 6.1): of the symbols starting at one address the best is kept
 * (choose_best_symbol: sized, then non-weak, then global, then fewer leading
 * underscores, then the longer name); zero-sized symbols reach up to the next
 * symbol (symbols__fixup_end). A lookup returns the symbol covering the
 * address that starts closest below it.
 */
#ifndef HWPROF_SYMBOLIZE_SYMTAB_H
#define HWPROF_SYMBOLIZE_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HWP_SYM_LOCAL 0 /* STB_LOCAL, STB_GLOBAL, STB_WEAK values */
#define HWP_SYM_GLOBAL 1
#define HWP_SYM_WEAK 2

#define HWP_SYMF_KMOD 1u  /* kallsyms: symbol of a kernel module ("[mod]") */
#define HWP_SYMF_SYNTH 2u /* synthesized (PLT entry) */

struct hwp_sym {
	uint64_t start, end;   /* [start, end) */
	const char *name;      /* as in the symbol table; owned by the table's owner */
	const char *demangled; /* set lazily by the symbolizer; NULL: not yet */
	uint8_t bind;          /* HWP_SYM_* */
	uint8_t flags;         /* HWP_SYMF_* */
};

struct hwp_symtab {
	struct hwp_sym *v;
	size_t n, cap;
	uint64_t *max_end; /* max_end[i] = max(v[0..i].end), after finish */
};

/* Returns 0 or -ENOMEM. SIZE 0: unknown size. */
int hwp_symtab__add(struct hwp_symtab *t, uint64_t start, uint64_t size, const char *name,
		    uint8_t bind, uint8_t flags);
/* Sort, drop duplicates, fix the ends; KALLSYMS: perf's kernel/module boundary rule. */
int hwp_symtab__finish(struct hwp_symtab *t, bool kallsyms);
struct hwp_sym *hwp_symtab__find(const struct hwp_symtab *t, uint64_t addr);
void hwp_symtab__free(struct hwp_symtab *t);

#endif
