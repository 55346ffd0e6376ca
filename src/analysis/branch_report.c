/* SPDX-License-Identifier: MIT */
/*
 * The branch report: the table's (from, to, flags) rows merged as perf 6.1's
 * sort keys compare them (see identity()), each merged row rendered from its
 * hottest branch, ordered by count. Memory grows with the distinct branches
 * and the distinct texts of their keys, never with the input.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "hwprof/perf_data.h"
#include "analysis/branch_ipc.h"
#include "analysis/branch_loc.h"
#include "util/arena.h"
#include "util/hash.h"
#include "util/hashmap.h"
#include "util/opts.h"
#include "util/vec.h"
#include "util/error.h"

static const char *type_text(uint8_t type)
{
	static const char *const names[16] = {
		"N/A", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
		"SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "EXTEND_ABI",
	};
	return names[type & 15];
}

struct hwp_branch_report {
	struct hwp_branch_report_row *rows;
	uint64_t *ids; /* per row: 2 words per key, perf's comparison identity */
	size_t nr;
	size_t nkeys;
	uint64_t total;
	struct hwp_arena arena;
	/* texts that identify rows (source lines, module names), interned */
	const char **texts;
	size_t ntexts, captexts;
	struct hwp_hashmap text_map;
	struct hwp__ipc *ipc; /* with the ipc_lbr key */
	struct hwp_symbolizer *sym;
};

/* An id per distinct text: rows whose key prints the same share it. Grows
   with the distinct texts only. ~0 when out of memory. */
static uint64_t intern(struct hwp_branch_report *r, const char *text)
{
	uint64_t h = hwp__hash_str(text);
	struct hwp_hashmap_probe p = hwp__hashmap_probe(&r->text_map, h);
	uint32_t i;

	while (hwp__hashmap_next(&p, &i))
		if (!strcmp(r->texts[i], text))
			return i;
	const char **slot = HWP_VEC_PUSH(r->texts, r->ntexts, r->captexts);
	if (!slot)
		return ~0ULL;
	if (!(*slot = hwp__arena_strndup(&r->arena, text, SIZE_MAX)) ||
	    hwp__hashmap_add(&r->text_map, h, r->ntexts - 1) < 0) {
		r->ntexts--;
		return ~0ULL;
	}
	return r->ntexts - 1;
}

/* qsort has no context argument: the row being compared is found from the
   identity words, which sit at ids + row * 2 * nkeys. */
static _Thread_local size_t sort_words;

static int cmp_ids(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	for (size_t i = 0; i < sort_words; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static int cmp_count(const void *a, const void *b)
{
	const struct hwp_branch_report_row *x = a, *y = b;
	if (x->c.count != y->c.count)
		return x->c.count < y->c.count ? 1 : -1;
	for (size_t k = 0; k < HWP_MAX_SORT_KEYS && x->cells[k] && y->cells[k]; k++) {
		int c = strcmp(x->cells[k], y->cells[k]);
		if (c)
			return c;
	}
	return 0;
}

static const struct hwp_code_loc *key_loc(enum hwp_branch_key_id k, const struct hwp_branch_key *key)
{
	switch (k) {
	case HWP_KEY_SYMBOL_FROM:
	case HWP_KEY_SRCLINE_FROM:
	case HWP_KEY_DSO_FROM:
	case HWP_KEY_ADDR_FROM:
		return &key->from;
	case HWP_KEY_SYMBOL_TO:
	case HWP_KEY_SRCLINE_TO:
	case HWP_KEY_DSO_TO:
	case HWP_KEY_ADDR_TO:
	case HWP_KEY_SYMBOL: /* perf's sample keys: branch mode sets the sample to the target */
	case HWP_KEY_DSO:
	case HWP_KEY_SRCLINE:
	case HWP_KEY_IPC_LBR: /* perf: sort__sym_cmp on the sample (target) symbol */
		return &key->to;
	default:
		return NULL;
	}
}

/*
 * What perf 6.1's sort keys compare (util/sort.c):
 *  - symbol_from/to, symbol: the symbol (_sort__sym_cmp: same symbol, or the
 *    same start and end); without one, the address;
 *  - srcline_from/to, srcline: the TEXT map__srcline() prints (strcmp), so
 *    two branches on one line are one row, and so are all "??:0";
 *  - dso_from/to, dso: the module's short name (_sort__dso_cmp strcmp()s
 *    dso->short_name);
 *  - addr_from/to: the address (perf: the raw one, which splits one branch
 *    of one binary per load address; here module + offset);
 *  - the flag keys by value.
 * Returns 0, or -ENOMEM.
 */
static int identity(struct hwp_branch_report *r, struct hwp_symbolizer *s, enum hwp_branch_key_id k,
		    const struct hwp_branch_key *key, uint64_t out[2])
{
	const struct hwp_code_loc *l = key_loc(k, key);
	struct hwp_symbol_info si;
	char text[1024];

	out[0] = out[1] = 0;
	switch (k) {
	case HWP_KEY_TYPE:
		out[0] = key->type;
		return 0;
	case HWP_KEY_MISPREDICT:
		out[0] = key->mispred_state;
		return 0;
	case HWP_KEY_CYCLES:
		out[0] = key->cycles;
		return 0;
	case HWP_KEY_IN_TX:
		out[0] = key->tx & 1;
		return 0;
	case HWP_KEY_ABORT:
		out[0] = (key->tx >> 1) & 1;
		return 0;
	case HWP_KEY_SRCLINE_FROM:
	case HWP_KEY_SRCLINE_TO:
	case HWP_KEY_SRCLINE:
		hwp_loc__format_srcline(s, l, text, sizeof(text));
		return (out[0] = intern(r, text)) == ~0ULL ? -ENOMEM : 0;
	case HWP_KEY_DSO_FROM:
	case HWP_KEY_DSO_TO:
	case HWP_KEY_DSO:
		if (l->module < 0) {
			out[0] = ~0ULL; /* no map: perf's NULL dso, apart from every name */
			return 0;
		}
		out[1] = intern(r, hwp_symbolizer__module_short_name(s, l->module));
		return out[1] == ~0ULL ? -ENOMEM : 0;
	default:
		break;
	}
	out[0] = (uint64_t)(uint32_t)l->module;
	out[1] = l->offset;
	if (k == HWP_KEY_SYMBOL_FROM || k == HWP_KEY_SYMBOL_TO || k == HWP_KEY_SYMBOL || k == HWP_KEY_IPC_LBR) {
		memset(&si, 0, sizeof(si));
		if (l->module >= 0 && hwp_symbolizer__lookup(s, l->module, l->offset, &si) == 0 && si.symbol)
			out[1] = l->offset - si.sym_offset; /* the symbol's start */
		else
			out[0] |= 1ULL << 40; /* no symbol: by address, apart from symbols */
	}
	return 0;
}

static void render_cell(struct hwp_branch_report *r, struct hwp_symbolizer *s, enum hwp_branch_key_id k,
			const struct hwp_branch_key *key, char *buf, size_t len)
{
	const struct hwp_code_loc *l = key_loc(k, key);
	double ipc, cov;

	switch (k) {
	case HWP_KEY_SYMBOL_FROM:
	case HWP_KEY_SYMBOL_TO:
		hwp_loc__format_symbol(s, l, buf, len);
		break;
	case HWP_KEY_SYMBOL:
		hwp__loc_format_branch_sym(s, l, buf, len);
		break;
	case HWP_KEY_SRCLINE_FROM:
	case HWP_KEY_SRCLINE_TO:
	case HWP_KEY_SRCLINE:
		hwp_loc__format_srcline(s, l, buf, len);
		break;
	case HWP_KEY_DSO_FROM:
	case HWP_KEY_DSO_TO:
	case HWP_KEY_DSO:
		hwp_loc__format_dso(s, l, buf, len);
		break;
	case HWP_KEY_ADDR_FROM:
	case HWP_KEY_ADDR_TO:
		hwp_loc__format_addr(s, l, buf, len);
		break;
	case HWP_KEY_TYPE:
		snprintf(buf, len, "%s", type_text(key->type));
		break;
	case HWP_KEY_MISPREDICT:
		/* perf: predicted wins over mispredicted */
		snprintf(buf, len, "%s", key->mispred_state & 2 ? "N" : key->mispred_state & 1 ? "Y" : "N/A");
		break;
	case HWP_KEY_CYCLES:
		if (key->cycles)
			snprintf(buf, len, "%u", key->cycles);
		else
			snprintf(buf, len, "-");
		break;
	case HWP_KEY_IN_TX: /* perf: "T" or "." */
		snprintf(buf, len, "%s", key->tx & 1 ? "T" : ".");
		break;
	case HWP_KEY_ABORT: /* perf: "A" or "." */
		snprintf(buf, len, "%s", key->tx & 2 ? "A" : ".");
		break;
	case HWP_KEY_IPC_LBR: /* perf's hist_entry__sym_ipc_snprintf() */
		if (r->ipc && hwp__ipc_of(r->ipc, s, l, &ipc, &cov))
			snprintf(buf, len, "%-5.2f [%5.1f%%]", ipc, cov);
		else
			snprintf(buf, len, "-");
		break;
	default:
		buf[0] = 0;
	}
}

static bool keep(struct hwp_symbolizer *s, const struct hwp_branch_key *k,
		 const struct hwp_branch_report_filter *f)
{
	char a[512], b[512];

	if (!f)
		return true;
	if (f->dso) {
		hwp_loc__format_dso(s, &k->from, a, sizeof(a));
		hwp_loc__format_dso(s, &k->to, b, sizeof(b));
		if (strcmp(a, f->dso) && strcmp(b, f->dso))
			return false;
	}
	if (f->sym) {
		hwp_loc__format_symbol(s, &k->from, a, sizeof(a));
		hwp_loc__format_symbol(s, &k->to, b, sizeof(b));
		if (!strstr(a, f->sym) && !strstr(b, f->sym))
			return false;
	}
	return true;
}

struct hwp_branch_report *hwp_branch_report__new(const struct hwp_branch_table *t,
						 struct hwp_symbolizer *sym,
						 const enum hwp_branch_key_id *keys, size_t nkeys,
						 const struct hwp_branch_report_filter *f)
{
	struct hwp_branch_report_opts o = { .sz = sizeof(o), .filter = f };

	return hwp_branch_report__new_opts(t, sym, keys, nkeys, &o);
}

static bool has_key(const enum hwp_branch_key_id *keys, size_t n, enum hwp_branch_key_id k)
{
	for (size_t i = 0; i < n; i++)
		if (keys[i] == k)
			return true;
	return false;
}

bool hwp_branch_report__ipc(const struct hwp_branch_report *r, const struct hwp_code_loc *l,
			    double *ipc, double *coverage_percent)
{
	*ipc = *coverage_percent = 0;
	return r->ipc && hwp__ipc_of(r->ipc, r->sym, l, ipc, coverage_percent);
}

struct hwp_branch_report *hwp_branch_report__new_opts(const struct hwp_branch_table *t,
						      struct hwp_symbolizer *sym,
						      const enum hwp_branch_key_id *keys, size_t nkeys,
						      const struct hwp_branch_report_opts *opts)
{
	struct hwp_branch_report_opts o = { 0 };
	const struct hwp_branch_report_filter *f;

	if (HWP_OPTS_LOAD(opts, &o, struct hwp_branch_report_opts)) {
		errno = EINVAL;
		return NULL;
	}
	f = o.filter;
	struct hwp_branch_report *r;
	size_t n;
	size_t words = 2 * nkeys + 1; /* identity words, then the row index */

	if (!t || !keys || nkeys == 0 || nkeys >= HWP_MAX_SORT_KEYS) {
		if (!t)
			hwp__set_error(EINVAL, "branch report: no branch table given");
		else if (!keys || nkeys == 0)
			hwp__set_error(EINVAL, "branch report: no sort keys given");
		else
			hwp__set_error(EINVAL, "branch report: %zu sort keys, at most %d are supported", nkeys,
				       HWP_MAX_SORT_KEYS - 1);
		return NULL;
	}
	const struct hwp_branch_row *in = hwp_branch_table__rows(t, &n);
	r = calloc(1, sizeof(*r));
	if (!r) {
		hwp__set_error(ENOMEM, "out of memory building the branch report");
		return NULL;
	}
	r->nkeys = nkeys;
	r->sym = sym;
	r->total = hwp_branch_table__total(t);
	r->ids = calloc((n ? n : 1) * words, sizeof(*r->ids));
	struct hwp_branch_report_row *tmp = calloc(n ? n : 1, sizeof(*tmp));
	size_t *rep = malloc((n ? n : 1) * sizeof(*rep)); /* per row: its hottest table row */
	if (!r->ids || !tmp || !rep)
		goto oom;
	if (has_key(keys, nkeys, HWP_KEY_IPC_LBR) && !(r->ipc = hwp__ipc_new(o.blocks, sym)))
		goto oom;
	/* Identities first: group table rows as perf's hist entries group. */
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (!keep(sym, &in[i].key, f))
			continue;
		uint64_t *id = &r->ids[kept * words];
		for (size_t k = 0; k < nkeys; k++)
			if (identity(r, sym, keys[k], &in[i].key, &id[2 * k]) < 0)
				goto oom;
		id[2 * nkeys] = i;
		kept++;
	}
	sort_words = 2 * nkeys;
	qsort(r->ids, kept, words * sizeof(*r->ids), cmp_ids);
	for (size_t i = 0; i < kept; i++) {
		const uint64_t *id = &r->ids[i * words];
		const struct hwp_branch_row *src = &in[id[2 * nkeys]];
		if (r->nr && cmp_ids(id, &r->ids[(i - 1) * words]) == 0) {
			struct hwp_branch_counts *a = &tmp[r->nr - 1].c;
			if (src->c.count > in[rep[r->nr - 1]].c.count)
				rep[r->nr - 1] = id[2 * nkeys];
			tmp[r->nr - 1].branches++;
			a->count += src->c.count;
			a->mispred += src->c.mispred;
			a->predicted += src->c.predicted;
			a->cycles_sum += src->c.cycles_sum;
			a->cycles_n += src->c.cycles_n;
			continue;
		}
		rep[r->nr] = id[2 * nkeys];
		struct hwp_branch_report_row *row = &tmp[r->nr++];
		row->c = src->c;
		row->branches = 1;
	}
	/* Cells from each row's hottest branch (all of them print the keys alike). */
	for (size_t i = 0; i < r->nr; i++) {
		struct hwp_branch_report_row *row = &tmp[i];
		char cell[1024];

		row->key = in[rep[i]].key;
		for (size_t k = 0; k < nkeys; k++) {
			render_cell(r, sym, keys[k], &row->key, cell, sizeof(cell));
			row->cells[k] = hwp__arena_strndup(&r->arena, cell, sizeof(cell));
			if (!row->cells[k])
				goto oom;
		}
	}
	free(rep);
	rep = NULL;
	r->rows = tmp;
	tmp = NULL;
	qsort(r->rows, r->nr, sizeof(*r->rows), cmp_count);
	if (f && f->min_percent > 0 && r->total) {
		size_t k = 0;
		while (k < r->nr && 100.0 * (double)r->rows[k].c.count / (double)r->total >= f->min_percent)
			k++;
		r->nr = k;
	}
	return r;
oom:
	free(tmp);
	free(rep);
	hwp_branch_report__delete(r);
	hwp__set_error(ENOMEM, "out of memory building the branch report (%zu branch rows)", n);
	return NULL;
}

void hwp_branch_report__delete(struct hwp_branch_report *r)
{
	if (!r)
		return;
	free(r->rows);
	free(r->ids);
	free(r->texts);
	hwp__hashmap_free(&r->text_map);
	hwp__ipc_delete(r->ipc);
	hwp__arena_free(&r->arena);
	free(r);
}

size_t hwp_branch_report__rows(const struct hwp_branch_report *r,
			       const struct hwp_branch_report_row **rows)
{
	*rows = r->rows;
	return r->nr;
}

uint64_t hwp_branch_report__total(const struct hwp_branch_report *r)
{
	return r->total;
}
