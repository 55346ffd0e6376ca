/* SPDX-License-Identifier: MIT */
/*
 * Hot-branch and mispredict reports from an aggregated branch table: rows are
 * keyed by perf's branch sort keys (rendered as perf renders them), merged,
 * and ordered by count.
 */
#ifndef HWPROF_BRANCH_REPORT_H
#define HWPROF_BRANCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "hwprof/branch_table.h"
#include "hwprof/symbolize.h"

HWP_BEGIN_DECLS

enum hwp_branch_key_id {
	HWP_KEY_SYMBOL_FROM,
	HWP_KEY_SYMBOL_TO,
	HWP_KEY_SRCLINE_FROM,
	HWP_KEY_SRCLINE_TO,
	HWP_KEY_DSO_FROM,
	HWP_KEY_DSO_TO,
	HWP_KEY_ADDR_FROM,
	HWP_KEY_ADDR_TO,
	HWP_KEY_TYPE,
	HWP_KEY_MISPREDICT,
	HWP_KEY_CYCLES,
	HWP_KEY_IN_TX,
	HWP_KEY_ABORT,
	/* perf's sample keys, which branch mode points at the branch target */
	HWP_KEY_SYMBOL,  /* "symbol" ("sym"): the target's symbol */
	HWP_KEY_DSO,     /* "dso": the target's module */
	HWP_KEY_SRCLINE, /* "srcline": the target's source line */
	HWP_KEY_IPC_LBR, /* the target symbol's IPC over the blocks the stacks cover */
	HWP_KEY_COUNT,
};

#define HWP_MAX_SORT_KEYS 16

/* Parses "symbol_from,symbol_to,..." as perf 6.1 does: case-insensitive, and
   a key may be cut to any prefix, resolved by the first key in perf's table
   order that it starts ("sym" is perf's symbol, "symbol_f" symbol_from, "in"
   perf's ins_lat). hwprof's "type" (branch type) is an extension. Returns the
   number of keys, or <0 with hwp_errmsg() naming the key and listing the
   known ones (-ENOTSUP: a perf key hwprof does not offer). */
HWP_API int hwp_branch_keys__parse(const char *spec, enum hwp_branch_key_id *keys, size_t max);
HWP_API const char *hwp_branch_key__name(enum hwp_branch_key_id k);
HWP_API const char *hwp_branch_key__title(enum hwp_branch_key_id k); /* perf's column header */
/* enum hwp_branch_split bits the keys need in the table. */
HWP_API unsigned hwp_branch_keys__split(const enum hwp_branch_key_id *keys, size_t n);

struct hwp_branch_report_filter {
	const char *dso;      /* keep rows whose from or to module short name is this */
	const char *sym;      /* keep rows whose from or to symbol contains this */
	double min_percent;   /* drop rows below this share of all entries */
};

struct hwp_branch_report_row {
	const char *cells[HWP_MAX_SORT_KEYS]; /* as perf prints each key */
	struct hwp_branch_counts c;
	/* The hottest branch of the row: rows keyed by symbols, source lines or
	   modules merge several (from, to) pairs; every field the keys name is
	   the same in all of them. */
	struct hwp_branch_key key;
	uint64_t branches; /* distinct (from, to, flag keys) merged into the row */
};

struct hwp_branch_report;

struct hwp_branch_report_opts {
	size_t sz; /* sizeof(struct hwp_branch_report_opts) */
	const struct hwp_branch_report_filter *filter;
	/* For the ipc_lbr key: hwp_branch_collector__blocks() of a collector
	   run with opts.blocks. */
	const struct hwp_branch_table *blocks;
};

/* Builds rows (sorted by count, descending). Symbolizes each distinct
   location once. NULL + errno on failure. */
HWP_API struct hwp_branch_report *hwp_branch_report__new(const struct hwp_branch_table *t,
						 struct hwp_symbolizer *sym,
						 const enum hwp_branch_key_id *keys, size_t nkeys,
						 const struct hwp_branch_report_filter *f);
/* The same with options (NULL: none). */
HWP_API struct hwp_branch_report *hwp_branch_report__new_opts(const struct hwp_branch_table *t,
							      struct hwp_symbolizer *sym,
							      const enum hwp_branch_key_id *keys, size_t nkeys,
							      const struct hwp_branch_report_opts *opts);
/* With the ipc_lbr key: the IPC and coverage (%) of L's symbol; false
   when L has no symbol (perf prints "-"). */
HWP_API bool hwp_branch_report__ipc(const struct hwp_branch_report *r, const struct hwp_code_loc *l,
				    double *ipc, double *coverage_percent);
HWP_API void hwp_branch_report__delete(struct hwp_branch_report *r);
HWP_API size_t hwp_branch_report__rows(const struct hwp_branch_report *r,
			       const struct hwp_branch_report_row **rows);
HWP_API uint64_t hwp_branch_report__total(const struct hwp_branch_report *r); /* all entries, before filters */

/* Rendering of one location, as perf's sort keys print it (exposed for the
   mispredict report and tests). BUF gets the text. */
HWP_API void hwp_loc__format_symbol(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len);
HWP_API void hwp_loc__format_srcline(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len);
HWP_API void hwp_loc__format_dso(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len);
HWP_API void hwp_loc__format_addr(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len);

/* One location as separate fields, for programs (JSON/CSV). Strings stay
   valid while S lives; NULL when unknown. */
struct hwp_loc_fields {
	const char *module;    /* path as recorded; NULL: no mapping covered the address */
	const char *build_id;  /* hex: recorded, else the found file's */
	uint64_t offset;       /* module offset (file offset; kernel: the address; no module: the address) */
	bool has_vaddr;        /* the module's symbols were found */
	uint64_t vaddr;        /* ELF (link-time) address, as nm/objdump print it */
	const char *symbol;    /* as in the symbol table (mangled) */
	const char *demangled;
	uint64_t sym_offset;   /* from the symbol's start */
	const char *file;      /* source file as DWARF names it (full path) */
	unsigned line;         /* 0: unknown */
};
HWP_API void hwp_loc__fields(struct hwp_symbolizer *s, const struct hwp_code_loc *l, struct hwp_loc_fields *out);

/* The reports' location filter: L is in the module DSO (as
   hwp_loc__format_dso() spells it) and its symbol, raw or demangled,
   contains SYM. A NULL DSO or SYM matches everything. */
HWP_API bool hwp_loc__matches(struct hwp_symbolizer *s, const struct hwp_code_loc *l, const char *dso,
			      const char *sym);

HWP_END_DECLS

#endif
