/* SPDX-License-Identifier: MIT */
/*
 * A function's DWARF scope tree (inlined instances and lexical blocks) read
 * once and searched by address: the descent hwp__dwarf_scope_child() does
 * (dwarf_scope.h), without walking libdw's DIEs per address. A function of
 * thousands of inlined instances (an interpreter's dispatch loop) made the
 * walk per address most of an LLVM profile's time.
 */
#ifndef HWPROF_SYMBOLIZE_SCOPE_TREE_H
#define HWPROF_SYMBOLIZE_SCOPE_TREE_H

#include <elfutils/libdw.h>
#include <stddef.h>
#include <stdint.h>

/* The deepest scope chain one lookup returns; deeper scopes are not read. */
#define HWP_SCOPE_TREE_MAX_DEPTH 256

struct hwp__scope_trees; /* the trees of one Dwarf, by function DIE */

struct hwp__scope_trees *hwp__scope_trees_new(void);
void hwp__scope_trees_free(struct hwp__scope_trees *c);

/*
 * The scopes below function FN holding ADDR, outermost first, into OUT[0..
 * MAX): each the first child of the one before (in DIE order) that is a pc
 * scope whose ranges hold ADDR, as repeated hwp__dwarf_scope_child() finds.
 * FN's tree is read on its first lookup (when that runs out of memory, or
 * C is NULL, libdw's DIEs are walked instead). Returns how many.
 */
size_t hwp__scope_trees_path(struct hwp__scope_trees *c, Dwarf_Die *fn, uint64_t addr, Dwarf_Die *out, size_t max);

#endif
