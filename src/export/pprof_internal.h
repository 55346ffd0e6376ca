/* SPDX-License-Identifier: MIT */
/* What the pprof writers share (pprof.c: branch rows; pprof_stacks.c: the
   call stacks of hwprof export's profile; pprof_flame.c: a flame graph's
   stacks): the string table and the gzip of the packed profile, and the
   profile builder of hwprof export (mappings, locations, functions). Only
   with HAVE_PPROF. */
#ifndef HWPROF_EXPORT_PPROF_INTERNAL_H
#define HWPROF_EXPORT_PPROF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/hashmap.h"

/* The string table: index 0 is "", each string once. */
struct hwp__pprof_strtab {
	char **s;
	size_t nr, cap;
	struct hwp_hashmap map;
};

/* S's index in T (NULL: ""), added when new; *OOM set (and 0) when out of memory. */
int64_t hwp__pprof_intern(struct hwp__pprof_strtab *t, const char *s, bool *oom);
void hwp__pprof_strtab_free(struct hwp__pprof_strtab *t);
/* gzip of LEN bytes at P to FP. 0 or <0. */
int hwp__pprof_write_gzip(const uint8_t *p, size_t len, FILE *fp);

#ifdef HWPROF_PPROF_BUILDER /* (needs the generated profile.pb-c.h) */
struct hwp_symbolizer;
struct hwp_call_graph;

/* hwprof export's profile being built: one mapping per module (start 0,
   file offset 0: addresses are module offsets), locations by module,
   offset and kind, functions by name and file. OOM set when out of memory
   (the builders then return 0 or NULL). */
struct hwp__pprof_builder {
	struct hwp__pprof_strtab st;
	Perftools__Profiles__Mapping *maps;
	size_t nmaps, cap_maps;
	int32_t *map_module; /* module id of each mapping */
	size_t nmm, cap_mm;
	Perftools__Profiles__Location *locs;
	size_t nlocs, cap_locs;
	int32_t *loc_module; /* module id of each location */
	size_t nlm, cap_lm;
	uint8_t *loc_kind;   /* HWP__PPROF_LOC_* of each location */
	size_t nlk, cap_lk;
	/* every location's lines, consecutive; a location's line pointer
	   holds its first line's index + 1 until the array stops moving */
	Perftools__Profiles__Line *lines;
	size_t nlines, cap_lines;
	Perftools__Profiles__Function *funcs;
	size_t nfuncs, cap_funcs;
	struct hwp_hashmap loc_map, func_map;
	bool oom;
};

/* A location's kind: a branch source (one line: its function and line), a
   stack's innermost frame and a return address (their inline chains, the
   return address's of the call before it). */
enum { HWP__PPROF_LOC_BRANCH, HWP__PPROF_LOC_FRAME, HWP__PPROF_LOC_RETURN };

/* The id of MODULE's mapping (0 for -1), its limit raised past OFF. */
uint64_t hwp__pprof_mapping(struct hwp__pprof_builder *b, struct hwp_symbolizer *sym, int32_t module, uint64_t off);
/* The function of that name and file (SYSTEM_NAME: the symbol table's). */
uint64_t hwp__pprof_function(struct hwp__pprof_builder *b, const char *name, const char *system_name,
			     const char *file);
/* The location (MODULE, OFFSET, KIND); *MADE when new (its lines to add). */
Perftools__Profiles__Location *hwp__pprof_location(struct hwp__pprof_builder *b, struct hwp_symbolizer *sym,
						    int32_t module, uint64_t offset, uint8_t kind, bool *made);
/* Appends a line to LOC, the location made last. */
Perftools__Profiles__Line *hwp__pprof_line(struct hwp__pprof_builder *b, Perftools__Profiles__Location *loc,
					   uint64_t function_id, int64_t line);

/* hwprof export's call stacks: each distinct stack of CG a sample, its
   locations leaf first; values: samples and period. */
struct hwp__pprof_stack {
	size_t first, n; /* in ids */
	uint64_t samples, period;
};
struct hwp__pprof_stacks {
	struct hwp__pprof_stack *v;
	size_t nr, cap;
	uint64_t *ids;
	size_t nids, cap_ids;
	const char *period_name, *period_unit; /* the period's value type */
};
/* CG's stacks into X, their locations into B (symbolized by SYM). 0 or
   <0 (hwp_errmsg()). */
int hwp__pprof_stacks(struct hwp__pprof_builder *b, struct hwp_symbolizer *sym, struct hwp_call_graph *cg,
		      struct hwp__pprof_stacks *x);
void hwp__pprof_stacks_free(struct hwp__pprof_stacks *x);
#endif

#endif
