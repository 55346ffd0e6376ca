/* SPDX-License-Identifier: MIT */
/* Contended cache lines from the records of a memory report (c2c.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mem_internal.h"
#include "hwprof/c2c.h"
#include "util/error.h"
#include "util/vec.h"

struct hwp_c2c {
	struct hwp_c2c_line *lines;
	size_t nr_lines, cap_lines;
	struct hwp_c2c_access *acc;
	size_t nr_acc, cap_acc;
	uint64_t seen;
};

/* The records and the line mask, for sorting (qsort_r) and grouping. */
struct c2c_ctx {
	const struct hwp_mem_record *recs;
	uint64_t mask;
};

static uint64_t line_key_hi(const struct hwp_mem_record *r)
{
	/* anonymous memory is per process */
	return r->data_module >= 0 ? (uint64_t)(uint32_t)r->data_module
				   : (uint64_t)(uint32_t)r->a.pid << 32 | 0xffffffffu;
}

static int cmp_rec(const void *pa, const void *pb, void *arg)
{
	const struct c2c_ctx *x = arg;
	const struct hwp_mem_record *a = &x->recs[*(const uint32_t *)pa], *b = &x->recs[*(const uint32_t *)pb];
	uint64_t mask = x->mask;
	uint64_t ka = line_key_hi(a), kb = line_key_hi(b);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	ka = a->data_offset & mask;
	kb = b->data_offset & mask;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	ka = a->data_offset & ~mask;
	kb = b->data_offset & ~mask;
	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (a->code.module != b->code.module)
		return a->code.module < b->code.module ? -1 : 1;
	if (a->code.offset != b->code.offset)
		return a->code.offset < b->code.offset ? -1 : 1;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t distinct(uint32_t *v, size_t n)
{
	uint32_t k = 0;

	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			k++;
	return k;
}

static int cmp_line(const void *pa, const void *pb)
{
	const struct hwp_c2c_line *a = pa, *b = pb;

	if (a->hitm != b->hitm)
		return a->hitm > b->hitm ? -1 : 1;
	if (a->stores != b->stores)
		return a->stores > b->stores ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->data_offset < b->data_offset ? -1 : a->data_offset > b->data_offset;
}

static int cmp_acc(const void *pa, const void *pb)
{
	const struct hwp_c2c_access *a = pa, *b = pb;

	if (a->offset != b->offset)
		return a->offset < b->offset ? -1 : 1;
	if (a->hitm != b->hitm)
		return a->hitm > b->hitm ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return a->code.offset < b->code.offset ? -1 : a->code.offset > b->code.offset;
}

static void acc_add(struct hwp_c2c_access *x, const struct hwp_mem_access *a)
{
	x->samples++;
	x->loads += a->load;
	x->stores += a->store;
	x->hitm += a->hitm;
	x->lat_sum += a->latency;
}

/* One line: records IDX[0..N) (sorted by offset, then code). Keeps it when
   contended. */
static int add_line(struct hwp_c2c *c, struct hwp_mem_report *r, const struct c2c_ctx *cx,
		    const uint32_t *idx, size_t n, uint32_t *tids, uint32_t *cpus)
{
	const struct hwp_mem_record *recs = cx->recs;
	uint64_t mask = cx->mask;
	struct hwp_symbolizer *sym = hwp_session__symbolizer(hwp_mem_report__session(r));
	const struct hwp_mem_record *first = &recs[idx[0]];
	struct hwp_c2c_line l;
	size_t acc0 = c->nr_acc;

	memset(&l, 0, sizeof(l));
	l.addr = first->a.addr & mask;
	l.data_module = first->data_module;
	l.data_offset = first->data_offset & mask;
	l.region = first->region;
	l.pid = first->data_module >= 0 ? -1 : first->a.pid;
	for (size_t i = 0; i < n; i++) {
		const struct hwp_mem_record *rec = &recs[idx[i]];
		l.samples++;
		l.loads += rec->a.load;
		l.stores += rec->a.store;
		l.hitm += rec->a.hitm;
		l.lat_sum += rec->a.latency;
		tids[i] = (uint32_t)rec->a.tid;
		cpus[i] = rec->a.cpu;
	}
	l.nr_tids = distinct(tids, n);
	l.nr_cpus = distinct(cpus, n);
	c->seen++;
	if (!l.hitm && !(l.stores && (l.nr_tids > 1 || l.nr_cpus > 1)))
		return 0;
	/* its (offset, instruction) pairs */
	for (size_t i = 0; i < n;) {
		const struct hwp_mem_record *rec = &recs[idx[i]];
		struct hwp_c2c_access *x = HWP_VEC_PUSH(c->acc, c->nr_acc, c->cap_acc);
		struct hwp_symbol_info si;
		size_t j = i, k = 0;

		if (!x)
			return -ENOMEM;
		memset(x, 0, sizeof(*x));
		x->offset = (uint32_t)(rec->data_offset & ~mask);
		x->code = rec->code;
		for (; j < n && cmp_rec(&idx[i], &idx[j], (void *)cx) == 0; j++, k++) {
			acc_add(x, &recs[idx[j]].a);
			tids[k] = (uint32_t)recs[idx[j]].a.tid;
			cpus[k] = recs[idx[j]].a.cpu;
		}
		x->nr_tids = distinct(tids, k);
		x->nr_cpus = distinct(cpus, k);
		if (sym && rec->code.module >= 0 &&
		    hwp_symbolizer__lookup(sym, rec->code.module, rec->code.offset, &si) == 0) {
			x->symbol = si.symbol;
			x->sym_offset = si.sym_offset;
			x->file = si.file;
			x->line = si.line;
		}
		i = j;
	}
	if (c->nr_acc - acc0 > 1)
		qsort(c->acc + acc0, c->nr_acc - acc0, sizeof(*c->acc), cmp_acc);
	for (size_t i = acc0; i < c->nr_acc; i++)
		if (i == acc0 || c->acc[i].offset != c->acc[i - 1].offset)
			l.nr_offsets++;
	l.first = acc0;
	l.nr = c->nr_acc - acc0;
	struct hwp_c2c_line *slot = HWP_VEC_PUSH(c->lines, c->nr_lines, c->cap_lines);
	if (!slot)
		return -ENOMEM;
	*slot = l;
	return 0;
}

struct hwp_c2c *hwp_c2c__new(struct hwp_mem_report *r)
{
	const struct hwp_mem_record *recs;
	size_t n = hwp_mem_report__records(r, &recs), m = 0;
	struct hwp_c2c *c = calloc(1, sizeof(*c));
	uint32_t *idx = NULL, *tids = NULL, *cpus = NULL;
	int err = 0;

	if (!c)
		goto oom;
	idx = malloc((n + 1) * sizeof(*idx));
	tids = malloc((n + 1) * sizeof(*tids));
	cpus = malloc((n + 1) * sizeof(*cpus));
	if (!idx || !tids || !cpus)
		goto oom;
	for (size_t i = 0; i < n; i++)
		if (recs[i].a.has_addr)
			idx[m++] = (uint32_t)i;
	struct c2c_ctx cx = { recs, ~(uint64_t)(hwp__mem_report_cache_line(r) - 1) };
	if (m > 1)
		qsort_r(idx, m, sizeof(*idx), cmp_rec, &cx);
	for (size_t i = 0; i < m && !err;) {
		size_t j = i + 1;
		while (j < m && line_key_hi(&recs[idx[j]]) == line_key_hi(&recs[idx[i]]) &&
		       (recs[idx[j]].data_offset & cx.mask) == (recs[idx[i]].data_offset & cx.mask))
			j++;
		err = add_line(c, r, &cx, idx + i, j - i, tids, cpus);
		i = j;
	}
	if (err)
		goto oom;
	if (c->nr_lines > 1)
		qsort(c->lines, c->nr_lines, sizeof(*c->lines), cmp_line);
	free(idx);
	free(tids);
	free(cpus);
	return c;
oom:
	free(idx);
	free(tids);
	free(cpus);
	hwp_c2c__delete(c);
	hwp__set_error(ENOMEM, "out of memory");
	errno = ENOMEM;
	return NULL;
}

void hwp_c2c__delete(struct hwp_c2c *c)
{
	if (!c)
		return;
	free(c->lines);
	free(c->acc);
	free(c);
}

size_t hwp_c2c__lines(const struct hwp_c2c *c, const struct hwp_c2c_line **lines)
{
	*lines = c->lines;
	return c->nr_lines;
}

const struct hwp_c2c_access *hwp_c2c__accesses(const struct hwp_c2c *c)
{
	return c->acc;
}

uint64_t hwp_c2c__nr_lines_seen(const struct hwp_c2c *c)
{
	return c->seen;
}
