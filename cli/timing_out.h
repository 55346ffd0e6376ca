/* SPDX-License-Identifier: MIT */
/* hwprof timing's SVG chart of one distribution, written to a file (the
   chart itself: hwp_report__timing_chart()). */
#ifndef HWPROF_CLI_TIMING_OUT_H
#define HWPROF_CLI_TIMING_OUT_H

#include "hwprof/timing.h"

/* Draws the occurrence-rate chart of D to PATH with the modes marked.
   TITLE names what was timed. Returns the exit code. */
int timing_write_svg(const char *path, const char *title, const struct hwp_timing_dist *d,
		     enum hwp_cycles_source src, const char *what);

#endif
