/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/table.h"
#include "output/json.h"
#include "output/markup.h"
#include "output/render.h"
#include "session/parallel_pass.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/opts.h"
#include "util/par_run.h"

/* One value, read by its column's kind (8 bytes: report tables reach
   millions of cells; whether it is set is a bit of its row's mask). */
union value {
	const char *s;  /* TEXT */
	uint64_t u;     /* COUNT, HEX, BOOL */
	double d;       /* PERCENT, REAL */
};

/* A cell as read: its value and whether it was set. */
struct cell {
	union {
		const char *s;
		uint64_t u;
		double d;
	};
	bool set;
};

struct column {
	const char *title, *key, *unit;
	enum hwp_col_kind kind;
	enum hwp_col_show show;
};

static bool shown(const struct column *c, enum hwp_table_format f)
{
	return c->show == HWP_SHOW_ALL || (c->show == HWP_SHOW_TEXT) == (f == HWP_TABLE_TEXT);
}

struct hwp_table {
	struct column cols[HWP_TABLE_MAX_COLUMNS];
	size_t ncols;
	union value *vals; /* nrows * ncols */
	uint64_t *set;     /* a row's: bit K when its column K is set (at most 64 columns) */
	size_t nrows, cap;
	struct hwp_arena arena;
};

struct hwp_table *hwp_table__new(void)
{
	struct hwp_table *t = calloc(1, sizeof(struct hwp_table));

	if (!t)
		hwp__set_error(ENOMEM, "out of memory making a table");
	return t;
}

void hwp_table__delete(struct hwp_table *t)
{
	if (!t)
		return;
	free(t->vals);
	free(t->set);
	hwp__arena_free(&t->arena);
	free(t);
}

int hwp_table__add_column(struct hwp_table *t, const char *title, const char *key,
			  enum hwp_col_kind kind)
{
	return hwp_table__add_column_shown(t, title, key, kind, HWP_SHOW_ALL);
}

int hwp_table__add_column_shown(struct hwp_table *t, const char *title, const char *key,
				enum hwp_col_kind kind, enum hwp_col_show show)
{
	if (t->ncols == sizeof(t->cols) / sizeof(t->cols[0]))
		return hwp__set_error(EINVAL, "table: cannot add column '%s': the table has its maximum of %zu columns",
				      title ? title : "", t->ncols);
	if (t->nrows)
		return hwp__set_error(EINVAL, "table: cannot add column '%s' after %zu rows: columns come first",
				      title ? title : "", t->nrows);
	t->cols[t->ncols++] = (struct column){ .title = title, .key = key, .kind = kind, .show = show };
	return 0;
}

/* Room for CAP rows. 0 or -ENOMEM. */
static int grow_rows(struct hwp_table *t, size_t cap)
{
	union value *v;
	uint64_t *set;

	if (cap > SIZE_MAX / sizeof(*v) / (t->ncols ? t->ncols : 1) ||
	    !(v = realloc(t->vals, cap * (t->ncols ? t->ncols : 1) * sizeof(*v))))
		return -ENOMEM;
	t->vals = v;
	if (!(set = realloc(t->set, cap * sizeof(*set))))
		return -ENOMEM;
	t->set = set;
	t->cap = cap;
	return 0;
}

int hwp__table_reserve(struct hwp_table *t, size_t rows)
{
	if (!t->ncols || t->cap - t->nrows >= rows)
		return 0;
	if (rows > SIZE_MAX - t->nrows || grow_rows(t, t->nrows + rows) < 0)
		return hwp__set_error(ENOMEM, "table: out of memory for %zu rows", t->nrows + rows);
	return 0;
}

int hwp_table__new_row(struct hwp_table *t)
{
	if (t->nrows == t->cap && grow_rows(t, t->cap ? t->cap * 2 : 64) < 0)
		return hwp__set_error(ENOMEM, "table: out of memory adding row %zu", t->nrows + 1);
	memset(&t->vals[t->nrows * t->ncols], 0, t->ncols * sizeof(*t->vals));
	t->set[t->nrows] = 0;
	t->nrows++;
	return 0;
}

/* Row I's cell K as read. */
static inline struct cell cell_at(const struct hwp_table *t, size_t i, size_t k)
{
	return (struct cell){ .u = t->vals[i * t->ncols + k].u, .set = t->set[i] >> k & 1 };
}

/* The last row's value of column COL, marked set; NULL when there is none. */
static union value *cur(struct hwp_table *t, size_t col)
{
	if (col >= t->ncols || !t->nrows)
		return NULL;
	t->set[t->nrows - 1] |= 1ULL << col;
	return &t->vals[(t->nrows - 1) * t->ncols + col];
}

enum family { F_TEXT, F_INT, F_REAL };

static enum family family(enum hwp_col_kind k)
{
	return k == HWP_COL_TEXT ? F_TEXT : k == HWP_COL_PERCENT || k == HWP_COL_REAL ? F_REAL : F_INT;
}

/* A cell set with a value of another kind than its column's shows that
   kind's zero (its text NULL): what the cell's own field held before it
   shared its room with the others. */
static void set_zero(union value *c, enum hwp_col_kind k)
{
	switch (family(k)) {
	case F_TEXT:
		c->s = NULL;
		break;
	case F_INT:
		c->u = 0;
		break;
	case F_REAL:
		c->d = 0.0;
		break;
	}
}

/* Why cur() found no cell. */
static int no_cell(const struct hwp_table *t, size_t col)
{
	if (!t->nrows)
		return hwp__set_error(EINVAL, "table: no row to set column %zu in (add a row first)", col);
	return hwp__set_error(EINVAL, "table: column %zu of %zu does not exist", col, t->ncols);
}

int hwp_table__set_text(struct hwp_table *t, size_t col, const char *s)
{
	if (col >= t->ncols || !t->nrows)
		return no_cell(t, col);
	if (!s)
		return 0;
	union value *c = cur(t, col);
	if (t->cols[col].kind != HWP_COL_TEXT) {
		set_zero(c, t->cols[col].kind);
		return 0;
	}
	c->s = hwp__arena_strndup(&t->arena, s, SIZE_MAX);
	if (!c->s)
		return hwp__set_error(ENOMEM, "table: out of memory copying the text of row %zu, column %zu",
				      t->nrows, col);
	return 0;
}

int hwp_table__set_count(struct hwp_table *t, size_t col, uint64_t v)
{
	union value *c = cur(t, col);

	if (!c)
		return no_cell(t, col);
	if (family(t->cols[col].kind) == F_INT)
		c->u = v;
	else
		set_zero(c, t->cols[col].kind);
	return 0;
}

int hwp_table__set_real(struct hwp_table *t, size_t col, double v)
{
	union value *c = cur(t, col);

	if (!c)
		return no_cell(t, col);
	if (family(t->cols[col].kind) == F_REAL)
		c->d = v;
	else
		set_zero(c, t->cols[col].kind);
	return 0;
}

int hwp__table_copy_cells(struct hwp_table *t, size_t from, size_t col, size_t n)
{
	if (!t->nrows || from >= t->nrows - 1 || col > t->ncols || n > t->ncols - col)
		return hwp__set_error(EINVAL, "table: cannot copy columns %zu-%zu of row %zu into row %zu", col,
				      col + n, from, t->nrows);
	uint64_t bits = n ? (n == 64 ? ~0ULL : ((1ULL << n) - 1)) << col : 0;

	memcpy(&t->vals[(t->nrows - 1) * t->ncols + col], &t->vals[from * t->ncols + col], n * sizeof(*t->vals));
	t->set[t->nrows - 1] = (t->set[t->nrows - 1] & ~bits) | (t->set[from] & bits);
	return 0;
}

size_t hwp_table__rows(const struct hwp_table *t)
{
	return t->nrows;
}

size_t hwp_table__columns(const struct hwp_table *t)
{
	return t->ncols;
}

static int format_cell(const struct column *col, const struct cell *c, char *buf, size_t len)
{
	if (!c->set)
		return snprintf(buf, len, "%s", "");
	switch (col->kind) {
	case HWP_COL_TEXT:
		return snprintf(buf, len, "%s", c->s ? c->s : "");
	case HWP_COL_COUNT:
		return snprintf(buf, len, "%" PRIu64, c->u);
	case HWP_COL_PERCENT:
		return snprintf(buf, len, "%.2f%%", c->d);
	case HWP_COL_REAL:
		return snprintf(buf, len, "%.4f", c->d);
	case HWP_COL_HEX:
		return snprintf(buf, len, "%#" PRIx64, c->u);
	case HWP_COL_BOOL:
		return snprintf(buf, len, "%s", c->u ? "true" : "false");
	}
	return 0;
}

/* A number cell as text (at most 31 bytes, no terminator, an unset cell
   empty): what format_cell() writes, without printf. */
static size_t number_text(const struct column *col, const struct cell *c, char *buf)
{
	size_t n;

	if (!c->set)
		return 0;
	switch (col->kind) {
	case HWP_COL_COUNT:
		return hwp__fmt_u64(buf, c->u);
	case HWP_COL_PERCENT:
		n = hwp__fmt_fixed(buf, c->d, 2);
		buf[n] = '%';
		return n + 1;
	case HWP_COL_REAL:
		return hwp__fmt_fixed(buf, c->d, 4);
	case HWP_COL_HEX:
		if (!c->u) { /* "%#x" of 0 */
			buf[0] = '0';
			return 1;
		}
		buf[0] = '0';
		buf[1] = 'x';
		return 2 + hwp__fmt_hex(buf + 2, c->u);
	case HWP_COL_BOOL:
		memcpy(buf, c->u ? "true" : "false", c->u ? 4 : 5);
		return c->u ? 4 : 5;
	case HWP_COL_TEXT:
		break;
	}
	return 0;
}

/* How wide a number cell prints, formatting only the reals. */
static size_t number_width(const struct column *col, const struct cell *c)
{
	char buf[40];

	if (!c->set)
		return 0;
	switch (col->kind) {
	case HWP_COL_COUNT:
		return hwp__u64_digits(c->u);
	case HWP_COL_HEX:
		return c->u ? 2 + (size_t)(67 - __builtin_clzll(c->u)) / 4 : 1;
	default:
		return number_text(col, c, buf);
	}
}

/* The text rendering's shown columns VIS[0..NV) and their widths. */
struct text_layout {
	size_t vis[HWP_TABLE_MAX_COLUMNS], width[HWP_TABLE_MAX_COLUMNS], nv;
};

/* The widest cell of each shown column in rows [LO, HI), into WIDTH. */
static void text_widths(const struct hwp_table *t, const struct text_layout *l, size_t lo, size_t hi,
			size_t *width)
{
	for (size_t v = 0; v < l->nv; v++) {
		const struct column *col = &t->cols[l->vis[v]];
		size_t w = 0;

		for (size_t i = lo; i < hi; i++) {
			const struct cell cv = cell_at(t, i, l->vis[v]), *c = &cv;
			size_t k = col->kind == HWP_COL_TEXT ? (c->set && c->s ? strlen(c->s) : 0) : number_width(col, c);
			if (k > w)
				w = k;
		}
		width[v] = w;
	}
}

/* Cells up to this long are written into the room hwp__outbuf_reserve()
   makes (an outbuf holds at least 1 MiB). */
#define BIG_CELL 65536

static char *pad(char *p, size_t n)
{
	memset(p, ' ', n);
	return p + n;
}

/* Rows [LO, HI) as "  cell" each, text left-aligned (the last column
   unpadded), numbers right-aligned: printf's "  %-*s" and "  %*s". */
static void text_rows(const struct hwp_table *t, const struct text_layout *l, size_t lo, size_t hi,
		      struct hwp_outbuf *o)
{
	char buf[40];

	for (size_t i = lo; i < hi; i++) {
		for (size_t v = 0; v < l->nv; v++) {
			const struct column *col = &t->cols[l->vis[v]];
			const struct cell cv = cell_at(t, i, l->vis[v]), *c = &cv;
			size_t w = l->width[v], n;
			char *p;

			if (col->kind == HWP_COL_TEXT) {
				const char *s = c->set && c->s ? c->s : "";
				n = strlen(s);
				if (v + 1 == l->nv)
					w = 0;
				if (n > BIG_CELL || w > BIG_CELL) { /* maybe more than a buffer's room */
					hwp__outbuf_puts(o, "  ");
					hwp__outbuf_write(o, s, n);
					for (; w > n; w--)
						hwp__outbuf_putc(o, ' ');
					continue;
				}
				p = pad(hwp__outbuf_reserve(o, 2 + (n > w ? n : w)), 2);
				memcpy(p, s, n);
				p = pad(p + n, w > n ? w - n : 0);
			} else {
				n = number_text(col, c, buf);
				p = hwp__outbuf_reserve(o, 2 + (n > w ? n : w));
				p = pad(p, 2 + (w > n ? w - n : 0));
				memcpy(p, buf, n);
				p += n;
			}
			o->len = (size_t)(p - o->buf);
		}
		hwp__outbuf_putc(o, '\n');
	}
}

static void text_header(const struct hwp_table *t, const struct text_layout *l, struct hwp_outbuf *o)
{
	hwp__outbuf_puts(o, "#");
	for (size_t v = 0; v < l->nv; v++) {
		const struct column *col = &t->cols[l->vis[v]];
		bool left = col->kind == HWP_COL_TEXT;
		hwp__outbuf_printf(o, "%s%*s%s", v ? "  " : " ", left ? 0 : (int)(l->width[v] - strlen(col->title)),
				   "", col->title);
		if (left && v + 1 < l->nv)
			hwp__outbuf_printf(o, "%*s", (int)(l->width[v] - strlen(col->title)), "");
	}
	hwp__outbuf_puts(o, "\n#\n");
}

static void text_layout_init(const struct hwp_table *t, struct text_layout *l)
{
	l->nv = 0;
	for (size_t j = 0; j < t->ncols; j++)
		if (shown(&t->cols[j], HWP_TABLE_TEXT))
			l->vis[l->nv++] = j;
}

/* Columns at least as wide as their titles. */
static void text_layout_titles(const struct hwp_table *t, struct text_layout *l)
{
	for (size_t v = 0; v < l->nv; v++) {
		size_t w = strlen(t->cols[l->vis[v]].title);
		if (w > l->width[v])
			l->width[v] = w;
	}
}

static void render_text(const struct hwp_table *t, struct hwp_outbuf *o)
{
	struct text_layout l;

	text_layout_init(t, &l);
	text_widths(t, &l, 0, t->nrows, l.width);
	text_layout_titles(t, &l);
	text_header(t, &l, o);
	text_rows(t, &l, 0, t->nrows, o);
}

/* ---- the text of a large table on several threads ---- */

/* Rows a thread takes at least: fewer cost more to start than to format. */
#define PAR_ROWS 16384
#define PAR_MAX 64

/* One thread's share: rows [LO, HI), their widths, then their text. */
struct text_part {
	const struct hwp_table *t;
	struct text_layout *l;
	size_t lo, hi;
	size_t width[HWP_TABLE_MAX_COLUMNS];
	struct hwp_outbuf o; /* in memory */
};

/* (part K of the array CTX; each on a thread of its own: hwp__par_run()) */
static void part_widths(void *ctx, size_t k)
{
	struct text_part *p = (struct text_part *)ctx + k;

	text_widths(p->t, p->l, p->lo, p->hi, p->width);
}

static void part_rows(void *ctx, size_t k)
{
	struct text_part *p = (struct text_part *)ctx + k;

	text_rows(p->t, p->l, p->lo, p->hi, &p->o);
}

/* The text of T on N threads: each measures its rows, then writes them
   into memory with the widths of all (part 0 straight into O), and they
   are written in order: the same bytes as render_text(). */
static void render_text_parts(const struct hwp_table *t, size_t n, struct hwp_outbuf *o)
{
	struct text_part p[PAR_MAX];
	struct text_layout l;

	text_layout_init(t, &l);
	for (size_t k = 0; k < n; k++) {
		p[k].t = t;
		p[k].l = &l;
		p[k].lo = t->nrows * k / n;
		p[k].hi = t->nrows * (k + 1) / n;
		p[k].o.buf = NULL;
	}
	hwp__par_run(n, part_widths, p);
	for (size_t v = 0; v < l.nv; v++) {
		l.width[v] = 0;
		for (size_t k = 0; k < n; k++)
			if (p[k].width[v] > l.width[v])
				l.width[v] = p[k].width[v];
	}
	text_layout_titles(t, &l);
	text_header(t, &l, o);
	for (size_t k = 1; k < n; k++)
		if (hwp__outbuf_init(&p[k].o, NULL) < 0) {
			o->err = o->err ? o->err : ENOMEM;
			n = k; /* (the output is an error now) */
			break;
		}
	/* part 0 writes into O: its text leaves while the others format */
	p[0].o = *o;
	hwp__par_run(n, part_rows, p);
	*o = p[0].o;
	for (size_t k = 1; k < n; k++) {
		if (p[k].o.err && !o->err)
			o->err = p[k].o.err;
		hwp__outbuf_write(o, p[k].o.buf, p[k].o.len);
		free(p[k].o.buf);
	}
}

/* An array of row objects, numbers as numbers. */
static void render_json(const struct hwp_table *t, struct hwp_outbuf *o)
{
	struct hwp_json_writer *j = hwp__json_writer_new(o);

	if (!j) {
		o->err = o->err ? o->err : ENOMEM;
		return;
	}
	hwp__json_writer_begin_array(j);
	for (size_t i = 0; i < t->nrows; i++) {
		hwp__json_writer_begin_object(j);
		for (size_t k = 0; k < t->ncols; k++) {
			const struct cell cv = cell_at(t, i, k), *c = &cv;
			if (!shown(&t->cols[k], HWP_TABLE_JSON))
				continue;
			hwp__json_writer_key(j, t->cols[k].key);
			if (!c->set)
				hwp__json_writer_null(j);
			else if (t->cols[k].kind == HWP_COL_TEXT)
				hwp__json_writer_string(j, c->s);
			else if (t->cols[k].kind == HWP_COL_COUNT)
				hwp__json_writer_u64(j, c->u);
			else if (t->cols[k].kind == HWP_COL_HEX)
				hwp__json_writer_hex(j, c->u);
			else if (t->cols[k].kind == HWP_COL_BOOL)
				hwp__json_writer_bool(j, c->u != 0);
			else
				hwp__json_writer_double(j, c->d);
		}
		hwp__json_writer_end_object(j);
	}
	hwp__json_writer_end_array(j);
	hwp__json_writer_delete(j);
}

static void csv_field(struct hwp_outbuf *o, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		hwp__outbuf_puts(o, s);
		return;
	}
	hwp__outbuf_putc(o, '"');
	for (; *s; s++) {
		if (*s == '"')
			hwp__outbuf_putc(o, '"');
		hwp__outbuf_putc(o, *s);
	}
	hwp__outbuf_putc(o, '"');
}

static void render_csv(const struct hwp_table *t, struct hwp_outbuf *o)
{
	char buf[64];
	bool first = true;

	for (size_t j = 0; j < t->ncols; j++) {
		if (!shown(&t->cols[j], HWP_TABLE_CSV))
			continue;
		if (!first)
			hwp__outbuf_putc(o, ',');
		first = false;
		csv_field(o, t->cols[j].key);
	}
	hwp__outbuf_puts(o, "\r\n");
	for (size_t i = 0; i < t->nrows; i++) {
		first = true;
		for (size_t j = 0; j < t->ncols; j++) {
			const struct column *col = &t->cols[j];
			const struct cell cv = cell_at(t, i, j), *c = &cv;
			if (!shown(col, HWP_TABLE_CSV))
				continue;
			if (!first)
				hwp__outbuf_putc(o, ',');
			first = false;
			if (!c->set)
				continue;
			if (col->kind == HWP_COL_TEXT) {
				csv_field(o, c->s);
			} else if (col->kind == HWP_COL_PERCENT || col->kind == HWP_COL_REAL) {
				snprintf(buf, sizeof(buf), "%.6g", c->d);
				hwp__outbuf_puts(o, buf);
			} else {
				format_cell(col, c, buf, sizeof(buf));
				hwp__outbuf_puts(o, buf);
			}
		}
		hwp__outbuf_puts(o, "\r\n");
	}
}

/* A cell's value as a number cell's data-v (the raw value: a page's script
   sorts by value, not by text). */
static void html_value(const struct column *col, const struct cell *c, char *buf, size_t len)
{
	if (col->kind == HWP_COL_PERCENT || col->kind == HWP_COL_REAL)
		snprintf(buf, len, "%.9g", c->d);
	else
		snprintf(buf, len, "%" PRIu64, c->u);
}

/* An HTML table of the people's columns. Each number cell carries its raw
   value (data-v). Rows past O's VISIBLE are of class "more" (a page shows
   them on asking); a column past O's MAIN is one "Title: value" item of its
   row's last cell, "Details" (a findings table's numbers, mostly empty in
   any one row, read there). */
void hwp__table_render_html(const struct hwp_table *t, struct hwp_outbuf *o, const struct hwp__html_table_opts *ho)
{
	static const struct hwp__html_table_opts none;
	bool main_col[HWP_TABLE_MAX_COLUMNS], details = false;
	char buf[64];

	if (!ho)
		ho = &none;
	for (size_t j = 0; j < t->ncols; j++) {
		main_col[j] = shown(&t->cols[j], HWP_TABLE_TEXT) && (!ho->main || j < ho->main);
		details |= shown(&t->cols[j], HWP_TABLE_TEXT) && !main_col[j];
	}
	hwp__outbuf_puts(o, "<table class=\"hwp\"");
	if (ho->visible && ho->visible < t->nrows)
		hwp__outbuf_printf(o, " data-visible=\"%zu\"", ho->visible);
	hwp__outbuf_puts(o, "><thead><tr>");
	for (size_t j = 0; j < t->ncols; j++) {
		if (!main_col[j])
			continue;
		hwp__outbuf_printf(o, "<th class=\"%s\">", t->cols[j].kind == HWP_COL_TEXT ? "t" : "n");
		hwp__markup_escape(o, t->cols[j].title);
		hwp__outbuf_puts(o, "</th>");
	}
	if (details)
		hwp__outbuf_puts(o, "<th class=\"t\">Details</th>");
	hwp__outbuf_puts(o, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < t->nrows; i++) {
		hwp__outbuf_puts(o, ho->visible && i >= ho->visible ? "<tr class=\"more\">" : "<tr>");
		for (size_t j = 0; j < t->ncols; j++) {
			const struct column *col = &t->cols[j];
			const struct cell cv = cell_at(t, i, j), *c = &cv;
			const char *link = ho->links && j == ho->link_col ? ho->links[i] : NULL;

			if (!main_col[j])
				continue;
			if (col->kind == HWP_COL_TEXT || !c->set) {
				hwp__outbuf_puts(o, j < 64 && (ho->wrap >> j & 1) ? "<td class=\"w\">" : "<td>");
			} else {
				html_value(col, c, buf, sizeof(buf));
				hwp__outbuf_printf(o, "<td class=\"n\" data-v=\"%s\">", buf);
			}
			if (link) {
				hwp__outbuf_puts(o, "<a href=\"");
				hwp__markup_escape(o, link);
				hwp__outbuf_puts(o, "\">");
			}
			if (col->kind == HWP_COL_TEXT || !c->set) {
				hwp__markup_escape(o, c->set ? c->s : "");
			} else {
				format_cell(col, c, buf, sizeof(buf));
				hwp__markup_escape(o, buf);
			}
			hwp__outbuf_puts(o, link ? "</a></td>" : "</td>");
		}
		if (details) {
			bool first = true;

			hwp__outbuf_puts(o, "<td class=\"d\">");
			for (size_t j = 0; j < t->ncols; j++) {
				const struct cell cv = cell_at(t, i, j), *c = &cv;

				if (main_col[j] || !shown(&t->cols[j], HWP_TABLE_TEXT) || !c->set)
					continue;
				hwp__outbuf_puts(o, first ? "<span>" : " <span>");
				hwp__markup_escape(o, t->cols[j].title);
				hwp__outbuf_puts(o, ": <b>");
				if (t->cols[j].kind == HWP_COL_TEXT) {
					hwp__markup_escape(o, c->s);
				} else {
					format_cell(&t->cols[j], c, buf, sizeof(buf));
					hwp__markup_escape(o, buf);
				}
				hwp__outbuf_puts(o, "</b></span>");
				first = false;
			}
			hwp__outbuf_puts(o, "</td>");
		}
		hwp__outbuf_puts(o, "</tr>\n");
	}
	hwp__outbuf_puts(o, "</tbody></table>\n");
}

void hwp__table_render(const struct hwp_table *t, enum hwp_table_format f, struct hwp_outbuf *o)
{
	switch (f) {
	case HWP_TABLE_TEXT:
		render_text(t, o);
		break;
	case HWP_TABLE_JSON:
		render_json(t, o);
		break;
	case HWP_TABLE_CSV:
		render_csv(t, o);
		break;
	case HWP_TABLE_HTML:
		hwp__table_render_html(t, o, NULL);
		break;
	}
}

int hwp_table__print(const struct hwp_table *t, enum hwp_table_format f, FILE *fp)
{
	return hwp_table__print_jobs(t, f, fp, 1);
}

int hwp_table__print_jobs(const struct hwp_table *t, enum hwp_table_format f, FILE *fp, unsigned jobs)
{
	struct hwp_outbuf o;
	size_t n = t->nrows / PAR_ROWS;
	int err;

	if ((unsigned)f > HWP_TABLE_HTML)
		return hwp__set_error(EINVAL, "table: unknown output format %d", (int)f);
	if ((err = hwp__outbuf_init(&o, fp)) < 0)
		return err;
	if (!jobs)
		jobs = hwp__cpus_available();
	if (n > jobs)
		n = jobs;
	if (n > PAR_MAX)
		n = PAR_MAX;
	if (f == HWP_TABLE_TEXT && n >= 2)
		render_text_parts(t, n, &o);
	else
		hwp__table_render(t, f, &o);
	if ((err = hwp__outbuf_finish(&o)) < 0)
		return err;
	if (fflush(fp))
		return hwp__set_error(errno, "writing a table: %s", strerror(errno));
	return 0;
}

int hwp_table__set_unit(struct hwp_table *t, size_t col, const char *unit)
{
	if (col >= t->ncols)
		return hwp__set_error(EINVAL, "table: no column %zu", col);
	t->cols[col].unit = unit ? hwp__arena_strndup(&t->arena, unit, SIZE_MAX) : NULL;
	return unit && !t->cols[col].unit ? hwp__set_error(ENOMEM, "out of memory filling a table") : 0;
}

int hwp_table__column(const struct hwp_table *t, size_t col, struct hwp_table_column *out)
{
	struct hwp_table_column c;
	int rc;

	if ((rc = HWP_RESULT_BEGIN(out, &c, struct hwp_table_column)) < 0)
		return rc;
	if (col >= t->ncols)
		return hwp__set_error(EINVAL, "table: no column %zu", col);
	c.title = t->cols[col].title;
	c.key = t->cols[col].key;
	c.kind = t->cols[col].kind;
	c.show = t->cols[col].show;
	c.unit = t->cols[col].unit;
	hwp__result_end(out, &c, sizeof(c));
	return 0;
}

/* The value of cell (ROW, COL) when it is set, else NULL. */
static const union value *set_value(const struct hwp_table *t, size_t row, size_t col)
{
	if (row >= t->nrows || col >= t->ncols || !(t->set[row] >> col & 1))
		return NULL;
	return &t->vals[row * t->ncols + col];
}

bool hwp_table__cell_text(const struct hwp_table *t, size_t row, size_t col, const char **s)
{
	const union value *c = set_value(t, row, col);

	if (!c || t->cols[col].kind != HWP_COL_TEXT)
		return false;
	*s = c->s;
	return true;
}

bool hwp_table__cell_count(const struct hwp_table *t, size_t row, size_t col, uint64_t *v)
{
	const union value *c = set_value(t, row, col);
	enum hwp_col_kind k = col < t->ncols ? t->cols[col].kind : HWP_COL_TEXT;

	if (!c || (k != HWP_COL_COUNT && k != HWP_COL_HEX && k != HWP_COL_BOOL))
		return false;
	*v = c->u;
	return true;
}

bool hwp_table__cell_real(const struct hwp_table *t, size_t row, size_t col, double *v)
{
	const union value *c = set_value(t, row, col);
	enum hwp_col_kind k = col < t->ncols ? t->cols[col].kind : HWP_COL_TEXT;

	if (!c || (k != HWP_COL_PERCENT && k != HWP_COL_REAL))
		return false;
	*v = c->d;
	return true;
}
