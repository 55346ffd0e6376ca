/* SPDX-License-Identifier: MIT */
/*
 * Flame graphs: stacks of frame names merged into a tree (callers first),
 * written as folded stacks ("main;f;g 12", what flamegraph.pl and speedscope
 * read) or as one self-contained interactive SVG: hover shows a frame's
 * name, count and share, a click zooms into a frame, a search box (regular
 * expression) highlights the matching frames and shows their share.
 *
 * A differential graph holds two profiles (BEFORE, AFTER): widths are the
 * AFTER counts, colours the change of each frame's count with BEFORE scaled
 * to AFTER's total (red grew, blue shrank).
 */
#ifndef HWPROF_FLAME_H
#define HWPROF_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hwprof/callgraph.h"
#include "hwprof/hwprof.h"
#include "hwprof/session.h"

HWP_BEGIN_DECLS

struct hwp_flame;

enum hwp_flame_side { HWP_FLAME_AFTER = 0, HWP_FLAME_BEFORE = 1 };

HWP_API struct hwp_flame *hwp_flame__new(void);
HWP_API void hwp_flame__delete(struct hwp_flame *f);
/* Adds VALUE to the stack NAMES[0] (outermost caller) .. NAMES[N-1] (leaf)
   of SIDE. Names are copied. 0 or <0. */
HWP_API int hwp_flame__add_stack(struct hwp_flame *f, enum hwp_flame_side side, const char *const *names,
				 size_t n, uint64_t value);
/* Adds every stack of CG (read from S): counted in samples, or in the
   event's period with PERIOD. Unnamed frames are "module+0xOFFSET" ("0xADDR" in the kernel or
   where no module covers them). */
HWP_API int hwp_flame__add_call_graph(struct hwp_flame *f, enum hwp_flame_side side, struct hwp_call_graph *cg,
				     struct hwp_session *s, bool period);

/* Folded stacks, one line per stack with a count of its own; with both
   sides, "stack BEFORE AFTER" (difffolded.pl's form). 0 or <0 (write error). */
HWP_API int hwp_flame__write_folded(struct hwp_flame *f, FILE *fp);
/* The stacks of the AFTER side as a gzipped pprof profile (perftools.
   profiles.Profile; pprof, speedscope, Pyroscope, Parca read it): each
   frame name one function and location, each stack one sample with its
   count as the one value, of type UNIT ("samples", "period", "cycles";
   NULL: "samples"). 0 or <0 (write error; ENOTSUP built without
   protobuf-c). */
HWP_API int hwp_flame__write_pprof(struct hwp_flame *f, const char *unit, FILE *fp);

struct hwp_flame_svg_opts {
	size_t sz;          /* sizeof(struct hwp_flame_svg_opts) */
	const char *title;  /* NULL: "Flame Graph" */
	const char *subtitle; /* NULL: none */
	const char *unit;   /* what counts are: NULL: "samples" */
	unsigned width;     /* pixels; 0: 1200 */
	double min_width;   /* frames narrower (pixels) are left out; 0: 0.1 */
};
/* The SVG. 0 or <0 (write error, bad opts). */
HWP_API int hwp_flame__write_svg(struct hwp_flame *f, FILE *fp, const struct hwp_flame_svg_opts *opts);

HWP_END_DECLS

#endif
