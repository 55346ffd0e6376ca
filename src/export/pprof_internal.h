/* SPDX-License-Identifier: MIT */
/* What the pprof writers share (pprof.c: branch rows; pprof_flame.c: call
   stacks): the string table and the gzip of the packed profile. Only with
   HAVE_PPROF. */
#ifndef HWPROF_EXPORT_PPROF_INTERNAL_H
#define HWPROF_EXPORT_PPROF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/hashmap.h"

/* The string table: index 0 is "", each string once. */
struct hwp__pprof_strtab {
	char **s;
	size_t nr, cap;
	struct hwp_hashmap map;
};

/* S's index in T (NULL: ""), added when new; *OOM set (and 0) when out of memory. */
int64_t hwp__pprof_intern(struct hwp__pprof_strtab *t, const char *s, bool *oom);
void hwp__pprof_strtab_free(struct hwp__pprof_strtab *t);
/* gzip of LEN bytes at P to FP. 0 or <0. */
int hwp__pprof_write_gzip(const uint8_t *p, size_t len, FILE *fp);

#endif
