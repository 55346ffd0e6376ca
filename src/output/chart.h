/* SPDX-License-Identifier: MIT */
/*
 * The one SVG module of hwprof: every chart it draws is made of these
 * primitives, so they share axes, ticks, labels, fonts and colours.
 *
 * A chart is a canvas (width x height pixels) with a plot area inside
 * margins. Data-space elements (bars, lines, marks) are placed through the
 * X and Y axes (linear or log, with "nice" 1-2-5 ticks); pixel-space
 * elements (rects with text, free text) are for charts without axes, such
 * as flame graphs. Elements are kept and written by hwp__chart_render(),
 * in the order added. Every text is XML-escaped. Elements carry classes
 * (title, axis, tick, tick-label, axis-label, bar, line, mark, mark-label,
 * note, rect, text) so that programs can find them in the DOM.
 */
#ifndef HWPROF_CHART_H
#define HWPROF_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hwprof/hwprof.h"
#include "outbuf.h"

HWP_BEGIN_DECLS

struct hwp_chart;

struct hwp_chart_opts {
	size_t sz;          /* sizeof(struct hwp_chart_opts) */
	unsigned width;     /* pixels; 0 = 900 */
	unsigned height;    /* pixels; 0 = 500 */
	const char *title;  /* NULL: none */
	const char *subtitle;
};

enum hwp_chart_axis_id { HWP_CHART_X, HWP_CHART_Y };

enum hwp_chart_axis_flags {
	HWP_AXIS_LOG = 1 << 0,     /* logarithmic (min must be > 0) */
	HWP_AXIS_INTEGER = 1 << 1, /* ticks at whole numbers only */
	HWP_AXIS_PERCENT = 1 << 2, /* tick labels end in % */
};

/* The palette: colour I (any I: it wraps) as "#rrggbb". 0 is the main series
   colour, 1 the marks', the rest follow. */
const char *hwp__chart_colour(unsigned i);

struct hwp_chart *hwp__chart_new(const struct hwp_chart_opts *opts);
void hwp__chart_delete(struct hwp_chart *c);

/* Sets an axis: LABEL (may be NULL), data range [MIN, MAX], flags. Without
   it an axis spans [0, 1]. 0 or -EINVAL (MAX <= MIN, or log with MIN <= 0). */
int hwp__chart_axis(struct hwp_chart *c, enum hwp_chart_axis_id a, const char *label, double min,
		    double max, unsigned flags);

/* A bar over [X0, X1] from the Y axis' minimum to Y; at least one pixel
   wide. TIP (may be NULL) shows on hover. */
int hwp__chart_bar(struct hwp_chart *c, double x0, double x1, double y, unsigned colour,
		   const char *tip);
/* A polyline through N points. LABEL (may be NULL) goes to the legend. */
int hwp__chart_line(struct hwp_chart *c, const double *x, const double *y, size_t n, unsigned colour,
		    const char *label);
/* A dashed vertical mark at X across the plot, with LABEL at its top. */
int hwp__chart_mark(struct hwp_chart *c, double x, unsigned colour, const char *label);
/* A line of small text under the plot (e.g. where the data comes from). */
int hwp__chart_note(struct hwp_chart *c, const char *text);

/* Pixel space: a filled rectangle with TEXT clipped inside (may be NULL) and
   a hover TIP (may be NULL); free text anchored at its start. */
int hwp__chart_rect_px(struct hwp_chart *c, double x, double y, double w, double h, unsigned colour,
		       const char *text, const char *tip);
int hwp__chart_text_px(struct hwp_chart *c, double x, double y, const char *text);

/* The plot area in pixels (inside the margins). */
void hwp__chart_plot_area(const struct hwp_chart *c, double *x, double *y, double *w, double *h);

/* Writes the SVG document. */
void hwp__chart_render(const struct hwp_chart *c, struct hwp_outbuf *o);

/* Writes S with XML's five special characters escaped (text and attributes). */
void hwp__chart_escape(struct hwp_outbuf *o, const char *s);

HWP_END_DECLS

#endif
