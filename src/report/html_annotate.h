/* SPDX-License-Identifier: MIT */
/*
 * The HTML report's annotated code: hwprof annotate's numbers in columns
 * beside each instruction, source lines over their instructions, the
 * jumps' arrows, a latency sparkline per timed block; each instruction an
 * anchor a finding links to.
 */
#ifndef HWPROF_REPORT_HTML_ANNOTATE_H
#define HWPROF_REPORT_HTML_ANNOTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "hwprof/annotate.h"
#include "output/html_page.h"

struct hwp__html_code_opts {
	const char *prefix;     /* source files found under PREFIX after dropping */
	unsigned prefix_strip;  /* this many leading directories (NULL, 0: where DWARF says) */
	/* The timing the annotation's blocks come from (NULL: none): every
	   range timed from a block's start gets its sparkline there, not only
	   the block's own (a multimodal finding may be of a range that runs
	   over a branch not taken). */
	const struct hwp_timing *timing;
};

/* A's functions into PAGE's current section: a list of them, then each one's
   code. 0 or <0 (ENOMEM; hwp_errmsg()). */
int hwp__html_annotation(struct hwp_html_page *page, struct hwp_symbolizer *sym, const struct hwp_annotation *a,
			 const struct hwp__html_code_opts *o);
/* The link ("#a2-401136") to the instruction of A holding L into BUF; false
   when no function of A holds it. */
bool hwp__html_annotation_link(const struct hwp_annotation *a, const struct hwp_code_loc *l, char *buf, size_t len);

#endif
