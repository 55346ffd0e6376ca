/* SPDX-License-Identifier: MIT */
/* A flame graph's stacks for writers outside flame_svg.c (the pprof one). */
#ifndef HWPROF_OUTPUT_FLAME_TREE_H
#define HWPROF_OUTPUT_FLAME_TREE_H

#include <stddef.h>
#include <stdint.h>

struct hwp_flame;

/* Calls FN for every node of F's AFTER side but the root, parents before
   their children: its number (1..), its parent's (0: the root), its name
   and its own count (samples whose stack ends there). Stops at FN's first
   non-zero return and returns it, else 0. */
int hwp__flame_each_node(const struct hwp_flame *f,
			 int (*fn)(void *ctx, uint32_t node, uint32_t parent, const char *name, uint64_t self),
			 void *ctx);
/* The number of nodes, the root included. */
size_t hwp__flame_nodes(const struct hwp_flame *f);

#endif
