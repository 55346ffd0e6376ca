/* SPDX-License-Identifier: MIT */
/* Internal: source-line text with the binaries kept open between calls. */
#ifndef HWPROF_ANALYSIS_BRANCH_LOC_H
#define HWPROF_ANALYSIS_BRANCH_LOC_H

#include <stddef.h>

#include "hwprof/code_loc.h"
#include "hwprof/symbolize.h"

/* Per module id: its binary, opened on first need. Zeroed = empty. */
struct hwp__file_cache {
	struct hwp__code_file **files;
	unsigned char *tried;
	size_t n;
};

void hwp__file_cache_free(struct hwp__file_cache *c);
/* hwp_loc__format_srcline() through C. */
void hwp__loc_srcline(struct hwp_symbolizer *s, const struct hwp_code_loc *l, struct hwp__file_cache *c,
		      char *buf, size_t len);

#endif
