/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"
#include "hwprof/hwprof.h"

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

	fputs("hwprof: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void note_once(void *ctx, const char *msg)
{
	const char **last = ctx;

	/* Notes repeat per record; say each distinct one once. */
	if (*last && strcmp(*last, msg) == 0)
		return;
	*last = msg;
	cli_warn("%s", msg);
}

static const char *last_note;

struct hwp_reader *cli_open_input(const char *path)
{
	struct hwp_reader_opts opts = { .sz = sizeof(opts), .note = note_once, .note_ctx = &last_note };
	struct hwp_reader *r = hwp_reader__open(path, &opts);

	if (!r)
		cli_error("%s", hwp_errmsg());
	return r;
}

int cli_finish_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (rc == 0)
			cli_error("error writing output: %s", strerror(errno));
		return rc ? rc : 1;
	}
	return rc;
}

bool cli_wants_help(int argc, char **argv, const char *usage)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			fputs(usage, stdout);
			return true;
		}
	}
	return false;
}
