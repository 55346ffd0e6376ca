/* SPDX-License-Identifier: MIT */
/*
 * A memory report's groupings (mem.h), built on demand from the sums the
 * report kept while reading (mem_internal.h): the code groupings merge the
 * per-instruction sums (symbolized once each), the data groupings the
 * per-location ones, in the order the keys were first seen, so each row
 * shows its group's first sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mem_internal.h"
#include "analysis/mem_types.h"
#include "hwprof/mem.h"
#include "util/error.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/vec.h"

struct group_key {
	uint64_t a, b;
	const char *s; /* compared by content; NULL allowed */
};

/* A grouping being built: its rows and, at the same index, their keys. */
struct builder {
	struct hwp__mem_grouping *g;
	struct group_key *keys;
	size_t nr_keys, keys_cap;
	struct hwp_hashmap map;
};

/* The data type instruction C touches, its first sample's data address
   standing for the others' (one instruction reads one field: its operand
   is fixed; only the cheap path, a global's, reads the address). */
static void code_type(struct hwp_mem_report *r, struct hwp__mem_typer *ty, struct hwp__mem_code *c)
{
	struct hwp__data_type t;
	enum hwp__dtype_how how = hwp__mem_typer_find(ty, &c->loc, c->first.data_module, c->first.data_offset, &t);

	c->dhow = (uint8_t)how;
	if (how == HWP_DTYPE_STACK_OP)
		r->stack_ops += c->st.samples;
	if (how == HWP_DTYPE_UNKNOWN || how == HWP_DTYPE_STACK_OP)
		return;
	/* out of memory: the type stays unknown */
	if (!(c->dtype = hwp__mem_intern(r, t.type)))
		return;
	c->dmember = t.member[0] ? hwp__mem_intern(r, t.member) : NULL;
	c->dvar = t.var[0] ? hwp__mem_intern(r, t.var) : NULL;
	r->typed += c->st.samples;
}

void hwp__mem_symbolize_codes(struct hwp_mem_report *r)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(r->s);

	if (r->codes_symbolized)
		return;
	r->codes_symbolized = true;
	for (size_t j = 0; sym && j < r->nr_codes; j++) {
		struct hwp__mem_code *c = &r->codes[j];
		struct hwp_symbol_info si;

		if (c->loc.module < 0 || hwp_symbolizer__lookup(sym, c->loc.module, c->loc.offset, &si) < 0)
			continue;
		c->symbol = si.symbol;
		c->file = si.file;
		c->line = si.line;
		c->sym_start = si.sym_start;
		c->sym_offset = si.sym_offset;
	}
}

static int cmp_code_at(const void *pa, const void *pb, void *arg)
{
	const struct hwp__mem_code *c = arg, *a = &c[*(const uint32_t *)pa], *b = &c[*(const uint32_t *)pb];

	if (a->loc.module != b->loc.module)
		return a->loc.module < b->loc.module ? -1 : 1;
	return a->loc.offset < b->loc.offset ? -1 : a->loc.offset > b->loc.offset;
}

/* Types every distinct instruction once (the groupings that show types:
   IP and TYPE, and the typed count): the others need no DWARF beyond lines. */
static void type_codes(struct hwp_mem_report *r)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(r->s);
	struct hwp__mem_typer *ty;
	uint32_t *order;

	if (r->codes_typed || !sym)
		return;
	r->codes_typed = true;
	/* in address order: one walk per function (out of memory: unknown) */
	if (!(ty = hwp__mem_typer_new(sym)) || !(order = malloc((r->nr_codes + 1) * sizeof(*order)))) {
		hwp__mem_typer_delete(ty);
		return;
	}
	for (size_t j = 0; j < r->nr_codes; j++)
		order[j] = (uint32_t)j;
	qsort_r(order, r->nr_codes, sizeof(*order), cmp_code_at, r->codes);
	for (size_t j = 0; j < r->nr_codes; j++)
		code_type(r, ty, &r->codes[order[j]]);
	free(order);
	hwp__mem_typer_delete(ty);
}

/* A data symbol for a file-backed data address, when the ELF has one. */
static const char *data_symbol(struct hwp_mem_report *r, const struct hwp__mem_data_loc *d, uint64_t *start)
{
	struct hwp_symbolizer *sym = hwp_session__symbolizer(r->s);
	struct hwp_symbol_info si;

	uint64_t va;

	*start = 0;
	/* an offset outside the file's segments (.bss past the file) has no
	   link-time address to look up; a symbol must cover the address (a
	   zero-sized one stretched to it names the wrong object) */
	if (!sym || d->data_module < 0 ||
	    hwp_symbolizer__module_vaddr(sym, d->data_module, d->data_offset, &va) < 0 ||
	    hwp_symbolizer__lookup(sym, d->data_module, d->data_offset, &si) < 0 || !si.symbol ||
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

/* The row of key K; *FRESH when it was just made (zeroed). */
static struct hwp_mem_group *group_find(struct builder *b, const struct group_key *k, bool *fresh)
{
	struct hwp__mem_grouping *g = b->g;
	uint64_t h = hwp__hash_combine(hwp__hash_combine(hwp__hash64(k->a), k->b),
				       k->s ? hwp__hash_str(k->s) : 0);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&b->map, h);
	uint32_t i;
	struct hwp_mem_group *row;
	struct group_key *kk;

	*fresh = false;
	while (hwp__hashmap_next(&p, &i))
		if (key_eq(&b->keys[i], k))
			return &g->rows[i];
	if (!(row = HWP_VEC_PUSH(g->rows, g->nr, g->cap)) ||
	    !(kk = HWP_VEC_PUSH(b->keys, b->nr_keys, b->keys_cap)) || hwp__hashmap_add(&b->map, h, g->nr - 1) < 0) {
		hwp__set_error(ENOMEM, "out of memory");
		return NULL;
	}
	*kk = *k;
	row->data_module = -1;
	*fresh = true;
	return row;
}

void hwp__mem_stats_merge(struct hwp_mem_stats *to, const struct hwp_mem_stats *from)
{
	to->samples += from->samples;
	to->loads += from->loads;
	to->stores += from->stores;
	to->hitm += from->hitm;
	to->lat_sum += from->lat_sum;
	if (from->lat_max > to->lat_max)
		to->lat_max = from->lat_max;
	for (int s = 0; s < HWP_MEM_SRC__COUNT; s++) {
		to->by_source[s] += from->by_source[s];
		to->lat_by_source[s] += from->lat_by_source[s];
	}
	for (int b = 0; b < HWP_MEM_HIST_BUCKETS; b++)
		to->hist[b] += from->hist[b];
}

/* A new row's fields from its first sample: data D, instruction C (NULL
   unless the instructions were symbolized). */
static void row_init(struct hwp_mem_group *row, const struct hwp__mem_data_loc *d, const struct hwp__mem_code *c)
{
	row->source = d->source;
	row->data_module = d->data_module;
	row->region = d->region;
	row->data_offset = d->data_offset;
	row->data_addr = d->data_addr;
	if (c) {
		row->code = c->loc;
		row->symbol = c->symbol;
		row->sym_offset = c->sym_offset;
		row->file = c->file;
		row->line = c->line;
		row->data_type = c->dtype;
		row->data_member = c->dmember;
		row->data_var = c->dvar;
		row->data_stack_op = c->dhow == HWP_DTYPE_STACK_OP;
	}
}

/* The instruction a data row shows: its first sample's, once the code
   groupings have symbolized them (before that, none). */
static const struct hwp__mem_code *first_code(const struct hwp_mem_report *r, uint32_t ci)
{
	return r->codes_symbolized && ci != HWP__MEM_NO_CODE ? &r->codes[ci] : NULL;
}

static int add_code_rows(struct hwp_mem_report *r, enum hwp_mem_key key, struct builder *b)
{
	hwp__mem_symbolize_codes(r);
	if (key == HWP_MEM_BY_IP || key == HWP_MEM_BY_TYPE)
		type_codes(r);
	for (size_t i = 0; i < r->nr_codes; i++) {
		const struct hwp__mem_code *c = &r->codes[i];
		struct group_key k = { 0 };
		struct hwp_mem_group *row;
		bool fresh;

		if (key == HWP_MEM_BY_SYMBOL) {
			/* unknown symbols: one row per instruction */
			k.a = (uint64_t)(uint32_t)c->loc.module;
			k.b = c->symbol ? c->sym_start : c->loc.offset;
			k.s = c->symbol;
		} else if (key == HWP_MEM_BY_LINE && c->file) {
			k.a = c->line;
			k.s = c->file;
		} else if (key == HWP_MEM_BY_LINE) {
			k.a = (uint64_t)(uint32_t)c->loc.module | 1ull << 40;
			k.b = c->loc.offset;
		} else if (key == HWP_MEM_BY_TYPE) {
			/* type and member: one row per field, unknown in one */
			k.s = c->dtype;
			k.b = (uintptr_t)c->dmember; /* interned: one pointer per name */
			k.a = c->dhow == HWP_DTYPE_STACK_OP;
		} else {
			k.a = (uint64_t)(uint32_t)c->loc.module;
			k.b = c->loc.offset;
		}
		if (!(row = group_find(b, &k, &fresh)))
			return -ENOMEM;
		if (fresh) {
			row_init(row, &c->first, c);
			if (key == HWP_MEM_BY_TYPE && !c->dtype)
				row->data_var = NULL;
		}
		hwp__mem_stats_merge(&row->st, &c->st);
	}
	return 0;
}

static int add_data_rows(struct hwp_mem_report *r, enum hwp_mem_key key, struct builder *b)
{
	uint64_t line_mask = ~(uint64_t)(r->line_size - 1);

	for (size_t i = 0; i < r->nr_data; i++) {
		const struct hwp__mem_datum *x = &r->data[i];
		struct group_key k = { 0 };
		const char *dsym = NULL;
		uint64_t dstart = 0;
		struct hwp_mem_group *row;
		bool fresh;

		if (key == HWP_MEM_BY_OBJECT) {
			dsym = data_symbol(r, &x->first, &dstart);
			k.a = (uint64_t)(uint32_t)x->first.data_module;
			k.b = dsym ? dstart : 0;
			k.s = dsym ? dsym : x->first.region;
		} else {
			k.a = x->hi;
			k.b = x->first.data_offset & (key == HWP_MEM_BY_CACHELINE ? line_mask : ~0ull);
		}
		if (!(row = group_find(b, &k, &fresh)))
			return -ENOMEM;
		if (fresh) {
			row_init(row, &x->first, first_code(r, x->code));
			if (key == HWP_MEM_BY_CACHELINE) {
				row->data_offset &= line_mask;
				row->data_addr &= line_mask;
			}
			if (key == HWP_MEM_BY_OBJECT) {
				row->symbol = dsym;
				row->sym_offset = 0;
			}
		}
		hwp__mem_stats_merge(&row->st, &x->st);
	}
	return 0;
}

static int add_source_rows(struct hwp_mem_report *r, struct builder *b)
{
	for (unsigned i = 0; i < r->nr_src; i++) {
		const struct hwp__mem_src *x = &r->src[r->src_order[i]];
		struct group_key k = { .a = r->src_order[i] };
		struct hwp_mem_group *row;
		bool fresh;

		if (!(row = group_find(b, &k, &fresh)))
			return -ENOMEM;
		row_init(row, &x->first, first_code(r, x->code));
		hwp__mem_stats_merge(&row->st, &x->st);
	}
	return 0;
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

/* True when every grouping of KEYS (HWP_MEM_COLLECT_KEY bits) the report
   collects is built. */
static bool built(const struct hwp_mem_report *r, unsigned keys)
{
	for (int k = 0; k < HWP_MEM_KEY__COUNT; k++)
		if ((r->collect & keys & HWP_MEM_COLLECT_KEY(k)) && !r->g[k].done)
			return false;
	return true;
}

/* Frees the tables no grouping still to be built reads: with a key per
   sample (every address new), they are as large as the rows. */
static void release_tables(struct hwp_mem_report *r)
{
	unsigned data_keys = HWP_MEM_COLLECT_KEY(HWP_MEM_BY_ADDR) | HWP_MEM_COLLECT_KEY(HWP_MEM_BY_CACHELINE) |
			     HWP_MEM_COLLECT_KEY(HWP_MEM_BY_OBJECT);

	if (r->data && built(r, data_keys)) {
		free(r->data);
		r->data = NULL;
		r->nr_data = r->data_cap = 0;
		hwp__hashmap_free(&r->data_map);
		memset(&r->data_map, 0, sizeof(r->data_map));
	}
	/* the data and source rows show their first sample's instruction */
	if (r->codes && built(r, ~0u)) {
		free(r->codes);
		r->codes = NULL;
		r->nr_codes = r->codes_cap = 0;
		hwp__hashmap_free(&r->code_map);
		memset(&r->code_map, 0, sizeof(r->code_map));
	}
}

static const char *const key_names[HWP_MEM_KEY__COUNT] = {
	"symbol", "line", "ip", "addr", "cacheline", "object", "source", "type",
};

size_t hwp_mem_report__groups(struct hwp_mem_report *r, enum hwp_mem_key key,
			      const struct hwp_mem_group **out)
{
	struct builder b = { 0 };
	int rc;

	if ((unsigned)key >= HWP_MEM_KEY__COUNT) {
		hwp__set_error(EINVAL, "unknown memory grouping %d", (int)key);
		return (size_t)-1;
	}
	if (!(r->collect & HWP_MEM_COLLECT_KEY(key))) {
		hwp__set_error(EINVAL, "memory grouping by %s: the report was made without collecting it",
			       key_names[key]);
		return (size_t)-1;
	}
	b.g = &r->g[key];
	if (hwp__mem_report_flush(r) < 0)
		return (size_t)-1;
	if (b.g->done) {
		*out = b.g->rows;
		return b.g->nr;
	}
	if (key == HWP_MEM_BY_SYMBOL || key == HWP_MEM_BY_LINE || key == HWP_MEM_BY_IP || key == HWP_MEM_BY_TYPE)
		rc = add_code_rows(r, key, &b);
	else if (key == HWP_MEM_BY_SOURCE)
		rc = add_source_rows(r, &b);
	else
		rc = add_data_rows(r, key, &b);
	free(b.keys);
	hwp__hashmap_free(&b.map);
	if (rc < 0) {
		free(b.g->rows);
		memset(b.g, 0, sizeof(*b.g));
		return (size_t)-1;
	}
	hwp__sort(b.g->rows, b.g->nr, sizeof(*b.g->rows), cmp_groups);
	b.g->done = true;
	release_tables(r);
	*out = b.g->rows;
	return b.g->nr;
}

uint64_t hwp_mem_report__typed(struct hwp_mem_report *r, uint64_t *stack_ops)
{
	unsigned code_keys = HWP_MEM_COLLECT_KEY(HWP_MEM_BY_SYMBOL) | HWP_MEM_COLLECT_KEY(HWP_MEM_BY_LINE) |
			     HWP_MEM_COLLECT_KEY(HWP_MEM_BY_IP) | HWP_MEM_COLLECT_KEY(HWP_MEM_BY_TYPE);

	if (stack_ops)
		*stack_ops = 0;
	if (!(r->collect & code_keys)) {
		hwp__set_error(EINVAL, "memory data types: the report was made without collecting a code grouping");
		return (uint64_t)-1;
	}
	if (hwp__mem_report_flush(r) < 0)
		return (uint64_t)-1;
	/* the instructions are typed once (their table may be freed after:
	   the counts stay) */
	if (!r->codes_typed && r->codes_symbolized && !r->codes && r->nr_codes == 0 && r->totals.samples) {
		hwp__set_error(EINVAL, "memory data types: asked after the instructions' table was released");
		return (uint64_t)-1;
	}
	hwp__mem_symbolize_codes(r);
	type_codes(r);
	if (stack_ops)
		*stack_ops = r->stack_ops;
	return r->typed;
}
