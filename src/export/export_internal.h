/* SPDX-License-Identifier: MIT */
/* Internal: the export rows' object, shared by the row, pprof and fleet code. */
#ifndef HWPROF_EXPORT_EXPORT_INTERNAL_H
#define HWPROF_EXPORT_EXPORT_INTERNAL_H

#include "hwprof/export.h"
#include <stdbool.h>

#include "output/outbuf.h"

struct hwp__export_module {
	int32_t id;
	char *build_id, *path;
};

struct hwp_export {
	char *host;
	int64_t window_start, window_end;
	uint64_t rec_id;                  /* opts.recording_id */
	struct hwp_symbolizer *sym;       /* the session's */
	struct hwp_export_row *rows;
	size_t nr, cap;
	struct hwp_code_loc *locs;        /* each row's from, for symbolizing */
	size_t nlocs, cap_locs;
	struct hwp__export_module *mods;
	size_t nmods, cap_mods;
	struct hwp__export_lat *lats;     /* hwp_export__add_timing() */
	size_t nlats, cap_lats;
	bool measured, modelled;          /* where the latencies' cycles come from */
	struct hwp_call_graph *calls;     /* hwp_export__add_calls(): the pprof profile's stacks */
};

/* One value of a block's latency distribution. */
struct hwp__export_lat {
	const char *build_id, *module;    /* interned in mods */
	uint64_t start, end;              /* module offsets */
	uint32_t cycles, insns;
	uint64_t samples;
};

/* Row order: kind, build-id, module, from, to side, type. */
int hwp__export_row_cmp(const struct hwp_export_row *x, const struct hwp_export_row *y);
int hwp__export_idx_cmp(const void *a, const void *b, void *ctx);
/* The same as a qsort_r comparator of rows. */
int hwp__export_row_qcmp(const void *a, const void *b, void *ctx);
/* A growing string (memory: the spool's batches, SQL). */
struct hwp__sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};
void hwp__sbuf_write(struct hwp__sbuf *b, const void *p, size_t n);
void hwp__sbuf_putc(struct hwp__sbuf *b, char c);
void hwp__sbuf_puts(struct hwp__sbuf *b, const char *s);
void hwp__sbuf_printf(struct hwp__sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One row as a TSV or CSV line, appended to B. */
void hwp__export_write_row(struct hwp__sbuf *b, enum hwp_export_format f, const char *host,
			   int64_t ws, int64_t we, const struct hwp_export_row *r);

/* The column names, in the order the text formats write them, comma-separated. */
const char *hwp__export_columns(void);
const char *hwp__export_host(const struct hwp_export *e);
void hwp__export_window(const struct hwp_export *e, int64_t *start, int64_t *end);

/* The cycle histogram bucket of CYCLES (0 = not recorded). */
unsigned hwp__export_hist_bucket(uint64_t cycles);

/* A latency value as a TSV line of the latency table (after rec_id). */
void hwp__export_write_lat(struct hwp__sbuf *o, const char *host, int64_t ws, int64_t we, bool measured,
			   bool modelled, const struct hwp__export_lat *l);

#endif
