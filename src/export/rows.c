/* SPDX-License-Identifier: MIT */
/* A recording's aggregates as rows (export.h), and their text formats. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/export.h"
#include "output/json.h"
#include "output/outbuf.h"
#include "hwprof/session.h"
#include "analysis/branch_collect_internal.h"
#include "export/export_internal.h"
#include "util/opts.h"
#include "util/vec.h"
#include "util/error.h"

static const char *const kind_names[HWP_EXPORT_KIND_NR] = { "branch", "range", "block", "cond" };

const char *hwp_export_kind__name(unsigned kind)
{
	return kind < HWP_EXPORT_KIND_NR ? kind_names[kind] : NULL;
}

int hwp_export_kind__parse(const char *name)
{
	for (int k = 0; k < HWP_EXPORT_KIND_NR; k++)
		if (!strcmp(name, kind_names[k]))
			return k;
	return -1;
}

unsigned hwp__export_hist_bucket(uint64_t cycles)
{
	unsigned b = 0;

	while (cycles && b < HWP_EXPORT_HIST - 1) {
		cycles >>= 1;
		b++;
	}
	return b;
}

/* The strings of module ID (interned once per module). */
static int module_names(struct hwp_export *e, int32_t id, const char **build_id, const char **path)
{
	if (id < 0) {
		*build_id = *path = "";
		return 0;
	}
	for (size_t i = 0; i < e->nmods; i++)
		if (e->mods[i].id == id) {
			*build_id = e->mods[i].build_id;
			*path = e->mods[i].path;
			return 0;
		}
	struct hwp__export_module *m = HWP_VEC_PUSH(e->mods, e->nmods, e->cap_mods);
	if (!m)
		return -ENOMEM;
	const char *b = hwp_symbolizer__module_build_id(e->sym, id), *p = hwp_symbolizer__module_name(e->sym, id);
	m->id = id;
	m->build_id = strdup(b ? b : "");
	m->path = strdup(p ? p : "");
	if (!m->build_id || !m->path)
		return -ENOMEM;
	*build_id = m->build_id;
	*path = m->path;
	return 0;
}

static struct hwp_export_row *push(struct hwp_export *e, unsigned kind, const struct hwp_code_loc *from,
				   const struct hwp_code_loc *to)
{
	struct hwp_export_row *r = HWP_VEC_PUSH(e->rows, e->nr, e->cap);

	if (!r || !HWP_VEC_PUSH(e->locs, e->nlocs, e->cap_locs))
		return NULL;
	e->locs[e->nlocs - 1] = *from;
	r->kind = (uint8_t)kind;
	r->from = from->offset;
	r->to = to->offset;
	if (module_names(e, from->module, &r->build_id, &r->module) < 0 ||
	    module_names(e, to->module, &r->to_build_id, &r->to_module) < 0)
		return NULL;
	return r;
}

/* Branch rows: the table is split by type and cycles; rows of one
   (from, to, type) merge, their cycles into the histogram. */
static int add_branches(struct hwp_export *e, const struct hwp_branch_table *t)
{
	size_t n;
	const struct hwp_branch_row *rows = hwp_branch_table__rows(t, &n);

	for (size_t i = 0; i < n; i++) {
		const struct hwp_branch_row *br = &rows[i];
		struct hwp_export_row *r = push(e, HWP_EXPORT_BRANCH, &br->key.from, &br->key.to);

		if (!r)
			return -ENOMEM;
		r->type = br->key.type;
		r->count = r->entries = br->c.count;
		r->mispred = br->c.mispred;
		r->predicted = br->c.predicted;
		r->cycles_sum = br->c.cycles_sum;
		r->cycles_n = br->c.cycles_n;
		r->hist[hwp__export_hist_bucket(br->key.cycles)] = br->c.count;
	}
	return 0;
}

static int add_ranges(struct hwp_export *e, const struct hwp_branch_table *t)
{
	size_t n;
	const struct hwp_branch_row *rows = t ? hwp_branch_table__rows(t, &n) : NULL;

	for (size_t i = 0; t && i < n; i++) {
		struct hwp_export_row *r = push(e, HWP_EXPORT_RANGE, &rows[i].key.from, &rows[i].key.to);

		if (!r)
			return -ENOMEM;
		r->count = r->entries = rows[i].c.count;
	}
	return 0;
}

static int add_flow(struct hwp_export *e, struct hwp_flow *f)
{
	size_t n;
	const struct hwp_flow_block *b = hwp_flow__blocks(f, &n);

	for (size_t i = 0; i < n; i++) {
		struct hwp_export_row *r = push(e, HWP_EXPORT_BLOCK, &b[i].start, &b[i].last);

		if (!r)
			return -ENOMEM;
		r->count = r->entries = b[i].count;
	}
	const struct hwp_flow_cond *c = hwp_flow__conds(f, &n);
	for (size_t i = 0; i < n; i++) {
		struct hwp_code_loc to = c[i].target;
		struct hwp_export_row *r;

		if (to.module < 0) /* not decoded: no target */
			to.offset = 0;
		if (!(r = push(e, HWP_EXPORT_COND, &c[i].site, &to)))
			return -ENOMEM;
		r->count = c[i].taken;
		r->not_taken = c[i].not_taken;
		r->entries = c[i].taken_entries;
		r->mispred = c[i].taken_mispredicted;
		r->predicted = c[i].taken_with_info - c[i].taken_mispredicted;
	}
	return 0;
}

int hwp__export_row_cmp(const struct hwp_export_row *x, const struct hwp_export_row *y)
{
	int d;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if ((d = strcmp(x->build_id, y->build_id)) || (d = strcmp(x->module, y->module)))
		return d;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if ((d = strcmp(x->to_build_id, y->to_build_id)) || (d = strcmp(x->to_module, y->to_module)))
		return d;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (int)x->type - (int)y->type;
}

/* Sorts rows (and their locations alongside) through an index. */
static int sort_rows(struct hwp_export *e)
{
	size_t *idx = malloc((e->nr ? e->nr : 1) * sizeof(*idx));
	struct hwp_export_row *rows = malloc((e->nr ? e->nr : 1) * sizeof(*rows));
	struct hwp_code_loc *locs = malloc((e->nr ? e->nr : 1) * sizeof(*locs));

	if (!idx || !rows || !locs) {
		free(idx), free(rows), free(locs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < e->nr; i++)
		idx[i] = i;
	qsort_r(idx, e->nr, sizeof(*idx), hwp__export_idx_cmp, e->rows);
	for (size_t i = 0; i < e->nr; i++) {
		rows[i] = e->rows[idx[i]];
		locs[i] = e->locs[idx[i]];
	}
	free(idx);
	free(e->rows);
	free(e->locs);
	e->rows = rows;
	e->locs = locs;
	e->cap = e->cap_locs = e->nlocs = e->nr;
	return 0;
}

int hwp__export_idx_cmp(const void *a, const void *b, void *ctx)
{
	const struct hwp_export_row *rows = ctx;

	return hwp__export_row_cmp(&rows[*(const size_t *)a], &rows[*(const size_t *)b]);
}

int hwp__export_row_qcmp(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return hwp__export_row_cmp(a, b);
}

/* Merges branch rows of one (from, to, type): the table splits them by cycles. */
static void merge_branches(struct hwp_export *e)
{
	size_t w = 0;

	for (size_t i = 0; i < e->nr; i++) {
		struct hwp_export_row *r = &e->rows[i];

		if (w && r->kind == HWP_EXPORT_BRANCH && !hwp__export_row_cmp(&e->rows[w - 1], r)) {
			struct hwp_export_row *m = &e->rows[w - 1];

			m->count += r->count;
			m->entries += r->entries;
			m->mispred += r->mispred;
			m->predicted += r->predicted;
			m->cycles_sum += r->cycles_sum;
			m->cycles_n += r->cycles_n;
			for (int k = 0; k < HWP_EXPORT_HIST; k++)
				m->hist[k] += r->hist[k];
			continue;
		}
		e->locs[w] = e->locs[i];
		e->rows[w++] = *r;
	}
	e->nr = e->nlocs = w;
}

struct hwp_export *hwp_export__new(struct hwp_branch_collector *c, struct hwp_flow *flow,
				   const struct hwp_export_opts *opts)
{
	struct hwp_export_opts o;
	struct hwp_export *e;

	if (HWP_OPTS_LOAD(opts, &o, struct hwp_export_opts) < 0)
		return NULL;
	if (!(e = calloc(1, sizeof(*e))) || !(e->host = strdup(o.host ? o.host : ""))) {
		free(e);
		hwp__set_error(ENOMEM, "out of memory making export rows");
		return NULL;
	}
	e->window_start = o.window_start;
	e->window_end = o.window_end;
	e->rec_id = o.recording_id;
	e->sym = hwp__branch_collector_symbolizer(c);
	if (add_branches(e, hwp_branch_collector__table(c)) < 0 ||
	    add_ranges(e, hwp_branch_collector__ranges(c)) < 0 || (flow && add_flow(e, flow) < 0) ||
	    sort_rows(e) < 0) {
		hwp_export__delete(e);
		hwp__set_error(ENOMEM, "out of memory making export rows");
		return NULL;
	}
	merge_branches(e);
	return e;
}

void hwp_export__delete(struct hwp_export *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nmods; i++) {
		free(e->mods[i].build_id);
		free(e->mods[i].path);
	}
	free(e->mods);
	free(e->lats);
	/* (rows read from a server own their strings through mods) */
	free(e->rows);
	free(e->locs);
	free(e->host);
	free(e);
}

const struct hwp_export_row *hwp_export__rows(const struct hwp_export *e, size_t *n)
{
	*n = e->nr;
	return e->rows;
}

const char *hwp__export_host(const struct hwp_export *e)
{
	return e->host;
}

const char *hwp_export__host(const struct hwp_export *e)
{
	return e->host;
}

void hwp__export_window(const struct hwp_export *e, int64_t *start, int64_t *end)
{
	*start = e->window_start;
	*end = e->window_end;
}

static const char columns[] = "host,window_start,window_end,kind,build_id,module,from_off,to_build_id,"
			      "to_module,to_off,type,count,entries,not_taken,mispred,predicted,"
			      "cycles_sum,cycles_n,cycles_hist";

const char *hwp__export_columns(void)
{
	return columns;
}

void hwp__sbuf_write(struct hwp__sbuf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2 + 256;
		char *q = realloc(b->p, cap);

		if (!q) {
			b->oom = true;
			return;
		}
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = 0;
}

void hwp__sbuf_putc(struct hwp__sbuf *b, char c)
{
	hwp__sbuf_write(b, &c, 1);
}

void hwp__sbuf_puts(struct hwp__sbuf *b, const char *s)
{
	hwp__sbuf_write(b, s, strlen(s));
}

void hwp__sbuf_printf(struct hwp__sbuf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		b->oom = true; /* (only short fields are printed) */
		return;
	}
	hwp__sbuf_write(b, tmp, (size_t)n);
}

/* A string field: TSV escapes as ClickHouse reads it; CSV quotes. The
   runs between characters to escape go in whole (rows are written on one
   thread after a parallel pass: a call per character was a tenth of it). */
static void put_str(struct hwp__sbuf *o, enum hwp_export_format f, const char *s)
{
	const char *special = f == HWP_EXPORT_CSV ? "\"" : "\t\n\\";

	if (f == HWP_EXPORT_CSV)
		hwp__sbuf_putc(o, '"');
	for (;;) {
		size_t n = strcspn(s, special);

		hwp__sbuf_write(o, s, n);
		s += n;
		if (!*s)
			break;
		if (f == HWP_EXPORT_CSV)
			hwp__sbuf_write(o, "\"\"", 2);
		else
			hwp__sbuf_write(o, *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : "\\\\", 2);
		s++;
	}
	if (f == HWP_EXPORT_CSV)
		hwp__sbuf_putc(o, '"');
}

/* SEP (when not 0) and V in decimal, as printf's "%c%" PRIu64 writes them. */
static void put_u64(struct hwp__sbuf *o, char sep, uint64_t v)
{
	char buf[24];
	size_t n = 0;

	if (sep)
		buf[n++] = sep;
	n += hwp__fmt_u64(buf + n, v);
	hwp__sbuf_write(o, buf, n);
}

static void put_i64(struct hwp__sbuf *o, char sep, int64_t v)
{
	if (v >= 0) {
		put_u64(o, sep, (uint64_t)v);
		return;
	}
	if (sep)
		hwp__sbuf_putc(o, sep);
	hwp__sbuf_putc(o, '-');
	put_u64(o, 0, (uint64_t)0 - (uint64_t)v);
}

static void put_hist(struct hwp__sbuf *o, const uint64_t *h)
{
	hwp__sbuf_putc(o, '[');
	for (int k = 0; k < HWP_EXPORT_HIST; k++)
		put_u64(o, k ? ',' : 0, h[k]);
	hwp__sbuf_putc(o, ']');
}

void hwp__export_write_row(struct hwp__sbuf *o, enum hwp_export_format f, const char *host,
			   int64_t ws, int64_t we, const struct hwp_export_row *r)
{
	char sep = f == HWP_EXPORT_CSV ? ',' : '\t';
	const char *strs[] = { r->build_id, r->module };
	const char *tos[] = { r->to_build_id, r->to_module };
	uint64_t counts[] = { r->count, r->entries, r->not_taken, r->mispred, r->predicted, r->cycles_sum,
			      r->cycles_n };

	put_str(o, f, host);
	put_i64(o, sep, ws);
	put_i64(o, sep, we);
	hwp__sbuf_putc(o, sep);
	hwp__sbuf_puts(o, kind_names[r->kind]);
	for (int k = 0; k < 2; k++) {
		hwp__sbuf_putc(o, sep);
		put_str(o, f, strs[k]);
	}
	put_u64(o, sep, r->from);
	for (int k = 0; k < 2; k++) {
		hwp__sbuf_putc(o, sep);
		put_str(o, f, tos[k]);
	}
	put_u64(o, sep, r->to);
	put_u64(o, sep, r->type);
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
		put_u64(o, sep, counts[k]);
	hwp__sbuf_putc(o, sep);
	if (f == HWP_EXPORT_CSV)
		hwp__sbuf_putc(o, '"');
	put_hist(o, r->hist);
	if (f == HWP_EXPORT_CSV)
		hwp__sbuf_putc(o, '"');
	hwp__sbuf_putc(o, '\n');
}

void hwp__export_write_lat(struct hwp__sbuf *o, const char *host, int64_t ws, int64_t we, bool measured,
			   bool modelled, const struct hwp__export_lat *l)
{
	put_str(o, HWP_EXPORT_TSV, host);
	put_i64(o, '\t', ws);
	put_i64(o, '\t', we);
	hwp__sbuf_putc(o, '\t');
	put_str(o, HWP_EXPORT_TSV, l->build_id);
	hwp__sbuf_putc(o, '\t');
	put_str(o, HWP_EXPORT_TSV, l->module);
	put_u64(o, '\t', l->start);
	put_u64(o, '\t', l->end);
	put_u64(o, '\t', l->cycles);
	put_u64(o, '\t', l->samples);
	put_u64(o, '\t', l->insns);
	put_u64(o, '\t', (measured ? 1u : 0u) | (modelled ? 2u : 0u));
	hwp__sbuf_putc(o, '\n');
}

int hwp_export__add_timing(struct hwp_export *e, const struct hwp_timing *t)
{
	size_t n;
	const struct hwp_timing_block *b = hwp_timing__blocks(t, &n);
	enum hwp_cycles_source src = hwp_timing__source(t);

	e->measured |= src == HWP_CYCLES_MEASURED;
	e->modelled |= src == HWP_CYCLES_MODELLED;
	for (size_t i = 0; i < n; i++) {
		const char *bid, *path;

		if (module_names(e, b[i].start.module, &bid, &path) < 0)
			return hwp__set_error(ENOMEM, "out of memory exporting block timing");
		for (size_t k = 0; k < b[i].d.nvalues; k++) {
			struct hwp__export_lat *l = HWP_VEC_PUSH(e->lats, e->nlats, e->cap_lats);

			if (!l)
				return hwp__set_error(ENOMEM, "out of memory exporting block timing");
			*l = (struct hwp__export_lat){ bid, path, b[i].start.offset, b[i].end.offset,
						       b[i].d.values[k].cycles, b[i].insns, b[i].d.values[k].samples };
		}
	}
	return 0;
}

int hwp_export__add_calls(struct hwp_export *e, struct hwp_call_graph *cg)
{
	e->calls = cg;
	return 0;
}

static void json_row(struct hwp_json_writer *j, const struct hwp_export *e, const struct hwp_export_row *r)
{
	hwp__json_writer_begin_object(j);
	hwp__json_writer_kv_string(j, "host", e->host);
	hwp__json_writer_kv_i64(j, "window_start", e->window_start);
	hwp__json_writer_kv_i64(j, "window_end", e->window_end);
	hwp__json_writer_kv_string(j, "kind", kind_names[r->kind]);
	hwp__json_writer_kv_string(j, "build_id", r->build_id);
	hwp__json_writer_kv_string(j, "module", r->module);
	hwp__json_writer_kv_u64(j, "from_off", r->from);
	hwp__json_writer_kv_string(j, "to_build_id", r->to_build_id);
	hwp__json_writer_kv_string(j, "to_module", r->to_module);
	hwp__json_writer_kv_u64(j, "to_off", r->to);
	hwp__json_writer_kv_u64(j, "type", r->type);
	hwp__json_writer_kv_u64(j, "count", r->count);
	hwp__json_writer_kv_u64(j, "entries", r->entries);
	hwp__json_writer_kv_u64(j, "not_taken", r->not_taken);
	hwp__json_writer_kv_u64(j, "mispred", r->mispred);
	hwp__json_writer_kv_u64(j, "predicted", r->predicted);
	hwp__json_writer_kv_u64(j, "cycles_sum", r->cycles_sum);
	hwp__json_writer_kv_u64(j, "cycles_n", r->cycles_n);
	hwp__json_writer_key(j, "cycles_hist");
	hwp__json_writer_begin_array(j);
	for (int k = 0; k < HWP_EXPORT_HIST; k++)
		hwp__json_writer_u64(j, r->hist[k]);
	hwp__json_writer_end_array(j);
	hwp__json_writer_end_object(j);
}

int hwp_export__write(const struct hwp_export *e, size_t first, size_t n, enum hwp_export_format f, bool names,
		      FILE *fp)
{
	struct hwp_outbuf o;
	struct hwp_json_writer *j = NULL;
	int err;

	if (first > e->nr)
		first = e->nr;
	if (n > e->nr - first)
		n = e->nr - first;
	if (hwp__outbuf_init(&o, fp) < 0)
		return hwp__set_error(ENOMEM, "out of memory writing export rows");
	if (f == HWP_EXPORT_JSON && !(j = hwp__json_writer_new(&o))) {
		hwp__outbuf_finish(&o);
		return -ENOMEM;
	}
	if (names && f != HWP_EXPORT_JSON) {
		for (const char *c = columns; *c; c++)
			hwp__outbuf_putc(&o, *c == ',' && f == HWP_EXPORT_TSV ? '\t' : *c);
		hwp__outbuf_putc(&o, '\n');
	}
	struct hwp__sbuf sb = { 0 };
	for (size_t i = first; i < first + n; i++) {
		if (j) {
			json_row(j, e, &e->rows[i]);
			continue;
		}
		sb.len = 0;
		hwp__export_write_row(&sb, f, e->host, e->window_start, e->window_end, &e->rows[i]);
		hwp__outbuf_write(&o, sb.p, sb.len);
	}
	free(sb.p);
	hwp__json_writer_delete(j);
	if ((err = hwp__outbuf_finish(&o)))
		return hwp__set_error(err, "error writing export rows: %s", hwp_strerror(err));
	return 0;
}
