/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hwprof/branch_report.h"
#include "hwprof/hwprof.h"
#include "hwprof/perf_abi.h"
#include "hwprof/perf_data.h"
#include "util/arena.h"

static const struct {
	const char *name, *title;
} key_info[HWP_KEY_COUNT] = {
	[HWP_KEY_SYMBOL_FROM] = { "symbol_from", "Source Symbol" },
	[HWP_KEY_SYMBOL_TO] = { "symbol_to", "Target Symbol" },
	[HWP_KEY_SRCLINE_FROM] = { "srcline_from", "From Source:Line" },
	[HWP_KEY_SRCLINE_TO] = { "srcline_to", "To Source:Line" },
	[HWP_KEY_DSO_FROM] = { "dso_from", "Source Shared Object" },
	[HWP_KEY_DSO_TO] = { "dso_to", "Target Shared Object" },
	[HWP_KEY_ADDR_FROM] = { "addr_from", "Source Address" },
	[HWP_KEY_ADDR_TO] = { "addr_to", "Target Address" },
	[HWP_KEY_TYPE] = { "type", "Branch Type" },
	[HWP_KEY_MISPREDICT] = { "mispredict", "Branch Mispredicted" },
	[HWP_KEY_CYCLES] = { "cycles", "Basic Block Cycles" },
};

const char *hwp_branch_key__name(enum hwp_branch_key_id k)
{
	return k < HWP_KEY_COUNT ? key_info[k].name : "?";
}

const char *hwp_branch_key__title(enum hwp_branch_key_id k)
{
	return k < HWP_KEY_COUNT ? key_info[k].title : "?";
}

int hwp_branch_keys__parse(const char *spec, enum hwp_branch_key_id *keys, size_t max)
{
	size_t n = 0;
	const char *p = spec;

	while (*p) {
		size_t len = strcspn(p, ",");
		int found = -1;
		for (int k = 0; k < HWP_KEY_COUNT; k++)
			if (strlen(key_info[k].name) == len && !strncmp(p, key_info[k].name, len))
				found = k;
		if (found < 0) {
			char known[512] = "";
			for (int k = 0; k < HWP_KEY_COUNT; k++) {
				strncat(known, key_info[k].name, sizeof(known) - strlen(known) - 2);
				if (k + 1 < HWP_KEY_COUNT)
					strncat(known, ",", sizeof(known) - strlen(known) - 1);
			}
			return hwp_set_error(EINVAL, "sort keys: unknown key '%.*s' (known: %s)", (int)len, p, known);
		}
		if (n == max)
			return hwp_set_error(EINVAL, "sort keys: more than %zu keys", max);
		keys[n++] = (enum hwp_branch_key_id)found;
		p += len;
		if (*p == ',')
			p++;
	}
	if (n == 0)
		return hwp_set_error(EINVAL, "sort keys: none given");
	return (int)n;
}

unsigned hwp_branch_keys__split(const enum hwp_branch_key_id *keys, size_t n)
{
	unsigned split = 0;

	for (size_t i = 0; i < n; i++) {
		if (keys[i] == HWP_KEY_MISPREDICT)
			split |= HWP_SPLIT_MISPRED;
		else if (keys[i] == HWP_KEY_TYPE)
			split |= HWP_SPLIT_TYPE;
		else if (keys[i] == HWP_KEY_CYCLES)
			split |= HWP_SPLIT_CYCLES;
	}
	return split;
}

static char level_char(const struct hwp_code_loc *l)
{
	return l->cpumode == HWP_MISC_KERNEL ? 'k' : '.';
}

static bool lookup(struct hwp_symbolizer *s, const struct hwp_code_loc *l, struct hwp_symbol_info *si)
{
	memset(si, 0, sizeof(*si));
	return l->module >= 0 && hwp_symbolizer__lookup(s, l->module, l->offset, si) == 0;
}

void hwp_loc__format_symbol(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len)
{
	struct hwp_symbol_info si;

	if (lookup(s, l, &si) && si.symbol)
		snprintf(buf, len, "[%c] %s", level_char(l), si.symbol);
	else
		snprintf(buf, len, "[%c] %#018" PRIx64, level_char(l), l->offset);
}

void hwp_loc__format_addr(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len)
{
	struct hwp_symbol_info si;

	if (lookup(s, l, &si) && si.symbol && si.sym_offset)
		snprintf(buf, len, "[%c] %s+%#" PRIx64, level_char(l), si.symbol, si.sym_offset);
	else if (si.symbol)
		snprintf(buf, len, "[%c] %s", level_char(l), si.symbol);
	else
		snprintf(buf, len, "[%c] %#018" PRIx64, level_char(l), l->offset);
}

void hwp_loc__format_dso(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len)
{
	snprintf(buf, len, "%s", l->module >= 0 ? hwp_symbolizer__module_short_name(s, l->module) : "[unknown]");
}

void hwp_loc__format_srcline(struct hwp_symbolizer *s, const struct hwp_code_loc *l, char *buf, size_t len)
{
	struct hwp_symbol_info si;

	if (lookup(s, l, &si) && si.file) {
		const char *base = strrchr(si.file, '/');
		snprintf(buf, len, "%s:%u", base ? base + 1 : si.file, si.line);
	} else if (si.symbol) {
		snprintf(buf, len, "%s+%" PRIu64, si.symbol, si.sym_offset);
	} else if (l->module >= 0) {
		snprintf(buf, len, "%s[%" PRIx64 "]", hwp_symbolizer__module_short_name(s, l->module), l->offset);
	} else {
		snprintf(buf, len, "[unknown][%" PRIx64 "]", l->offset);
	}
}

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
};

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

/*
 * What perf's sort keys compare (util/sort.c): symbols by identity (or the
 * address when there is none), source lines and addresses by address, modules
 * by module, and the flag keys by value. Two rows that print the same can
 * stay apart, as they do in perf (two branches on one source line).
 */
static void identity(struct hwp_symbolizer *s, enum hwp_branch_key_id k,
		     const struct hwp_branch_key *key, uint64_t out[2])
{
	const struct hwp_code_loc *l = NULL;

	switch (k) {
	case HWP_KEY_SYMBOL_FROM:
	case HWP_KEY_SRCLINE_FROM:
	case HWP_KEY_DSO_FROM:
	case HWP_KEY_ADDR_FROM:
		l = &key->from;
		break;
	case HWP_KEY_SYMBOL_TO:
	case HWP_KEY_SRCLINE_TO:
	case HWP_KEY_DSO_TO:
	case HWP_KEY_ADDR_TO:
		l = &key->to;
		break;
	case HWP_KEY_TYPE:
		out[0] = key->type;
		out[1] = 0;
		return;
	case HWP_KEY_MISPREDICT:
		out[0] = key->mispred_state;
		out[1] = 0;
		return;
	default:
		out[0] = key->cycles;
		out[1] = 0;
		return;
	}
	out[0] = (uint64_t)(uint32_t)l->module;
	out[1] = l->offset;
	if (k == HWP_KEY_DSO_FROM || k == HWP_KEY_DSO_TO) {
		out[1] = 0;
	} else if (k == HWP_KEY_SYMBOL_FROM || k == HWP_KEY_SYMBOL_TO) {
		struct hwp_symbol_info si;
		if (lookup(s, l, &si) && si.symbol)
			out[1] = l->offset - si.sym_offset; /* the symbol's start */
		else
			out[0] |= 1ULL << 40; /* no symbol: by address, apart from symbols */
	}
}

static void render_cell(struct hwp_symbolizer *s, enum hwp_branch_key_id k,
			const struct hwp_branch_key *key, char *buf, size_t len)
{
	switch (k) {
	case HWP_KEY_SYMBOL_FROM:
		hwp_loc__format_symbol(s, &key->from, buf, len);
		break;
	case HWP_KEY_SYMBOL_TO:
		hwp_loc__format_symbol(s, &key->to, buf, len);
		break;
	case HWP_KEY_SRCLINE_FROM:
		hwp_loc__format_srcline(s, &key->from, buf, len);
		break;
	case HWP_KEY_SRCLINE_TO:
		hwp_loc__format_srcline(s, &key->to, buf, len);
		break;
	case HWP_KEY_DSO_FROM:
		hwp_loc__format_dso(s, &key->from, buf, len);
		break;
	case HWP_KEY_DSO_TO:
		hwp_loc__format_dso(s, &key->to, buf, len);
		break;
	case HWP_KEY_ADDR_FROM:
		hwp_loc__format_addr(s, &key->from, buf, len);
		break;
	case HWP_KEY_ADDR_TO:
		hwp_loc__format_addr(s, &key->to, buf, len);
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
	struct hwp_branch_report *r;
	size_t n;
	size_t words = 2 * nkeys + 1; /* identity words, then the row index */

	if (!t || !keys || nkeys == 0 || nkeys >= HWP_MAX_SORT_KEYS) {
		if (!t)
			hwp_set_error(EINVAL, "branch report: no branch table given");
		else if (!keys || nkeys == 0)
			hwp_set_error(EINVAL, "branch report: no sort keys given");
		else
			hwp_set_error(EINVAL, "branch report: %zu sort keys, at most %d are supported", nkeys,
				      HWP_MAX_SORT_KEYS - 1);
		return NULL;
	}
	const struct hwp_branch_row *in = hwp_branch_table__rows(t, &n);
	r = calloc(1, sizeof(*r));
	if (!r) {
		hwp_set_error(ENOMEM, "out of memory building the branch report");
		return NULL;
	}
	r->nkeys = nkeys;
	r->total = hwp_branch_table__total(t);
	r->ids = calloc((n ? n : 1) * words, sizeof(*r->ids));
	struct hwp_branch_report_row *tmp = calloc(n ? n : 1, sizeof(*tmp));
	if (!r->ids || !tmp)
		goto oom;
	/* Identities first: group table rows as perf's hist entries group. */
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (!keep(sym, &in[i].key, f))
			continue;
		uint64_t *id = &r->ids[kept * words];
		for (size_t k = 0; k < nkeys; k++)
			identity(sym, keys[k], &in[i].key, &id[2 * k]);
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
			a->count += src->c.count;
			a->mispred += src->c.mispred;
			a->predicted += src->c.predicted;
			a->cycles_sum += src->c.cycles_sum;
			a->cycles_n += src->c.cycles_n;
			continue;
		}
		struct hwp_branch_report_row *row = &tmp[r->nr++];
		char cell[1024];
		for (size_t k = 0; k < nkeys; k++) {
			render_cell(sym, keys[k], &src->key, cell, sizeof(cell));
			row->cells[k] = hwp_arena__strndup(&r->arena, cell, sizeof(cell));
			if (!row->cells[k])
				goto oom;
		}
		row->c = src->c;
	}
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
	hwp_branch_report__delete(r);
	hwp_set_error(ENOMEM, "out of memory building the branch report (%zu branch rows)", n);
	return NULL;
}

void hwp_branch_report__delete(struct hwp_branch_report *r)
{
	if (!r)
		return;
	free(r->rows);
	free(r->ids);
	hwp_arena__free(&r->arena);
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
