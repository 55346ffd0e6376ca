/* SPDX-License-Identifier: MIT */
/*
 * hwprof info over one or more recordings. One: the reader's records counted
 * and shown. Several: one session over them all (its symbolizer makes the
 * same binary one module in every input), each input's records counted apart
 * and every sample's module noted with the input it came from; then each
 * input's facts and what came from where.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/info.h"
#include "hwprof/session.h"
#include "report/info_internal.h"
#include "util/error.h"

/* Samples per module and input: counts[(module + 1) * nr_inputs + input]
   (row 0: samples no module holds). */
struct merged {
	size_t nr_inputs;
	size_t nr_rows, cap_rows;
	uint64_t *counts;
};

static int merged_add(struct merged *m, int32_t module, size_t input)
{
	size_t row = module < 0 ? 0 : (size_t)module + 1;

	if (row >= m->cap_rows) {
		size_t ncap = m->cap_rows ? m->cap_rows : 16;
		while (ncap <= row)
			ncap *= 2;
		uint64_t *nc = realloc(m->counts, ncap * m->nr_inputs * sizeof(*nc));
		if (!nc)
			return hwp__set_error(ENOMEM, "info: out of memory counting modules");
		memset(nc + m->cap_rows * m->nr_inputs, 0, (ncap - m->cap_rows) * m->nr_inputs * sizeof(*nc));
		m->counts = nc;
		m->cap_rows = ncap;
	}
	if (row >= m->nr_rows)
		m->nr_rows = row + 1;
	m->counts[row * m->nr_inputs + input]++;
	return 0;
}

static uint64_t row_total(const struct merged *m, size_t row)
{
	uint64_t t = 0;

	for (size_t i = 0; i < m->nr_inputs; i++)
		t += m->counts[row * m->nr_inputs + i];
	return t;
}

/* Rows with samples, most samples first (ties: in module order). */
struct row_order {
	uint64_t total;
	size_t row;
};

static int by_samples(const void *a, const void *b)
{
	const struct row_order *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static size_t *sorted_rows(const struct merged *m, size_t *n)
{
	struct row_order *o = malloc((m->nr_rows ? m->nr_rows : 1) * sizeof(*o));
	size_t *rows = malloc((m->nr_rows ? m->nr_rows : 1) * sizeof(*rows));

	*n = 0;
	if (!o || !rows) {
		free(o);
		free(rows);
		return NULL;
	}
	for (size_t r = 0; r < m->nr_rows; r++)
		if ((o[*n].total = row_total(m, r)))
			o[(*n)++].row = r;
	qsort(o, *n, sizeof(*o), by_samples);
	for (size_t k = 0; k < *n; k++)
		rows[k] = o[k].row;
	free(o);
	return rows;
}

static uint64_t records_total(const struct hwp_file_stats *st)
{
	uint64_t t = hwp_file_stats__totals(st)->records_unknown;

	for (unsigned k = 0; k < HWP_RECORD_TYPE_MAX; k++)
		t += hwp_file_stats__records(st, k);
	return t;
}

/* What the summary shows, gathered. */
struct inputs_view {
	struct hwp_session *s;
	struct hwp_symbolizer *sym;
	struct hwp_file_stats **st;
	const struct merged *m;
	const size_t *rows;
	size_t nr_rows;
};

static const char *input_name(const struct inputs_view *v, size_t i)
{
	return hwp_reader__path(hwp_session__input_reader(v->s, i));
}

static const char *row_module(const struct inputs_view *v, size_t row)
{
	return row ? hwp_symbolizer__module_name(v->sym, (int)row - 1) : NULL;
}

static const char *row_build_id(const struct inputs_view *v, size_t row)
{
	return row ? hwp_symbolizer__module_build_id(v->sym, (int)row - 1) : NULL;
}

static void text_merged(struct hwp_outbuf *o, const struct inputs_view *v)
{
	const struct merged *m = v->m;
	uint64_t all[3] = { 0, 0, 0 };
	int w = 5; /* the input column fits the longest path */

	for (size_t i = 0; i < m->nr_inputs; i++)
		if (strlen(input_name(v, i)) > (size_t)w)
			w = (int)strlen(input_name(v, i));
	hwp__outbuf_printf(o, "==> merged: %zu inputs <==\n", m->nr_inputs);
	hwp__outbuf_printf(o, "%-*s %12s %15s %12s\n", w, "input", "samples", "branch samples", "records");
	for (size_t i = 0; i < m->nr_inputs; i++) {
		const struct hwp_file_totals *t = hwp_file_stats__totals(v->st[i]);
		uint64_t rec = records_total(v->st[i]);

		hwp__outbuf_printf(o, "%-*s %12" PRIu64 " %15" PRIu64 " %12" PRIu64 "\n", w, input_name(v, i),
				   t->samples, t->samples_with_branches, rec);
		all[0] += t->samples;
		all[1] += t->samples_with_branches;
		all[2] += rec;
	}
	hwp__outbuf_printf(o, "%-*s %12" PRIu64 " %15" PRIu64 " %12" PRIu64 "\n", w, "all", all[0], all[1], all[2]);
	hwp__outbuf_printf(o, "\nmodules (one binary: the same build-id, else the same path): %zu\n", v->nr_rows);
	hwp__outbuf_printf(o, "%12s  %s\n", "samples", "module");
	for (size_t k = 0; k < v->nr_rows; k++) {
		size_t row = v->rows[k];
		const char *name = row_module(v, row), *bid = row_build_id(v, row);
		const char *sep = "";

		hwp__outbuf_printf(o, "%12" PRIu64 "  %s", row_total(m, row), name ? name : "[unknown]");
		if (bid)
			hwp__outbuf_printf(o, " (build-id %s)", bid);
		hwp__outbuf_puts(o, "\n              from");
		for (size_t i = 0; i < m->nr_inputs; i++) {
			uint64_t c = m->counts[row * m->nr_inputs + i];
			if (!c)
				continue;
			hwp__outbuf_printf(o, "%s %s %" PRIu64, sep, input_name(v, i), c);
			sep = ",";
		}
		hwp__outbuf_putc(o, '\n');
	}
}

static void json_merged(struct hwp_json_writer *j, const struct inputs_view *v)
{
	const struct merged *m = v->m;
	uint64_t all[3] = { 0, 0, 0 };

	hwp__json_writer_key(j, "merged");
	hwp__json_writer_begin_object(j);
	hwp__json_writer_key(j, "inputs");
	hwp__json_writer_begin_array(j);
	for (size_t i = 0; i < m->nr_inputs; i++) {
		const struct hwp_file_totals *t = hwp_file_stats__totals(v->st[i]);
		uint64_t rec = records_total(v->st[i]);

		hwp__json_writer_begin_object(j);
		hwp__json_writer_kv_string(j, "file", input_name(v, i));
		hwp__json_writer_kv_u64(j, "samples_total", t->samples);
		hwp__json_writer_kv_u64(j, "brstack_samples", t->samples_with_branches);
		hwp__json_writer_kv_u64(j, "records_total", rec);
		hwp__json_writer_end_object(j);
		all[0] += t->samples;
		all[1] += t->samples_with_branches;
		all[2] += rec;
	}
	hwp__json_writer_end_array(j);
	hwp__json_writer_kv_u64(j, "samples_total", all[0]);
	hwp__json_writer_kv_u64(j, "brstack_samples", all[1]);
	hwp__json_writer_kv_u64(j, "records_total", all[2]);
	hwp__json_writer_key(j, "modules");
	hwp__json_writer_begin_array(j);
	for (size_t k = 0; k < v->nr_rows; k++) {
		size_t row = v->rows[k];

		hwp__json_writer_begin_object(j);
		hwp__json_writer_kv_string(j, "module", row_module(v, row));
		hwp__json_writer_kv_string(j, "build_id", row_build_id(v, row));
		hwp__json_writer_kv_u64(j, "samples", row_total(m, row));
		hwp__json_writer_key(j, "inputs");
		hwp__json_writer_begin_array(j);
		for (size_t i = 0; i < m->nr_inputs; i++) {
			uint64_t c = m->counts[row * m->nr_inputs + i];
			if (!c)
				continue;
			hwp__json_writer_begin_object(j);
			hwp__json_writer_kv_u64(j, "input", i);
			hwp__json_writer_kv_string(j, "file", input_name(v, i));
			hwp__json_writer_kv_u64(j, "samples", c);
			hwp__json_writer_end_object(j);
		}
		hwp__json_writer_end_array(j);
		hwp__json_writer_end_object(j);
	}
	hwp__json_writer_end_array(j);
	hwp__json_writer_end_object(j);
}

static int write_views(const struct inputs_view *v, enum hwp_table_format fmt, FILE *out)
{
	struct hwp_json_writer *j = NULL;
	struct hwp_outbuf o;
	size_t n = v->m->nr_inputs;

	if (hwp__outbuf_init(&o, out) < 0)
		return hwp__set_error(ENOMEM, "out of memory");
	if (fmt == HWP_TABLE_JSON && !(j = hwp__json_writer_new(&o))) {
		hwp__outbuf_finish(&o);
		return hwp__set_error(ENOMEM, "out of memory");
	}
	if (j) {
		hwp__json_writer_begin_object(j);
		hwp__json_writer_key(j, "inputs");
		hwp__json_writer_begin_array(j);
		for (size_t i = 0; i < n; i++)
			hwp__info_json(j, hwp_session__input_reader(v->s, i), v->st[i]);
		hwp__json_writer_end_array(j);
		json_merged(j, v);
		hwp__json_writer_end_object(j);
	} else {
		for (size_t i = 0; i < n; i++) {
			hwp__outbuf_printf(&o, "==> %s <==\n", input_name(v, i));
			hwp__info_text(&o, hwp_session__input_reader(v->s, i), v->st[i]);
			hwp__outbuf_putc(&o, '\n');
		}
		text_merged(&o, v);
	}
	return hwp__info_finish(&o, j);
}

static void warn_lost(const char *path, const struct hwp_file_stats *st)
{
	char msg[512];

	if (hwp_info__lost_warning(path, st, msg, sizeof(msg)))
		hwp__log(HWP_LOG_WARN, "%s", msg);
}

/* Counts every input's records apart and every sample's module. */
static int gather(struct hwp_session *s, struct hwp_file_stats **st, struct merged *m)
{
	struct hwp_event ev;
	const struct hwp_thread *th;
	int k;

	while ((k = hwp_session__next(s, &ev, &th)) > 0) {
		size_t i = hwp_session__input(s);
		struct hwp_code_loc loc = { .module = -1 };

		hwp_file_stats__add(st[i], &ev);
		if (ev.type != HWP_RECORD_SAMPLE)
			continue;
		if (ev.evsel && (ev.sample.sample_type & HWP_SAMPLE_IP) &&
		    hwp_session__resolve(s, th, ev.sample.ip, 0, &loc) < 0)
			return -errno;
		if (merged_add(m, loc.module, i) < 0)
			return -ENOMEM;
	}
	return k;
}

static int write_several(const char *const *paths, size_t n, enum hwp_table_format fmt, FILE *out)
{
	struct hwp_session_opts so = { .sz = sizeof(so) };
	struct merged m = { .nr_inputs = n };
	struct inputs_view v = { 0 };
	int rc;

	v.s = hwp_session__open_inputs(paths, n, &so);
	if (!v.s)
		return -errno;
	v.st = calloc(n, sizeof(*v.st));
	rc = v.st ? 0 : hwp__set_error(ENOMEM, "info: out of memory");
	for (size_t i = 0; i < n && !rc; i++)
		if (!(v.st[i] = hwp_file_stats__new()))
			rc = -ENOMEM;
	if (!rc)
		rc = gather(v.s, v.st, &m);
	if (!rc && !(v.sym = hwp_session__symbolizer(v.s)))
		rc = -errno;
	size_t *rows = NULL;
	if (!rc && !(rows = sorted_rows(&m, &v.nr_rows)))
		rc = hwp__set_error(ENOMEM, "info: out of memory");
	if (!rc) {
		v.m = &m;
		v.rows = rows;
		rc = write_views(&v, fmt, out);
		for (size_t i = 0; i < n; i++)
			warn_lost(input_name(&v, i), v.st[i]);
	}
	free(rows);
	for (size_t i = 0; v.st && i < n; i++)
		hwp_file_stats__delete(v.st[i]);
	free(v.st);
	free(m.counts);
	hwp_session__delete(v.s);
	return rc;
}

static int write_one(const char *path, enum hwp_table_format fmt, FILE *out)
{
	struct hwp_reader_opts ro = { .sz = sizeof(ro) };
	struct hwp_reader *r = hwp_reader__open(path, &ro);
	struct hwp_file_stats *st;
	struct hwp_event ev;
	int k, rc;

	if (!r)
		return -errno;
	if (!(st = hwp_file_stats__new())) {
		hwp_reader__delete(r);
		return -ENOMEM;
	}
	while ((k = hwp_reader__next(r, &ev)) > 0)
		hwp_file_stats__add(st, &ev);
	rc = k < 0 ? k : hwp_info__write(r, st, fmt, out);
	if (!rc)
		warn_lost(hwp_reader__path(r), st);
	hwp_file_stats__delete(st);
	hwp_reader__delete(r);
	return rc;
}

int hwp_info__write_inputs(const char *const *paths, size_t n, enum hwp_table_format fmt, FILE *out)
{
	if (!n)
		return hwp__set_error(EINVAL, "info: no input");
	if (hwp__info_check_format(fmt) < 0)
		return -EINVAL;
	return n == 1 ? write_one(paths[0], fmt, out) : write_several(paths, n, fmt, out);
}
