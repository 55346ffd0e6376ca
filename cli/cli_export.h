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
	bool timing;         /* block latencies too (push) */
	bool calls;          /* the samples' call stacks too (pprof) */
	bool recording_id;   /* the rows' recording id (push): a hash of the whole data section */
};

/* --host, --window, --no-flow and --symfs, which export and push take. */
#define OPT_EXPORT(eo)                                                                               \
	OPT_CALLBACK(0, "host", (eo), "NAME", export_opts__host,                                     \
		     "the host the rows name (default: the recording's hostname): 1 to 255 bytes, no "   \
		     "control character (tab, newline, ...), no backslash"),                  \
	OPT_CALLBACK(0, "window", (eo), "S,E", export_opts__window,                                   \
		     "the time window the rows name, Unix seconds (default: the recording's "         \
		     "modification time, for both)"),                                                  \
	OPT_BOOL(0, "no-flow", &(eo)->no_flow,                                                       \
		 "only branch and range rows: no block and conditional-branch rows (which decode the " \
		 "binaries)"),                                                                         \
	OPT_REPORT_SYMFS(&(eo)->ro)

void export_opts__init(struct export_opts *o);
/* The one rule of host names (push checks it, fleet --hosts selects any
   such name): 1 to 255 bytes, no control character, no backslash. */
bool export_host_ok(const char *host);
/* Exit code: 0, or one line when ROWS' host breaks the rule. */
int export_host_check(const char *cmd, const struct hwp_export *rows);
/* --host NAME and --window S,E into the struct export_opts of OPT. */
int export_opts__host(const char *cmd, const struct opt *opt, const char *arg);
int export_opts__window(const char *cmd, const struct opt *opt, const char *arg);

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
