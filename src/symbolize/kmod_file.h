/* SPDX-License-Identifier: MIT */
/*
 * A kernel module's own file (the .ko an MMAP record names, found under
 * --symfs or in a build-id cache): its symbols where perf 6.1 places them.
 *
 * A .ko is relocatable (ET_REL): its symbols' values are offsets in their
 * sections. perf maps the module's load address (the MMAP's start) to the
 * file offset of .text and the symbols to their file offsets, so a symbol
 * of .text lies at load address + its value; the symbols of the module's
 * other sections (.text.unlikely, .init.text, data) go to maps of their own
 * that no sampled address reaches (dso__process_kernel_symbol). So only
 * .text's symbols answer here, with perf's filter (functions, objects,
 * labels) and its end and duplicate rules (symtab.h).
 */
#ifndef HWPROF_SYMBOLIZE_KMOD_FILE_H
#define HWPROF_SYMBOLIZE_KMOD_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize/symtab.h"

struct Elf;
struct hwp__kmod_file;

/* Takes E (a .ko, opened by the caller; closed by delete, or here on
   failure) and IMAGE (NULL, or the malloc'd bytes E was opened on, freed
   with it) and reads the symbols of its .text placed at BASE. 0 and *OUT,
   or a negative errno with REASON said (not a relocatable file, no .text,
   no symbol table, out of memory). */
int hwp__kmod_file_new(struct Elf *e, void *image, uint64_t base, struct hwp__kmod_file **out, char *reason,
		       size_t reason_size);
/* The compressed module at FILE (kmod_image.h), decompressed, its build-id
   checked against BUILD_ID (when given), then read as hwp__kmod_file_new()
   does. 0 and *OUT, or a negative errno with REASON said: -ENOENT (no
   such file), -ESTALE (another build-id), others. */
int hwp__kmod_file_open_compressed(const char *file, const uint8_t *build_id, size_t build_id_size, uint64_t base,
				   struct hwp__kmod_file **out, char *reason, size_t reason_size);

/* The same for a module's bytes in memory (IMAGE, malloc'd: taken, freed
   on failure too), named NAME in REASON. */
int hwp__kmod_file_from_image(const char *name, void *image, size_t size, const uint8_t *build_id,
			      size_t build_id_size, uint64_t base, struct hwp__kmod_file **out, char *reason,
			      size_t reason_size);

/* The symbol covering ADDR (an absolute address), or NULL. */
struct hwp_sym *hwp__kmod_file_find(const struct hwp__kmod_file *k, uint64_t addr);
size_t hwp__kmod_file_count(const struct hwp__kmod_file *k);
/* The file offset of .text: perf's map of the module starts there. */
uint64_t hwp__kmod_file_text_offset(const struct hwp__kmod_file *k);
void hwp__kmod_file_delete(struct hwp__kmod_file *k);

#endif
