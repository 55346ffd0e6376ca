/* SPDX-License-Identifier: MIT */
/* Internal helpers of the capability probe, shared with the capture code. */
#ifndef HWPROF_CAPTURE_PROBE_INTERNAL_H
#define HWPROF_CAPTURE_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "hwprof/probe.h"

/* ROOT + "/" + REL into BUF (ROOT NULL or "" means "/"). */
void hwp__root_path(char *buf, size_t len, const char *root, const char *rel);
/* First line of ROOT/REL into BUF, without the newline: 0 or -errno. */
int hwp__read_line(const char *root, const char *rel, char *buf, size_t len);
/* An integer file (sysctl): 0 or -errno. */
int hwp__read_int(const char *root, const char *rel, int *out);

#endif
