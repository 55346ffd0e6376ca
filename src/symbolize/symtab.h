/* SPDX-License-Identifier: MIT */
/*
 * A table of address ranges -> names with perf's rules (util/symbol.c in
 * perf 6.1): zero-sized symbols reach up to the next symbol
 * (symbols__fixup_end); of the symbols starting at one address the best is
 * kept (choose_best_symbol: sized, then non-weak, then global, then fewer
 * leading underscores, then the longer name, then the one added first --
 * which is how perf picks "sem_destroy@GLIBC_2.2.5" over the equally long
 * "sem_destroy@@GLIBC_2.34" that comes later in libc's .symtab). perf
 * demangles as it loads, so with DEMANGLE the names compared are the
 * demangled ones it prints ("h<int, int, int>", 16 characters, beats its
 * alias "abc::defg", though "_Z1hIiiiEll" is shorter than "_ZN3abc4defgEl").
 *
 * Lookups: HWP_SYMTAB_PERF_TREE walks perf's own search tree (symtree.h),
 * so overlapping symbols resolve as perf resolves them; the other modes
 * return the covering symbol that starts closest below the address.
 */
#ifndef HWPROF_SYMBOLIZE_SYMTAB_H
#define HWPROF_SYMBOLIZE_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize/symtree.h"

#define HWP_SYM_LOCAL 0 /* STB_LOCAL, STB_GLOBAL, STB_WEAK values */
#define HWP_SYM_GLOBAL 1
#define HWP_SYM_WEAK 2

#define HWP_SYMF_KMOD 1u  /* kallsyms: symbol of a kernel module ("[mod]") */
#define HWP_SYMF_SYNTH 2u /* synthesized (PLT entry) */
#define HWP_SYMF_HIDDEN 4u /* in perf's tree only to give it perf's shape: never an answer (perf_map.c) */

struct hwp_sym {
	uint64_t start, end;   /* [start, end) */
	const char *name;      /* as in the symbol table; owned by the table's owner */
	const char *demangled; /* perf's name; set lazily by the symbolizer; NULL: not yet */
	const char *demangled_full; /* with parameters; as lazily */
	uint8_t bind;          /* HWP_SYM_* */
	uint8_t flags;         /* HWP_SYMF_* */
	uint32_t seq;          /* order of hwp__symtab_add: perf's insertion order */
};

enum hwp_symtab_mode {
	HWP_SYMTAB_KALLSYMS,  /* ends (perf's kernel/module boundary rule), then duplicates, as perf 5.18+ */
	HWP_SYMTAB_SORTED,    /* an ELF table (ends, then duplicates), nearest-start lookup */
	HWP_SYMTAB_PERF_TREE, /* an ELF table looked up through perf's tree */
};

struct hwp_symtab {
	struct hwp_sym *v;
	size_t n, cap;
	uint64_t *max_end; /* max_end[i] = max(v[0..i].end), after a sorted finish */
	bool tree_mode;    /* finished as HWP_SYMTAB_PERF_TREE: v is not compacted,
			      dropped aliases stay out of the tree */
	bool demangle;     /* set before finishing: aliases compare by perf's
			      demangled names (demangle.h's HWP_DEMANGLE_NAME) */
	struct hwp_symtree tree;
};

/* Returns 0 or -ENOMEM. SIZE 0: unknown size. After a HWP_SYMTAB_PERF_TREE
   finish the symbol goes straight into the tree, as perf adds its PLT
   symbols after fixing the others (no end fixing, no duplicate check). */
int hwp__symtab_add(struct hwp_symtab *t, uint64_t start, uint64_t size, const char *name,
		    uint8_t bind, uint8_t flags);
/* Sort, fix the ends, drop duplicates (the order depends on MODE). Once. */
int hwp__symtab_finish(struct hwp_symtab *t, enum hwp_symtab_mode mode);
/* An empty table whose symbols go straight into perf's tree as they are
   added, with neither end fixing nor duplicate dropping: how perf 6.1
   loads a perf map (dso__load_perf_map). Instead of hwp__symtab_finish(). */
void hwp__symtab_start_tree(struct hwp_symtab *t);
struct hwp_sym *hwp__symtab_find(const struct hwp_symtab *t, uint64_t addr);
void hwp__symtab_free(struct hwp_symtab *t);

#endif
