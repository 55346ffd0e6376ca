/* SPDX-License-Identifier: MIT */
/* Names that carry a process id: /tmp/perf-PID.map, jit-PID.dump. */
#ifndef HWPROF_UTIL_PID_NAME_H
#define HWPROF_UTIL_PID_NAME_H

#include <stdbool.h>
#include <stdint.h>

/* Whether S is PREFIX, a decimal pid (at most INT32_MAX) and SUFFIX, the
   pid into *PID (when not NULL). */
bool hwp__pid_name(const char *s, const char *prefix, const char *suffix, int32_t *pid);

#endif
