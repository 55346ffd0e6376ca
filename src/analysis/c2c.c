/* SPDX-License-Identifier: MIT */
/* Contended cache lines from the per-address, per-instruction sums a memory
   report kept while reading (c2c.h, mem_internal.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mem_internal.h"
#include "analysis/mem_types.h"
#include "hwprof/c2c.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/par_run.h"
#include "util/vec.h"

struct hwp_c2c {
	struct hwp_c2c_line *lines;
	size_t nr_lines, cap_lines;
	struct hwp_c2c_access *acc;
	size_t nr_acc, cap_acc;
	uint64_t seen;
};

/* What building needs: the report's accesses, the line mask, the extra
   threads and CPUs of each access, and room to count distinct values. */
struct c2c_ctx {
	const struct hwp__mem_c2c_acc *acc;
	uint64_t mask;
	struct hwp__mem_pairs_index tids, cpus;
	struct hwp__mem_typer *typer;  /* the accesses' data types (NULL: none) */
	struct hwp_mem_report *r; /* (its strings intern the data types) */
	/* each instruction's symbol, looked up once (the lines' accesses name
	   a few thousand instructions a hundred times) */
	struct code_sym {
		int32_t module;
		uint64_t offset;
		bool found;
		const char *symbol, *file;
		uint64_t sym_offset;
		unsigned line;
	} *syms;
	size_t nr_syms, cap_syms;
	struct hwp_hashmap sym_map;
};

/* CODE's symbol (module and offset: what the symbolizer reads) into X;
   0 or -ENOMEM. */
static int code_symbol(struct c2c_ctx *cx, struct hwp_symbolizer *sym, const struct hwp_code_loc *code,
		       struct hwp_c2c_access *x)
{
	uint64_t h = hwp__hash_combine(hwp__hash64((uint64_t)(uint32_t)code->module), code->offset);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&cx->sym_map, h);
	struct code_sym *e = NULL;
	struct hwp_symbol_info si;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (cx->syms[i].module == code->module && cx->syms[i].offset == code->offset) {
			e = &cx->syms[i];
			break;
		}
	if (!e) {
		if (!(e = HWP_VEC_PUSH(cx->syms, cx->nr_syms, cx->cap_syms)) ||
		    hwp__hashmap_add(&cx->sym_map, h, cx->nr_syms - 1) < 0)
			return -ENOMEM;
		e->module = code->module;
		e->offset = code->offset;
		if ((e->found = hwp_symbolizer__lookup(sym, code->module, code->offset, &si) == 0)) {
			e->symbol = si.symbol;
			e->sym_offset = si.sym_offset;
			e->file = si.file;
			e->line = si.line;
		}
	}
	if (e->found) {
		x->symbol = e->symbol;
		x->sym_offset = e->sym_offset;
		x->file = e->file;
		x->line = e->line;
	}
	return 0;
}

static int cmp_acc_key(const void *pa, const void *pb, void *arg)
{
	const struct c2c_ctx *x = arg;
	const struct hwp__mem_c2c_acc *a = &x->acc[*(const uint32_t *)pa], *b = &x->acc[*(const uint32_t *)pb];
	uint64_t mask = x->mask, ka, kb;

	if (a->hi != b->hi)
		return a->hi < b->hi ? -1 : 1;
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

	hwp__sort(v, n, sizeof(*v), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || v[i] != v[i - 1])
			k++;
	return k;
}

/* The HI of the line's key (mem_internal.h): its module, or its process's
   anonymous memory. */
static uint64_t line_hi(const struct hwp_c2c_line *l)
{
	return l->data_module >= 0 ? (uint64_t)l->data_module : (uint64_t)(uint32_t)l->pid << 32 | 0xffffffffu;
}

/* The lines' order: a total one (a line's key is its HI and offset), so
   the order the lines were found in does not show. */
static int cmp_line(const void *pa, const void *pb)
{
	const struct hwp_c2c_line *a = pa, *b = pb;

	if (a->hitm != b->hitm)
		return a->hitm > b->hitm ? -1 : 1;
	if (a->stores != b->stores)
		return a->stores > b->stores ? -1 : 1;
	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	if (a->data_offset != b->data_offset)
		return a->data_offset < b->data_offset ? -1 : 1;
	uint64_t ha = line_hi(a), hb = line_hi(b);
	return ha < hb ? -1 : ha > hb;
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
	if (a->code.offset != b->code.offset)
		return a->code.offset < b->code.offset ? -1 : 1;
	return a->code.module < b->code.module ? -1 : a->code.module > b->code.module;
}

int hwp__mem_pairs_index_build(struct hwp__mem_pairs_index *e, const struct hwp__mem_pairs *p, size_t nr_acc)
{
	if (!(e->first = calloc(nr_acc + 2, sizeof(*e->first))) || !(e->val = malloc((p->nr + 1) * sizeof(*e->val))))
		return -ENOMEM;
	for (size_t i = 0; i < p->nr; i++)
		e->first[(p->v[i] >> 32) + 2]++;
	for (size_t i = 2; i < nr_acc + 2; i++)
		e->first[i] += e->first[i - 1];
	for (size_t i = 0; i < p->nr; i++)
		e->val[e->first[(p->v[i] >> 32) + 1]++] = (uint32_t)p->v[i];
	return 0;
}

void hwp__mem_pairs_index_free(struct hwp__mem_pairs_index *e)
{
	free(e->first);
	free(e->val);
}

/* A line's accesses: IDX[AT .. AT + N) (group_lines()). */
struct group {
	size_t at, n;
};

/* The accesses IDX[0..N) grouped by line (a counting sort by line, the
   lines in the order first seen: their order is cmp_line()'s later, a
   total one, so sorting them by key is not needed), each line's place in
   IDX into *GROUPS (free it), *NG of them. 0 or -ENOMEM. */
static int group_lines(const struct c2c_ctx *cx, size_t n, uint32_t *idx, struct group **groups, size_t *ng)
{
	struct gline {
		uint64_t hi, off;
		size_t at, n;
	} *g = NULL;
	size_t nr = 0, cap = 0;
	struct hwp_hashmap map = { 0 };
	uint32_t *line = malloc((n + 1) * sizeof(*line));
	int err = line ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !err; i++) {
		const struct hwp__mem_c2c_acc *a = &cx->acc[i];
		uint64_t off = a->data_offset & cx->mask, h = hwp__hash_combine(hwp__hash64(a->hi), off);
		struct hwp_hashmap_probe p = hwp__hashmap_probe(&map, h);
		struct gline *e;
		uint32_t k;
		bool found = false;

		while (hwp__hashmap_next(&p, &k))
			if (g[k].hi == a->hi && g[k].off == off) {
				found = true;
				break;
			}
		if (!found) {
			if (!(e = HWP_VEC_PUSH(g, nr, cap)) || hwp__hashmap_add(&map, h, nr - 1) < 0) {
				err = -ENOMEM;
				break;
			}
			e->hi = a->hi;
			e->off = off;
			k = (uint32_t)(nr - 1);
		}
		g[k].n++;
		line[i] = k;
	}
	if (!err && !(*groups = malloc((nr + 1) * sizeof(**groups))))
		err = -ENOMEM;
	if (!err) {
		size_t at = 0;
		for (size_t k = 0; k < nr; k++) {
			g[k].at = at;
			(*groups)[k] = (struct group){ at, g[k].n };
			at += g[k].n;
		}
		for (size_t i = 0; i < n; i++)
			idx[g[line[i]].at++] = (uint32_t)i;
		*ng = nr;
	}
	hwp__hashmap_free(&map);
	free(g);
	free(line);
	return err;
}

/* The distinct threads of accesses IDX[0..N): the bits of those the report
   numbers below 64, and the others (first samples' and the report's set). */
static uint32_t line_tids(const struct c2c_ctx *cx, const uint32_t *idx, size_t n, uint32_t *scratch)
{
	const struct hwp__mem_pairs_index *e = &cx->tids;
	uint64_t mask = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct hwp__mem_c2c_acc *a = &cx->acc[idx[i]];
		int64_t ti = hwp__mem_thread_find(cx->r, a->tid);
		mask |= a->tid_mask;
		if (ti < 0 || ti >= 64)
			scratch[k++] = a->tid;
		for (size_t j = e->first[idx[i]]; j < e->first[idx[i] + 1]; j++)
			scratch[k++] = e->val[j];
	}
	return (uint32_t)__builtin_popcountll(mask) + distinct(scratch, k);
}

/* The distinct CPUs of accesses IDX[0..N): their bits, and those above 63
   the report's set holds. */
static uint32_t line_cpus(const struct c2c_ctx *cx, const uint32_t *idx, size_t n, uint32_t *scratch)
{
	const struct hwp__mem_pairs_index *e = &cx->cpus;
	uint64_t mask = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		mask |= cx->acc[idx[i]].cpu_mask;
		for (size_t j = e->first[idx[i]]; j < e->first[idx[i] + 1]; j++)
			scratch[k++] = e->val[j];
	}
	return (uint32_t)__builtin_popcountll(mask) + distinct(scratch, k);
}

/*
 * The lines are built on as many threads as the report was read on: each
 * takes a share of them (whole lines, their accesses only: nothing shared
 * is written), first their sums and sets, then, once every contended
 * line's place in the access array is known, its accesses. Naming the
 * accesses' code and data types goes through the symbolizer, which is not
 * thread-safe: that is done after, on this thread. The lines' order is
 * cmp_line()'s, a total one, so the share each thread took does not show.
 */

struct build {
	const struct c2c_ctx *cx;
	uint32_t *idx;
	const struct group *g;
	struct hwp_c2c_line *line;  /* each group's (NR 0: not contended) */
	struct hwp_c2c_access *acc; /* the contended lines' accesses */
	size_t *bound;              /* thread K's groups: [bound[K], bound[K + 1]) */
	struct room {               /* thread K's room to count distinct values */
		uint32_t *v;
		size_t cap;
		int err;
	} *room;
};

/* Group G as a line (its accesses sorted in key order): its sums, threads
   and CPUs, and whether it is contended. 0 or -ENOMEM. */
static int line_sums(const struct build *b, size_t g, struct room *room)
{
	const struct c2c_ctx *cx = b->cx;
	uint32_t *idx = b->idx + b->g[g].at;
	size_t n = b->g[g].n, tids = 0, cpus = 0;
	uint64_t mask = cx->mask;
	struct hwp_c2c_line *l = &b->line[g];

	/* room for its first samples' threads and its accesses' sets */
	for (size_t i = 0; i < n; i++) {
		tids += cx->tids.first[idx[i] + 1] - cx->tids.first[idx[i]];
		cpus += cx->cpus.first[idx[i] + 1] - cx->cpus.first[idx[i]];
	}
	if (HWP_VEC_RESERVE(room->v, room->cap, n + (tids > cpus ? tids : cpus) + 1) < 0)
		return -ENOMEM;
	if (n > 1)
		qsort_r(idx, n, sizeof(*idx), cmp_acc_key, (void *)cx);
	/* the line shows the sample that comes first in that order */
	const struct hwp__mem_c2c_acc *first = &cx->acc[idx[0]];
	memset(l, 0, sizeof(*l));
	l->addr = first->addr & mask;
	l->data_module = first->hi <= INT32_MAX ? (int32_t)first->hi : -1;
	l->data_offset = first->data_offset & mask;
	l->region = first->region;
	l->pid = l->data_module >= 0 ? -1 : (int32_t)(uint32_t)(first->hi >> 32);
	for (size_t i = 0; i < n; i++) {
		const struct hwp__mem_c2c_acc *a = &cx->acc[idx[i]];
		l->samples += a->samples;
		l->loads += a->loads;
		l->stores += a->stores;
		l->hitm += a->hitm;
		l->lat_sum += a->lat_sum;
	}
	l->nr_tids = line_tids(cx, idx, n, room->v);
	l->nr_cpus = line_cpus(cx, idx, n, room->v);
	if (l->hitm || (l->stores && (l->nr_tids > 1 || l->nr_cpus > 1)))
		l->nr = n;
	return 0;
}

static void part_sums(void *ctx, size_t k)
{
	const struct build *b = ctx;
	int err = 0;

	/* (the threads' rooms share cache lines: each written when it grows
	   and at the end only) */
	for (size_t g = b->bound[k]; g < b->bound[k + 1] && !err; g++)
		err = line_sums(b, g, &b->room[k]);
	b->room[k].err = err;
}

/* Contended line G's (offset, instruction) pairs, from its place FIRST on,
   sorted by offset, then code; their code and data types named later. */
static void line_accesses(const struct build *b, size_t g)
{
	const struct c2c_ctx *cx = b->cx;
	const uint32_t *idx = b->idx + b->g[g].at;
	struct hwp_c2c_line *l = &b->line[g];
	struct hwp_c2c_access *x = b->acc + l->first;

	for (size_t i = 0; i < l->nr; i++) {
		const struct hwp__mem_c2c_acc *a = &cx->acc[idx[i]];

		memset(&x[i], 0, sizeof(x[i]));
		x[i].offset = (uint32_t)(a->data_offset & ~cx->mask);
		x[i].code = a->code;
		x[i].samples = a->samples;
		x[i].loads = a->loads;
		x[i].stores = a->stores;
		x[i].hitm = a->hitm;
		x[i].lat_sum = a->lat_sum;
		x[i].nr_tids = a->nr_tids;
		x[i].nr_cpus = a->nr_cpus;
	}
	hwp__sort(x, l->nr, sizeof(*x), cmp_acc);
	for (size_t i = 0; i < l->nr; i++)
		if (i == 0 || x[i].offset != x[i - 1].offset)
			l->nr_offsets++;
}

static void part_accesses(void *ctx, size_t k)
{
	const struct build *b = ctx;

	for (size_t g = b->bound[k]; g < b->bound[k + 1]; g++)
		if (b->line[g].nr)
			line_accesses(b, g);
}

/* Access X of line L: its instruction's symbol and the data type at its
   address. 0 or -ENOMEM. */
static int name_access(struct c2c_ctx *cx, struct hwp_symbolizer *sym, const struct hwp_c2c_line *l,
		       struct hwp_c2c_access *x)
{
	if (sym && x->code.module >= 0 && code_symbol(cx, sym, &x->code, x) < 0)
		return -ENOMEM;
	if (cx->typer) {
		/* the field at this offset: the instruction's operand, or the
		   address itself inside a global */
		struct hwp__data_type dt;
		enum hwp__dtype_how how =
			hwp__mem_typer_find(cx->typer, &x->code, l->data_module, l->data_offset | x->offset, &dt);
		x->data_stack_op = how == HWP_DTYPE_STACK_OP;
		if (how != HWP_DTYPE_UNKNOWN && how != HWP_DTYPE_STACK_OP) {
			if (!(x->data_type = hwp__mem_intern(cx->r, dt.type)) ||
			    (dt.member[0] && !(x->data_member = hwp__mem_intern(cx->r, dt.member))))
				return -ENOMEM;
		}
	}
	return 0;
}

/* Lines a thread takes at least: fewer cost more to start than to build. */
#define PAR_LINES 4096
#define PAR_MAX 64

/* The lines of the N accesses grouped in IDX as G[0..NG) says into C (the
   lines, NR_LINES and their accesses), on up to JOBS threads. 0 or
   -ENOMEM. */
static int build_lines(struct hwp_c2c *c, struct c2c_ctx *cx, uint32_t *idx, size_t n, const struct group *g,
		       size_t ng, unsigned jobs)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(hwp_mem_report__session(cx->r));
	size_t parts, bound[PAR_MAX + 1], total = 0;
	struct room room[PAR_MAX] = { 0 };
	int err = 0;

	c->seen = ng;
	parts = ng / PAR_LINES;
	if (parts > jobs)
		parts = jobs;
	if (parts > PAR_MAX) /* (-j reaches 4096) */
		parts = PAR_MAX;
	if (parts < 1)
		parts = 1;
	/* shares of about as many accesses each */
	bound[0] = 0;
	for (size_t k = 1, gi = 0, seen = 0; k <= parts; k++) {
		while (gi < ng && (k == parts || seen < n * k / parts))
			seen += g[gi++].n;
		bound[k] = gi;
	}
	struct hwp_c2c_line *line = malloc((ng + 1) * sizeof(*line));
	struct build b = { cx, idx, g, line, NULL, bound, room };
	if (!line)
		err = -ENOMEM;
	if (!err) {
		hwp__par_run(parts, part_sums, &b);
		for (size_t k = 0; k < parts; k++)
			if (room[k].err)
				err = room[k].err;
	}
	if (!err) {
		/* each contended line's place in the access array */
		for (size_t i = 0; i < ng; i++) {
			line[i].first = total;
			total += line[i].nr;
		}
		if (!(c->acc = malloc((total + 1) * sizeof(*c->acc))) ||
		    !(c->lines = malloc((ng + 1) * sizeof(*c->lines))))
			err = -ENOMEM;
	}
	if (!err) {
		b.acc = c->acc;
		c->nr_acc = c->cap_acc = total;
		c->cap_lines = ng;
		hwp__par_run(parts, part_accesses, &b);
		for (size_t i = 0; i < ng && !err; i++) {
			if (!line[i].nr)
				continue;
			for (size_t k = line[i].first; k < line[i].first + line[i].nr && !err; k++)
				err = name_access(cx, sym, &line[i], &c->acc[k]);
			c->lines[c->nr_lines++] = line[i];
		}
	}
	for (size_t k = 0; k < parts; k++)
		free(room[k].v);
	free(line);
	return err;
}

struct hwp_c2c *hwp_c2c__new(struct hwp_mem_report *r)
{
	size_t n;
	struct hwp_symbolizer *sym = hwp_session__symbolizer(hwp_mem_report__session(r));
	struct c2c_ctx cx = { .acc = r->acc, .mask = ~(uint64_t)(hwp__mem_report_cache_line(r) - 1), .r = r };
	struct hwp_c2c *c = NULL;
	uint32_t *idx = NULL;
	struct group *groups = NULL;
	size_t ng = 0;

	if (!(r->collect & HWP_MEM_COLLECT_C2C)) {
		hwp__set_error(EINVAL, "c2c: the memory report was made without collecting its cache-line tables");
		errno = EINVAL;
		return NULL;
	}
	if (hwp__mem_report_flush(r) < 0)
		return NULL;
	n = r->nr_acc;
	bool ok = (c = calloc(1, sizeof(*c))) && (idx = malloc((n + 1) * sizeof(*idx))) &&
		  hwp__mem_pairs_index_build(&cx.tids, &r->tids, n) == 0 &&
		  hwp__mem_pairs_index_build(&cx.cpus, &r->cpus, n) == 0 && (!sym || (cx.typer = hwp__mem_typer_new(sym))) &&
		  group_lines(&cx, n, idx, &groups, &ng) == 0 &&
		  build_lines(c, &cx, idx, n, groups, ng, r->jobs ? r->jobs : 1) == 0;
	if (ok)
		hwp__sort(c->lines, c->nr_lines, sizeof(*c->lines), cmp_line);
	hwp__mem_typer_delete(cx.typer);
	free(cx.syms);
	hwp__hashmap_free(&cx.sym_map);
	free(groups);
	free(idx);
	hwp__mem_pairs_index_free(&cx.tids);
	hwp__mem_pairs_index_free(&cx.cpus);
	if (ok)
		return c;
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
