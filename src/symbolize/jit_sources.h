/* SPDX-License-Identifier: MIT */
/*
 * Where JIT-compiled code gets its names: the perf maps and jitdumps a
 * session's symbolizers share. Each file is read once (and warned about
 * once) however many symbolizers ask for it; what was read never changes,
 * so pointers into it stay valid while the registry lives. Thread-safe: a
 * parallel pass's side symbolizer asks while the reading thread opens new
 * dumps.
 *
 * Files are looked for under the symfs root first (SYMFS/PATH), then at
 * PATH itself. perf 6.1 reads both kinds at PATH only; the symfs copy lets
 * a recording be read on another machine.
 *
 * The code loads of a dump are known by the names perf inject gives their
 * ELF images, "DIR/jitted-PID-INDEX.so" (DIR: the dump's directory as the
 * recording names it, PID the load's pid, INDEX its code index): a module
 * of that name is the last load with that index, as the file perf inject
 * wrote last for it.
 */
#ifndef HWPROF_SYMBOLIZE_JIT_SOURCES_H
#define HWPROF_SYMBOLIZE_JIT_SOURCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize/jitdump.h"
#include "symbolize/perf_map.h"

struct hwp__jit_sources;

/* SYMFS may be NULL. NULL when out of memory (message set). */
struct hwp__jit_sources *hwp__jit_sources_new(const char *symfs);
/* Another reference (the same registry); put drops one. */
struct hwp__jit_sources *hwp__jit_sources_get(struct hwp__jit_sources *js);
void hwp__jit_sources_put(struct hwp__jit_sources *js);

/*
 * The perf map a module PATH ("/tmp/perf-PID.map") names, read on first
 * use (lines skipped: one warning naming the file and the first bad line).
 * NULL when there is none: *WHY (may be NULL) then points at a reason that
 * lives as long as JS.
 */
const struct hwp__perf_map *hwp__jit_sources_perf_map(struct hwp__jit_sources *js, const char *path,
						      const char **why);

/*
 * The jitdump a marker FILENAME (an MMAP record's, "DIR/jit-PID.dump")
 * names, read on first use; its code loads become known by their perf
 * inject names. Problems inside the dump are warned about once (file,
 * offset, cause); the records before them are used. NULL when it cannot
 * be used at all (hwp_errmsg() says why, the same reason each time).
 */
const struct hwp__jitdump *hwp__jit_sources_dump(struct hwp__jit_sources *js, const char *filename);

/* The code load module PATH names (see above), from a dump read here, and
   *DUMP (may be NULL) its dump; NULL when PATH is no such name. */
const struct hwp__jit_code *hwp__jit_sources_code(struct hwp__jit_sources *js, const char *path,
						  const struct hwp__jitdump **dump);

/* perf inject's name for a load or move of DUMP read from marker
   FILENAME: "DIR/jitted-PID-INDEX.so" into BUF; false when it does not fit. */
bool hwp__jit_sources_code_name(const char *filename, const struct hwp__jit_code *c, char *buf, size_t size);

#endif
