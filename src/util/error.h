/* SPDX-License-Identifier: MIT */
/* Errors and logging from inside the library (hwprof.h has the public side). */
#ifndef HWPROF_UTIL_ERROR_H
#define HWPROF_UTIL_ERROR_H

#include "hwprof/hwprof.h"

/* Records a detailed message and returns -err_code (err_code > 0). */
int hwp__set_error(int err_code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void hwp__clear_error(void);
void hwp__log(enum hwp_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
