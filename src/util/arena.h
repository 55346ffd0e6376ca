/* SPDX-License-Identifier: MIT */
/* Bump allocator for things that live as long as their owner (strings, ids). */
#ifndef HWPROF_UTIL_ARENA_H
#define HWPROF_UTIL_ARENA_H

#include <stddef.h>

struct hwp_arena_chunk;
struct hwp_arena {
	struct hwp_arena_chunk *head;
};

void *hwp__arena_alloc(struct hwp_arena *a, size_t n); /* zeroed, 8-aligned; NULL on OOM */
/* Copies at most N bytes of S, stopping at NUL, and terminates. */
char *hwp__arena_strndup(struct hwp_arena *a, const void *s, size_t n);
void hwp__arena_free(struct hwp_arena *a);

#endif
