/* SPDX-License-Identifier: MIT */
/* Library-private: the symbolizer's module registry, read without changing it. */
#ifndef HWPROF_SYMBOLIZE_SYMBOLIZER_INTERNAL_H
#define HWPROF_SYMBOLIZE_SYMBOLIZER_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hwprof/symbolize.h"
#include "symbolize/build_id_lookup.h"

/*
 * What hwp_symbolizer__module(S, PATH, BUILD_ID, BUILD_ID_SIZE) (KMOD:
 * hwp__symbolizer_kernel_module_file()) would answer, without registering anything (so several threads may ask at
 * once while nothing registers): the id of the module already registered
 * (the kernel's for its name); -ENOENT when it would register a new one,
 * *KEY then the registry's key for it (malloc'd: modules with the same key
 * are one); -EINVAL (no path) or -ENOMEM when it would fail.
 */
int hwp__symbolizer_module_find(const struct hwp_symbolizer *s, const char *path, const uint8_t *build_id,
				uint8_t build_id_size, bool kmod, char **key);

/*
 * The kernel module (a .ko, or "[name]") mapped at PATH, loaded at BASE
 * (its MMAP's start; the first one given is kept): named "[name]" as perf
 * names it, its addresses absolute as the kernel's, its symbols the .ko's
 * when one is found (kmod_file.h), else kallsyms'
 * (hwp_symbolizer__kernel_module() for the kernel's own name). The module
 * id, or <0.
 */
int hwp__symbolizer_kernel_module_file(struct hwp_symbolizer *s, const char *path, const uint8_t *build_id,
				       uint8_t build_id_size, uint64_t base);

/* The address perf prints for OFFSET of module ID when no symbol covers it
   (its map_ip): for a kernel module the offset in perf's map of it (from
   the load address, plus .text's file offset when its .ko was read); for
   any other module OFFSET itself. */
uint64_t hwp__symbolizer_perf_address(struct hwp_symbolizer *s, int id, uint64_t offset);

/* Module ID's binary for decoding and BFD-style lookups, opened on first
   need and kept open (NULL: not found, or out of memory). */
struct hwp__code_file;
struct hwp__code_file *hwp__symbolizer_code_file(struct hwp_symbolizer *s, int id);
/* The same, opened afresh for a caller that closes it
   (hwp__code_file_close()): module ID's binary, or for JIT-compiled code
   of a jitdump its bytes as perf inject lays them out. NULL (message set):
   no file, or out of memory. */
struct hwp__code_file *hwp__symbolizer_open_code(struct hwp_symbolizer *s, int id);

/* Module ID's ELF and DWARF (loaded on first need): NULL for the kernel,
   JIT-compiled code, or a module that could not be loaded. */
struct hwp_elf_module;
struct hwp_elf_module *hwp__symbolizer_elf(struct hwp_symbolizer *s, int id);

/* Perf maps and jitdumps come from JS (a reference is taken; the
   symbolizer's own, made on first need, otherwise): symbolizers that share
   one read each file once, and know the code loads of the dumps a session
   opened. */
struct hwp__jit_sources;
void hwp__symbolizer_set_jit_sources(struct hwp_symbolizer *s, struct hwp__jit_sources *js);

/* What module ID was registered as: *PATH, its build-id (*BID, *N bytes,
   0 when none) and whether it is the kernel. 0 or -ENOENT. Reads only. */
int hwp__symbolizer_module_identity(const struct hwp_symbolizer *s, int id, const char **path,
				    const uint8_t **bid, uint8_t *n, bool *kernel);

/* Where S finds binaries and debug files (--symfs, the build-id caches and
   debug roots, in order): valid while S lives, for a reader that finds
   files itself (the unwinder). */
void hwp__symbolizer_find_ctx(const struct hwp_symbolizer *s, struct hwp_find_ctx *ctx);

#endif
