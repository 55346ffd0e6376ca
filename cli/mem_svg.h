/* SPDX-License-Identifier: MIT */
/* hwprof mem --svg (cli/mem_svg.c). */
#ifndef HWPROF_CLI_MEM_SVG_H
#define HWPROF_CLI_MEM_SVG_H

#include "hwprof/mem.h"

/* Writes R's latency histogram, stacked by data source, to PATH as SVG.
   Prints the error and returns the exit code on failure. */
int mem_write_svg(const char *path, const char *input, const struct hwp_mem_report *r);

#endif
