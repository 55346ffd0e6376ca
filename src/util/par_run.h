/* SPDX-License-Identifier: MIT */
/*
 * A job in N pieces on as many threads: for work that is split before it
 * starts and joined after (no queue, no pool).
 */
#ifndef HWPROF_UTIL_PAR_RUN_H
#define HWPROF_UTIL_PAR_RUN_H

#include <stddef.h>

/* Calls FN(CTX, K) once for each K in [0, N): K >= 1 on threads of their
   own, K = 0 on this one, then here too each K whose thread could not
   start; returns when all have returned. */
void hwp__par_run(size_t n, void (*fn)(void *ctx, size_t k), void *ctx);

#endif
