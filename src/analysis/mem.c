/* SPDX-License-Identifier: MIT */
/*
 * Memory accesses of precise samples: each one decoded (with the code
 * location and the data location resolved while the address spaces are
 * those of the sample's time) and added, as it is read, to the totals and to
 * the sums of its keys (mem_internal.h); no sample is kept. Groupings are
 * built from those sums on demand (mem_groups.c), c2c's table too (c2c.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mem_internal.h"
#include "hwprof/mem.h"
#include "session/session_internal.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/opts.h"
#include "util/vec.h"

#define KERNEL_START 0xffff800000000000ULL

unsigned hwp__mem_hist_bucket(uint32_t latency)
{
	unsigned b = 0;

	while (latency > 1 && b < HWP_MEM_HIST_BUCKETS - 1) {
		latency >>= 1;
		b++;
	}
	return b;
}

bool hwp__mem_evsel_is_ibs_op(struct hwp_session *s, const struct hwp_evsel *e)
{
	const struct hwp_header_info *h = hwp_session__header(s);

	if (e->name && !strncmp(e->name, "ibs_op", 6))
		return true;
	for (size_t i = 0; h && i < h->nr_pmu_mappings; i++)
		if (h->pmu_mappings[i].type == e->attr.type && h->pmu_mappings[i].name &&
		    !strcmp(h->pmu_mappings[i].name, "ibs_op"))
			return true;
	return false;
}

int hwp__mem_access_decode(const struct hwp_event *ev, bool ibs_raw, struct hwp_mem_access *a)
{
	const struct hwp_sample *s = &ev->sample;
	uint64_t st = s->sample_type;

	memset(a, 0, sizeof(*a));
	a->ip = s->ip;
	a->pid = (int32_t)s->pid;
	a->tid = (int32_t)s->tid;
	a->cpu = s->cpu;
	a->time = s->time;
	if (ibs_raw && (st & HWP_SAMPLE_RAW)) {
		struct hwp_ibs_op o;
		int rc = hwp_ibs_op__decode(s->raw.data, s->raw.size, &o);

		if (rc < 0)
			return rc;
		a->data_src = hwp_ibs_op__data_src(&o);
		if (!a->data_src)
			return 0;
		if (!o.rip_invalid)
			a->ip = o.op_rip;
		a->has_addr = o.dc_lin_addr_valid;
		a->addr = o.dc_lin_addr_valid ? o.dc_lin_addr : 0;
		a->phys_addr = o.dc_phy_addr_valid ? o.dc_phys_addr : 0;
		a->latency = o.dc_miss ? o.dc_miss_lat : o.tag_to_ret_ctr;
	} else if (st & HWP_SAMPLE_DATA_SRC) {
		a->data_src = s->data_src;
		a->has_addr = (st & HWP_SAMPLE_ADDR) != 0;
		a->addr = s->addr;
		a->phys_addr = (st & HWP_SAMPLE_PHYS_ADDR) ? s->phys_addr : 0;
		a->data_page_size = (st & HWP_SAMPLE_DATA_PAGE_SIZE) ? s->data_page_size : 0;
		if (st & HWP_SAMPLE_WEIGHT_STRUCT) {
			a->latency = s->weight_var1;
			a->ins_lat = s->weight_var2;
		} else if (st & HWP_SAMPLE_WEIGHT) {
			a->latency = s->weight > UINT32_MAX ? UINT32_MAX : (uint32_t)s->weight;
		}
	} else {
		return 0;
	}
	{
		struct hwp_data_src d;
		hwp_data_src__decode(a->data_src, &d);
		a->load = d.op & HWP_MEM_OP_LOAD;
		a->store = d.op & HWP_MEM_OP_STORE;
	}
	a->source = hwp_data_src__source(a->data_src);
	a->hitm = hwp_data_src__is_hitm(a->data_src);
	return 1;
}

struct hwp_mem_report *hwp_mem_report__new(struct hwp_session *s, const struct hwp_mem_report_opts *opts)
{
	struct hwp_mem_report *r;
	struct hwp_mem_report_opts o;

	if (HWP_OPTS_LOAD(opts, &o, struct hwp_mem_report_opts)) {
		errno = EINVAL;
		return NULL;
	}
	unsigned line = o.cache_line;
	if (line == 0)
		line = 64;
	if (line & (line - 1)) {
		hwp__set_error(EINVAL, "cache line size %u is not a power of two", line);
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	r->s = s;
	r->res = hwp__session_resolver(s);
	r->line_size = line;
	r->loads_only = o.loads_only;
	r->stores_only = o.stores_only;
	r->collect = o.collect ? o.collect
			       : HWP_MEM_COLLECT_C2C | (HWP_MEM_COLLECT_KEY(HWP_MEM_KEY__COUNT) - 1);
	return r;
}

void hwp_mem_report__delete(struct hwp_mem_report *r)
{
	if (!r)
		return;
	for (int k = 0; k < HWP_MEM_KEY__COUNT; k++)
		free(r->g[k].rows);
	free(r->regions);
	hwp__hashmap_free(&r->region_map);
	free(r->codes);
	hwp__hashmap_free(&r->code_map);
	free(r->data);
	hwp__hashmap_free(&r->data_map);
	free(r->acc);
	hwp__hashmap_free(&r->acc_map);
	free(r->tids.v);
	hwp__hashmap_free(&r->tids.map);
	free(r->cpus.v);
	hwp__hashmap_free(&r->cpus.map);
	free(r->threads.tid);
	free(r->threads.first.v);
	hwp__hashmap_free(&r->threads.map);
	free(r->first_code.v);
	free(r->first_data.v);
	free(r->first_acc.v);
	hwp__arena_free(&r->strings);
	free(r);
}

static inline const char *intern(struct hwp_mem_report *r, const char *name)
{
	uint64_t h = hwp__hash_str(name);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&r->region_map, h);
	uint32_t i;
	const char **slot;
	char *copy;

	while (hwp__hashmap_next(&p, &i))
		if (!strcmp(r->regions[i], name))
			return r->regions[i];
	copy = hwp__arena_strndup(&r->strings, name, strlen(name));
	if (!copy || !(slot = HWP_VEC_PUSH(r->regions, r->nr_regions, r->regions_cap)))
		return NULL;
	*slot = copy;
	if (hwp__hashmap_add(&r->region_map, h, r->nr_regions - 1) < 0)
		return NULL;
	return copy;
}

/* The region of map name NAME (interned in the address spaces). */
static inline const char *region_of(struct hwp_mem_report *r, const char *name)
{
	return hwp__mem_region_cached(r, r->region_seen, HWP__MEM_REGIONS, name);
}

static void stats_add(struct hwp_mem_stats *st, const struct hwp_mem_access *a, unsigned bucket)
{
	st->samples++;
	st->loads += a->load;
	st->stores += a->store;
	st->hitm += a->hitm;
	st->lat_sum += a->latency;
	if (a->latency > st->lat_max)
		st->lat_max = a->latency;
	st->by_source[a->source]++;
	st->lat_by_source[a->source] += a->latency;
	st->hist[bucket]++;
}

/* The data address: module + offset in a file-backed map, else the address
   itself with the region's name (heap, stack, anon). R's resolver has
   entered TH. */
static int resolve_data(struct hwp_mem_report *r, const struct hwp_thread *th, const struct hwp_mem_access *a,
			struct hwp__mem_data_loc *d)
{
	const struct hwp_map *m = NULL;
	uint64_t addr = a->addr;

	d->data_module = -1;
	d->data_offset = addr;
	d->data_addr = addr;
	d->source = a->source;
	d->region = NULL;
	if (!a->has_addr)
		return 0;
	if (th)
		m = hwp_thread__find_map(th, addr >= KERNEL_START ? HWP_MISC_KERNEL : HWP_MISC_USER, addr);
	if (!m)
		return 0;
	if (m->filename && !(d->region = region_of(r, m->filename)))
		return hwp__set_error(ENOMEM, "out of memory");
	if (!m->identity && !m->kernel) {
		struct hwp_code_loc loc;
		int rc = hwp__resolver_resolve(r->res, 2, addr, &loc);
		if (rc < 0)
			return rc;
		d->data_module = loc.module;
		d->data_offset = loc.offset;
	}
	return 0;
}

/* The key of a data location's module or, for anonymous memory, its process. */
static uint64_t data_hi(const struct hwp__mem_data_loc *d, int32_t pid)
{
	return d->data_module >= 0 ? (uint64_t)(uint32_t)d->data_module : (uint64_t)(uint32_t)pid << 32 | 0xffffffffu;
}

/* A part: the row just made was first added at the pending sample's place. */
static int note_first(struct hwp__mem_firsts *f, uint64_t seq)
{
	uint64_t *slot = HWP_VEC_PUSH(f->v, f->nr, f->cap);

	if (!slot)
		return -ENOMEM;
	*slot = seq;
	return 0;
}

static uint64_t code_hash(const struct hwp_code_loc *l)
{
	return hwp__hash_combine(hwp__hash64((uint64_t)(uint32_t)l->module), l->offset);
}

static inline void pending_hash(struct hwp__mem_pending *x)
{
	x->h_code = code_hash(&x->code);
	x->h_data = hwp__hash_combine(hwp__hash_combine(hwp__hash64(x->hi), x->d.data_offset), (uintptr_t)x->d.region);
	x->h_acc = hwp__hash_combine(hwp__hash_combine(hwp__hash64(x->hi), x->d.data_offset), x->h_code);
}

/* The instruction's entry (made on first sight); its index in *IDX. */
static struct hwp__mem_code *code_entry(struct hwp_mem_report *r, const struct hwp__mem_pending *x, uint32_t *idx)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&r->code_map, x->h_code);
	const struct hwp_code_loc *l = &x->code;
	struct hwp__mem_code *c;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (r->codes[i].loc.module == l->module && r->codes[i].loc.offset == l->offset) {
			*idx = i;
			return &r->codes[i];
		}
	if (!(c = HWP_VEC_PUSH(r->codes, r->nr_codes, r->codes_cap)) ||
	    hwp__hashmap_add(&r->code_map, x->h_code, r->nr_codes - 1) < 0 ||
	    (r->part && note_first(&r->first_code, x->seq) < 0))
		return NULL;
	c->loc = *l;
	c->first = x->d;
	*idx = (uint32_t)(r->nr_codes - 1);
	return c;
}

static struct hwp__mem_datum *data_entry(struct hwp_mem_report *r, const struct hwp__mem_pending *x, uint32_t code)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&r->data_map, x->h_data);
	struct hwp__mem_datum *e;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i)) {
		e = &r->data[i];
		if (e->hi == x->hi && e->first.data_offset == x->d.data_offset && e->first.region == x->d.region)
			return e;
	}
	if (!(e = HWP_VEC_PUSH(r->data, r->nr_data, r->data_cap)) ||
	    hwp__hashmap_add(&r->data_map, x->h_data, r->nr_data - 1) < 0 ||
	    (r->part && note_first(&r->first_data, x->seq) < 0))
		return NULL;
	e->hi = x->hi;
	e->first = x->d;
	e->code = code;
	return e;
}

/* Adds VAL to access ACC's set; 1 when it was not there, 0, or -ENOMEM. */
static inline int pairs_add(struct hwp__mem_pairs *s, uint32_t acc, uint32_t val)
{
	uint64_t key = (uint64_t)acc << 32 | val, h = hwp__hash64(key);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&s->map, h);
	uint64_t *slot;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (s->v[i] == key)
			return 0;
	if (!(slot = HWP_VEC_PUSH(s->v, s->nr, s->cap)) || hwp__hashmap_add(&s->map, h, s->nr - 1) < 0)
		return -ENOMEM;
	*slot = key;
	return 1;
}

static int64_t thread_find(const struct hwp__mem_threads *t, uint32_t tid, uint64_t h)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&t->map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (t->tid[i] == tid)
			return i;
	return -1;
}

int64_t hwp__mem_thread_find(const struct hwp_mem_report *r, uint32_t tid)
{
	return thread_find(&r->threads, tid, hwp__hash64(tid));
}

static inline int64_t thread_num(struct hwp_mem_report *r, uint32_t tid, uint64_t seq)
{
	struct hwp__mem_threads *t = &r->threads;
	uint64_t h;
	int64_t i;
	uint32_t *slot;

	if (t->last && t->last_tid == tid)
		return t->last - 1;
	h = hwp__hash64(tid);
	if ((i = thread_find(t, tid, h)) < 0) {
		if (!(slot = HWP_VEC_PUSH(t->tid, t->nr, t->cap)) || hwp__hashmap_add(&t->map, h, t->nr - 1) < 0)
			return -ENOMEM;
		if (r->part) {
			uint64_t *f = HWP_VEC_PUSH(t->first.v, t->first.nr, t->first.cap);
			if (!f)
				return -ENOMEM;
			*f = seq;
		}
		*slot = tid;
		i = (int64_t)(t->nr - 1);
	}
	t->last_tid = tid;
	t->last = (uint32_t)i + 1;
	return i;
}

int64_t hwp__mem_thread(struct hwp_mem_report *r, uint32_t tid, uint64_t seq)
{
	return thread_num(r, tid, seq);
}

/* c2c: the entry of the sample's (data address, instruction) pair; its
   index in *IDX. TI: the number of its thread (X's). */
static struct hwp__mem_c2c_acc *acc_entry(struct hwp_mem_report *r, const struct hwp__mem_pending *x, int64_t ti,
					  uint32_t *idx)
{
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&r->acc_map, x->h_acc);
	struct hwp__mem_c2c_acc *e;
	uint32_t i;

	while (hwp__hashmap_next(&p, &i)) {
		struct hwp__mem_c2c_acc *y = &r->acc[i];
		if (y->hi == x->hi && y->data_offset == x->d.data_offset && y->code.module == x->code.module &&
		    y->code.offset == x->code.offset) {
			*idx = i;
			return y;
		}
	}
	if (!(e = HWP_VEC_PUSH(r->acc, r->nr_acc, r->acc_cap)) ||
	    hwp__hashmap_add(&r->acc_map, x->h_acc, r->nr_acc - 1) < 0 ||
	    (r->part && note_first(&r->first_acc, x->seq) < 0))
		return NULL;
	*idx = (uint32_t)(r->nr_acc - 1);
	e->hi = x->hi;
	e->data_offset = x->d.data_offset;
	e->code = x->code;
	e->addr = x->a.addr;
	e->region = x->d.region;
	e->tid = (uint32_t)x->a.tid;
	e->tid_mask = ti < 64 ? 1ULL << ti : 0;
	e->nr_tids = 1;
	return e;
}

/* c2c: the sample's (data address, instruction) pair. */
static int c2c_add(struct hwp_mem_report *r, const struct hwp__mem_pending *x)
{
	const struct hwp_mem_access *a = &x->a;
	struct hwp__mem_c2c_acc *e;
	uint32_t i;
	int rc;
	int64_t ti = thread_num(r, (uint32_t)a->tid, x->seq);

	if (ti < 0 || !(e = acc_entry(r, x, ti, &i)))
		return -ENOMEM;
	e->samples++;
	e->loads += a->load;
	e->stores += a->store;
	e->hitm += a->hitm;
	e->lat_sum += a->latency;
	/* most accesses see one thread: no set lookup for those; CPUs are
	   bits, but for the many-socket machines' high numbers */
	if ((uint32_t)a->tid == e->tid) {
	} else if (ti < 64) {
		uint64_t bit = 1ULL << ti;
		e->nr_tids += !(e->tid_mask & bit);
		e->tid_mask |= bit;
	} else {
		if ((rc = pairs_add(&r->tids, i, (uint32_t)a->tid)) < 0)
			return rc;
		e->nr_tids += (uint32_t)rc;
	}
	if (a->cpu < 64) {
		uint64_t bit = 1ULL << a->cpu;
		e->nr_cpus += !(e->cpu_mask & bit);
		e->cpu_mask |= bit;
	} else {
		if ((rc = pairs_add(&r->cpus, i, a->cpu)) < 0)
			return rc;
		e->nr_cpus += (uint32_t)rc;
	}
	return 0;
}

/* the type grouping reads the instructions' sums: an instruction names its type */
#define CODE_KEYS                                                                                                 \
	(HWP_MEM_COLLECT_KEY(HWP_MEM_BY_SYMBOL) | HWP_MEM_COLLECT_KEY(HWP_MEM_BY_LINE) |                          \
	 HWP_MEM_COLLECT_KEY(HWP_MEM_BY_IP) | HWP_MEM_COLLECT_KEY(HWP_MEM_BY_TYPE))
#define DATA_KEYS                                                                                                 \
	(HWP_MEM_COLLECT_KEY(HWP_MEM_BY_ADDR) | HWP_MEM_COLLECT_KEY(HWP_MEM_BY_CACHELINE) |                        \
	 HWP_MEM_COLLECT_KEY(HWP_MEM_BY_OBJECT))

/* Adds a pending sample to the sums of each collected key. */
static int aggregate(struct hwp_mem_report *r, const struct hwp__mem_pending *x)
{
	const struct hwp_mem_access *a = &x->a;
	unsigned want = r->collect;
	uint32_t ci = HWP__MEM_NO_CODE;

	if (want & CODE_KEYS) {
		struct hwp__mem_code *c = code_entry(r, x, &ci);
		if (!c)
			return -ENOMEM;
		stats_add(&c->st, a, x->bucket);
	}
	if (want & DATA_KEYS) {
		struct hwp__mem_datum *e = data_entry(r, x, ci);
		if (!e)
			return -ENOMEM;
		stats_add(&e->st, a, x->bucket);
	}
	if (want & HWP_MEM_COLLECT_KEY(HWP_MEM_BY_SOURCE)) {
		struct hwp__mem_src *e = &r->src[a->source];
		if (!e->st.samples) {
			e->first = x->d;
			e->code = ci;
			r->src_order[r->nr_src++] = (uint8_t)a->source;
			r->first_src[a->source] = x->seq;
		}
		stats_add(&e->st, a, x->bucket);
	}
	if ((want & HWP_MEM_COLLECT_C2C) && a->has_addr && c2c_add(r, x) < 0)
		return -ENOMEM;
	return 0;
}

/* The lines of entry E (its key) and of its sums ST that adding X writes:
   an entry spans several lines, the counts by source and latency far
   apart. */
static inline void prefetch_entry(const void *e, const struct hwp_mem_stats *st, const struct hwp__mem_pending *x)
{
	__builtin_prefetch(e);
	__builtin_prefetch(&st->by_source[x->a.source], 1);
	__builtin_prefetch(&st->lat_by_source[x->a.source], 1);
	__builtin_prefetch(&st->hist[x->bucket], 1);
}

int hwp__mem_report_flush(struct hwp_mem_report *r)
{
	unsigned n = r->nr_pending, want = r->collect;
	bool code = want & CODE_KEYS, data = want & DATA_KEYS, c2c = want & HWP_MEM_COLLECT_C2C;
	int64_t i;

	r->nr_pending = 0;
	/* the slots of the keys, then their candidate entries, then the sums */
	for (unsigned k = 0; k < n; k++) {
		const struct hwp__mem_pending *x = &r->pending[k];
		if (code)
			hwp__hashmap_prefetch(&r->code_map, x->h_code);
		if (data)
			hwp__hashmap_prefetch(&r->data_map, x->h_data);
		if (c2c && x->a.has_addr)
			hwp__hashmap_prefetch(&r->acc_map, x->h_acc);
	}
	for (unsigned k = 0; k < n; k++) {
		const struct hwp__mem_pending *x = &r->pending[k];
		if (code && (i = hwp__hashmap_first(&r->code_map, x->h_code)) >= 0)
			prefetch_entry(&r->codes[i], &r->codes[i].st, x);
		if (data && (i = hwp__hashmap_first(&r->data_map, x->h_data)) >= 0)
			prefetch_entry(&r->data[i], &r->data[i].st, x);
		if (c2c && x->a.has_addr && (i = hwp__hashmap_first(&r->acc_map, x->h_acc)) >= 0)
			__builtin_prefetch(&r->acc[i]);
	}
	for (unsigned k = 0; k < n; k++)
		if (aggregate(r, &r->pending[k]) < 0)
			return hwp__set_error(ENOMEM, "out of memory");
	return 0;
}

int hwp_mem_report__add(struct hwp_mem_report *r, const struct hwp_event *ev, const struct hwp_thread *th)
{
	struct hwp__mem_pending *x;
	struct hwp_mem_access a;
	int rc;

	unsigned e = ev->evsel ? (unsigned)ev->evsel->idx % HWP__MEM_EVSELS : 0;
	if (ev->evsel != r->evsel_seen[e] || !ev->evsel) {
		r->evsel_seen[e] = ev->evsel;
		r->evsel_ibs[e] = ev->evsel && hwp__mem_evsel_is_ibs_op(r->s, ev->evsel);
		if (hwp_evsel__modelled(ev->evsel))
			r->modelled = true;
	}
	rc = hwp__mem_access_decode(ev, r->evsel_ibs[e], &a);
	if (rc < 0) {
		char msg[256];
		snprintf(msg, sizeof(msg), "%s", hwp_errmsg());
		return hwp__set_error(EINVAL, "%s: sample at offset %#llx: %s", hwp_session__path(r->s),
				      (unsigned long long)ev->file_offset, msg);
	}
	if (rc == 0 || (r->loads_only && !a.load) || (r->stores_only && !a.store)) {
		if (rc >= 0)
			r->skipped++;
		return rc < 0 ? rc : 0;
	}
	x = &r->pending[r->nr_pending];
	x->a = a;
	x->seq = r->seq;
	hwp__resolver_enter(r->res, th);
	rc = hwp__resolver_resolve(r->res, 1, a.ip, &x->code);
	if (rc < 0)
		return rc;
	rc = resolve_data(r, th, &a, &x->d);
	if (rc < 0)
		return rc;
	x->bucket = hwp__mem_hist_bucket(a.latency);
	x->hi = data_hi(&x->d, a.pid);
	pending_hash(x);
	/* the totals are always current */
	stats_add(&r->totals, &a, x->bucket);
	r->hist_src[x->bucket][a.source]++;
	if (++r->nr_pending == HWP__MEM_BATCH && hwp__mem_report_flush(r) < 0)
		return -ENOMEM;
	return 1;
}

int hwp_mem_report__read(struct hwp_mem_report *r)
{
	struct hwp_event ev;
	const struct hwp_thread *th;
	int n;

	while ((n = hwp_session__next(r->s, &ev, &th)) > 0) {
		if (ev.type != HWP_RECORD_SAMPLE || !ev.evsel)
			continue;
		if ((n = hwp_mem_report__add(r, &ev, th)) < 0)
			return n;
	}
	return n < 0 ? n : hwp__mem_report_flush(r);
}

const struct hwp_mem_stats *hwp_mem_report__totals(const struct hwp_mem_report *r)
{
	return &r->totals;
}

uint64_t hwp__mem_report_skipped(const struct hwp_mem_report *r)
{
	return r->skipped;
}

const uint64_t (*hwp_mem_report__hist_by_source(const struct hwp_mem_report *r))[HWP_MEM_SRC__COUNT]
{
	return (const uint64_t(*)[HWP_MEM_SRC__COUNT])r->hist_src;
}

bool hwp_mem_report__modelled(const struct hwp_mem_report *r)
{
	return r->modelled;
}

struct hwp_session *hwp_mem_report__session(const struct hwp_mem_report *r)
{
	return r->s;
}

unsigned hwp__mem_report_cache_line(const struct hwp_mem_report *r)
{
	return r->line_size;
}

size_t hwp__mem_report_entries(struct hwp_mem_report *r)
{
	if (hwp__mem_report_flush(r) < 0)
		return (size_t)-1;
	return r->nr_codes + r->nr_data + r->nr_src + r->nr_acc + r->tids.nr + r->cpus.nr + r->threads.nr;
}

/* The merge's ways in (mem_internal.h); the hot path above keeps its own
   calls inlined. */
struct hwp__mem_code *hwp__mem_code_entry(struct hwp_mem_report *r, const struct hwp__mem_pending *x, uint32_t *idx)
{
	return code_entry(r, x, idx);
}

struct hwp__mem_datum *hwp__mem_data_entry(struct hwp_mem_report *r, const struct hwp__mem_pending *x, uint32_t code)
{
	return data_entry(r, x, code);
}

struct hwp__mem_c2c_acc *hwp__mem_acc_entry(struct hwp_mem_report *r, const struct hwp__mem_pending *x,
					    uint32_t *idx)
{
	int64_t ti = thread_num(r, (uint32_t)x->a.tid, x->seq);

	return ti < 0 ? NULL : acc_entry(r, x, ti, idx);
}

int hwp__mem_pairs_add(struct hwp__mem_pairs *s, uint32_t acc, uint32_t val)
{
	return pairs_add(s, acc, val);
}

const char *hwp__mem_intern(struct hwp_mem_report *r, const char *name)
{
	return intern(r, name);
}

void hwp__mem_pending_hash(struct hwp__mem_pending *x)
{
	pending_hash(x);
}
