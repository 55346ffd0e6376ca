/* SPDX-License-Identifier: MIT */
/*
 * The binaries an unwinder reads, one entry per path + build-id, found
 * once (symbolize/build_id_lookup.h: --symfs, build-id caches) and kept
 * open: their load segments place a mapping (the load bias), their bytes
 * answer memory reads outside the stack copy, and the unwinding rules of
 * their addresses are cached with them (unwind_rules.c).
 */
#ifndef HWPROF_UNWIND_UNWIND_FILES_H
#define HWPROF_UNWIND_UNWIND_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/maps.h"
#include "symbolize/build_id_lookup.h"
#include "util/hashmap.h"

struct hwp__rule_cache;

struct hwp__ufile_load {
	uint64_t offset, vaddr, filesz, memsz;
	bool exec;
};

struct hwp__ufile {
	char *path; /* as recorded */
	uint8_t bid[HWP_BUILD_ID_MAX];
	uint8_t bid_size;
	bool said;             /* named among the missing */
	bool found;            /* ELF_PATH is the binary (else WHY says what was looked for) */
	char *elf_path, *debug_path;
	char why[400];
	struct Elf *elf;       /* the binary, mapped */
	const uint8_t *raw;    /* its bytes */
	size_t raw_size;
	uint16_t e_machine, e_type;
	struct hwp__ufile_load *loads;
	size_t nloads;
	struct hwp__rule_cache *rules; /* unwind_rules.c, made on first use */
	int8_t debug_frame;            /* .debug_frame in the binary or its debug file: 1, 0, -1 not known yet */
};

struct hwp__ufiles {
	struct hwp_find_ctx ctx; /* owned copies */
	struct hwp__ufile **files;
	size_t n, cap;
	struct hwp_hashmap map;
	const struct hwp_build_id *build_ids;
	size_t nr_build_ids;
};

int hwp__ufiles_init(struct hwp__ufiles *t, const char *symfs, const char *const *dirs, size_t ndirs,
		     const struct hwp_build_id *build_ids, size_t nr_build_ids);
void hwp__ufiles_free(struct hwp__ufiles *t);

/* The entry of map M's file (looked up on first sight); NULL out of
   memory. A file not found has FOUND false. */
struct hwp__ufile *hwp__ufiles_get(struct hwp__ufiles *t, const struct hwp_map *m);

/* The load bias of map M of F: run-time address = link-time address +
   bias. False when no load segment holds the map's file offset. */
bool hwp__ufile_bias(const struct hwp__ufile *f, const struct hwp_map *m, uint64_t *bias);

/* Whether F or its separate debug file has a .debug_frame section: where
   neither has, libdwfl's DWARF CFI lookup finds nothing (and would load
   and decompress the debug file's DWARF to find out). */
bool hwp__ufile_has_debug_frame(struct hwp__ufile *f);

/* 8 bytes of F at file offset OFF; false past its end. */
static inline bool hwp__ufile_read(const struct hwp__ufile *f, uint64_t off, uint64_t *val)
{
	if (!f->raw || off > f->raw_size || f->raw_size - off < 8)
		return false;
	__builtin_memcpy(val, f->raw + off, 8);
	return true;
}

#endif
