/* SPDX-License-Identifier: MIT */
/* A report's chart (hwprof timing --svg, hwprof mem --svg) written to a file. */
#ifndef HWPROF_CLI_CHART_OUT_H
#define HWPROF_CLI_CHART_OUT_H

#include "chart.h"

/* Writes C (NULL: it could not be made, hwp_errmsg() says why) to PATH as
   SVG and deletes it. Prints the error and returns the exit code. */
int chart_write_svg(const char *path, struct hwp_chart *c);

#endif
