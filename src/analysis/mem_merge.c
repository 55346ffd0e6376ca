/* SPDX-License-Identifier: MIT */
/*
 * A parallel pass's memory reports: each adds a share of the samples (a
 * part), resolving through its own resolver and numbering modules apart;
 * then their tables merge into one that is the sequential report's to the
 * byte. Each table keeps its rows in the order their keys were first seen,
 * with what that first sample showed (its instruction, data address,
 * region, thread): a part notes at which sample it made each row, and the
 * merge adds the parts' rows in the order of those samples, summing the
 * rows of one key and uniting their sets of threads and CPUs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mem_internal.h"
#include "session/module_ids.h"
#include "session/parallel_pass.h"
#include "session/session_internal.h"
#include "util/error.h"
#include "util/hashmap.h"
#include "util/merge_order.h"
#include "util/vec.h"

struct hwp_mem_report *hwp__mem_report_new_part(struct hwp_session *s, const struct hwp_mem_report_opts *o,
						struct hwp__resolver *res)
{
	struct hwp_mem_report *r;

	/* made now, on the reading thread: a part's first lookup would make
	   it otherwise */
	if (!hwp_session__symbolizer(s))
		return NULL;
	if ((r = hwp_mem_report__new(s, o))) {
		r->res = res;
		r->part = true;
	}
	return r;
}

int hwp__mem_report_add_at(struct hwp_mem_report *m, const struct hwp_event *ev, const struct hwp_thread *th,
			   uint64_t seq)
{
	m->seq = seq;
	m->res->pos = HWP__COLLECT_POS(seq, HWP__MEM_POS);
	return hwp_mem_report__add(m, ev, th);
}

enum table { T_CODE, T_DATA, T_ACC };

static const struct hwp__mem_firsts *firsts_of(const struct hwp_mem_report *r, enum table t, size_t *rows)
{
	switch (t) {
	case T_CODE:
		*rows = r->nr_codes;
		return &r->first_code;
	case T_DATA:
		*rows = r->nr_data;
		return &r->first_data;
	default:
		*rows = r->nr_acc;
		return &r->first_acc;
	}
}

/* Every part's rows of table T in the order first added (each sample
   makes at most one row of a table: the places are distinct) into *ALL
   (free it), *NR of them. 0 or <0 (message set). */
struct table_rows {
	struct hwp_mem_report *const *parts;
	enum table t;
};

static void table_rows(void *ctx, size_t k, const uint64_t **first, size_t *nr)
{
	const struct table_rows *r = ctx;
	size_t rows;

	*first = firsts_of(r->parts[k], r->t, &rows)->v;
	*nr = rows;
}

static int order_rows(struct hwp_mem_report *const *parts, size_t n, enum table t, struct hwp__merge_ref **all,
		      size_t *nr)
{
	struct table_rows tr = { parts, t };

	*all = NULL;
	*nr = 0;
	for (size_t k = 0; k < n; k++) {
		size_t rows;
		const struct hwp__mem_firsts *f = firsts_of(parts[k], t, &rows);

		if (f->nr != rows)
			return hwp__set_error(EINVAL, "memory report merge: part %zu has %zu rows but %zu first places",
					      k, rows, f->nr);
	}
	if (hwp__merge_order(n, table_rows, &tr, all, nr) < 0)
		return hwp__set_error(ENOMEM, "out of memory merging memory reports");
	return 0;
}

static int32_t real_module(const struct hwp__module_ids *ids, int32_t id)
{
	return ids ? hwp__module_ids_real(ids, id) : id;
}

/* A data key's HI in the registered numbering: a module's id (below 2^31,
   a part's own numbers too), or a process's anonymous memory (above). */
static uint64_t real_hi(const struct hwp__module_ids *ids, uint64_t hi)
{
	return hi <= INT32_MAX ? (uint64_t)(uint32_t)real_module(ids, (int32_t)hi) : hi;
}

/* A part's data location as DST holds it: registered module, DST's region
   name. 0 or -ENOMEM. */
static int loc_in(struct hwp_mem_report *dst, const struct hwp__module_ids *ids, struct hwp__mem_data_loc *d)
{
	d->data_module = real_module(ids, d->data_module);
	if (d->region && !(d->region = hwp__mem_intern(dst, d->region)))
		return -ENOMEM;
	return 0;
}

/* The per-instruction rows; *IDX[K][I]: where part K's row I went. */
static int merge_codes(struct hwp_mem_report *dst, struct hwp_mem_report *const *parts,
		       struct hwp__module_ids *const *ids, size_t n, uint32_t **idx)
{
	struct hwp__merge_ref *all;
	size_t nr;
	int err = order_rows(parts, n, T_CODE, &all, &nr);

	if (err)
		return err;
	for (size_t i = 0; i < nr; i++) {
		const struct hwp__mem_code *c = &parts[all[i].part]->codes[all[i].row];
		const struct hwp__module_ids *pid = ids[all[i].part];
		struct hwp__mem_pending x = { 0 };
		struct hwp__mem_code *to;
		uint32_t at;

		x.code = c->loc;
		x.code.module = real_module(pid, c->loc.module);
		x.d = c->first;
		if (loc_in(dst, pid, &x.d) < 0) {
			err = -ENOMEM;
			break;
		}
		hwp__mem_pending_hash(&x);
		if (!(to = hwp__mem_code_entry(dst, &x, &at))) {
			err = -ENOMEM;
			break;
		}
		hwp__mem_stats_merge(&to->st, &c->st);
		idx[all[i].part][all[i].row] = at;
	}
	free(all);
	return err;
}

/* The instruction a part's row named, as DST numbers them. */
static uint32_t code_in(uint32_t *const *idx, size_t part, uint32_t code)
{
	return code == HWP__MEM_NO_CODE ? code : idx[part][code];
}

static int merge_data(struct hwp_mem_report *dst, struct hwp_mem_report *const *parts,
		      struct hwp__module_ids *const *ids, size_t n, uint32_t *const *idx)
{
	struct hwp__merge_ref *all;
	size_t nr;
	int err = order_rows(parts, n, T_DATA, &all, &nr);

	if (err)
		return err;
	for (size_t i = 0; i < nr; i++) {
		const struct hwp__mem_datum *e = &parts[all[i].part]->data[all[i].row];
		const struct hwp__module_ids *pid = ids[all[i].part];
		struct hwp__mem_pending x = { 0 };
		struct hwp__mem_datum *to;

		x.d = e->first;
		x.hi = real_hi(pid, e->hi);
		if (loc_in(dst, pid, &x.d) < 0) {
			err = -ENOMEM;
			break;
		}
		hwp__mem_pending_hash(&x);
		if (!(to = hwp__mem_data_entry(dst, &x, code_in(idx, all[i].part, e->code)))) {
			err = -ENOMEM;
			break;
		}
		hwp__mem_stats_merge(&to->st, &e->st);
	}
	free(all);
	return err;
}

static void source_rows(void *ctx, size_t k, const uint64_t **first, size_t *nr)
{
	struct hwp_mem_report *const *parts = ctx;

	*first = parts[k]->first_src;
	*nr = HWP_MEM_SRC__COUNT;
}

static int merge_sources(struct hwp_mem_report *dst, struct hwp_mem_report *const *parts,
			 struct hwp__module_ids *const *ids, size_t n, uint32_t *const *idx)
{
	size_t nr = 0;
	struct hwp__merge_ref *all = NULL;
	int err = 0;

	/* each part's sources (all of them: ROW is the source), those not
	   seen never first */
	if (hwp__merge_order(n, source_rows, (void *)parts, &all, &nr) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < nr && !err; i++) {
		const struct hwp__mem_src *from = &parts[all[i].part]->src[all[i].row];
		struct hwp__mem_src *to = &dst->src[all[i].row];

		if (!from->st.samples)
			continue;
		if (!to->st.samples) {
			to->first = from->first;
			to->code = code_in(idx, all[i].part, from->code);
			dst->src_order[dst->nr_src++] = (uint8_t)all[i].row;
			err = loc_in(dst, ids[all[i].part], &to->first);
		}
		hwp__mem_stats_merge(&to->st, &from->st);
	}
	free(all);
	return err;
}

/* Thread T of access AT (DST's row E), DST's thread number TI, unless its
   first sample's. */
static int add_tid(struct hwp_mem_report *dst, struct hwp__mem_c2c_acc *e, uint32_t at, uint32_t t, int64_t ti)
{
	int rc;

	if (t == e->tid)
		return 0;
	if (ti >= 0 && ti < 64) {
		uint64_t bit = 1ULL << ti;
		e->nr_tids += !(e->tid_mask & bit);
		e->tid_mask |= bit;
		return 0;
	}
	if ((rc = hwp__mem_pairs_add(&dst->tids, at, t)) < 0)
		return rc;
	e->nr_tids += (uint32_t)rc;
	return 0;
}

static void thread_rows(void *ctx, size_t k, const uint64_t **first, size_t *nr)
{
	struct hwp_mem_report *const *parts = ctx;

	*first = parts[k]->threads.first.v;
	*nr = parts[k]->threads.nr;
}

/* The parts' threads numbered in DST in the order first seen, as the
   sequential report numbers them; *NUM[K][I]: part K's thread I's number
   in DST. 0, -ENOMEM or -EINVAL (message set). */
static int merge_threads(struct hwp_mem_report *dst, struct hwp_mem_report *const *parts, size_t n, int64_t **num)
{
	struct hwp__merge_ref *all = NULL;
	size_t nr = 0;
	int err = 0;

	for (size_t k = 0; k < n; k++)
		if (parts[k]->threads.first.nr != parts[k]->threads.nr)
			return hwp__set_error(EINVAL, "memory report merge: part %zu has %zu threads but %zu first places",
					      k, parts[k]->threads.nr, parts[k]->threads.first.nr);
	if (hwp__merge_order(n, thread_rows, (void *)parts, &all, &nr) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < nr && !err; i++) {
		const struct hwp__merge_ref *a = &all[i];
		int64_t ti = hwp__mem_thread(dst, parts[a->part]->threads.tid[a->row], 0);

		if (ti < 0)
			err = -ENOMEM;
		else
			num[a->part][a->row] = ti;
	}
	free(all);
	return err;
}

/* Row REF of a part (X: its key as DST holds it, hashed) added to DST's
   table. 0 or -ENOMEM. */
static int merge_one_acc(struct hwp_mem_report *dst, struct hwp_mem_report *const *parts,
			 const struct hwp__mem_pairs_index *tids, const struct hwp__mem_pairs_index *cpus,
			 int64_t *const *num, const struct hwp__merge_ref *ref, const struct hwp__mem_pending *x)
{
	size_t k = ref->part, r = ref->row;
	const struct hwp__mem_c2c_acc *a = &parts[k]->acc[r];
	struct hwp__mem_c2c_acc *e;
	uint32_t at;
	int rc, err;

	if (!(e = hwp__mem_acc_entry(dst, x, &at)))
		return -ENOMEM;
	e->samples += a->samples;
	e->loads += a->loads;
	e->stores += a->stores;
	e->hitm += a->hitm;
	e->lat_sum += a->lat_sum;
	err = add_tid(dst, e, at, a->tid, hwp__mem_thread_find(dst, a->tid));
	for (uint64_t m = a->tid_mask; m && !err; m &= m - 1) {
		unsigned b = (unsigned)__builtin_ctzll(m);
		err = add_tid(dst, e, at, parts[k]->threads.tid[b], num[k][b]);
	}
	for (size_t j = tids[k].first[r]; j < tids[k].first[r + 1] && !err; j++)
		err = add_tid(dst, e, at, tids[k].val[j], hwp__mem_thread_find(dst, tids[k].val[j]));
	e->nr_cpus += (uint32_t)__builtin_popcountll(a->cpu_mask & ~e->cpu_mask);
	e->cpu_mask |= a->cpu_mask;
	for (size_t j = cpus[k].first[r]; j < cpus[k].first[r + 1] && !err; j++) {
		if ((rc = hwp__mem_pairs_add(&dst->cpus, at, cpus[k].val[j])) < 0)
			err = rc;
		else
			e->nr_cpus += (uint32_t)rc;
	}
	return err;
}

/* (a part's region names are looked up by address: every access row names
   one; the parts' strings live while they merge) */
#define REGIONS_SEEN 64

/* c2c's (data address, instruction) rows, with their sets of threads and
   CPUs: the union of the parts'. The pairs of a set may be in another
   order than the sequential report's; each set is read as a set. */
static int merge_acc(struct hwp_mem_report *dst, struct hwp_mem_report *const *parts,
		     struct hwp__module_ids *const *ids, size_t n)
{
	struct hwp__mem_pairs_index *tids = calloc(n + 1, sizeof(*tids)), *cpus = calloc(n + 1, sizeof(*cpus));
	int64_t **num = calloc(n + 1, sizeof(*num));
	struct hwp__merge_ref *all = NULL;
	struct hwp__mem_region_seen seen[REGIONS_SEEN] = { 0 };
	size_t nr = 0;
	int err = tids && cpus && num ? 0 : -ENOMEM;

	for (size_t k = 0; k < n && !err; k++)
		if (!(num[k] = malloc((parts[k]->threads.nr + 1) * sizeof(**num))))
			err = -ENOMEM;
	if (!err)
		err = merge_threads(dst, parts, n, num);

	for (size_t k = 0; k < n && !err; k++)
		if (hwp__mem_pairs_index_build(&tids[k], &parts[k]->tids, parts[k]->nr_acc) < 0 ||
		    hwp__mem_pairs_index_build(&cpus[k], &parts[k]->cpus, parts[k]->nr_acc) < 0)
			err = -ENOMEM;
	if (!err && (err = order_rows(parts, n, T_ACC, &all, &nr)) < 0)
		goto out;
	/* room for every row in the index: it does not grow (moving every
	   slot) while merging */
	if (!err && hwp__hashmap_reserve(&dst->acc_map, nr) < 0)
		err = -ENOMEM;
	/* a batch at a time: the keys' slots and entries hinted first, their
	   cache misses then waited for together (the table outgrows the
	   caches) */
	for (size_t i0 = 0; i0 < nr && !err; i0 += HWP__MEM_BATCH) {
		struct hwp__mem_pending x[HWP__MEM_BATCH];
		size_t m = nr - i0 < HWP__MEM_BATCH ? nr - i0 : HWP__MEM_BATCH;

		for (size_t b = 0; b < m && !err; b++) {
			size_t k = all[i0 + b].part;
			const struct hwp__mem_c2c_acc *a = &parts[k]->acc[all[i0 + b].row];

			memset(&x[b], 0, sizeof(x[b]));
			x[b].hi = real_hi(ids[k], a->hi);
			x[b].d.data_offset = a->data_offset;
			x[b].code = a->code;
			x[b].code.module = real_module(ids[k], a->code.module);
			x[b].a.addr = a->addr;
			x[b].a.tid = (int32_t)a->tid;
			if (a->region && !(x[b].d.region = hwp__mem_region_cached(dst, seen, REGIONS_SEEN, a->region)))
				err = -ENOMEM;
			hwp__mem_pending_hash(&x[b]);
			hwp__hashmap_prefetch(&dst->acc_map, x[b].h_acc);
		}
		for (size_t b = 0; b < m && !err; b++) {
			int64_t e = hwp__hashmap_first(&dst->acc_map, x[b].h_acc);
			if (e >= 0)
				__builtin_prefetch(&dst->acc[e], 1);
		}
		for (size_t b = 0; b < m && !err; b++)
			err = merge_one_acc(dst, parts, tids, cpus, num, &all[i0 + b], &x[b]);
	}
out:
	for (size_t k = 0; k < n && tids && cpus; k++) {
		hwp__mem_pairs_index_free(&tids[k]);
		hwp__mem_pairs_index_free(&cpus[k]);
	}
	for (size_t k = 0; k < n && num; k++)
		free(num[k]);
	free(num);
	free(tids);
	free(cpus);
	free(all);
	return err;
}

/* What the report adds up besides its tables. */
static void add_totals(struct hwp_mem_report *dst, const struct hwp_mem_report *p)
{
	hwp__mem_stats_merge(&dst->totals, &p->totals);
	for (int b = 0; b < HWP_MEM_HIST_BUCKETS; b++)
		for (int s = 0; s < HWP_MEM_SRC__COUNT; s++)
			dst->hist_src[b][s] += p->hist_src[b][s];
	dst->skipped += p->skipped;
	dst->modelled |= p->modelled;
}

/* Why PARTS cannot merge into DST, or NULL. */
static const char *refusal(const struct hwp_mem_report *dst, struct hwp_mem_report *const *parts, size_t n)
{
	if (dst->part)
		return "the report merged into is a part";
	if (dst->totals.samples || dst->skipped || dst->nr_pending || dst->nr_codes || dst->nr_data || dst->nr_src ||
	    dst->nr_acc)
		return "the report merged into has samples";
	for (size_t k = 0; k < n; k++) {
		const struct hwp_mem_report *p = parts[k];

		if (!p->part)
			return "a part was not made as one";
		if (p->s != dst->s)
			return "a part reads another session";
		if (p->collect != dst->collect || p->line_size != dst->line_size ||
		    p->loads_only != dst->loads_only || p->stores_only != dst->stores_only)
			return "a part was made with other options";
	}
	return NULL;
}

int hwp__mem_report_merge(struct hwp_mem_report *dst, struct hwp_mem_report *const *parts,
			  struct hwp__module_ids *const *ids, size_t n)
{
	const char *why = refusal(dst, parts, n);
	uint32_t **idx;
	int err = 0;

	if (why)
		return hwp__set_error(EINVAL, "%s: memory report merge: %s", hwp_session__path(dst->s), why);
	for (size_t k = 0; k < n; k++)
		if ((err = hwp__mem_report_flush(parts[k])) < 0)
			return err;
	if (!(idx = calloc(n + 1, sizeof(*idx))))
		return hwp__set_error(ENOMEM, "out of memory merging memory reports");
	for (size_t k = 0; k < n && !err; k++)
		if (!(idx[k] = malloc((parts[k]->nr_codes + 1) * sizeof(**idx))))
			err = -ENOMEM;
	/* the instructions first: the other rows name theirs */
	if (!err)
		err = merge_codes(dst, parts, ids, n, idx);
	if (!err)
		err = merge_data(dst, parts, ids, n, idx);
	if (!err)
		err = merge_sources(dst, parts, ids, n, idx);
	if (!err)
		err = merge_acc(dst, parts, ids, n);
	for (size_t k = 0; k < n; k++)
		free(idx[k]);
	free(idx);
	if (err == -ENOMEM)
		return hwp__set_error(ENOMEM, "out of memory merging memory reports");
	if (err)
		return err;
	for (size_t k = 0; k < n; k++)
		add_totals(dst, parts[k]);
	return 0;
}

/* ---- the memory report alone on several threads ---- */

static void *mem_part_new(void *ctx, struct hwp__resolver *res)
{
	struct hwp_mem_report *whole = ctx;
	struct hwp_mem_report_opts o = { .sz = sizeof(o), .cache_line = whole->line_size,
					 .loads_only = whole->loads_only, .stores_only = whole->stores_only,
					 .collect = whole->collect };

	return hwp__mem_report_new_part(whole->s, &o, res);
}

static int mem_add(void *part, const struct hwp_event *ev, const struct hwp_thread *th, uint64_t seq)
{
	int r;

	if (!ev->evsel) /* (as the sequential read: samples of no known event are not the report's) */
		return 0;
	r = hwp__mem_report_add_at(part, ev, th, seq);
	return r < 0 ? r : 0;
}

static int mem_merge(void *ctx, void *const *parts, struct hwp__module_ids *const *ids, size_t n)
{
	return hwp__mem_report_merge(ctx, (struct hwp_mem_report *const *)parts, ids, n);
}

static void mem_part_delete(void *part)
{
	hwp_mem_report__delete(part);
}

int hwp_mem_report__read_jobs(struct hwp_mem_report *r, unsigned jobs)
{
	const struct hwp__parallel_ops ops = { r, mem_part_new, mem_add, mem_merge, mem_part_delete, false };
	unsigned n = hwp__parallel_jobs(r->s, jobs, r->totals.samples || r->skipped ? "samples counted before" : NULL);

	r->jobs = n;
	if (n < 2)
		return hwp_mem_report__read(r);
	int err = hwp__parallel_pass(r->s, &ops, n);
	return err < 0 ? err : hwp__mem_report_flush(r);
}
