/* SPDX-License-Identifier: MIT */
/* Thread-local "last error" detail and the optional log callback. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "hwprof/hwprof.h"
#include "util/error.h"

static _Thread_local char last_error[512];
static hwp_log_fn log_fn;
static void *log_ctx;

const char *hwp_version(void)
{
	return HWPROF_VERSION;
}

const char *hwp_errmsg(void)
{
	return last_error[0] ? last_error : "unknown error";
}

const char *hwp_strerror(int err)
{
	return strerror(err < 0 ? -err : err);
}

int hwp__set_error(int err_code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	errno = err_code;
	return -err_code;
}

void hwp__clear_error(void)
{
	last_error[0] = 0;
}

void hwp_set_log(hwp_log_fn fn, void *ctx)
{
	log_fn = fn;
	log_ctx = ctx;
}

void hwp__log(enum hwp_log_level level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	if (!log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_fn(log_ctx, level, buf);
}
