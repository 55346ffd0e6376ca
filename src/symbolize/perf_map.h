/* SPDX-License-Identifier: MIT */
/*
 * perf maps: the text file /tmp/perf-PID.map that a JIT writes for its
 * generated code (Node --perf-basic-prof, Python 3.12+ -X perf, Java
 * agents), one function a line: "START SIZE NAME", START and SIZE in hex
 * (an optional 0x), NAME the rest of the line (spaces included).
 *
 * Read as perf 6.1 reads it (dso__load_perf_map): every line's symbol goes
 * into perf's search tree in file order, so overlapping or repeated entries
 * resolve as perf resolves them (the entry met first on the search path
 * wins; symtree.h); a SIZE of 0 covers only START; names are used as
 * written (not demangled); a name shorter than 3 characters is skipped, as
 * perf skips it; a range's end wraps as perf's does. Stricter than perf: a
 * line that is not "HEX SEP HEX SEP NAME" (SEP one space or tab), a number
 * of more than 64 bits or a range past the top of the address space is
 * skipped and counted -- perf reads most such lines as garbage symbols,
 * which are kept here too, hidden (never an answer), so that the tree has
 * perf's shape; blank lines are skipped silently; the last line is read
 * whole when it has no newline (perf drops its last character).
 */
#ifndef HWPROF_SYMBOLIZE_PERF_MAP_H
#define HWPROF_SYMBOLIZE_PERF_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize/symtab.h"

struct hwp__perf_map {
	char *text;            /* the file, each line NUL-terminated: names point here */
	struct hwp_symtab tab; /* perf's tree, in file order */
	size_t lines;          /* lines read (blank ones too) */
	size_t symbols;        /* lines that gave a symbol */
	size_t bad;            /* lines skipped */
	size_t first_bad_line; /* 1-based; 0 when none */
	char first_bad_why[80];
};

/*
 * Parses TEXT[0..LEN) (malloc'd with a spare byte at LEN, taken over:
 * freed by hwp__perf_map_delete(), also when this fails). 0 and *OUT, or -ENOMEM / -EOVERFLOW (more lines than
 * the symbol tree holds) with hwp_errmsg() naming NAME.
 */
int hwp__perf_map_parse(char *text, size_t len, const char *name, struct hwp__perf_map **out);
/* Reads and parses the file PATH: 0, or <0 with hwp_errmsg() (-ENOENT when
   there is no such file). */
int hwp__perf_map_read(const char *path, struct hwp__perf_map **out);
void hwp__perf_map_delete(struct hwp__perf_map *m);

/* The symbol perf finds at ADDR (an absolute address), or NULL. */
const struct hwp_sym *hwp__perf_map_find(const struct hwp__perf_map *m, uint64_t addr);

/*
 * A module path perf reads as a perf map: "/tmp/perf-PID.map" (perf 6.1
 * takes any name starting with "/tmp/perf-"; here the whole form is
 * required, so that a real binary named /tmp/perf-x.so stays an ELF file).
 * *PID (may be NULL) is PID.
 */
bool hwp__perf_map_path(const char *path, int *pid);
/* The name perf's dso column shows for such a module: "[JIT] tid PID"
   (perf's dso__set_basename), for any path sscanf("/tmp/perf-%d.map")
   reads; false otherwise. */
bool hwp__perf_map_short_name(const char *path, char *buf, size_t size);

#endif
