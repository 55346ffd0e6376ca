/* SPDX-License-Identifier: MIT */
/* Library-private: the symbolizer's module registry, read without changing it. */
#ifndef HWPROF_SYMBOLIZE_SYMBOLIZER_INTERNAL_H
#define HWPROF_SYMBOLIZE_SYMBOLIZER_INTERNAL_H

#include <stdint.h>

#include "hwprof/symbolize.h"
#include "symbolize/build_id_lookup.h"

/*
 * What hwp_symbolizer__module(S, PATH, BUILD_ID, BUILD_ID_SIZE) would
 * answer, without registering anything (so several threads may ask at
 * once while nothing registers): the id of the module already registered
 * (the kernel's for its name); -ENOENT when it would register a new one,
 * *KEY then the registry's key for it (malloc'd: modules with the same key
 * are one); -EINVAL (no path) or -ENOMEM when it would fail.
 */
int hwp__symbolizer_module_find(const struct hwp_symbolizer *s, const char *path, const uint8_t *build_id,
				uint8_t build_id_size, char **key);

/* Where S finds binaries and debug files (--symfs, the build-id caches and
   debug roots, in order): valid while S lives, for a reader that finds
   files itself (the unwinder). */
void hwp__symbolizer_find_ctx(const struct hwp_symbolizer *s, struct hwp_find_ctx *ctx);

#endif
