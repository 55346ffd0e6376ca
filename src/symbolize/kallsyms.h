/* SPDX-License-Identifier: MIT */
/*
 * Kernel symbols from /proc/kallsyms (or a saved copy in perf's build-id
 * cache, [kernel.kallsyms]/<build-id>/kallsyms). Text, weak, data and bss
 * symbols are kept (perf's symbol_type__filter); module symbols ("[mod]")
 * are flagged. Sizes come from the next symbol (perf's fixup rules).
 */
#ifndef HWPROF_SYMBOLIZE_KALLSYMS_H
#define HWPROF_SYMBOLIZE_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/symtab.h"

struct hwp_kallsyms;

/*
 * Reads PATH. Returns 0, -EACCES when the addresses are all zero (hidden by
 * kernel.kptr_restrict) or the file cannot be opened for lack of rights,
 * -ENOENT / other -errno when unreadable, -ENODATA when empty. On failure
 * REASON gets one line saying why and what to do.
 */
int hwp__kallsyms_load(const char *path, struct hwp_kallsyms **out, char *reason,
		       size_t reason_size);
struct hwp_sym *hwp__kallsyms_find(const struct hwp_kallsyms *k, uint64_t addr);
/* The module a symbol belongs to ("nf_tables"), NULL for the kernel proper. */
const char *hwp__kallsyms_module_of(const struct hwp_kallsyms *k, const struct hwp_sym *sym);
size_t hwp__kallsyms_count(const struct hwp_kallsyms *k);
void hwp__kallsyms_delete(struct hwp_kallsyms *k);

/* The running kernel's build-id (from /sys/kernel/notes) into OUT (20
   bytes); returns its size, 0 when unknown. */
size_t hwp__kallsyms_running_build_id(uint8_t *out);

#endif
