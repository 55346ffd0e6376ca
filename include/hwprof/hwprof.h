/* SPDX-License-Identifier: MIT */
/* libhwprof: version, errors and logging shared by every module. */
#ifndef HWPROF_HWPROF_H
#define HWPROF_HWPROF_H

#include <stdarg.h>

#define HWPROF_VERSION "0.1.0"

const char *hwp_version(void);

/*
 * Errors: functions return 0 or a negative errno code (constructors return
 * NULL and set errno). The detail of the last failure in this thread (what,
 * where, why: "perf.data: truncated sample at offset 0x1f00 (record 812)")
 * is kept for the caller to print.
 */
const char *hwp_errmsg(void);
const char *hwp_strerror(int err);
/* Records a detailed message and returns -err_code (err_code > 0). */
int hwp_set_error(int err_code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hwp_clear_error(void);

/* Library code never prints: warnings go through this callback (default: none). */
typedef void (*hwp_log_fn)(void *ctx, const char *msg);
void hwp_set_log(hwp_log_fn fn, void *ctx);
void hwp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
