/* SPDX-License-Identifier: MIT */
/* Shared CLI plumbing: command table entries, error lines, input opening. */
#ifndef HWPROF_CLI_H
#define HWPROF_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "hwprof/perf_data.h"

struct hwp_cmd {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
};

int cmd_script(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_branches(int argc, char **argv);
int cmd_mispredicts(int argc, char **argv);
int cmd_probs(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_advise(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_blocks(int argc, char **argv);
int cmd_paths(int argc, char **argv);
int cmd_timing(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_ranges(int argc, char **argv);
int cmd_pgo(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_fleet(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_c2c(int argc, char **argv);
int cmd_skid(int argc, char **argv);
int cmd_callgraph(int argc, char **argv);
int cmd_flame(int argc, char **argv);

/* -v/--verbose and -q/--quiet (OPT_COMMON()): C is 'v' or 'q'; true if so. */
bool cli_common_opt(int c);
/* True after -q/--quiet: print nothing but errors (no progress lines). */
bool cli_quiet(void);
/* Routes the library's log to stderr (warnings once, at the end). */
void cli_install_log(void);
/* "hwprof: <msg>" on stderr; returns the exit code to use (1). */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "hwprof: <msg>" on stderr after -v. */
void cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Opens -i PATH, or prints the library's one-line error and returns NULL. */
struct hwp_reader *cli_open_input(const char *path);
/* Writes chart C (NULL: it could not be made) to PATH as SVG and deletes
   it (hwp_report__write_svg_file()); prints the error, returns the exit code. */
struct hwp_chart;
int cli_write_svg(const char *path, struct hwp_chart *c);
/* Ends a command: checks that stdout was written completely. */
int cli_finish_stdout(int rc);

#endif
