/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

#define CHUNK_MIN 65536

struct hwp_arena_chunk {
	struct hwp_arena_chunk *next;
	size_t used, cap;
	_Alignas(8) unsigned char mem[];
};

void *hwp__arena_alloc(struct hwp_arena *a, size_t n)
{
	struct hwp_arena_chunk *c = a->head;
	size_t need = (n + 7) & ~(size_t)7;

	if (need < n)
		return NULL;
	if (!c || c->cap - c->used < need) {
		size_t cap = need > CHUNK_MIN ? need : CHUNK_MIN;

		c = calloc(1, sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->mem + c->used;
	c->used += need;
	return p;
}

char *hwp__arena_strndup(struct hwp_arena *a, const void *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = hwp__arena_alloc(a, len + 1);

	if (p)
		memcpy(p, s, len);
	return p;
}

void hwp__arena_free(struct hwp_arena *a)
{
	struct hwp_arena_chunk *c = a->head;

	while (c) {
		struct hwp_arena_chunk *next = c->next;

		free(c);
		c = next;
	}
	a->head = NULL;
}
