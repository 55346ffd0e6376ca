/* SPDX-License-Identifier: MIT */
/* The public objects rendered into an outbuf (the public API renders to a FILE). */
#ifndef HWPROF_OUTPUT_RENDER_H
#define HWPROF_OUTPUT_RENDER_H

#include "outbuf.h"
#include "hwprof/flame.h"
#include "hwprof/table.h"

void hwp__table_render(const struct hwp_table *t, enum hwp_table_format f, struct hwp_outbuf *o);

/* The same into O (an in-memory outbuf for a page that inlines it). */
int hwp__flame_render_svg(struct hwp_flame *f, struct hwp_outbuf *o, const struct hwp_flame_svg_opts *opts);

#endif
