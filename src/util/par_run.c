/* SPDX-License-Identifier: MIT */
#include "util/par_run.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

struct piece {
	void (*fn)(void *ctx, size_t k);
	void *ctx;
	size_t k;
	pthread_t th;
	bool started;
};

static void *run_piece(void *arg)
{
	struct piece *p = arg;

	p->fn(p->ctx, p->k);
	return NULL;
}

void hwp__par_run(size_t n, void (*fn)(void *ctx, size_t k), void *ctx)
{
	/* (without memory for the threads' arguments: every piece here) */
	struct piece *p = n > 1 ? calloc(n, sizeof(*p)) : NULL;

	for (size_t k = 1; p && k < n; k++) {
		p[k] = (struct piece){ fn, ctx, k, 0, false };
		p[k].started = pthread_create(&p[k].th, NULL, run_piece, &p[k]) == 0;
	}
	if (n)
		fn(ctx, 0);
	for (size_t k = 1; k < n; k++) {
		if (p && p[k].started)
			pthread_join(p[k].th, NULL);
		else
			fn(ctx, k);
	}
	free(p);
}
