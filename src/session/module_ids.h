/* SPDX-License-Identifier: MIT */
/*
 * Module ids for a thread of a parallel pass. The symbolizer numbers
 * modules in the order the sequential pass first resolves an address in
 * them; threads resolving their share of the samples at once cannot
 * register there (nor in that order). Each numbers the modules it meets
 * apart (HWP__MODULE_IDS_BASE up), remembering where in the sequential
 * order it met each first; at the end the modules are registered in the
 * order of those places, which gives the sequential ids, and each
 * thread's numbers are translated to them.
 */
#ifndef HWPROF_SESSION_MODULE_IDS_H
#define HWPROF_SESSION_MODULE_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/symbolize.h"

/* The first of a thread's own numbers (real ids stay below). */
#define HWP__MODULE_IDS_BASE 0x40000000

struct hwp__module_ids;

struct hwp__module_ids *hwp__module_ids_new(void);
void hwp__module_ids_delete(struct hwp__module_ids *ids);

/*
 * What hwp_symbolizer__module(SYM, PATH, BID, N) answers (KMOD: a kernel
 * module's loaded at BASE, hwp__symbolizer_kernel_module_file()), without changing
 * SYM: the id of a module registered before, <0 where it fails, else this
 * thread's number for the module (the same for every map the symbolizer
 * takes for one module); POS: where in the sequential order this
 * resolution is (the first for a module is kept).
 */
int32_t hwp__module_ids_get(struct hwp__module_ids *ids, const struct hwp_symbolizer *sym, const char *path,
			    const uint8_t *bid, uint8_t n, uint64_t base, bool kmod, uint64_t pos);

/* Registers the modules IDS[0..N) numbered, in the order first met, in
   SYM (which nothing changed meanwhile). 0 or <0 (hwp_errmsg()). */
int hwp__module_ids_register(struct hwp__module_ids *const *ids, size_t n, struct hwp_symbolizer *sym);

/* The registered id for ID (one of IDS' numbers, or a real id). */
int32_t hwp__module_ids_real(const struct hwp__module_ids *ids, int32_t id);

/* What ID (one of IDS' numbers) stands for: the *PATH and build-id (*BID,
   *N bytes) it was met with. 0, or -ENOENT for a number not IDS'. */
int hwp__module_ids_identity(const struct hwp__module_ids *ids, int32_t id, const char **path,
			     const uint8_t **bid, uint8_t *n);

#endif
