/* SPDX-License-Identifier: MIT */
/* Loading a recording into export rows (export, push). */
#ifndef HWPROF_CLI_EXPORT_H
#define HWPROF_CLI_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "cli_report.h"
#include "hwprof/export.h"

/* What every command that makes rows takes. */
struct export_opts {
	struct report_opts ro;
	const char *host;    /* --host NAME (NULL: the recording's hostname) */
	int64_t ws, we;      /* --window START,END; we < 0: unset */
	bool no_flow;        /* --no-flow: no blocks and conditional branches */
};

#define EXPORT_LONGOPTS                                              \
	{ "host", required_argument, NULL, 'H' },                    \
	{ "window", required_argument, NULL, 'W' },                  \
	{ "no-flow", no_argument, NULL, 'N' }

#define EXPORT_HELP                                                                        \
	"      --host NAME      the host the rows name (default: the recording's hostname)\n" \
	"      --window S,E     the time window the rows name, Unix seconds (default:\n"     \
	"                       the recording's modification time, for both)\n"             \
	"      --no-flow        only branch and range rows: no block and conditional-\n"     \
	"                       branch rows (which decode the binaries)\n"                    \
	"      --symfs DIR      look for binaries under DIR\n"

void export_opts__init(struct export_opts *o);
/* Takes option C of EXPORT_LONGOPTS: 1 taken, 0 not one, <0 bad (said). */
int export_opts__take(struct export_opts *o, const char *cmd, int c, const char *arg);

struct export_input {
	struct report_input in;
	struct hwp_flow *flow;
	struct hwp_export *rows;
};

/* Reads INPUT (O's other settings) into rows. Returns the exit code (0: go
   on); export_input__close() always. */
int export_input__load(struct export_input *ei, const struct export_opts *o, const char *input);
void export_input__close(struct export_input *ei);

#endif
