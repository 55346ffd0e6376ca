/* SPDX-License-Identifier: MIT */
/*
 * Finding a module's files: the binary that was mapped and the file holding
 * its DWARF, by build-id first and path second, the way perf and gdb do.
 *
 * Binary, in order (the first whose build-id matches wins):
 *   DIR/.build-id/xx/rest            perf's cache (a file, or a directory
 *   DIR/.build-id/xx/rest/{elf,vdso}  holding "elf"/"vdso": perf >= 4.x)
 *   DIR/PATH/<build-id>/elf           perf's per-path cache
 *   SYMFS/PATH (PATH without --symfs), then SYMFS/basename(PATH)
 * Debug info, when the binary has no .debug_info:
 *   DIR/.build-id/xx/rest.debug       /usr/lib/debug layout
 *   DIR/.build-id/xx/rest/debug       perf's cache
 *   .gnu_debuglink NAME: BINDIR/NAME, BINDIR/.debug/NAME, DIR/PATHDIR/NAME
 *   DIR/PATH.debug, DIR/PATH          Fedora / old Ubuntu layouts
 * for each DIR of the debug directories, in order. A file whose build-id
 * differs from the recorded one is skipped and remembered (a stale binary
 * gives wrong symbols); a debuglink target without build-id must match the
 * link's CRC32. Without a recorded build-id the binary's own is used for the
 * debug files.
 */
#ifndef HWPROF_SYMBOLIZE_BUILD_ID_LOOKUP_H
#define HWPROF_SYMBOLIZE_BUILD_ID_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HWP_BUILD_ID_MAX 20

/* Lower-case hex of ID into OUT (at least 2*size+1 bytes). */
void hwp__build_id_hex(const uint8_t *id, size_t size, char *out);
/* Equal, allowing either side to be zero-padded (perf stores 20 bytes). */
bool hwp__build_id_equal(const uint8_t *a, size_t an, const uint8_t *b, size_t bn);
/*
 * The size of ID without perf's zero padding (old perf.data files store
 * every build-id as 20 bytes): 4 or more trailing zero bytes are padding,
 * and the id is then 8 or 16 bytes (lld's fast/md5/uuid ids); fewer are
 * part of a real id. 0 when ID is all zero (no build-id).
 */
size_t hwp__build_id_canonical_size(const uint8_t *id, size_t size);

struct Elf; /* libelf's Elf */

struct hwp_find_ctx {
	const char *symfs;             /* NULL: none */
	const char *const *debug_dirs; /* build-id caches and debug roots, in order */
	size_t n_debug_dirs;
};

enum hwp_find_status {
	HWP_FIND_OK,          /* binary (or debug file) found */
	HWP_FIND_NOT_FOUND,   /* nothing found */
	HWP_FIND_STALE,       /* only files with another build-id were found */
	HWP_FIND_UNSUPPORTED, /* built without elfutils */
};

struct hwp_module_files {
	struct Elf *elf;    /* the binary as mapped, or NULL */
	char *elf_path;
	struct Elf *debug;  /* a separate file with DWARF, or NULL */
	char *debug_path;
	bool elf_has_dwarf; /* ELF itself has .debug_info */
	bool debug_only;    /* ELF is NULL: DEBUG stands in for the binary */
	uint8_t build_id[HWP_BUILD_ID_MAX]; /* the binary's (or debug file's) own */
	uint8_t build_id_size;
	enum hwp_find_status status;
	char reason[384]; /* when not OK: what was looked for and found */
};

/*
 * Looks for PATH's files. BUILD_ID may be NULL. Returns 0 (see F->status)
 * or -ENOMEM. Release with hwp__module_files_release().
 */
/* Opens PATH as an ELF (regular files only; the descriptor is not kept), NULL when not one. */
struct Elf *hwp__elf_open(const char *path);
/* The GNU build-id note of E into OUT (HWP_BUILD_ID_MAX bytes); its size, 0 when none. */
size_t hwp__elf_build_id(struct Elf *e, uint8_t *out);

int hwp__module_files_find(const struct hwp_find_ctx *ctx, const char *path,
			   const uint8_t *build_id, uint8_t build_id_size,
			   struct hwp_module_files *f);
void hwp__module_files_release(struct hwp_module_files *f);

#endif
