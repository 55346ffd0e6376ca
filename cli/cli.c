/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hwprof/hwprof.h"
#include "hwprof/report.h"

/* -v raises, -q lowers what the library's log callback lets through. */
static enum hwp_log_level verbosity = HWP_LOG_WARN;

int cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("hwprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < HWP_LOG_WARN)
		return;
	fputs("hwprof: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_info(const char *fmt, ...)
{
	va_list ap;

	if (verbosity < HWP_LOG_INFO)
		return;
	fputs("hwprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * The reader's notes (AUXTRACE skipped, ...) repeat per record: each distinct
 * one is kept and said once, when the command ends. A command that fails
 * drops them, so a failure is exactly one line on stderr: the error.
 */
#define MAX_NOTES 8
static char *notes[MAX_NOTES];
static size_t nr_notes;

static void note_once(const char *msg)
{
	for (size_t i = 0; i < nr_notes; i++)
		if (strcmp(notes[i], msg) == 0)
			return;
	if (nr_notes < MAX_NOTES && (notes[nr_notes] = strdup(msg)))
		nr_notes++;
}

/* The library's one log channel: warnings are kept and said once at the end
   (a failing command says only its error); info and debug go out at once. */
static void cli_log(void *ctx, enum hwp_log_level level, const char *msg)
{
	(void)ctx;
	if (level > verbosity)
		return;
	if (level == HWP_LOG_WARN)
		note_once(msg);
	else if (level == HWP_LOG_ERROR)
		cli_error("%s", msg);
	else
		fprintf(stderr, "hwprof: %s\n", msg);
}

bool cli_quiet(void)
{
	return verbosity < HWP_LOG_WARN;
}

bool cli_common_opt(int c)
{
	if (c == 'v' && verbosity < HWP_LOG_DEBUG)
		verbosity++;
	else if (c == 'q')
		verbosity = HWP_LOG_ERROR;
	else if (c != 'v')
		return false;
	return true;
}

void cli_install_log(void)
{
	hwp_set_log(cli_log, NULL);
}

static void flush_notes(bool say)
{
	for (size_t i = 0; i < nr_notes; i++) {
		if (say)
			cli_warn("%s", notes[i]);
		free(notes[i]);
	}
	nr_notes = 0;
}

struct hwp_reader *cli_open_input(const char *path)
{
	struct hwp_reader_opts opts = { .sz = sizeof(opts) };
	struct hwp_reader *r = hwp_reader__open(path, &opts);

	if (!r)
		cli_error("%s", hwp_errmsg());
	return r;
}

int cli_finish_stdout(int rc)
{
	flush_notes(rc == 0);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (rc == 0)
			cli_error("error writing output: %s", strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

int cli_write_svg(const char *path, struct hwp_chart *c)
{
	return hwp_report__write_svg_file(c, path) < 0 ? cli_error("%s", hwp_errmsg()) : 0;
}
