/* SPDX-License-Identifier: MIT */
/*
 * Memory accesses of precise samples: decoded once into records (with the
 * code location and the data location resolved while the address spaces are
 * those of the sample's time), totalled as they come, grouped on demand.
 * Grouping by code symbolizes each distinct instruction once.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mem_internal.h"
#include "hwprof/mem.h"
#include "util/arena.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/opts.h"
#include "util/vec.h"

#define KERNEL_START 0xffff800000000000ULL

struct group_key {
	uint64_t a, b;
	const char *s; /* compared by content; NULL allowed */
};

struct grouping {
	bool done;
	struct hwp_mem_group *rows;
	struct group_key *keys;
	size_t nr, cap, nr_keys, keys_cap;
	struct hwp_hashmap map;
};

/* One distinct instruction, symbolized once. */
struct code_info {
	struct hwp_code_loc loc;
	bool looked_up;
	const char *symbol, *file;
	unsigned line;
	uint64_t sym_start, sym_offset;
};

struct hwp_mem_report {
	struct hwp_session *s;
	unsigned line_size;
	bool loads_only, stores_only, modelled;
	struct hwp_mem_stats totals;
	uint64_t hist_src[HWP_MEM_HIST_BUCKETS][HWP_MEM_SRC__COUNT];
	uint64_t skipped;
	struct hwp_mem_record *recs;
	size_t nr, cap;
	struct hwp_arena strings;
	/* interned region names */
	const char **regions;
	size_t nr_regions, regions_cap;
	struct hwp_hashmap region_map;
	/* evsel -> is ibs_op, cached by evsel pointer */
	const struct hwp_evsel *last_evsel;
	bool last_ibs;
	struct grouping g[HWP_MEM_KEY__COUNT];
	/* distinct instructions */
	struct code_info *codes;
	size_t nr_codes, codes_cap;
	struct hwp_hashmap code_map;
	uint32_t *rec_code; /* per record: index into codes */
};

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
	r->line_size = line;
	r->loads_only = o.loads_only;
	r->stores_only = o.stores_only;
	return r;
}

void hwp_mem_report__delete(struct hwp_mem_report *r)
{
	if (!r)
		return;
	for (int k = 0; k < HWP_MEM_KEY__COUNT; k++) {
		free(r->g[k].rows);
		free(r->g[k].keys);
		hwp__hashmap_free(&r->g[k].map);
	}
	free(r->recs);
	free(r->regions);
	hwp__hashmap_free(&r->region_map);
	free(r->codes);
	hwp__hashmap_free(&r->code_map);
	free(r->rec_code);
	hwp__arena_free(&r->strings);
	free(r);
}

static const char *intern(struct hwp_mem_report *r, const char *name)
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

static void stats_add(struct hwp_mem_stats *st, const struct hwp_mem_access *a)
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
	st->hist[hwp__mem_hist_bucket(a->latency)]++;
}

/* The data address: module + offset in a file-backed map, else the address
   itself with the region's name (heap, stack, anon). */
static int resolve_data(struct hwp_mem_report *r, const struct hwp_thread *th, struct hwp_mem_record *rec)
{
	const struct hwp_map *m = NULL;
	uint64_t addr = rec->a.addr;

	rec->data_module = -1;
	rec->data_offset = addr;
	rec->region = NULL;
	if (!rec->a.has_addr)
		return 0;
	if (th)
		m = hwp_thread__find_map(th, addr >= KERNEL_START ? HWP_MISC_KERNEL : HWP_MISC_USER, addr);
	if (!m)
		return 0;
	if (m->filename && !(rec->region = intern(r, m->filename)))
		return hwp__set_error(ENOMEM, "out of memory");
	if (!m->identity && !m->kernel) {
		struct hwp_code_loc loc;
		int rc = hwp_session__resolve(r->s, th, addr, 2, &loc);
		if (rc < 0)
			return rc;
		rec->data_module = loc.module;
		rec->data_offset = loc.offset;
	}
	return 0;
}

int hwp_mem_report__add(struct hwp_mem_report *r, const struct hwp_event *ev, const struct hwp_thread *th)
{
	struct hwp_mem_record *rec;
	struct hwp_mem_access a;
	int rc;

	if (ev->evsel != r->last_evsel) {
		r->last_evsel = ev->evsel;
		r->last_ibs = ev->evsel && hwp__mem_evsel_is_ibs_op(r->s, ev->evsel);
		if (hwp_evsel__modelled(ev->evsel))
			r->modelled = true;
	}
	rc = hwp__mem_access_decode(ev, r->last_ibs, &a);
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
	rec = HWP_VEC_PUSH(r->recs, r->nr, r->cap);
	if (!rec)
		return hwp__set_error(ENOMEM, "out of memory");
	rec->a = a;
	rc = hwp_session__resolve(r->s, th, a.ip, 1, &rec->code);
	if (rc < 0)
		return rc;
	rc = resolve_data(r, th, rec);
	if (rc < 0)
		return rc;
	stats_add(&r->totals, &a);
	r->hist_src[hwp__mem_hist_bucket(a.latency)][a.source]++;
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
	return n;
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

size_t hwp_mem_report__records(const struct hwp_mem_report *r, const struct hwp_mem_record **out)
{
	*out = r->recs;
	return r->nr;
}

struct hwp_session *hwp_mem_report__session(const struct hwp_mem_report *r)
{
	return r->s;
}

unsigned hwp__mem_report_cache_line(const struct hwp_mem_report *r)
{
	return r->line_size;
}

/* Each record's distinct instruction, symbolized once. */
static int symbolize_codes(struct hwp_mem_report *r)
{
	struct hwp_symbolizer *sym;

	if (r->rec_code || r->nr == 0)
		return 0;
	r->rec_code = calloc(r->nr, sizeof(*r->rec_code));
	if (!r->rec_code)
		return hwp__set_error(ENOMEM, "out of memory");
	for (size_t i = 0; i < r->nr; i++) {
		const struct hwp_code_loc *l = &r->recs[i].code;
		uint64_t h = hwp__hash_combine(hwp__hash64((uint64_t)(uint32_t)l->module), l->offset);
		struct hwp_hashmap_probe p = hwp__hashmap_probe(&r->code_map, h);
		uint32_t j;
		bool found = false;

		while (hwp__hashmap_next(&p, &j))
			if (r->codes[j].loc.module == l->module && r->codes[j].loc.offset == l->offset) {
				found = true;
				break;
			}
		if (!found) {
			struct code_info *c = HWP_VEC_PUSH(r->codes, r->nr_codes, r->codes_cap);
			if (!c || hwp__hashmap_add(&r->code_map, h, r->nr_codes - 1) < 0)
				return hwp__set_error(ENOMEM, "out of memory");
			memset(c, 0, sizeof(*c));
			c->loc = *l;
			j = (uint32_t)(r->nr_codes - 1);
		}
		r->rec_code[i] = j;
	}
	sym = hwp_session__symbolizer(r->s);
	for (size_t j = 0; sym && j < r->nr_codes; j++) {
		struct code_info *c = &r->codes[j];
		struct hwp_symbol_info si;

		c->looked_up = true;
		if (c->loc.module < 0 || hwp_symbolizer__lookup(sym, c->loc.module, c->loc.offset, &si) < 0)
			continue;
		c->symbol = si.symbol;
		c->file = si.file;
		c->line = si.line;
		c->sym_start = si.sym_start;
		c->sym_offset = si.sym_offset;
	}
	return 0;
}

/* A data symbol for a file-backed data address, when the ELF has one. */
static const char *data_symbol(struct hwp_mem_report *r, const struct hwp_mem_record *rec, uint64_t *start)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(r->s);
	struct hwp_symbol_info si;

	uint64_t va;

	*start = 0;
	/* an offset outside the file's segments (.bss past the file) has no
	   link-time address to look up; a symbol must cover the address (a
	   zero-sized one stretched to it names the wrong object) */
	if (!sym || rec->data_module < 0 ||
	    hwp_symbolizer__module_vaddr(sym, rec->data_module, rec->data_offset, &va) < 0 ||
	    hwp_symbolizer__lookup(sym, rec->data_module, rec->data_offset, &si) < 0 || !si.symbol ||
	    !si.sym_size || si.vaddr - si.sym_start >= si.sym_size)
		return NULL;
	*start = si.sym_start;
	return si.symbol;
}

static bool key_eq(const struct group_key *x, const struct group_key *y)
{
	if (x->a != y->a || x->b != y->b)
		return false;
	if (!x->s || !y->s)
		return x->s == y->s;
	return !strcmp(x->s, y->s);
}

static struct hwp_mem_group *group_find(struct grouping *g, const struct group_key *k, bool *fresh)
{
	uint64_t h = hwp__hash_combine(hwp__hash_combine(hwp__hash64(k->a), k->b),
				       k->s ? hwp__hash_str(k->s) : 0);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&g->map, h);
	uint32_t i;
	struct hwp_mem_group *row;
	struct group_key *kk;

	*fresh = false;
	while (hwp__hashmap_next(&p, &i))
		if (key_eq(&g->keys[i], k))
			return &g->rows[i];
	if (!(row = HWP_VEC_PUSH(g->rows, g->nr, g->cap)) ||
	    !(kk = HWP_VEC_PUSH(g->keys, g->nr_keys, g->keys_cap))) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	*kk = *k;
	memset(row, 0, sizeof(*row));
	row->data_module = -1;
	if (hwp__hashmap_add(&g->map, h, g->nr - 1) < 0) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	*fresh = true;
	return row;
}

static int cmp_groups(const void *pa, const void *pb)
{
	const struct hwp_mem_group *a = pa, *b = pb;

	if (a->st.samples != b->st.samples)
		return a->st.samples > b->st.samples ? -1 : 1;
	if (a->st.lat_sum != b->st.lat_sum)
		return a->st.lat_sum > b->st.lat_sum ? -1 : 1;
	if (a->code.module != b->code.module)
		return a->code.module < b->code.module ? -1 : 1;
	if (a->code.offset != b->code.offset)
		return a->code.offset < b->code.offset ? -1 : 1;
	if (a->data_offset != b->data_offset)
		return a->data_offset < b->data_offset ? -1 : 1;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return (int)a->source - (int)b->source;
}

size_t hwp_mem_report__groups(struct hwp_mem_report *r, enum hwp_mem_key key,
			      const struct hwp_mem_group **out)
{
	struct grouping *g;

	if ((unsigned)key >= HWP_MEM_KEY__COUNT) {
		hwp__set_error(EINVAL, "unknown memory grouping %d", (int)key);
		return (size_t)-1;
	}
	g = &r->g[key];
	if (g->done) {
		*out = g->rows;
		return g->nr;
	}
	if ((key == HWP_MEM_BY_SYMBOL || key == HWP_MEM_BY_LINE || key == HWP_MEM_BY_IP) &&
	    symbolize_codes(r) < 0)
		return (size_t)-1;
	for (size_t i = 0; i < r->nr; i++) {
		const struct hwp_mem_record *rec = &r->recs[i];
		const struct code_info *c = r->rec_code ? &r->codes[r->rec_code[i]] : NULL;
		struct group_key k = { 0 };
		const char *dsym = NULL;
		uint64_t dstart = 0;
		struct hwp_mem_group *row;
		bool fresh;

		switch (key) {
		case HWP_MEM_BY_SYMBOL:
			/* unknown symbols: one row per instruction */
			k.a = (uint64_t)(uint32_t)c->loc.module;
			k.b = c->symbol ? c->sym_start : c->loc.offset;
			k.s = c->symbol;
			break;
		case HWP_MEM_BY_LINE:
			if (c->file) {
				k.a = c->line;
				k.s = c->file;
			} else {
				k.a = (uint64_t)(uint32_t)c->loc.module | 1ull << 40;
				k.b = c->loc.offset;
			}
			break;
		case HWP_MEM_BY_IP:
			k.a = (uint64_t)(uint32_t)c->loc.module;
			k.b = c->loc.offset;
			break;
		case HWP_MEM_BY_ADDR:
		case HWP_MEM_BY_CACHELINE:
			/* anonymous memory is per process */
			k.a = rec->data_module >= 0 ? (uint64_t)(uint32_t)rec->data_module
						    : (uint64_t)(uint32_t)rec->a.pid << 32 | 0xffffffffu;
			k.b = rec->data_offset;
			if (key == HWP_MEM_BY_CACHELINE)
				k.b &= ~(uint64_t)(r->line_size - 1);
			break;
		case HWP_MEM_BY_OBJECT:
			dsym = data_symbol(r, rec, &dstart);
			k.a = (uint64_t)(uint32_t)rec->data_module;
			k.b = dsym ? dstart : 0;
			k.s = dsym ? dsym : rec->region;
			break;
		case HWP_MEM_BY_SOURCE:
			k.a = rec->a.source;
			break;
		default:
			break;
		}
		if (!(row = group_find(g, &k, &fresh)))
			return (size_t)-1;
		if (fresh) {
			row->source = rec->a.source;
			row->data_module = rec->data_module;
			row->region = rec->region;
			row->data_offset = rec->data_offset;
			row->data_addr = rec->a.addr;
			if (key == HWP_MEM_BY_CACHELINE) {
				row->data_offset &= ~(uint64_t)(r->line_size - 1);
				row->data_addr &= ~(uint64_t)(r->line_size - 1);
			}
			if (c) {
				row->code = c->loc;
				row->symbol = c->symbol;
				row->sym_offset = c->sym_offset;
				row->file = c->file;
				row->line = c->line;
			}
			if (key == HWP_MEM_BY_OBJECT) {
				row->symbol = dsym;
				row->sym_offset = 0;
			}
		}
		stats_add(&row->st, &rec->a);
	}
	if (g->nr > 1)
		qsort(g->rows, g->nr, sizeof(*g->rows), cmp_groups);
	g->done = true;
	/* the index no longer matches the sorted rows; it is not used again */
	hwp__hashmap_free(&g->map);
	memset(&g->map, 0, sizeof(g->map));
	*out = g->rows;
	return g->nr;
}
