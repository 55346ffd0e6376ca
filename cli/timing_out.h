/* SPDX-License-Identifier: MIT */
/* hwprof timing's outputs besides the block table: occurrence-rate tables
   and the SVG chart of one distribution. */
#ifndef HWPROF_CLI_TIMING_OUT_H
#define HWPROF_CLI_TIMING_OUT_H

#include <stddef.h>

#include "hwprof/chart.h"
#include "hwprof/symbolize.h"
#include "hwprof/table.h"
#include "hwprof/timing.h"

/* "measured" / "modelled" (the cycles_source field). */
const char *timing_source_name(enum hwp_cycles_source src);

/* One line naming a block for people: "[.] main+0x10 .. +0x24 (file.c:12-14)". */
void timing_block_name(struct hwp_symbolizer *sym, const struct hwp_code_loc *start,
		       const struct hwp_code_loc *end, char *buf, size_t len);

/* The occurrence-rate rows (cycles, samples, rate, cumulative rate, mode)
   of the N blocks IDX of BLOCKS: text prints one table per block under a
   heading, JSON and CSV one table whose rows name their block. Returns the
   exit code. */
int timing_print_rates(struct hwp_symbolizer *sym, const struct hwp_timing_block *blocks, const size_t *idx,
		       size_t n, enum hwp_cycles_source src, enum hwp_table_format fmt);

/* The occurrence-rate chart of D with the modes marked (NULL: hwp_errmsg()). */
struct hwp_chart *timing_chart(const char *title, const struct hwp_timing_dist *d, enum hwp_cycles_source src,
				const char *what);
/* The per-block table (hwprof timing's) of the N blocks IDX of T. NULL: out of memory. */
struct hwp_table *timing_blocks_table(struct hwp_symbolizer *sym, struct hwp_timing *t, const size_t *idx,
				      size_t n, enum hwp_table_format fmt);

/* Draws the occurrence-rate chart of D to PATH with the modes marked.
   TITLE names what was timed. Returns the exit code. */
int timing_write_svg(const char *path, const char *title, const struct hwp_timing_dist *d,
		     enum hwp_cycles_source src, const char *what);

#endif
