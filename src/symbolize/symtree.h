/* SPDX-License-Identifier: MIT */
/*
 * perf 6.1's symbol tree, replayed. perf keeps a DSO's symbols in a
 * red-black tree keyed by start address and finds an address by walking
 * down from the root, taking the first symbol on the path that covers it.
 * When symbols overlap -- gcc's zero-size _init stretched over .plt and
 * the "name@plt" symbols perf adds there afterwards -- the answer depends on
 * the shape of that tree. To give perf's answer, the same classic red-black
 * insert and erase (the algorithms of CLRS, which Linux's lib/rbtree.c
 * implements) are applied in perf's order to nodes that index a symbol
 * array.
 */
#ifndef HWPROF_SYMBOLIZE_SYMTREE_H
#define HWPROF_SYMBOLIZE_SYMTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwp_sym;

struct hwp_symtree_node {
	int32_t left, right, parent; /* -1: none */
	bool red;
};

struct hwp_symtree {
	struct hwp_symtree_node *n; /* n[i] belongs to the i-th symbol */
	size_t cap;
	int32_t root; /* -1: empty */
};

void hwp__symtree_init(struct hwp_symtree *t);
/* Room for nodes 0..N-1. Returns 0 or -ENOMEM. */
int hwp__symtree_reserve(struct hwp_symtree *t, size_t n);
/* Inserts symbol I (room reserved) as perf's __symbols__insert does: keyed
   by V[I].start, an equal start goes to the right. */
void hwp__symtree_insert(struct hwp_symtree *t, const struct hwp_sym *v, int32_t i);
void hwp__symtree_erase(struct hwp_symtree *t, int32_t i);
/* perf's symbols__find: the first symbol on the search path holding ADDR in
   [start, end] (end itself only for a zero-size symbol); -1 if none. */
int32_t hwp__symtree_find(const struct hwp_symtree *t, const struct hwp_sym *v, uint64_t addr);
void hwp__symtree_free(struct hwp_symtree *t);

#endif
