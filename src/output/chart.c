/* SPDX-License-Identifier: MIT */
/* SVG charts (see include/hwprof/chart.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/chart.h"
#include "output/markup.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/vec.h"

enum elem_kind { E_BAR, E_LINE, E_MARK, E_NOTE, E_RECT, E_TEXT };

struct elem {
	enum elem_kind kind;
	double x0, x1, y0, y1; /* data or pixel coordinates, by kind */
	unsigned colour;
	char *text, *tip;
	double *pts; /* E_LINE: x, y pairs */
	size_t npts;
};

struct axis {
	char *label;
	double min, max;
	unsigned flags;
	bool set;
};

struct hwp_chart {
	unsigned width, height;
	char *title, *subtitle;
	struct axis ax[2];
	struct elem *el;
	size_t nel, cap;
	size_t nnotes, nmarks, nlegend;
};

/* Colour-blind-safe (Okabe-Ito), then greys. */
static const char *const palette[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#f0e442", "#000000", "#999999",
};

const char *hwp__chart_colour(unsigned i)
{
	return palette[i % (sizeof(palette) / sizeof(palette[0]))];
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

struct hwp_chart *hwp__chart_new(const struct hwp_chart_opts *opts)
{
	struct hwp_chart_opts o;
	struct hwp_chart *c;

	if (HWP_OPTS_LOAD(opts, &o, struct hwp_chart_opts)) {
		errno = EINVAL;
		return NULL;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		hwp__set_error(ENOMEM, "out of memory making a chart");
		errno = ENOMEM;
		return NULL;
	}
	c->width = o.width ? o.width : 900;
	c->height = o.height ? o.height : 500;
	c->ax[0].max = c->ax[1].max = 1;
	if ((o.title && !(c->title = strdup(o.title))) || (o.subtitle && !(c->subtitle = strdup(o.subtitle)))) {
		hwp__chart_delete(c);
		hwp__set_error(ENOMEM, "out of memory making a chart");
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

void hwp__chart_delete(struct hwp_chart *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nel; i++) {
		free(c->el[i].text);
		free(c->el[i].tip);
		free(c->el[i].pts);
	}
	free(c->el);
	free(c->ax[0].label);
	free(c->ax[1].label);
	free(c->title);
	free(c->subtitle);
	free(c);
}

int hwp__chart_axis(struct hwp_chart *c, enum hwp_chart_axis_id a, const char *label, double min, double max,
		    unsigned flags)
{
	struct axis *x = &c->ax[a == HWP_CHART_Y];

	if (!(max > min) || ((flags & HWP_AXIS_LOG) && min <= 0))
		return hwp__set_error(EINVAL, "chart axis: bad range [%g, %g]", min, max);
	char *l = dup_or_null(label);
	if (label && !l)
		return hwp__set_error(ENOMEM, "out of memory making a chart");
	free(x->label);
	*x = (struct axis){ l, min, max, flags, true };
	return 0;
}

static struct elem *add(struct hwp_chart *c, enum elem_kind k, unsigned colour, const char *text,
			const char *tip)
{
	struct elem *e = HWP_VEC_PUSH(c->el, c->nel, c->cap);

	if (!e)
		goto oom;
	e->kind = k;
	e->colour = colour;
	if ((text && !(e->text = strdup(text))) || (tip && !(e->tip = strdup(tip)))) {
		free(e->text);
		c->nel--;
		goto oom;
	}
	return e;
oom:
	hwp__set_error(ENOMEM, "out of memory drawing a chart");
	return NULL;
}

int hwp__chart_bar(struct hwp_chart *c, double x0, double x1, double y, unsigned colour, const char *tip)
{
	struct elem *e = add(c, E_BAR, colour, NULL, tip);

	if (!e)
		return -ENOMEM;
	e->x0 = x0;
	e->x1 = x1;
	e->y1 = y;
	return 0;
}

int hwp__chart_line(struct hwp_chart *c, const double *x, const double *y, size_t n, unsigned colour,
		    const char *label)
{
	double *p = calloc(n ? 2 * n : 1, sizeof(*p));
	struct elem *e = p ? add(c, E_LINE, colour, label, NULL) : NULL;

	if (!e) {
		free(p);
		return hwp__set_error(ENOMEM, "out of memory drawing a chart");
	}
	for (size_t i = 0; i < n; i++) {
		p[2 * i] = x[i];
		p[2 * i + 1] = y[i];
	}
	e->pts = p;
	e->npts = n;
	if (label)
		c->nlegend++;
	return 0;
}

int hwp__chart_mark(struct hwp_chart *c, double x, unsigned colour, const char *label)
{
	struct elem *e = add(c, E_MARK, colour, label, NULL);

	if (!e)
		return -ENOMEM;
	e->x0 = x;
	e->y0 = (double)c->nmarks++;
	return 0;
}

int hwp__chart_note(struct hwp_chart *c, const char *text)
{
	struct elem *e = add(c, E_NOTE, 0, text ? text : "", NULL);

	if (!e)
		return -ENOMEM;
	c->nnotes++;
	return 0;
}

int hwp__chart_rect_px(struct hwp_chart *c, double x, double y, double w, double h, unsigned colour,
		       const char *text, const char *tip)
{
	struct elem *e = add(c, E_RECT, colour, text, tip);

	if (!e)
		return -ENOMEM;
	*e = (struct elem){ E_RECT, x, x + w, y, y + h, colour, e->text, e->tip, NULL, 0 };
	return 0;
}

int hwp__chart_text_px(struct hwp_chart *c, double x, double y, const char *text)
{
	struct elem *e = add(c, E_TEXT, 0, text ? text : "", NULL);

	if (!e)
		return -ENOMEM;
	e->x0 = x;
	e->y0 = y;
	return 0;
}

/* ---- layout ---- */

enum { LEFT = 78, RIGHT = 24, TOP = 44, BOTTOM = 52, NOTE_LINE = 16 };

static bool has_axes(const struct hwp_chart *c)
{
	if (c->ax[0].set || c->ax[1].set)
		return true;
	for (size_t i = 0; i < c->nel; i++)
		if (c->el[i].kind == E_BAR || c->el[i].kind == E_LINE || c->el[i].kind == E_MARK)
			return true;
	return false;
}

/* Data value V on axis A -> [0, 1] along it (clamped). */
static double frac(const struct axis *a, double v)
{
	double f;

	if (a->flags & HWP_AXIS_LOG)
		f = v <= 0 ? 0 : (log10(v) - log10(a->min)) / (log10(a->max) - log10(a->min));
	else
		f = (v - a->min) / (a->max - a->min);
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* Estimated width of a label in the 11 px bold of mark labels. */
#define MARK_CHAR_PX 6.8

/* A mark label's horizontal extent at plot position X; ANCHOR as drawn. */
static void mark_span(const char *text, double x, double px, double pw, double *lo, double *hi,
		      const char **anchor)
{
	double w = (double)strlen(text) * MARK_CHAR_PX;

	*anchor = x < px + 60 ? "start" : x > px + pw - 60 ? "end" : "middle";
	*lo = **anchor == 's' ? x : **anchor == 'e' ? x - w : x - w / 2;
	*hi = *lo + w;
}

/*
 * Rows for the mark labels so that none overlaps another: each label, left
 * to right, goes on the first row whose last label ends before it starts.
 * ROW (may be NULL) gets each element's row. Returns the rows used.
 */
static size_t mark_rows(const struct hwp_chart *c, double px, double pw, size_t *row)
{
	double ends[16];
	size_t nrows = 0, done = 0;
	bool *placed = c->nel ? calloc(c->nel, sizeof(*placed)) : NULL;

	if (c->nel && !placed)
		return c->nmarks < 3 ? c->nmarks : 3; /* no memory: the plain stagger */
	while (done < c->nmarks) {
		size_t best = c->nel;

		for (size_t i = 0; i < c->nel; i++)
			if (c->el[i].kind == E_MARK && !placed[i] &&
			    (best == c->nel || c->el[i].x0 < c->el[best].x0))
				best = i;
		if (best == c->nel)
			break;
		placed[best] = true;
		done++;
		const struct elem *e = &c->el[best];
		double x = px + frac(&c->ax[0], e->x0) * pw, lo, hi;
		const char *anchor;
		size_t r = 0;

		mark_span(e->text ? e->text : "", x, px, pw, &lo, &hi, &anchor);
		while (r < nrows && ends[r] + 4 > lo)
			r++;
		if (r == 16)
			r = 15; /* 16 rows of labels: let them overlap */
		if (r == nrows)
			nrows++;
		ends[r] = hi;
		if (row)
			row[best] = r;
	}
	free(placed);
	return nrows;
}

void hwp__chart_plot_area(const struct hwp_chart *c, double *x, double *y, double *w, double *h)
{
	double bottom = (has_axes(c) ? BOTTOM : 12) + NOTE_LINE * (double)c->nnotes;
	double left = has_axes(c) ? LEFT : 12, right = has_axes(c) ? RIGHT : 12;

	*x = left;
	*w = c->width > left + right + 10 ? c->width - left - right : 10;
	double top = TOP + (c->subtitle ? 18 : 0) + 14.0 * (double)mark_rows(c, left, *w, NULL);
	*y = top;
	*h = c->height > top + bottom + 10 ? c->height - top - bottom : 10;
}

/* TEXT as drawn in a line of WIDTH pixels at CHAR_PX per character: cut
   with an ellipsis when too long (never inside a UTF-8 sequence). */
static void fit_text(const char *text, double width, double char_px, char *buf, size_t len)
{
	size_t max = width > char_px ? (size_t)(width / char_px) : 1, n = strlen(text);

	if (n <= max || max < 2 || len < 8) {
		snprintf(buf, len, "%s", text);
		return;
	}
	n = max - 1 < len - 4 ? max - 1 : len - 4;
	while (n && ((unsigned char)text[n] & 0xc0) == 0x80)
		n--;
	memcpy(buf, text, n);
	memcpy(buf + n, "\xe2\x80\xa6", 4); /* U+2026 and the terminator */
}

/* Tick positions of A: 1-2-5 steps (linear), powers of ten (log). */
static size_t ticks(const struct axis *a, double *t, size_t max)
{
	size_t n = 0;

	if (a->flags & HWP_AXIS_LOG) {
		double decades = log10(a->max) - log10(a->min);
		static const double sub[] = { 1, 2, 5 };

		for (double p = pow(10, floor(log10(a->min))); p <= a->max * 1.0000001 && n < max; p *= 10)
			for (size_t k = 0; k < (decades < 2 ? 3u : 1u) && n < max; k++) {
				double v = p * sub[k];

				if (v >= a->min * 0.9999999 && v <= a->max * 1.0000001 &&
				    (!(a->flags & HWP_AXIS_INTEGER) || v == floor(v)))
					t[n++] = v;
			}
		return n;
	}
	double raw = (a->max - a->min) / 6, mag = pow(10, floor(log10(raw))), step;
	double norm = raw / mag;

	step = (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
	if ((a->flags & HWP_AXIS_INTEGER) && step < 1)
		step = 1;
	for (double v = ceil(a->min / step - 1e-9) * step; v <= a->max + step * 1e-9 && n < max; v += step)
		t[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

void hwp__chart_escape(struct hwp_outbuf *o, const char *s)
{
	hwp__markup_escape(o, s);
}

static void text_el(struct hwp_outbuf *o, const char *cls, double x, double y, const char *anchor,
		    const char *extra, const char *s)
{
	hwp__outbuf_printf(o, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s%s>", cls, x, y,
			   anchor, extra ? " " : "", extra ? extra : "");
	hwp__chart_escape(o, s);
	hwp__outbuf_puts(o, "</text>\n");
}

static void tick_label(char *buf, size_t n, double v, unsigned flags)
{
	snprintf(buf, n, "%.6g%s", v, (flags & HWP_AXIS_PERCENT) ? "%" : "");
}

static void draw_axes(const struct hwp_chart *c, struct hwp_outbuf *o, double px, double py, double pw, double ph)
{
	const struct axis *xa = &c->ax[0], *ya = &c->ax[1];
	double t[64];
	char buf[64];
	size_t n;

	hwp__outbuf_puts(o, "<g class=\"axes\">\n");
	n = ticks(ya, t, 64);
	for (size_t i = 0; i < n; i++) {
		double y = py + ph - frac(ya, t[i]) * ph;

		hwp__outbuf_printf(o, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px, y,
				   px + pw, y);
		hwp__outbuf_printf(o, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px - 5,
				   y, px, y);
		tick_label(buf, sizeof(buf), t[i], ya->flags);
		text_el(o, "tick-label", px - 8, y + 4, "end", NULL, buf);
	}
	n = ticks(xa, t, 64);
	for (size_t i = 0; i < n; i++) {
		double x = px + frac(xa, t[i]) * pw;

		hwp__outbuf_printf(o, "<line class=\"tick\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x,
				   py + ph, x, py + ph + 5);
		tick_label(buf, sizeof(buf), t[i], xa->flags);
		text_el(o, "tick-label", x, py + ph + 18, "middle", NULL, buf);
	}
	hwp__outbuf_printf(o, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px, py + ph,
			   px + pw, py + ph);
	hwp__outbuf_printf(o, "<line class=\"axis\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", px, py, px,
			   py + ph);
	if (xa->label)
		text_el(o, "axis-label", px + pw / 2, py + ph + 38, "middle", NULL, xa->label);
	if (ya->label) {
		char rot[96];

		snprintf(rot, sizeof(rot), "transform=\"rotate(-90 %.1f %.1f)\"", 18.0, py + ph / 2);
		text_el(o, "axis-label", 18, py + ph / 2, "middle", rot, ya->label);
	}
	hwp__outbuf_puts(o, "</g>\n");
}

void hwp__chart_render(const struct hwp_chart *c, struct hwp_outbuf *o)
{
	double px, py, pw, ph;
	size_t note = 0, legend = 0;

	hwp__chart_plot_area(c, &px, &py, &pw, &ph);
	hwp__outbuf_printf(o,
			   "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			   "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" "
			   "viewBox=\"0 0 %u %u\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
			   "font-size=\"12\">\n",
			   c->width, c->height, c->width, c->height);
	hwp__outbuf_puts(o, "<style>\n"
			    ".title{font-size:16px;font-weight:bold;fill:#222}\n"
			    ".subtitle{fill:#555}\n"
			    ".grid{stroke:#e4e4e4;stroke-width:1}\n"
			    ".axis,.tick{stroke:#444;stroke-width:1}\n"
			    ".tick-label{fill:#333;font-size:11px}\n"
			    ".axis-label{fill:#222;font-size:13px}\n"
			    ".mark{stroke-width:1.5;stroke-dasharray:5,4}\n"
			    ".mark-label{font-size:11px;font-weight:bold}\n"
			    ".note{fill:#555;font-size:11px}\n"
			    ".line{fill:none;stroke-width:2}\n"
			    ".rect{stroke:#fff;stroke-width:0.5}\n"
			    ".bar:hover,.rect:hover{opacity:0.7}\n"
			    "</style>\n");
	hwp__outbuf_printf(o, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n",
			   c->width, c->height);
	char fitted[1024];

	if (c->title) {
		fit_text(c->title, c->width - 20.0, 9.6, fitted, sizeof(fitted));
		text_el(o, "title", c->width / 2.0, 24, "middle", NULL, fitted);
	}
	if (c->subtitle) {
		fit_text(c->subtitle, c->width - 20.0, 7.0, fitted, sizeof(fitted));
		text_el(o, "subtitle", c->width / 2.0, 42, "middle", NULL, fitted);
	}
	size_t *row = calloc(c->nel ? c->nel : 1, sizeof(*row));

	if (row)
		mark_rows(c, px, pw, row);
	if (has_axes(c))
		draw_axes(c, o, px, py, pw, ph);
	for (size_t i = 0; i < c->nel; i++) {
		const struct elem *e = &c->el[i];
		const char *col = hwp__chart_colour(e->colour);

		switch (e->kind) {
		case E_BAR: {
			double x0 = px + frac(&c->ax[0], e->x0) * pw, x1 = px + frac(&c->ax[0], e->x1) * pw;
			double y = py + ph - frac(&c->ax[1], e->y1) * ph;

			if (x1 - x0 < 1)
				x1 = x0 + 1;
			hwp__outbuf_printf(o, "<rect class=\"bar\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
					      "fill=\"%s\">",
					   x0, y, x1 - x0, py + ph - y, col);
			if (e->tip) {
				hwp__outbuf_puts(o, "<title>");
				hwp__chart_escape(o, e->tip);
				hwp__outbuf_puts(o, "</title>");
			}
			hwp__outbuf_puts(o, "</rect>\n");
			break;
		}
		case E_LINE:
			hwp__outbuf_printf(o, "<polyline class=\"line\" stroke=\"%s\" points=\"", col);
			for (size_t k = 0; k < e->npts; k++)
				hwp__outbuf_printf(o, "%s%.2f,%.2f", k ? " " : "", px + frac(&c->ax[0], e->pts[2 * k]) * pw,
						   py + ph - frac(&c->ax[1], e->pts[2 * k + 1]) * ph);
			hwp__outbuf_puts(o, "\"/>\n");
			if (e->text) {
				double ly = py + 14 + 16 * (double)legend++;

				hwp__outbuf_printf(o, "<line class=\"legend\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
						      "stroke=\"%s\" stroke-width=\"2\"/>\n",
						   px + pw - 150, ly - 4, px + pw - 130, ly - 4, col);
				text_el(o, "legend-label", px + pw - 125, ly, "start", NULL, e->text);
			}
			break;
		case E_MARK: {
			double x = px + frac(&c->ax[0], e->x0) * pw;
			double ly = py - 6 - 14 * (double)(row ? row[i] : (size_t)fmod(e->y0, 3));
			char fill[32];

			hwp__outbuf_printf(o, "<line class=\"mark\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
					      "stroke=\"%s\"/>\n",
					   x, ly + 2, x, py + ph, col);
			if (e->text) {
				/* keep the label inside the canvas */
				const char *anchor;
				double lo, hi;

				mark_span(e->text, x, px, pw, &lo, &hi, &anchor);
				snprintf(fill, sizeof(fill), "fill=\"%s\"", col);
				text_el(o, "mark-label", x, ly, anchor, fill, e->text);
			}
			break;
		}
		case E_NOTE:
			text_el(o, "note", px, c->height - 8 - NOTE_LINE * (double)(c->nnotes - 1 - note++), "start", NULL,
				e->text);
			break;
		case E_RECT:
			hwp__outbuf_printf(o, "<g><rect class=\"rect\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
					      "fill=\"%s\">",
					   e->x0, e->y0, e->x1 - e->x0, e->y1 - e->y0, col);
			if (e->tip) {
				hwp__outbuf_puts(o, "<title>");
				hwp__chart_escape(o, e->tip);
				hwp__outbuf_puts(o, "</title>");
			}
			hwp__outbuf_puts(o, "</rect>");
			/* text only where it fits: about 7 px per character */
			if (e->text && e->x1 - e->x0 > 21 && e->y1 - e->y0 >= 12) {
				size_t fit = (size_t)((e->x1 - e->x0 - 6) / 7), len = strlen(e->text);
				char *s = strndup(e->text, fit < len ? fit : len);

				if (s) {
					hwp__outbuf_printf(o, "<text class=\"text\" x=\"%.2f\" y=\"%.2f\">", e->x0 + 3,
							   e->y1 - (e->y1 - e->y0 - 10) / 2 - 1);
					hwp__chart_escape(o, s);
					hwp__outbuf_puts(o, "</text>");
					free(s);
				}
			}
			hwp__outbuf_puts(o, "</g>\n");
			break;
		case E_TEXT:
			text_el(o, "text", e->x0, e->y0, "start", NULL, e->text);
			break;
		}
	}
	free(row);
	hwp__outbuf_puts(o, "</svg>\n");
}
