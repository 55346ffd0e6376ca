/* SPDX-License-Identifier: MIT */
/*
 * Source frames of one address as sample profiles key them: for each
 * function of the inline chain (outermost first), its name, the line it
 * is at, that line's discriminator, and the function's own start line
 * (DW_AT_decl_line), since LLVM sample profiles and AutoFDO count lines
 * as offsets from it. The symbolizer gives call sites and lines but not
 * decl lines nor discriminators; this reads libdw directly.
 */
#ifndef HWPROF_EXPORT_DWARF_FRAMES_H
#define HWPROF_EXPORT_DWARF_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hwp__dwarf_frames;

struct hwp__src_frame {
	const char *name;     /* linkage name, else DW_AT_name */
	unsigned line;        /* the line in this function (call site for outer frames) */
	unsigned decl_line;   /* the function's DW_AT_decl_line */
	unsigned discriminator; /* raw DWARF discriminator of that line */
	uint64_t entry;       /* outermost frame: the subprogram's low_pc (0 when unknown) */
};

/* Opens PATH's DWARF; NULL (hwp_errmsg()) when it has none. */
struct hwp__dwarf_frames *hwp__dwarf_frames_open(const char *path);
void hwp__dwarf_frames_close(struct hwp__dwarf_frames *d);
/* Fills up to MAX frames for link-time address VADDR, outermost first;
   returns how many (0: no subprogram covers it). */
size_t hwp__dwarf_frames_at(struct hwp__dwarf_frames *d, uint64_t vaddr, struct hwp__src_frame *out,
			    size_t max);

/* The name of the subprogram (outermost frame) holding VADDR; NULL when none. */
const char *hwp__dwarf_frames_function(struct hwp__dwarf_frames *d, uint64_t vaddr);

/* The address ranges [LOW[i], HIGH[i]) of every subprogram named NAME
   (hot and cold parts; static functions of one name in several files, which
   a sample profile cannot tell apart), up to MAX; returns how many. */
size_t hwp__dwarf_frames_named(struct hwp__dwarf_frames *d, const char *name, uint64_t *low, uint64_t *high,
			       size_t max);

/* Every address range of every subprogram with code (what
   hwp__dwarf_frames_named() searches), in DIE order: how many, then range I
   of them and its subprogram's name (valid while D is open). */
size_t hwp__dwarf_frames_nranges(struct hwp__dwarf_frames *d);
void hwp__dwarf_frames_range(const struct hwp__dwarf_frames *d, size_t i, uint64_t *low, uint64_t *high,
			     const char **name);

/* Whether any line table row of the file carries a discriminator (clang
   writes them only with -fdebug-info-for-profiling; GCC by default). */
bool hwp__dwarf_frames_has_discriminators(struct hwp__dwarf_frames *d);

#endif
