/* SPDX-License-Identifier: MIT */
/* Text inside HTML and SVG documents: the one escaping every writer uses. */
#ifndef HWPROF_OUTPUT_MARKUP_H
#define HWPROF_OUTPUT_MARKUP_H

#include "outbuf.h"

/* S with & < > " ' escaped, for element text and attribute values alike. */
void hwp__markup_escape(struct hwp_outbuf *o, const char *s);

#endif
