/* SPDX-License-Identifier: MIT */
/* Reading the fleet's rows back, summed over hosts (fleet.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/perf_abi.h"
#include "export/export_internal.h"
#include "export/fleet_internal.h"
#include "util/vec.h"
#include "util/error.h"

/* Appends S to the SQL in B as a quoted string literal. */
static void sql_str(struct hwp__sbuf *b, const char *s)
{
	hwp__sbuf_putc(b, '\'');
	for (; *s; s++) {
		if (*s == '\'' || *s == '\\')
			hwp__sbuf_putc(b, '\\');
		hwp__sbuf_putc(b, *s);
	}
	hwp__sbuf_putc(b, '\'');
}

static int32_t sym_module(struct hwp_symbolizer *sym, const char *path, const char *build_id);

/* FLT's conditions (KIND: its kind too, for the rows table). */
static void add_where(struct hwp__sbuf *bp, const struct hwp_fleet_filter *flt, bool kind)
{
	struct hwp__sbuf b = *bp;
	const char *and = " WHERE ";

	if (flt && flt->build_id) {
		hwp__sbuf_printf(&b, "%sbuild_id = ", and);
		sql_str(&b, flt->build_id);
		and = " AND ";
	}
	if (flt && flt->nhosts) {
		hwp__sbuf_printf(&b, "%shost IN (", and);
		for (size_t i = 0; i < flt->nhosts; i++) {
			if (i)
				hwp__sbuf_putc(&b, ',');
			sql_str(&b, flt->hosts[i]);
		}
		hwp__sbuf_putc(&b, ')');
		and = " AND ";
	}
	if (flt && flt->since) {
		hwp__sbuf_printf(&b, "%swindow_end >= toDateTime(%" PRId64 ")", and, flt->since);
		and = " AND ";
	}
	if (flt && flt->until) {
		hwp__sbuf_printf(&b, "%swindow_start <= toDateTime(%" PRId64 ")", and, flt->until);
		and = " AND ";
	}
	if (kind && flt && flt->kind >= 0 && flt->kind < HWP_EXPORT_KIND_NR)
		hwp__sbuf_printf(&b, "%skind = '%s'", and, hwp_export_kind__name((unsigned)flt->kind));
	*bp = b;
}

/* BY_REC: grouped by recording too (host and rec_id end each line). */
static char *select_sql(struct hwp_fleet *f, const struct hwp_fleet_filter *flt, bool by_rec)
{
	struct hwp__sbuf b = { 0 };

	hwp__sbuf_puts(&b, "SELECT kind, build_id, module, from_off, to_build_id, to_module, to_off, type, "
			       "sum(count), sum(entries), sum(not_taken), sum(mispred), sum(predicted), "
			       "sum(cycles_sum), sum(cycles_n), sumForEach(cycles_hist), "
			       "min(toUnixTimestamp(window_start)), max(toUnixTimestamp(window_end)) ");
	if (by_rec)
		hwp__sbuf_puts(&b, ", host, rec_id ");
	hwp__sbuf_puts(&b, "FROM ");
	hwp__sbuf_puts(&b, f->table);
	hwp__sbuf_puts(&b, " FINAL");
	add_where(&b, flt, true);
	hwp__sbuf_puts(&b, " GROUP BY kind, build_id, module, from_off, to_build_id, to_module, to_off, type");
	if (by_rec)
		hwp__sbuf_puts(&b, ", host, rec_id ORDER BY host, rec_id");
	hwp__sbuf_puts(&b, " FORMAT TabSeparated");
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}

/* TabSeparated's escapes undone in place. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			*w++ = *s;
			continue;
		}
		s++;
		switch (*s) {
		case 't': *w++ = '\t'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case '0': *w++ = '\0'; break;
		default: *w++ = *s;
		}
	}
	*w = 0;
}

/* S interned among E's module strings. */
static const char *intern(struct hwp_export *e, const char *s, bool build_id)
{
	for (size_t i = 0; i < e->nmods; i++) {
		const char *have = build_id ? e->mods[i].build_id : e->mods[i].path;

		if (have && !strcmp(have, s))
			return have;
	}
	struct hwp__export_module *m = HWP_VEC_PUSH(e->mods, e->nmods, e->cap_mods);
	char *dup = m ? strdup(s) : NULL;

	if (!dup)
		return NULL;
	m->id = -1;
	if (build_id)
		m->build_id = dup;
	else
		m->path = dup;
	return dup;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return end != s && !*end && !errno;
}

static bool parse_hist(const char *s, uint64_t *h)
{
	char *end;

	if (*s++ != '[')
		return false;
	for (int k = 0; k < HWP_EXPORT_HIST; k++) {
		h[k] = strtoull(s, &end, 10);
		if (end == s)
			return false;
		s = end;
		if (*s == ',')
			s++;
	}
	return *s == ']';
}

/* One answer line into a row; false when it is not one. */
static bool parse_line(struct hwp_export *e, char *line, struct hwp_export_row *r, int64_t *ws, int64_t *we)
{
	enum { NF = 18 };
	char *fld[NF];
	int n = 0;

	for (char *p = line; n < NF; n++) {
		fld[n] = p;
		char *tab = strchr(p, '\t');
		if (!tab) {
			n++;
			break;
		}
		*tab = 0;
		p = tab + 1;
	}
	if (n != NF)
		return false;
	for (int k = 0; k < NF; k++)
		unescape(fld[k]);
	int kind = hwp_export_kind__parse(fld[0]);
	uint64_t v[7], type, w0, w1;
	if (kind < 0 || !parse_u64(fld[3], &r->from) || !parse_u64(fld[6], &r->to) || !parse_u64(fld[7], &type) ||
	    type > 255 || !parse_hist(fld[15], r->hist) || !parse_u64(fld[16], &w0) || !parse_u64(fld[17], &w1))
		return false;
	for (int k = 0; k < 7; k++)
		if (!parse_u64(fld[8 + k], &v[k]))
			return false;
	r->kind = (uint8_t)kind;
	r->type = (uint8_t)type;
	r->count = v[0], r->entries = v[1], r->not_taken = v[2], r->mispred = v[3], r->predicted = v[4];
	r->cycles_sum = v[5], r->cycles_n = v[6];
	if (!(r->build_id = intern(e, fld[1], true)) || !(r->module = intern(e, fld[2], false)) ||
	    !(r->to_build_id = intern(e, fld[4], true)) || !(r->to_module = intern(e, fld[5], false)))
		return false;
	if (*ws == 0 || (int64_t)w0 < *ws)
		*ws = (int64_t)w0;
	if ((int64_t)w1 > *we)
		*we = (int64_t)w1;
	return true;
}

/* E's rows in a local export's order, their locations set. */
static void finish(struct hwp_export *e)
{
	if (e->nr)
		qsort_r(e->rows, e->nr, sizeof(*e->rows), hwp__export_row_qcmp, NULL);
	for (size_t i = 0; i < e->nr; i++)
		e->locs[i] = (struct hwp_code_loc){ .module = -1, .offset = e->rows[i].from };
}

static struct hwp_export *new_export(const char *host)
{
	struct hwp_export *e = calloc(1, sizeof(*e));

	if (e && !(e->host = strdup(host))) {
		free(e);
		e = NULL;
	}
	return e;
}

/* FLT's rows, summed over all (BY_REC false: one export in *OUT) or per
   recording (*N exports). */
static int fetch(struct hwp_fleet *f, const struct hwp_fleet_filter *flt, bool by_rec, struct hwp_export ***out,
		 size_t *n)
{
	char *sql = select_sql(f, flt, by_rec), *ans = NULL, *group = NULL;
	struct hwp_export **v = NULL, *e = NULL;
	size_t nv = 0, cv = 0, lineno = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (!sql)
		return hwp__set_error(ENOMEM, "out of memory");
	if ((rc = hwp_fleet__query(f, sql, &ans)) < 0)
		goto done;
	if (!by_rec) {
		if (!(e = new_export("*")) || !HWP_VEC_PUSH(v, nv, cv))
			goto oom;
		v[0] = e;
	}
	for (char *line = ans, *next; line && *line; line = next) {
		struct hwp_export_row *r;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		if (by_rec) { /* HOST \t REC_ID end the line: a new recording when they change */
			char *t1 = strrchr(line, '\t'), *t0;
			uint64_t rec;

			if (!t1)
				goto bad;
			*t1 = 0;
			if (!(t0 = strrchr(line, '\t')))
				goto bad;
			*t0 = 0;
			rec = strtoull(t1 + 1, NULL, 10);
			if (!group || strcmp(group, t0 + 1) || rec != e->rec_id) {
				group = t0 + 1; /* (as sent: escaped) */
				if (!(e = new_export(group)) || !HWP_VEC_PUSH(v, nv, cv))
					goto oom;
				v[nv - 1] = e;
				unescape(e->host);
				e->rec_id = rec;
			}
		}
		if (!(r = HWP_VEC_PUSH(e->rows, e->nr, e->cap)) || !HWP_VEC_PUSH(e->locs, e->nlocs, e->cap_locs))
			goto oom;
		if (!parse_line(e, line, r, &e->window_start, &e->window_end))
			goto bad;
	}
	for (size_t i = 0; i < nv; i++)
		finish(v[i]);
	*out = v;
	*n = nv;
	v = NULL;
	nv = 0;
	goto done;
bad:
	rc = hwp__set_error(EPROTO, "%s: answer line %zu is not a row of the rows table", f->url, lineno);
	goto done;
oom:
	if (e && (!nv || v[nv - 1] != e))
		hwp_export__delete(e);
	rc = hwp__set_error(ENOMEM, "out of memory reading the rows of %s", f->url);
done:
	for (size_t i = 0; i < nv; i++)
		hwp_export__delete(v[i]);
	free(v);
	free(sql);
	free(ans);
	return rc;
}

struct hwp_export *hwp_fleet__fetch(struct hwp_fleet *f, const struct hwp_fleet_filter *flt)
{
	struct hwp_export **v, *e;
	size_t n;

	if (fetch(f, flt, false, &v, &n) < 0)
		return NULL;
	e = v[0];
	free(v);
	return e;
}

struct hwp_export **hwp_fleet__fetch_recordings(struct hwp_fleet *f, const struct hwp_fleet_filter *flt, size_t *n)
{
	struct hwp_export **v;

	if (fetch(f, flt, true, &v, n) < 0)
		return NULL;
	if (!v && !(v = calloc(1, sizeof(*v))))
		hwp__set_error(ENOMEM, "out of memory");
	return v;
}

static int hex_bytes(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > max)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

/* The symbolizer's module for PATH + BUILD_ID, -1 for none ("" path). */
static int32_t sym_module(struct hwp_symbolizer *sym, const char *path, const char *build_id)
{
	uint8_t bid[64];
	int n;

	if (!*path)
		return -1;
	if (!strcmp(path, "[kernel.kallsyms]"))
		return hwp_symbolizer__kernel_module(sym);
	n = hex_bytes(build_id, bid, sizeof(bid));
	return hwp_symbolizer__module(sym, path, n > 0 ? bid : NULL, (uint8_t)(n > 0 ? n : 0));
}

struct hwp_branch_table *hwp_export__branch_table(const struct hwp_export *e, unsigned kind,
						  struct hwp_symbolizer *sym)
{
	struct hwp_branch_table *t = hwp_branch_table__new(kind == HWP_EXPORT_BRANCH ? HWP_SPLIT_TYPE : 0);

	if (!t)
		return NULL;
	for (size_t i = 0; i < e->nr; i++) {
		const struct hwp_export_row *r = &e->rows[i];
		struct hwp_branch_row br;

		if (r->kind != kind)
			continue;
		memset(&br, 0, sizeof(br));
		br.key.from.module = sym_module(sym, r->module, r->build_id);
		br.key.to.module = sym_module(sym, r->to_module, r->to_build_id);
		if (br.key.from.module < -1 || br.key.to.module < -1) {
			hwp_branch_table__delete(t);
			return NULL;
		}
		br.key.from.cpumode = !strcmp(r->module, "[kernel.kallsyms]") ? HWP_MISC_KERNEL : HWP_MISC_USER;
		br.key.to.cpumode = !strcmp(r->to_module, "[kernel.kallsyms]") ? HWP_MISC_KERNEL : HWP_MISC_USER;
		br.key.from.offset = br.key.from.addr = r->from;
		br.key.to.offset = br.key.to.addr = r->to;
		br.key.type = r->type;
		br.c.count = r->count;
		br.c.mispred = r->mispred;
		br.c.predicted = r->predicted;
		br.c.cycles_sum = r->cycles_sum;
		br.c.cycles_n = r->cycles_n;
		if (hwp_branch_table__add_row(t, &br) < 0) {
			hwp_branch_table__delete(t);
			return NULL;
		}
	}
	return t;
}

struct hwp_timing *hwp_fleet__fetch_timing(struct hwp_fleet *f, const struct hwp_fleet_filter *flt,
					   struct hwp_symbolizer *sym)
{
	struct hwp__sbuf b = { 0 };
	struct hwp_timing_latency *v = NULL;
	struct hwp_timing *t = NULL;
	size_t n = 0, cap = 0, lineno = 0;
	unsigned source = 0;
	char *ans = NULL;

	hwp__sbuf_puts(&b, "SELECT build_id, module, start_off, end_off, cycles, sum(samples), max(insns), "
			   "groupBitOr(source) FROM ");
	hwp__sbuf_puts(&b, f->table);
	hwp__sbuf_puts(&b, "_lat FINAL");
	add_where(&b, flt, false);
	hwp__sbuf_puts(&b, " GROUP BY build_id, module, start_off, end_off, cycles FORMAT TabSeparated");
	hwp__sbuf_putc(&b, 0);
	if (b.oom) {
		hwp__set_error(ENOMEM, "out of memory");
		goto out;
	}
	if (hwp_fleet__query(f, b.p, &ans) < 0)
		goto out;
	for (char *line = ans, *next; line && *line; line = next) {
		enum { NF = 8 };
		char *fld[NF];
		uint64_t x[6];
		int k = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		for (char *p = line; k < NF && p; k++) {
			fld[k] = p;
			if ((p = strchr(p, '\t')))
				*p++ = 0;
		}
		bool ok = k == NF;
		for (int j = 0; ok && j < 6; j++)
			ok = parse_u64(fld[2 + j], &x[j]);
		struct hwp_timing_latency *l = ok ? HWP_VEC_PUSH(v, n, cap) : NULL;
		if (!ok) {
			hwp__set_error(EPROTO, "%s: answer line %zu is not a row of the latency table", f->url, lineno);
			goto out;
		}
		if (!l) {
			hwp__set_error(ENOMEM, "out of memory");
			goto out;
		}
		unescape(fld[0]);
		unescape(fld[1]);
		int32_t m = sym_module(sym, fld[1], fld[0]);
		uint8_t mode = !strcmp(fld[1], "[kernel.kallsyms]") ? HWP_MISC_KERNEL : HWP_MISC_USER;

		if (m < -1) {
			hwp__set_error(ENOMEM, "out of memory");
			goto out;
		}
		*l = (struct hwp_timing_latency){ .start = { m, mode, x[0], x[0] }, .end = { m, mode, x[1], x[1] },
						  .cycles = (uint32_t)x[2], .samples = x[3], .insns = (uint32_t)x[4] };
		source |= (unsigned)x[5];
	}
	t = hwp_timing__from_latencies(v, n, source & 1, source & 2);
out:
	free(b.p);
	free(ans);
	free(v);
	return t;
}
